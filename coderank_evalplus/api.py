"""The Python API: the functions a notebook or a program calls; the CLI calls them too (one path).

- ``rerank(solutions, tests, dataset=...)``: a benchmark's samples reranked as ``coderank-evalplus rerank`` does
  (same arguments, same defaults), returned as ``RerankOutput``: per-method pass@k with bootstrap intervals, each
  problem's pick and its confidence, ``uses_prompt_examples``, timing; ``.write(folder)`` writes the results folder.
- ``pick(prompt, candidates)``: the program to keep for a problem no benchmark has. Its examples become trial tests,
  inputs are grown from them (``examples+mutate``), tests are added when you have any; the candidates run in the
  sandbox, ``recommended`` ranks them and the confidence model says how likely the pick is right. Nothing is
  judged: there is no ground truth. Returns a ``Pick`` that says why.
- ``Picker()``: the long-lived form, a context manager that keeps the sandbox's workers and the execution cache
  for problem after problem.

Untrusted candidates run exactly as in ``rerank``: each in a guarded child of a worker, their verdicts decided
here from what they report (``engine.execution``), so a candidate decides nothing about itself.
"""

from __future__ import annotations

import ast
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from coderank_evalplus.engine.executors import Executor, WarmExecutor
from coderank_evalplus.engine.judge import DEFAULT_GT_TIME_LIMIT_FACTOR, DEFAULT_MIN_TIME_LIMIT
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.metrics import merged_groups, pick_pool
from coderank_evalplus.rankers.registry import DEFAULT_METHODS
from coderank_evalplus.testgen.extract import DEFAULT_TESTS_PER_SAMPLE
from coderank_evalplus.testgen.mutate import DEFAULT_N
from coderank_evalplus.types import PASS, Executions, Problem, ProblemOutcome, RerankResult

__all__ = ["rerank", "RerankOutput", "ProblemPick", "pick", "Picker", "Pick", "Evidence"]


# --- rerank a benchmark's samples -----------------------------------------------------------------------------
@dataclass
class ProblemPick:
    """One problem's pick by one method: the candidate pass@1 takes (the lowest index of the top group: the
    ranker cannot tell the group's members apart), the group, and the confidence (per split) that it passes."""

    task_id: str
    index: int
    group: list[int]
    confidence: dict[str, float]


