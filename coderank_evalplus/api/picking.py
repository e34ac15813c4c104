"""Picking for a problem no benchmark has: ``pick(prompt, candidates)`` and the long-lived ``Picker``.

The prompt's examples become trial tests, inputs are grown from them (``examples+mutate``), tests are added when
you have any; the candidates run in the sandbox (exactly as in ``rerank``: each in a guarded child of a worker, its
verdicts decided outside it), ``recommended`` ranks them, the confidence model says how likely the pick is right.
Nothing is judged: there is no ground truth. The returned ``Pick`` says why: the examples and tests the pick
passes, and, for each group that lost, why it lost (it does not run, it is wrong on an example — what it returned —,
it timed out, it returns other than the pick on an input), with the candidates named by their file names. The
sentences are written from what ran once the last step after ranking was done: a pick drawn from a tie is called
one, and its confidence is divided by the tie (``metrics.pool_parts``).
"""

from __future__ import annotations

import ast
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from coderank_evalplus.api.options import option
from coderank_evalplus.engine.execution.executors import Executor, WarmExecutor
from coderank_evalplus.engine.shapes import shape_of
from coderank_evalplus.metrics import merged_groups, pick_pool, pool_parts
from coderank_evalplus.testgen.mutate import GROWN_INPUTS, SOURCE, TestSources
from coderank_evalplus.types import PASS, CoderankError, Executions, Problem, ProblemOutcome

__all__ = ["pick", "Picker", "Pick", "Evidence", "LostGroup", "NoCandidate", "read_pick_tests"]

MAX_GROUPS_EXPLAINED = 4  # losing groups named one by one in the reasons; the rest are counted


class NoCandidate(CoderankError):
    """None of the candidates is a program that defines the function asked for: there is nothing to pick."""


# --- pick among candidates for a problem no benchmark has -----------------------------------------------------
@dataclass
class Evidence:
    """One test or input and how the candidates did on it. ``kind``: "example" (a trial test from the prompt),
    "test" (one you gave), "grown" (an input grown from the examples) or "input" (the input of an assert).
    ``pick_passes``: whether the pick passes it (None for an input without an expected value). ``agree``: the
    candidates that pass it (tests) or that return what the pick returns (inputs). ``separates``: the pick's group
    and the next group differ on it."""

    kind: str
    text: str
    pick_passes: Optional[bool]
    agree: int
    separates: bool

    def to_json(self) -> dict:
        return {"kind": self.kind, "text": self.text, "pick_passes": self.pick_passes, "agree": self.agree,
                "separates": self.separates}


@dataclass
class LostGroup:
    """A group of candidates the pick was preferred to, and why. ``why``: "does not run" (``does`` says why: the
    error, or "empty", "defines no f", "leaves f without a body"), "example" (fails a
    prompt's example), "test" (fails a test you gave), "input" (on ``on`` it returns other than the pick;
    outvoted when more candidates do what the pick does), "selected" (set apart by a selection step on ``on``, an
    input grown for the leading programs), "score" (behaves like the pick where it runs, ranked lower). ``on``: the
    example, test or input that decided; ``does``: what the group's first program did there, in words (a probe);
    ``pick_does``: what the pick did there. ``agree`` / ``pick_agree`` (why "input"): the candidates that do what
    the group does there / what the pick does (the group is outvoted only when the pick's side is larger)."""

    candidates: list[int]
    names: list[str]
    why: str
    on: str = ""
    does: str = ""
    pick_does: str = ""
    agree: int = 0
    pick_agree: int = 0
    fault: bool = False  # ``does`` is what every member's text lacks (``io.candidates.entry_point_fault``)

    def sentence(self) -> str:
        """The reason in words, true of every candidate named: what a group shares (its verdicts; its outputs on
        an input it lost on) is said of all of them, what only its first program did is said of that one."""
        who, one = _names(self.names), len(self.candidates) == 1
        first = "" if one else f"{self.names[0]} "  # the probe ran the group's first program only
        if self.why == "does not run":
            does = self.does or "does not run"
            if one or self.fault:  # a fault is shared by every member (the groups are keyed by it)
                return f"{who}: {does}"
            return f"{who}: none of them runs ({self.names[0]} {does})"
        if self.why in ("example", "test"):
            what = "an example of the prompt" if self.why == "example" else "a test you gave"
            return (f"{who}: {'fails' if one else 'fail'} {what}, `{_short(self.on)}`"
                    + (f" ({first}{self.does})" if self.does else ""))
        they = "it" if one else "they"
        if self.why == "selected":
            return (f"{who}: set apart on `{_short(self.on)}`, an input grown for the leading programs: {they} "
                    f"{_verb(self.does, one)}, where the pick {self.pick_does}")
        if self.why == "input":
            lost = "" if self.does and self.pick_does else " (the run that says it in words was lost)"
            outvoted = self.pick_agree > self.agree
            votes = (f"{_count(self.pick_agree, 'candidate')} with the pick there, {self.agree} with "
                     f"{'it' if one else 'them'}" + ("" if outvoted else "; ranked lower by the ranker"))
            how = "outvoted on" if outvoted else "differs from the pick on" if one else "differ from the pick on"
            return (f"{who}: {how} `{_short(self.on)}`: {they} {_verb(self.does or 'does otherwise', one)}, where "
                    f"the pick {self.pick_does or 'does otherwise'} ({votes}){lost}")
        return (f"{who}: {'behaves' if one else 'behave'} like the pick wherever both run, ranked lower by the "
                f"ranker's score")

    def to_json(self) -> dict:
        return {"candidates": self.candidates, "names": self.names, "why": self.why, "on": self.on,
                "does": self.does, "pick_does": self.pick_does, "agree": self.agree, "pick_agree": self.pick_agree}