@dataclass
class RerankOutput:
    """What ``rerank`` returns. ``result`` is the pipeline's record (``types.RerankResult``), ``folder`` the results
    folder written (None when ``output`` was not given)."""

    result: RerankResult
    folder: Optional[Path] = None

    @property
    def methods(self) -> list[str]:
        """The methods reported, baselines (``random``, ``oracle``) included."""
        return list(self.result.methods)

    @property
    def timing(self) -> dict:
        """Wall seconds per phase (load, execute, rank, judge, metrics, total) and the work counts."""
        return dict(self.result.timing)

    def pass_at(self, method: str = "recommended", k: int = 1, split: str = "base") -> float:
        """Reranked pass@k (percent) of ``method`` on ``split`` ("base" or "plus")."""
        table = self.result.methods[method][split]
        if table is None:
            raise ValueError(f"no {split} tests were judged (a dataset without plus tests, or base_only)")
        return float(table[f"pass@{k}"])

    def interval(self, method: str = "recommended", k: int = 1, split: str = "base",
                 resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
        """95 % bootstrap interval (percent) of ``pass_at(method, k, split)`` over problems
        (``report.stats``, the leaderboard's intervals)."""
        from coderank_evalplus.report.stats import mean_estimate, resample_indices

        scores = self.scores(method, k, split)
        return mean_estimate(scores, resample_indices(len(scores), resamples, seed)).ci95

    def scores(self, method: str = "recommended", k: int = 1, split: str = "base") -> np.ndarray:
        """Per problem (in ``task_ids`` order), the probability that ``method``'s k picks pass ``split``."""
        from coderank_evalplus.pipeline import problem_scores

        return np.asarray(problem_scores(self.result.outcomes, method, k, split), dtype=float)

    def uses_prompt_examples(self, method: str = "recommended") -> bool:
        """Whether ``method``'s numbers used the prompt's examples (not CodeT's published setting)."""
        return bool(self.result.methods[method]["uses_prompt_examples"])

    @property
    def task_ids(self) -> list[str]:
        return list(self.result.outcomes)

    def picks(self, method: str = "recommended") -> dict[str, ProblemPick]:
        """Each problem's pick by ``method``, with its group and confidence."""
        out = {}
        for tid, o in self.result.outcomes.items():
            group = pick_pool(o.rankings[method], o.n_candidates)
            out[tid] = ProblemPick(tid, group[0], group, dict(o.confidence.get(method, {})))
        return out

    def summary(self) -> dict:
        """{method: {split: {"pass@k": value, "pass@k_ci95": [lo, hi]}, "uses_prompt_examples": bool}}."""
        out: dict[str, Any] = {}
        for m, row in self.result.methods.items():
            out[m] = {"uses_prompt_examples": row["uses_prompt_examples"]}
            for split in ("base", "plus"):
                if row.get(split) is None:
                    out[m][split] = None
                    continue
                out[m][split] = {}
                for key, value in row[split].items():
                    k = int(key.split("@")[1])
                    out[m][split][key] = value
                    out[m][split][f"{key}_ci95"] = [round(x, 2) for x in self.interval(m, k, split)]
        return out

    def write(self, folder: str | os.PathLike) -> Path:
        """Write the usual results folder (rerank_results.json, verdicts.jsonl, rankings.jsonl, …); its summary
        file's path."""
        from coderank_evalplus.pipeline import write_results

        return write_results(self.result, Path(folder))


def rerank(solutions: str | os.PathLike, tests: "str | os.PathLike | Sequence[str | os.PathLike] | None" = None, *,
           dataset: str = "humaneval", methods: Sequence[str] | str = DEFAULT_METHODS,
           data_dir: Optional[str] = None, output: "str | os.PathLike | None" = None,
           cache_dir: "str | os.PathLike | None" = None, limit: Optional[int] = None,
           tests_per_sample: Optional[int] = DEFAULT_TESTS_PER_SAMPLE, time_limit: float = 0.1,
           workers: Optional[int] = None, executor: str = "local", ray_address: Optional[str] = None,
           base_only: bool = False, min_time_limit: float = DEFAULT_MIN_TIME_LIMIT,
           gt_time_limit_factor: float = DEFAULT_GT_TIME_LIMIT_FACTOR, strict: bool = False,
           eval_results: "str | os.PathLike | None" = None, drop_extra_problems: bool = False,
           raw_field: Optional[str] = None, progress: bool = True) -> RerankOutput:
    """Rerank a benchmark's samples as ``coderank-evalplus rerank`` does (docs/usage.md has every option).

    ``solutions``: a samples file or folder in any format ``rerank`` reads; ``tests``: test sample files and/or
    ``"examples+mutate[:N]"`` (default: ``examples+mutate``, no model needed); ``dataset``: a benchmark name or your
    own problem file (``.jsonl``). With ``output`` the results folder is written there (its execution cache in
    ``output/cache`` unless ``cache_dir``); without, nothing is written (``cache_dir`` still keeps a cache)."""
    from coderank_evalplus.engine.execution import ResultCache
    from coderank_evalplus.engine.workers import CANDIDATE_LOG, CANDIDATE_LOG_ENV, log_candidates_to
    from coderank_evalplus.generation.likelihood import features_for
    from coderank_evalplus.io.problems import load_problems, select_problems, selection_note
    from coderank_evalplus.io.samples import read_solutions
    from coderank_evalplus.io.sanitize import SanitizeTally
    from coderank_evalplus.pipeline import RerankConfig, all_methods, read_tests, write_results
    from coderank_evalplus.pipeline import rerank as run_pipeline
    from coderank_evalplus.storage import ensure_writable_dir
    from coderank_evalplus.testgen.mutate import SOURCE, no_pool_note

    if ray_address and executor != "ray":
        raise ValueError("ray_address needs executor='ray'")
    names = methods.split(",") if isinstance(methods, str) else list(methods)
    cfg = RerankConfig(methods=names, tests_per_sample=tests_per_sample or None, cpu_limit=time_limit,
                       workers=workers, plus=not base_only, min_time_limit=min_time_limit,
                       gt_time_limit_factor=gt_time_limit_factor, progress=progress, executor=executor,
                       ray_address=ray_address, limit=limit or None, strict=strict)
    all_methods(cfg.methods)  # fail fast on an unknown method, before any work
    if eval_results is not None and not Path(eval_results).is_file():
        raise FileNotFoundError(f"--eval-results {eval_results}: no such file")
    t0 = time.monotonic()
    problems = load_problems(dataset, data_dir)
    tally = SanitizeTally(raw_field) if raw_field else None
    sols = read_solutions(solutions, problems, data_dir, drop_extra=drop_extra_problems, raw_field=raw_field,
                          tally=tally)
    if tally is not None:
        print(tally.line(), file=sys.stderr)
    if not tests:  # no pool given: the one that needs no model
        print(no_pool_note(), file=sys.stderr)
        tests = [SOURCE]
    sources = [str(tests)] if isinstance(tests, (str, os.PathLike)) else [str(t) for t in tests]
    raw_tests, mutate = read_tests(sources, problems, data_dir, drop_extra=drop_extra_problems)
    cfg = replace(cfg, mutate=mutate)
    chosen = select_problems(problems, sols, cfg.limit)  # the dataset's first N, not the file's
    if not chosen:
        first = f"the first {cfg.limit} problems" if cfg.limit else "the problems"
        raise ValueError(f"--limit {cfg.limit}: none of {first} of {dataset} has solutions in {solutions}")
    note = selection_note(problems, chosen, cfg.limit, sols)
    if note:
        print(note, file=sys.stderr)
    sols = {t: sols[t] for t in chosen}
    features = features_for(cfg.methods, str(solutions), problems, sols)
    missing = [t for t in sols if t not in raw_tests]
    if missing and mutate is None:
        print(f"warning: {len(missing)} task(s) have no test samples (they fall back to a random pick): "
              f"{', '.join(missing[:5])}{' …' if len(missing) > 5 else ''}", file=sys.stderr)
    folder = ensure_writable_dir(Path(output)) if output is not None else None  # before any work, not after it
    log_before = os.environ.get(CANDIDATE_LOG_ENV)
    if folder is not None:  # what the candidates print goes to the folder's log, for this call only
        log_candidates_to(folder.resolve() / CANDIDATE_LOG)
    cache_root = Path(cache_dir) if cache_dir is not None else (folder / "cache" if folder is not None else None)
    cache = ResultCache(cache_root / "executions.sqlite") if cache_root is not None else None
    try:
        result = run_pipeline(dataset, problems, sols, raw_tests, cfg, cache, features,
                              eval_results=eval_results, load_s=time.monotonic() - t0)
    finally:
        if cache is not None:
            cache.close()
        if log_before is None:
            os.environ.pop(CANDIDATE_LOG_ENV, None)
        else:
            os.environ[CANDIDATE_LOG_ENV] = log_before
    if tally is not None:
        result.extra["sanitized"] = tally.to_json()
    if folder is not None:
        write_results(result, folder)
    return RerankOutput(result, folder)


# --- pick among candidates for a problem no benchmark has -----------------------------------------------------
@dataclass
class Evidence:
    """One test or input and how the candidates did on it. ``kind``: "example" (a trial test from the prompt),
    "test" (one you gave), "grown" (an input grown from the examples) or "input" (the input of an assert).
    ``pick_passes``: whether the pick passes it (None for an input without an expected value). ``agree``: the
    candidates that pass it (tests) or that return what the pick returns (inputs). ``separates``: the pick's top
    group and the next group differ on it."""

    kind: str
    text: str
    pick_passes: Optional[bool]
    agree: int
    separates: bool

    def to_json(self) -> dict:
        return {"kind": self.kind, "text": self.text, "pick_passes": self.pick_passes, "agree": self.agree,
                "separates": self.separates}


@dataclass
class Pick:
    """The chosen candidate for one problem and why. ``index``: its position in the candidates given;
    ``program``: its full program; ``group``: the candidates the ranker cannot tell apart from it (any of them is
    as good a pick); ``confidence``: the probability, per split, that it passes a benchmark's base / plus tests
    (``rankers/confidence.py``, calibrated on HumanEval+ / MBPP+ folders); ``evidence``: every example, test and
    input that ran; ``reasons``: the same in a few sentences."""

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

    @property
    def separating(self) -> list[Evidence]:
        """The examples, tests and inputs that separated the top group from the next one."""
        return [e for e in self.evidence if e.separates]

    def to_json(self) -> dict:
        return {"index": self.index, "group": self.group, "confidence": self.confidence, "method": self.method,
                "entry_point": self.entry_point, "n_candidates": self.n_candidates, "n_groups": self.n_groups,
                "uses_prompt_examples": self.uses_prompt_examples, "reasons": self.reasons,
                "evidence": [e.to_json() for e in self.evidence], "seconds": round(self.seconds, 3),
                "program": self.program}


def split_tests(tests: "str | Sequence[str] | None") -> list[str]:
    """Tests as a list of assert statements: a list is taken as given; a text is cut into its top-level
    statements (ValueError, one line, when it does not compile)."""
    if tests is None:
        return []
    if not isinstance(tests, str):
        return [str(t).strip() for t in tests if str(t).strip()]
    try:
        tree = ast.parse(tests)
    except SyntaxError as exc:
        raise ValueError(f"tests: line {exc.lineno} does not compile ({exc.msg})") from None
    return [s for s in (ast.get_source_segment(tests, node) for node in tree.body) if s]


class Picker:
    """Picks problem after problem with the same sandbox workers and execution cache.

    ``with Picker() as picker: choice = picker.pick(prompt, candidates)``. The workers start on entering (or on
    the first pick) and stop on leaving (or ``close()``); the cache lives in ``cache_dir`` (kept) or in a temporary
    folder (removed on close). ``method``: any ranker (default ``recommended``); ``mutate``: inputs grown from the
    prompt's examples (0: none); ``time_limit``: CPU seconds per test, as ``rerank --time-limit``."""

    def __init__(self, method: str = "recommended", mutate: int = DEFAULT_N, seed: int = 0,
                 time_limit: float = 0.1, workers: Optional[int] = None,
                 cache_dir: "str | os.PathLike | None" = None) -> None:
        from coderank_evalplus.rankers import validate_methods

        validate_methods([method])
        if mutate < 0:
            raise ValueError(f"mutate must be 0 or more, got {mutate}")
        self.method, self.mutate, self.seed, self.time_limit = method, mutate, seed, time_limit
        self.workers = workers
        self._cache_dir = Path(cache_dir) if cache_dir is not None else None
        self._executor: Optional[WarmExecutor] = None
        self._cache: Any = None
        self._tmp: Optional[tempfile.TemporaryDirectory] = None

    def __enter__(self) -> "Picker":
        self._start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _start(self) -> tuple[Executor, Any]:
        from coderank_evalplus.engine.execution import ResultCache

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
             tests: "str | Sequence[str] | None" = None, raw: bool = False, name: Optional[str] = None) -> Pick:
        """The candidate to keep for ``prompt`` (a prompt's text; or a ``Problem``, or a LiveCodeBench record: then
        its public tests are the trial tests). ``candidates``: full programs or completions of the prompt (raw
        chat replies with ``raw=True``, read as ``--raw-field`` reads them); ``entry_point``: the function asked for
        (default: the last ``def`` of the prompt); ``tests``: assert statements you have (a text or a list);
        ``name``: the problem's name, which seeds the grown inputs (default: one made from the prompt's text)."""
        from coderank_evalplus.engine.execution import ProblemWork
        from coderank_evalplus.io.candidates import as_program
        from coderank_evalplus.io.sanitize import raw_program
        from coderank_evalplus.pipeline import RerankConfig, add_mutated_inputs, execute_works, rank_outcome
        from coderank_evalplus.rankers import uses_prompt_examples
        from coderank_evalplus.testgen.extract import assert_body
        from coderank_evalplus.testgen.io_tests import suite_for

        t0 = time.monotonic()
        if isinstance(candidates, str) or not candidates:
            raise ValueError("candidates: give a list of at least one program")
        problem = _problem_of(prompt, entry_point, name)
        programs = [raw_program(c, problem) if raw else as_program(c, problem) for c in candidates]
        given = [assert_body(t.strip()) for t in split_tests(tests)]
        # each test its own sample, kept whole: what you give is never cut at CodeT's five asserts per sample
        work = ProblemWork(problem, programs, suite_for(problem, given, None))
        cfg = RerankConfig(methods=[self.method], cpu_limit=self.time_limit, workers=self.workers,
                           seed=self.seed, progress=False, mutate=self.mutate or None)
        executor, cache = self._start()
        generated = add_mutated_inputs([work], cfg)
        ex = execute_works([work], generated, cache, Limits(cpu=self.time_limit), cfg, executor=executor)
        gen = generated.get(problem.task_id)
        outcome = rank_outcome(work, ex[problem.task_id], [self.method], self.seed, generated=gen)
        grown = set(gen.calls) if gen is not None else set()
        chosen = _explain(outcome, self.method, problem.entry_point, problem.trial_tests, set(given), grown,
                          programs)
        chosen.uses_prompt_examples = uses_prompt_examples(self.method, self.mutate > 0)
        chosen.seconds = time.monotonic() - t0
        return chosen


def _problem_of(prompt: "str | Problem | dict", entry_point: Optional[str], name: Optional[str]) -> Problem:
    """What ``pick`` is given, as a Problem: one already, a LiveCodeBench record, or a prompt's text."""
    from coderank_evalplus.io import livecodebench
    from coderank_evalplus.io.problems import problem_from_prompt

    if isinstance(prompt, Problem):
        return prompt
    if isinstance(prompt, dict):
        if not livecodebench.is_record(prompt):
            raise ValueError("pick: a dict must be a LiveCodeBench problem record (question_id, public_test_cases, …)")
        return livecodebench.make_problem(prompt, f"record {prompt.get('question_id')!r}")
    return problem_from_prompt(prompt, entry_point, name)


def pick(prompt: "str | Problem | dict", candidates: Sequence[str], entry_point: Optional[str] = None,
         tests: "str | Sequence[str] | None" = None, *, raw: bool = False, method: str = "recommended",
         mutate: int = DEFAULT_N, seed: int = 0, time_limit: float = 0.1, workers: Optional[int] = None) -> Pick:
    """The candidate to keep for one problem given as a prompt (``Picker.pick`` with workers of its own, started
    and stopped here; use ``Picker`` for many problems)."""
    with Picker(method, mutate, seed, time_limit, workers) as picker:
        return picker.pick(prompt, candidates, entry_point, tests, raw)