@dataclass
class Pick:
    """The chosen candidate for one problem and why. ``index``: its position in the candidates given; ``name``:
    its name (its file's, or "candidate <index>"); ``program``: its full program; ``group``: the candidates the
    ranker cannot tell apart from it (any of them is as good a pick); ``confidence``: the probability, per split,
    that it passes a benchmark's base / plus tests (``rankers/confidence.py``, calibrated on HumanEval+ / MBPP+
    folders); ``evidence``: every example, test and input that ran; ``lost``: the other groups and why each lost;
    ``reasons``: the same in sentences; ``tie``: when the pick is drawn from a tie (``metrics.pool_parts``), the
    group's parts that a step after ranking showed to differ and could not order (its confidence is divided by
    their number), else empty."""

    index: int
    program: str
    group: list[int]
    confidence: dict[str, float]
    method: str
    entry_point: str
    n_candidates: int
    n_groups: int
    evidence: list[Evidence] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    seconds: float = 0.0
    uses_prompt_examples: bool = True
    name: str = ""
    names: list[str] = field(default_factory=list)
    lost: list[LostGroup] = field(default_factory=list)
    steps: list[Any] = field(default_factory=list)  # each step's answer after ranking (``selection.base.Selection``)
    tie: list[list[int]] = field(default_factory=list)

    @property
    def separating(self) -> list[Evidence]:
        """The examples, tests and inputs that separated the pick's group from the next one."""
        return [e for e in self.evidence if e.separates]

    def to_json(self) -> dict:
        return {"index": self.index, "name": self.name, "group": self.group,
                "group_names": [self.names[c] for c in self.group] if self.names else [],
                "confidence": {s: round(v, 4) for s, v in self.confidence.items()}, "method": self.method,
                "entry_point": self.entry_point, "n_candidates": self.n_candidates, "n_groups": self.n_groups,
                "uses_prompt_examples": self.uses_prompt_examples, "reasons": self.reasons,
                "lost": [g.to_json() for g in self.lost],
                "steps": [s.to_json() for s in self.steps], "tie": self.tie,
                "evidence": [e.to_json() for e in self.evidence],
                "seconds": round(self.seconds, 3), "program": self.program}


def split_tests(tests: "str | Sequence[str] | None") -> list[str]:
    """Tests as a list of assert statements: a list is taken as given; a text is cut into its top-level
    statements. A text that does not compile, or a statement that is not an assert, is a CoderankError."""
    if tests is None:
        return []
    if not isinstance(tests, str):
        return [str(t).strip() for t in tests if str(t).strip()]
    try:
        tree = ast.parse(tests)
    except SyntaxError as exc:
        raise CoderankError(f"tests: line {exc.lineno} does not compile ({exc.msg})") from None
    others = [node for node in tree.body if not isinstance(node, (ast.Assert, ast.Import, ast.ImportFrom))]
    if others:
        raise CoderankError(f"tests: line {others[0].lineno} is not an assert statement (tests are asserts, e.g. "
                            f"assert add(2, 3) == 5)")
    out = [s for s in (ast.get_source_segment(tests, node) for node in tree.body
                       if isinstance(node, ast.Assert)) if s]
    if not out:
        raise CoderankError("tests: no assert statement in them")
    return out


def read_pick_tests(sources: Optional[Sequence[Any]]) -> tuple[Optional[list[str]], TestSources]:
    """``pick --tests``'s sources → (the asserts of its files, or None; the sources parsed: ``mutate`` is what
    ``Picker`` takes). Files: a .py of assert statements, or JSON lines of test samples ({samples|asserts}, a
    task_id, if any, ignored). Without sources: examples+mutate. With files and no examples+mutate: neither the
    examples nor grown inputs (as ``rerank``)."""
    from coderank_evalplus.api.options import flat_tests
    from coderank_evalplus.io.jsonl import SampleFileError, read_jsonl, str_list
    from coderank_evalplus.types import InputNotFound

    flat = flat_tests(list(sources)) if sources else []
    parsed = TestSources.parse(flat or [SOURCE])
    asserts: list[str] = []
    for f in parsed.files:
        path = Path(f)
        if not path.is_file():
            raise InputNotFound(f"tests {f}: no such file")
        if path.suffix == ".py":
            try:
                found = split_tests(path.read_text(encoding="utf-8", errors="replace"))
            except CoderankError as exc:
                raise CoderankError(f"tests {f}: {str(exc).removeprefix('tests: ')}") from None
        else:
            found = []
            for lineno, rec in read_jsonl(path):
                key = "asserts" if "asserts" in rec else "samples" if "samples" in rec else None
                if key is None:
                    raise SampleFileError(f"{path}:{lineno}: a test record needs 'samples' or 'asserts' (keys: "
                                          f"{sorted(map(str, rec))[:6]}); is this a file of candidates?")
                found += [("assert " + t.strip()) if key == "samples" and not t.strip().startswith("assert")
                          else t.strip() for t in str_list(rec, key, path, lineno)]
        if not found:
            raise SampleFileError(f"tests {f}: no assert in it")
        asserts += found
    return (asserts if parsed.files else None), parsed