def _explain(outcome: ProblemOutcome, method: str, entry_point: str, trials: Sequence[str], given: set[str],
             grown: set[str], programs: list[str]) -> Pick:
    """The pick of ``outcome``'s ranking by ``method`` with the evidence: how every example, test and input
    treated the pick, the others, and the next group."""
    ex = outcome.executions
    assert ex is not None  # rank_outcome keeps the executions it ranked
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
    chosen = Pick(group[0], programs[group[0]], group, conf, method, entry_point, n, len(groups), evidence)
    chosen.reasons = _reasons(chosen)
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


def _reasons(p: Pick) -> list[str]:
    """A few sentences: the group, the examples, your tests, the inputs, the confidence."""
    out = [f"{p.method} ranked {p.n_candidates} candidates into {p.n_groups} group(s); candidate {p.index} is in "
           f"the top group with {len(p.group) - 1} other(s)"]
    for kind, what in (("example", "examples from the prompt"), ("test", "tests given")):
        items = [e for e in p.evidence if e.kind == kind]
        if items:
            passed = sum(bool(e.pick_passes) for e in items)
            out.append(f"it passes {passed} of {len(items)} {what}; "
                       + ", ".join(f"{e.agree}/{p.n_candidates} pass {_short(e.text) or f'example {i + 1}'}"
                                   for i, e in enumerate(items[:5])))
        elif kind == "example":
            out.append("the prompt shows no example that runs as a test")
    inputs = [e for e in p.evidence if e.kind in ("grown", "input")]
    if inputs:
        grown = sum(e.kind == "grown" for e in inputs)
        mean_agree = float(np.mean([e.agree for e in inputs]))
        out.append(f"on {len(inputs)} inputs ({grown} grown from the examples) it returns what "
                   f"{mean_agree:.1f} of {p.n_candidates} candidates return, on average")
    sep = p.separating
    if sep:
        out.append(f"{len(sep)} separate it from the next group: " + "; ".join(_short(e.text) for e in sep[:5])
                   + (" …" if len(sep) > 5 else ""))
    elif p.n_groups > 1:
        out.append("no single test separates it from the next group: the ranker's score does")
    if p.confidence:
        out.append("confidence it is right: " + ", ".join(f"{v:.2f} ({s} tests)" for s, v in p.confidence.items()))
    return out


def _short(text: str, width: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