class Picker:
    """Picks problem after problem with the same sandbox workers and execution cache: each problem goes down the
    per-problem path (``selection.path.ProblemPath``: the same execution, rankers, steps and confidence as
    ``rerank``), without a judge.

    ``with Picker() as picker: choice = picker.pick(prompt, candidates)``. The workers start on entering (or on
    the first pick) and stop on leaving (or ``close()``); the cache lives in ``cache_dir`` (kept) or in a temporary
    folder (removed on close). ``method``: any ranker (default ``recommended``); ``mutate``: inputs grown from the
    prompt's examples, as ``examples+mutate:N`` (0: the examples alone; None: neither, only the tests given);
    ``time_limit``: CPU seconds per test, as ``rerank --time-limit``."""

    def __init__(self, method: str = option("method").default, mutate: Optional[int] = GROWN_INPUTS,
                 seed: int = option("seed").default, time_limit: float = option("time_limit").default,
                 workers: Optional[int] = None, cache_dir: "str | os.PathLike | None" = None,
                 select_model: Optional[str] = None, select_backend: Optional[str] = None,
                 select_base_url: Optional[str] = None,
                 select_max_tokens: int = option("select_max_tokens").default) -> None:
        from coderank_evalplus.api.evaluate import stage_config
        from coderank_evalplus.api.options import COUNT, METHOD, RerankOptions, check_value

        self.method = check_value("method", METHOD, method)
        self.mutate = None if mutate is None else check_value("mutate", COUNT, mutate)
        # the rest checked as rerank's options are; S* after ranking (select_model) is made on the first pick
        self._options = RerankOptions(methods=[self.method], time_limit=time_limit, seed=seed, workers=workers,
                                      progress=False, select_model=select_model, select_backend=select_backend,
                                      select_base_url=select_base_url, select_max_tokens=select_max_tokens).check()
        self.time_limit, self.workers, self.seed = self._options.time_limit, self._options.workers, self._options.seed
        self._cfg = stage_config(self._options, TestSources(mutate=self.mutate))
        self._cache_dir = Path(cache_dir) if cache_dir is not None else None
        self._executor: Optional[WarmExecutor] = None
        self._cache: Any = None
        self._tmp: Optional[tempfile.TemporaryDirectory] = None
        self._path: Any = None  # the per-problem path (selection.path.ProblemPath) on the workers and cache
        self._selector: Any = None  # S*'s step, made once

    def __enter__(self) -> "Picker":
        self._start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _start(self) -> tuple[Executor, Any]:
        from coderank_evalplus.engine.execution.execute import ResultCache

        if self._executor is None:
            self._executor = WarmExecutor(self.workers)
            self._executor.start()
        if self._cache is None:
            folder = self._cache_dir
            if folder is None:
                self._tmp = tempfile.TemporaryDirectory(prefix="coderank_pick_")
                folder = Path(self._tmp.name)
            self._cache = ResultCache(folder / "executions.sqlite")
        return self._executor, self._cache

    def close(self) -> None:
        """Stop the workers, close the cache (a temporary one is removed)."""
        self._path = None
        if self._executor is not None:
            self._executor.__exit__(None, None, None)
            self._executor = None
        if self._cache is not None:
            self._cache.close()
            self._cache = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def pick(self, prompt: "str | Problem | dict", candidates: Sequence[str], entry_point: Optional[str] = None,
             tests: "str | Sequence[str] | None" = None, raw: bool = False, name: Optional[str] = None,
             names: Optional[Sequence[str]] = None) -> Pick:
        """The candidate to keep for ``prompt`` (a prompt's text; or a ``Problem``, or a LiveCodeBench record: then
        its public tests are the trial tests). ``candidates``: full programs or completions of the prompt (raw
        chat replies with ``raw=True``, read as ``--raw-field`` reads them); ``entry_point``: the function asked for
        (default: the last ``def`` of the prompt); ``tests``: assert statements you have (a text or a list);
        ``name``: the problem's name, which seeds the grown inputs (default: one made from the prompt's text);
        ``names``: the candidates' names in the reasons (default: "candidate 0", "candidate 1", …).
        ``NoCandidate`` when none of them defines the entry point."""
        from coderank_evalplus.engine.execution.execute import ProblemWork
        from coderank_evalplus.io.candidates import as_program
        from coderank_evalplus.io.sanitize import raw_program
        from coderank_evalplus.rankers import uses_prompt_examples
        from coderank_evalplus.testgen.extract import assert_body
        from coderank_evalplus.testgen.io_tests import suite_for

        t0 = time.monotonic()
        if isinstance(candidates, str) or not candidates:
            raise CoderankError("candidates: give a list of at least one program")
        if names is not None and len(names) != len(candidates):
            raise CoderankError(f"names: {len(names)} names for {len(candidates)} candidates")
        labels = list(names) if names is not None else [f"candidate {i}" for i in range(len(candidates))]
        problem = _problem_of(prompt, entry_point, name)
        programs = [raw_program(c, problem) if raw else as_program(c, problem) for c in candidates]
        faults = refuse_if_none_defines(programs, problem.entry_point, labels, problem)
        given = [assert_body(t.strip()) for t in split_tests(tests)]
        # each test its own sample, kept whole: what you give is never cut at CodeT's five asserts per sample
        work = ProblemWork(problem, programs, suite_for(problem, given, None))
        outcome = self._problem_path().run([work])[problem.task_id]
        grown = set(outcome.generated["inputs"]) if outcome.generated else set()
        chosen = _explain(outcome, self.method, problem, set(given), grown, programs, labels, faults,
                          self._executor, self.time_limit)
        chosen.uses_prompt_examples = uses_prompt_examples(self.method, self.mutate is not None)
        chosen.seconds = time.monotonic() - t0
        return chosen

    def _problem_path(self) -> Any:
        """The per-problem path on this picker's workers and cache (``selection.path.ProblemPath``), with S* after
        ranking when ``select_model`` is set (its replies logged in the cache folder)."""
        if self._path is None:
            from coderank_evalplus.selection.path import ProblemPath
            from coderank_evalplus.selection.sstar import selector_from_options

            executor, cache = self._start()
            if self._selector is None:
                folder = self._cache_dir or (Path(self._tmp.name) if self._tmp else Path("."))
                self._selector = selector_from_options(self._options, folder)
            self._path = ProblemPath(self._cfg, [self.method], cache, executor,
                                     [self._selector] if self._selector is not None else [])
        return self._path


def refuse_if_none_defines(programs: Sequence[str], entry_point: str, names: Sequence[str],
                           problem: Optional[Problem] = None) -> list[str]:
    """``NoCandidate`` when no program compiles and defines ``entry_point`` with a body: each is empty, prose,
    another function or a statement, or the signature alone (``io.candidates.entry_point_fault``), so there is
    nothing to run, nothing to pick. A method's program may define it in its class (``problem.class_name``); a
    stdin program needs only to compile. Each reason at the candidate's own lines. Else each program's fault, which
    the reasons of the groups that lost say again (``losing_groups``)."""
    from coderank_evalplus.engine.execution.probe import prompt_lines, syntax_error_words
    from coderank_evalplus.io.candidates import diagnose

    problem = problem or Problem("", "", "", entry_point)
    found = [diagnose(prog, problem) for prog in programs]
    if any(not fault and error is None for fault, error in found):
        return [fault for fault, _ in found]
    reasons = []
    for (fault, error), prog, label in zip(found, programs, names):
        if isinstance(error, SyntaxError):
            reasons.append(f"{label}: does not compile ({syntax_error_words(error, 0, prompt_lines(problem, prog))})")
        else:
            reasons.append(f"{label}: does not compile" if error is not None else f"{label}: {fault}")
    what = "is a program" if shape_of(problem).reads_stdin else f"defines {entry_point}"
    raise NoCandidate(f"no candidate {what} ({'; '.join(reasons[:3])}{' …' if len(reasons) > 3 else ''})")


def _problem_of(prompt: "str | Problem | dict", entry_point: Optional[str], name: Optional[str]) -> Problem:
    """What ``pick`` is given, as a Problem: one already, a record of a problem file (LiveCodeBench's or one of your
    own, read as ``--dataset`` reads it), or a prompt; its shape decided as every reader decides it."""
    from coderank_evalplus.io.problems import problem_from_prompt, problem_of_record

    if isinstance(prompt, Problem):
        return prompt
    if isinstance(prompt, dict):
        ident = prompt.get("question_id", prompt.get("task_id"))
        return problem_of_record(prompt, "pick's record" + (f" {ident!r}" if ident is not None else ""))
    return problem_from_prompt(prompt, entry_point, name)


def pick(prompt: "str | Problem | dict", candidates: Sequence[str], entry_point: Optional[str] = None,
         tests: "str | Sequence[str] | None" = None, *, raw: bool = False, method: str = option("method").default,
         mutate: Optional[int] = GROWN_INPUTS, seed: int = option("seed").default,
         time_limit: float = option("time_limit").default, workers: Optional[int] = None,
         names: Optional[Sequence[str]] = None) -> Pick:
    """The candidate to keep for one problem given as a prompt (``Picker.pick`` with workers of its own, started
    and stopped here; use ``Picker`` for many problems). ``NoCandidate`` (a ``CoderankError``) when none of the
    candidates defines the entry point; bad values: ``OptionError``."""
    with Picker(method, mutate, seed, time_limit, workers) as picker:
        return picker.pick(prompt, candidates, entry_point, tests, raw, names=names)


# --- why: the evidence and the groups that lost ---------------------------------------------------------------
def _explain(outcome: ProblemOutcome, method: str, problem: Problem, given: set[str], grown: set[str],
             programs: list[str], names: list[str], faults: list[str], executor: Optional[Executor],
             time_limit: float) -> Pick:
    """The pick of ``outcome``'s ranking by ``method``, with the evidence (how every example, test and input
    treated the pick, the others, and the next group) and why each other group lost (``faults``: each program's
    ``io.candidates.entry_point_fault``, as ``refuse_if_none_defines`` found them)."""
    trials = problem.trial_tests
    ex = outcome.executions
    assert ex is not None  # the per-problem path keeps the executions it ranked
    ranking = outcome.rankings[method]
    n = ex.n_candidates
    groups = merged_groups(ranking)
    group = pick_pool(ranking, n)
    nxt = sorted(groups[1].candidates) if len(groups) > 1 else []
    rows = np.asarray(ex.program_of_candidate)
    pick_row, next_rows = rows[group[0]], rows[nxt] if nxt else np.zeros(0, dtype=int)
    evidence = (_test_evidence(ex, rows, pick_row, next_rows, trials, given)
                + _input_evidence(ex, rows, pick_row, next_rows, grown))
    conf = dict(outcome.confidence.get(method, {}))
    chosen = Pick(group[0], programs[group[0]], group, conf, method, problem.entry_point, n, len(groups), evidence,
                  name=names[group[0]], names=names)
    parts = pool_parts(ranking, n)
    chosen.tie = parts if len(parts) > 1 else []
    chosen.lost = losing_groups(ex, group, trials, given, names, faults)
    chosen.steps = list(outcome.steps.get(method, []))
    for step in chosen.steps:
        set_apart(chosen.lost, step.evidence)
    _describe_lost(chosen.lost, programs, group[0], problem, executor, time_limit)
    chosen.reasons = _reasons(chosen, ex, problem.shape, outcome.generated is not None)
    return chosen


def _test_evidence(ex: Executions, rows: np.ndarray, pick_row: int, next_rows: np.ndarray, trials: Sequence[str],
                   given: set[str]) -> list[Evidence]:
    """The prompt's examples (trial tests) and the tests you gave, each with who passes it."""
    out = []
    if ex.trial_matrix.ndim == 2:
        for t in range(ex.trial_matrix.shape[1]):
            out.append(_pass_evidence("example", trials[t] if t < len(trials) else "", ex.trial_matrix[:, t] == PASS,
                                      rows, pick_row, next_rows))
    for a, body in enumerate(ex.suite.asserts):
        if body in given:
            out.append(_pass_evidence("test", "assert " + body, ex.pass_matrix[:, a] == PASS, rows, pick_row,
                                      next_rows))
    return out


def _pass_evidence(kind: str, text: Optional[str], passes: np.ndarray, rows: np.ndarray, pick_row: int,
                   next_rows: np.ndarray) -> Evidence:
    separates = bool(next_rows.size) and bool((passes[next_rows] != passes[pick_row]).any())
    return Evidence(kind, text or "", bool(passes[pick_row]), int(passes[rows].sum()), separates)


def _input_evidence(ex: Executions, rows: np.ndarray, pick_row: int, next_rows: np.ndarray,
                    grown: set[str]) -> list[Evidence]:
    out = []
    for i, call in enumerate(ex.suite.inputs):
        same = (ex.output_matrix[:, i] == ex.output_matrix[pick_row, i]) & (
            ex.output_kind[:, i] == ex.output_kind[pick_row, i])
        separates = bool(next_rows.size) and bool((~same[next_rows]).any())
        out.append(Evidence("grown" if call in grown else "input", call, None, int(same[rows].sum()), separates))
    return out


def losing_groups(ex: Executions, pool: Sequence[int], trials: Sequence[str], given: set[str],
                  names: Sequence[str], faults: Optional[Sequence[str]] = None) -> list[LostGroup]:
    """The candidates outside the pick's pool, grouped by program behaviour (same verdict on every example and
    test, same output on every input; a program that does not run: the same program, so its error is its own) and
    by what its text lacks (``faults``: ``io.candidates.entry_point_fault`` of each), largest first, each with the
    first reason it lost: it is empty or has no entry point to run, it does not run; it fails an example the pick
    passes; a test you gave; it returns other than the pick on an input; else the ranker's score."""
    rows = np.asarray(ex.program_of_candidate)
    pick_row = rows[pool[0]]
    inside = set(int(c) for c in pool)
    by_behaviour: dict[tuple, list[int]] = {}
    for c in range(ex.n_candidates):
        if c in inside:
            continue
        r = rows[c]
        # programs that do not run are told by their own error: each distinct program its own group
        key = (faults[c] if faults else "", -1 if ex.compiled[r] else int(r),
               ex.trial_matrix[r].tobytes() if ex.trial_matrix.ndim == 2 else b"",
               ex.pass_matrix[r].tobytes(), ex.output_matrix[r].tobytes(), ex.output_kind[r].tobytes())
        by_behaviour.setdefault(key, []).append(c)
    given_cols = [a for a, body in enumerate(ex.suite.asserts) if body in given]
    out = []
    for members in sorted(by_behaviour.values(), key=lambda m: (-len(m), m[0])):
        r = rows[members[0]]
        lost = LostGroup(members, [names[c] for c in members], "score")
        if faults and faults[members[0]]:  # nothing of its own to run: said so, not what the prompt's stub returns
            lost.why, lost.does, lost.fault = "does not run", faults[members[0]], True
        elif not ex.compiled[r]:
            lost.why = "does not run"
        elif ex.trial_matrix.ndim == 2 and (cols := [t for t in range(ex.trial_matrix.shape[1])
                                                     if ex.trial_matrix[r, t] != PASS
                                                     and ex.trial_matrix[pick_row, t] == PASS]):
            lost.why, lost.on = "example", trials[cols[0]] if cols[0] < len(trials) else ""
        elif cols := [a for a in given_cols if ex.pass_matrix[r, a] != PASS and ex.pass_matrix[pick_row, a] == PASS]:
            lost.why, lost.on = "test", "assert " + ex.suite.asserts[cols[0]]
        else:
            differs = [i for i in range(len(ex.suite.inputs))
                       if (ex.output_matrix[r, i], ex.output_kind[r, i])
                       != (ex.output_matrix[pick_row, i], ex.output_kind[pick_row, i])]
            if differs:
                i = differs[0]
                lost.why, lost.on = "input", ex.suite.inputs[i]
                outs, kinds = ex.output_matrix[rows, i], ex.output_kind[rows, i]
                lost.agree = int(((outs == ex.output_matrix[r, i]) & (kinds == ex.output_kind[r, i])).sum())
                lost.pick_agree = int(((outs == ex.output_matrix[pick_row, i])
                                       & (kinds == ex.output_kind[pick_row, i])).sum())
        out.append(lost)
    return out


def set_apart(lost: list[LostGroup], evidence: Sequence[Any]) -> None:
    """The groups that a selection step set apart from the pick (``selection.base.SelectionEvidence``): their reason
    becomes the deciding input and what each side returned there (they behaved like the pick on every input of the
    pool, so the ranker's score alone did not decide)."""
    for e in evidence:
        if len(e.sides) < 2:
            continue
        a, b = e.sides[0], e.sides[1]
        for g in lost:
            if g.why == "score" and set(g.candidates) & set(b.candidates):
                g.why, g.on, g.does, g.pick_does = "selected", e.input, b.output, a.output


def _describe_lost(lost: list[LostGroup], programs: list[str], pick_index: int, problem: Problem,
                   executor: Optional[Executor], time_limit: float) -> None:
    """Fill ``does`` / ``pick_does`` of the groups explained one by one with what their first program (and the
    pick) did on the deciding example, test or input: one probe each, in the sandbox
    (``engine.execution.probe.probe_of``: built for the problem's call shape)."""
    from coderank_evalplus.engine.execution.probe import Probe, in_words, probe_all, probe_of

    asks: list[tuple[LostGroup, str, Probe]] = []
    for g in lost[:MAX_GROUPS_EXPLAINED]:
        if g.why in ("score", "selected") or g.does:  # selected: its words came with the selection; a fault: its own
            continue
        test = "assert True" if g.why == "does not run" else g.on if g.on.startswith("assert") else f"assert {g.on}"
        asks.append((g, "does", probe_of(problem, programs[g.candidates[0]], test, time_limit)))
        if g.why == "input":
            asks.append((g, "pick_does", probe_of(problem, programs[pick_index], test, time_limit)))
    if not asks:
        return
    try:
        found = probe_all([a[2] for a in asks], executor=executor)
    except Exception:  # noqa: BLE001 - the reasons are an explanation; the pick stands without their words
        return
    for (g, slot, _), probe in zip(asks, found):
        setattr(g, slot, in_words(probe))


def _reasons(p: Pick, ex: Executions, shape: str, grew: bool = True) -> list[str]:
    """The pick and why, in sentences written from what ran once the last step was done, each true of the pick
    shown: its group and on what its members agree (a tie when a step showed they differ), the examples and tests
    it passes, on which inputs which candidates return (print) what it does, each group that lost and why, each
    step's deciding input, the confidence (divided by the tie). ``grew``: inputs were grown from the examples."""
    rows = np.asarray(ex.program_of_candidate)
    examples = [e for e in p.evidence if e.kind == "example"]
    tests = [e for e in p.evidence if e.kind == "test"]
    inputs = [e for e in p.evidence if e.kind in ("grown", "input")]
    out = [_pick_sentence(p, ex, rows, examples, tests, inputs)]
    out += _passes_sentences(examples, tests)
    if inputs:
        out.append(_inputs_sentence(p, ex, rows, inputs, shape, grew))
    if not grew:
        out.append("no input was grown from the examples: growing was off (mutate 0; `pick --tests FILE` turns it "
                   "off: the file's asserts add to the prompt's examples and replace the grown inputs; --tests "
                   "FILE,examples+mutate gives both)")
    out += _lost_sentences(p)
    for step in p.steps:
        out += step.reasons(p.names)
    if p.confidence:
        out.append(_confidence_sentence(p))
    return out


def _pick_sentence(p: Pick, ex: Executions, rows: np.ndarray, examples: Sequence, tests: Sequence,
                   inputs: Sequence) -> str:
    """The first sentence: who was picked (from a tie or not), its group and on what its members agree."""
    ran = _and(["the " + _count(len(examples), "example") + " of the prompt" if examples else "",
                "the " + _count(len(tests), "test") + " you gave" if tests else "",
                "the " + _count(len(inputs), "input") if inputs else ""]) or "nothing (nothing ran)"
    alike = _behaves_as(ex, rows, rows[p.index])
    return f"{p.method} picked {p.name}" + (" from a tie" if p.tie else "") + ": " + _group_sentence(p, alike, ran)


def _passes_sentences(examples: Sequence, tests: Sequence) -> list[str]:
    """How many of the prompt's examples and of the user's tests the pick passes (and that the prompt shows no
    example that runs, when it shows none)."""
    out = []
    for items, noun, where in ((examples, "example", " of the prompt"), (tests, "test", " you gave")):
        if items:
            passed = sum(bool(e.pick_passes) for e in items)
            out.append(f"it {'passes' if passed else 'fails'} the {noun}{where}" if len(items) == 1 else
                       f"it passes {passed} of the {_count(len(items), noun)}{where}")
        elif noun == "example":
            out.append("the prompt shows no example that runs as a test")
    return out


def _inputs_sentence(p: Pick, ex: Executions, rows: np.ndarray, inputs: Sequence, shape: str, grew: bool) -> str:
    """On how many inputs (called by the examples and tests, grown) how many candidates return (print) exactly
    what the pick does."""
    same = np.ones(p.n_candidates, dtype=bool)
    pick_row = rows[p.index]
    for i in range(len(ex.suite.inputs)):
        same &= (ex.output_matrix[rows, i] == ex.output_matrix[pick_row, i]) & (
            ex.output_kind[rows, i] == ex.output_kind[pick_row, i])
    grown = sum(e.kind == "grown" for e in inputs)
    called = len(inputs) - grown
    where = _and([f"{called} from the calls of the examples and tests" if called else "",
                  f"{grown} grown from the examples" if grown else "" if grew else "none grown"])
    k = int(same.sum())
    root = shape_of(shape).result_verb
    verb = f"{root}s" if k == 1 else root
    return (f"on {_count(len(inputs), 'input')} ({where}), {k} of the {p.n_candidates} candidates (the pick among "
            f"them) {verb} exactly what it {root}s on {'it' if len(inputs) == 1 else 'every one'}")


def _lost_sentences(p: Pick) -> list[str]:
    """Each group that lost and why (the first ``MAX_GROUPS_EXPLAINED``), then the rest counted and named."""
    shown = p.lost[:MAX_GROUPS_EXPLAINED]
    out = [f"lost: {g.sentence()}" for g in shown]
    rest = p.lost[MAX_GROUPS_EXPLAINED:]
    if rest:
        n_rest = sum(len(g.candidates) for g in rest)
        out.append(f"lost: {_count(len(rest), 'more group')} ({_count(n_rest, 'candidate')}: "
                   f"{_names([n for g in rest for n in g.names])})")
    return out


def _confidence_sentence(p: Pick) -> str:
    """The confidence that the pick is right, per split, and for a tie that it is divided by the tie's parts."""
    tie = (f", the top group's divided by the {len(p.tie)} parts of the tie it is drawn from (at most one of "
           f"them can be right, and nothing prefers one)") if p.tie else ""
    return "confidence it is right: " + ", ".join(f"{v:.2f} ({s} tests)" for s, v in p.confidence.items()) + tie


def _behaves_as(ex: Executions, rows: np.ndarray, row: int) -> np.ndarray:
    """Per candidate: whether it behaves as program ``row`` on everything that ran (the same verdict on every
    example and assert, the same output on every input)."""
    same = np.ones(len(rows), dtype=bool)
    for m in (ex.trial_matrix, ex.pass_matrix, ex.output_matrix, ex.output_kind):
        if m.ndim == 2 and m.shape[1]:
            same &= (m[rows] == m[row]).all(axis=1)
    return same


def _group_sentence(p: Pick, alike: np.ndarray, ran: str) -> str:
    """Who is in the pick's group and on what they agree: all of them alike on what ran (``ran``), or some not
    (the ranker scored them alike), and, for a tie, that a step showed them to differ."""
    size = f" ({_count(p.n_candidates, 'candidate')}, {_count(p.n_groups, 'group')})"
    others = len(p.group) - 1
    if not others:
        return f"it is alone in the top group{size}"
    same = int(alike[[c for c in p.group if c != p.index]].sum())
    text = f"it is in the top group with {_count(others, 'other candidate')}"
    if same == others:
        text += f", {'which behaves' if others == 1 else 'all of which behave'} the same on {ran}"
    elif not same:
        text += (f", {'which does not behave' if others == 1 else 'none of which behaves'} the same on {ran} (the "
                 f"ranker scores them alike)")
    else:
        text += (f": {same} of them {'behaves' if same == 1 else 'behave'} the same on {ran}, {others - same} "
                 f"{'does' if others - same == 1 else 'do'} not (the ranker scores them alike)")
    if p.tie:
        sizes = _and([str(len(t)) for t in p.tie])
        text += (f"; the selection step found an input where they differ (below) and could not order them: a tie "
                 f"of {len(p.tie)} parts ({sizes} candidates), {p.name} is the group's first and as good a pick as "
                 f"any")
    return text + size


def _and(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c`` of the non-empty ``items``."""
    items = [i for i in items if i]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else ""


def _count(n: int, noun: str) -> str:
    """``1 input``, ``2 inputs``, ``0 inputs``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


_PLURAL = (("returns", "return"), ("prints", "print"), ("raises", "raise"), ("does not", "do not"),
           ("passes", "pass"))


def _verb(clause: str, one: bool) -> str:
    """A probe's clause (``engine.execution.probe.in_words``: "returns 3", "does not run: …") said of one candidate
    or of several."""
    if one:
        return clause
    for single, plural in _PLURAL:
        if clause.startswith(single):
            return plural + clause[len(single):]
    return clause


def _names(names: Sequence[str], most: int = 3) -> str:
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def _short(text: str, width: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
