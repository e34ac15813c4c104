"""Self-debug with unit-test feedback (DOCE, Li et al. 2024): SD-1 and SD-Multi.

A candidate that fails a trial test (an example from the prompt, ``Problem.trial_tests``) is shown to the model
with that test and what it returned or raised (``feedback.py``), and rewritten:

* ``sd1``: per method, the candidates of its top-ranked group (what its pass@1 picks from) that fail a trial
  test; up to ``rounds`` rounds (default 3). A method's answer after SD-1 is its own pick, debugged: its pass@k
  is computed on its original ranking with those candidates replaced by their last version.
* ``multi``: every candidate that fails a trial test, ``rounds`` rounds (default 1); the debugged pool is then
  reranked by every method.

Rounds of one candidate stop when its rewrite passes every trial test, when the rewrite is the program it was
shown (greedy decoding would repeat itself), or after ``rounds``. Trial-test outcomes come from the execution
engine and its cache (``execution.execute``), on the run's executor where it hands one in (its workers, not a pool
per call); nothing cached is executed again. Every round is recorded in
``self_debug_<mode>.jsonl`` (task, sample, round, the program shown, the failing test, the feedback, the
rewrite), which is also what a rerun resumes from; ``samples_<mode>.jsonl`` holds the debugged pool (evalplus
format) and ``self_debug_<mode>/`` its verdicts, rankings and the before/after block (``self_debug.json``), which
``rerank_results.json`` also carries under ``"self_debug": {mode: …}``. Random and oracle after debugging are computed
on the debugged pool (each debugged candidate replaced by its last version).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from coderank_evalplus import metrics
from coderank_evalplus.doce.feedback import Probe, feedback_text, probe_all
from coderank_evalplus.engine.execution.execute import ExecutionStats, ProblemWork, ResultCache, execute
from coderank_evalplus.engine.execution.executors import Executor
from coderank_evalplus.engine.execution.probe import probe_of
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.metrics import pick_pool
from coderank_evalplus.types import ERROR, FAIL, PASS, TIMEOUT, Problem, ProblemOutcome, TestSuite

MODES = ("sd1", "multi")
DEFAULT_ROUNDS = {"sd1": 3, "multi": 1}
_STATUS = {FAIL: "fail", ERROR: "error", TIMEOUT: "timeout"}
_SYSTEM = "You are an expert Python programmer."


@dataclass(frozen=True)
class DebugSettings:
    mode: str
    rounds: Optional[int] = None  # None: DEFAULT_ROUNDS[mode]
    temperature: float = 0.0  # DOCE debugs greedily
    max_tokens: int = 300
    batch: int = 128  # prompts per generate call (and per write of the round log)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"--self-debug must be one of {', '.join(MODES)}, not {self.mode!r}")
        if self.rounds is not None and self.rounds < 1:
            raise ValueError(f"--debug-rounds must be at least 1, not {self.rounds}")

    @property
    def n_rounds(self) -> int:
        return self.rounds or DEFAULT_ROUNDS[self.mode]


@dataclass
class Round:
    round: int
    shown: str
    test: str
    feedback: str
    program: str


@dataclass
class Debugged:
    """One debugged candidate: its original program, its rounds, and why debugging stopped."""

    task_id: str
    sample: int
    original: str
    rounds: list[Round] = field(default_factory=list)
    stop: str = ""  # "passes" (all trial tests), "unchanged" (rewrite = program shown), "rounds" (limit reached)

    @property
    def final(self) -> str:
        return self.rounds[-1].program if self.rounds else self.original


@dataclass(frozen=True)
class TrialOutcome:
    """A candidate on its trial tests: the first failing one (None: passes all, or there are none)."""

    first_fail: Optional[int]
    status: str = "pass"  # of that test: fail | error | timeout | import (the program never got past its top level)


# ------------------------------------------------------------------------------------------------------------
# trial tests through the execution engine
# ------------------------------------------------------------------------------------------------------------


def trial_outcomes(problems: Mapping[str, Problem], programs: Mapping[str, Sequence[str]],
                   cache: Optional[ResultCache], limits: Limits, workers: Optional[int] = None,
                   progress: bool = False, stats: Optional[ExecutionStats] = None,
                   executor: Optional[Executor] = None) -> dict[str, list[TrialOutcome]]:
    """Each program on its problem's trial tests (executed once, cached like every other test item), on the run's
    ``executor`` when given (left open)."""
    works = [ProblemWork(problems[t], list(progs), TestSuite()) for t, progs in programs.items() if progs]
    out: dict[str, list[TrialOutcome]] = {}
    for tid, ex in execute(works, cache, limits, workers, progress, stats, executor=executor).items():
        rows = np.asarray(ex.program_of_candidate)
        res = []
        for c in range(len(rows)):
            trial = ex.trial_matrix[rows[c]]
            if len(trial) == 0:
                res.append(TrialOutcome(None))
            elif not ex.compiled[rows[c]]:
                res.append(TrialOutcome(0, "import"))
            else:
                bad = np.flatnonzero(trial != PASS)
                res.append(TrialOutcome(int(bad[0]), _STATUS.get(int(trial[bad[0]]), "error")) if len(bad)
                           else TrialOutcome(None))
        out[tid] = res
    return out


def targets_multi(trial: Mapping[str, Sequence[TrialOutcome]]) -> dict[str, list[int]]:
    """SD-Multi: every candidate that fails a trial test."""
    return {t: [c for c, o in enumerate(outs) if o.first_fail is not None] for t, outs in trial.items()}


def targets_sd1(outcomes: Mapping[str, ProblemOutcome], trial: Mapping[str, Sequence[TrialOutcome]],
                methods: Sequence[str]) -> dict[str, list[int]]:
    """SD-1: for each method, the candidates of its top group that fail a trial test (union over methods)."""
    out: dict[str, list[int]] = {}
    for tid, o in outcomes.items():
        outs = trial.get(tid, [])
        chosen: set[int] = set()
        for m in methods:
            if m in o.rankings:
                chosen.update(c for c in pick_pool(o.rankings[m], o.n_candidates)
                              if outs[c].first_fail is not None)
        out[tid] = sorted(chosen)
    return out


# ------------------------------------------------------------------------------------------------------------
# prompts
# ------------------------------------------------------------------------------------------------------------


def debug_messages(problem: Problem, program: str, feedback: str) -> list[dict]:
    """Chat models: the problem, the candidate, the feedback; the reply's code block is the rewrite."""
    user = (f"Here is a Python programming problem:\n```python\n{problem.prompt.strip()}\n```\n"
            f"A candidate solution:\n```python\n{program.strip()}\n```\n{feedback}\n"
            "The solution is wrong. Fix it and reply with the complete corrected solution (a self-contained Python "
            "script) in a single markdown code block.")
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]


def debug_text_prompt(problem: Problem, program: str, feedback: str) -> str:
    """Base models: the candidate, the feedback as comments, then the problem prompt again to be completed."""
    from coderank_evalplus.testgen.prompts import solution_prompt

    notes = "\n".join("# " + line for line in f"The code above is wrong. {feedback}".splitlines())
    return f"{program.rstrip()}\n\n\n{notes}\n# A corrected version of the code above:\n{solution_prompt(problem)}"


def debug_prompt(problem: Problem, program: str, feedback: str, generator):
    if getattr(generator, "is_chat", False):
        msgs = debug_messages(problem, program, feedback)
        template = getattr(generator, "apply_chat_template", None)
        return template(msgs) if template else msgs
    return debug_text_prompt(problem, program, feedback)


def parse_rewrite(problem: Problem, text: str, generator) -> str:
    from coderank_evalplus.testgen.prompts import solution_prompt
    from coderank_evalplus.testgen.replies import parse_chat_solution

    if getattr(generator, "is_chat", False):
        return parse_chat_solution(text, problem)
    return solution_prompt(problem) + text


# ------------------------------------------------------------------------------------------------------------
# the rounds
# ------------------------------------------------------------------------------------------------------------


def _load_log(path: Path) -> dict[tuple[str, int, int], dict]:
    from coderank_evalplus.generation.sampling import _read_jsonl_repair

    return {(r["task_id"], int(r["sample"]), int(r["round"])): r for r in _read_jsonl_repair(str(path))
            if {"task_id", "sample", "round", "shown", "program"} <= set(r)}


def debug_candidates(problems: Mapping[str, Problem], solutions: Mapping[str, Sequence[str]],
                     targets: Mapping[str, Sequence[int]], generator, settings: DebugSettings, log_path: Path,
                     cache: Optional[ResultCache], limits: Limits, workers: Optional[int] = None,
                     progress: bool = False, executor: Optional[Executor] = None) -> dict[tuple[str, int], Debugged]:
    """Run the rounds for the target candidates; every round is appended to ``log_path`` (and read back from it
    on a rerun: a round whose shown program matches is not generated again). Trial tests run on ``executor``
    when given (the run's, left open)."""
    from coderank_evalplus.generation import logprobs_off
    from coderank_evalplus.generation.sampling import CODET_STOP

    log = _load_log(log_path)
    state = {(t, c): Debugged(t, c, solutions[t][c]) for t, cs in targets.items() for c in cs}
    active = list(state)
    stop = [] if getattr(generator, "is_chat", False) else list(CODET_STOP)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "a", encoding="utf-8") as fh:
        for r in range(1, settings.n_rounds + 1):
            if not active:
                break
            current = {key: state[key].final for key in active}
            trial = _trial_of(problems, current, cache, limits, workers, progress, executor)
            failing = []
            for key in active:
                if trial[key].first_fail is None:
                    state[key].stop = "passes"
                else:
                    failing.append(key)
            todo, reused = [], {}
            for key in failing:
                rec = log.get((key[0], key[1], r))
                if rec is not None and rec["shown"] == current[key]:
                    reused[key] = Round(r, rec["shown"], rec.get("test", ""), rec.get("feedback", ""), rec["program"])
                else:
                    todo.append(key)
            texts = _feedback(problems, current, trial, todo, limits, workers, executor)
            # greedy rewrites of the same program (same feedback, same prompt) are drawn once
            same: dict[tuple, list[tuple[str, int]]] = {}
            for key in todo:
                same.setdefault((key[0], current[key]) if settings.temperature == 0 else key, []).append(key)
            reps = [members[0] for members in same.values()]
            members_of = {members[0]: members for members in same.values()}
            for start in range(0, len(reps), max(1, settings.batch)):
                chunk = reps[start:start + max(1, settings.batch)]
                prompts = [debug_prompt(problems[t], current[(t, c)], texts[(t, c)][1], generator) for t, c in chunk]
                with logprobs_off(generator):  # a rewrite's likelihood is scored under the problem's prompt
                    outs = generator.generate(prompts, 1, settings.temperature, 1.0, settings.max_tokens, stop)
                for rep, samples in zip(chunk, outs):
                    program = parse_rewrite(problems[rep[0]], samples[0].text if samples else "", generator)
                    for t, c in members_of[rep]:
                        test, text = texts[(t, c)]
                        reused[(t, c)] = Round(r, current[(t, c)], test, text, program)
                        fh.write(json.dumps({"task_id": t, "sample": c, "mode": settings.mode, "round": r,
                                             "shown": current[(t, c)], "test": test, "feedback": text,
                                             "program": program}) + "\n")
                fh.flush()
            next_active = []
            for key in failing:
                rnd = reused[key]
                state[key].rounds.append(rnd)
                if rnd.program == rnd.shown:
                    state[key].stop = "unchanged"
                else:
                    next_active.append(key)
            active = next_active
    if active:
        final = _trial_of(problems, {k: state[k].final for k in active}, cache, limits, workers, progress,
                          executor)
        for key in active:
            state[key].stop = "passes" if final[key].first_fail is None else "rounds"
    return state


def _trial_of(problems, programs: Mapping[tuple[str, int], str], cache, limits, workers, progress,
              executor: Optional[Executor] = None) -> dict[tuple[str, int], TrialOutcome]:
    by_task: dict[str, list[tuple[int, str]]] = {}
    for (t, c), prog in programs.items():
        by_task.setdefault(t, []).append((c, prog))
    res = trial_outcomes(problems, {t: [p for _, p in items] for t, items in by_task.items()}, cache, limits,
                         workers, progress, executor=executor)
    return {(t, c): res[t][i] for t, items in by_task.items() for i, (c, _) in enumerate(items)}


def _feedback(problems, current, trial, keys, limits: Limits, workers, executor: Optional[Executor] = None
              ) -> dict[tuple[str, int], tuple[str, str]]:
    """(failing test, feedback sentence) per candidate; probes only what the engine's status cannot tell."""
    probes: dict[tuple[str, int], Probe] = {}
    tests: dict[tuple[str, int], str] = {}
    for key in keys:
        prob = problems[key[0]]
        out = trial[key]
        tests[key] = prob.trial_tests[out.first_fail]
        if out.status != "timeout":
            probes[key] = probe_of(prob, current[key], tests[key], max(limits.cpu, 1.0))
    got = dict(zip(probes, probe_all(list(probes.values()), workers, executor)))
    return {key: (tests[key], feedback_text(tests[key], trial[key].status, got.get(key, ("timeout",))))
            for key in keys}


# ------------------------------------------------------------------------------------------------------------
# before / after
# ------------------------------------------------------------------------------------------------------------


def debugged_pool(solutions: Mapping[str, Sequence[str]], debugged: Mapping[tuple[str, int], Debugged]
                  ) -> dict[str, list[str]]:
    """The solutions with every debugged candidate replaced by its last version."""
    pool = {t: list(progs) for t, progs in solutions.items()}
    for (t, c), d in debugged.items():
        pool[t][c] = d.final
    return pool


def pool_features(features: Optional[Mapping[str, Mapping[str, Sequence[float]]]], problems: Mapping[str, Problem],
                  pool: Mapping[str, Sequence[str]], debugged: Mapping[tuple[str, int], Debugged], kinds: set[str],
                  generator, known: Sequence[dict] = ()) -> Optional[dict[str, dict[str, list[float]]]]:
    """Likelihood features of the debugged pool: the originals', and scores (log p(program | problem) and the
    reviewer's, as ``coderank-evalplus likelihood`` scores a sample) for the candidates whose program changed.

    For a chat model, every candidate's coder likelihood is scored that way: the value recorded while sampling
    covers the whole reply, which a rewrite has no counterpart of. ``known``: records of an earlier run's
    debugged pool, whose values are reused for the same task and program."""
    if not kinds:
        return None
    from coderank_evalplus.generation.likelihood import CODER, FIELDS, missing, score_records

    out = {t: {k: list(v) for k, v in per.items()} for t, per in (features or {}).items()}
    changed = {key for key, d in debugged.items() if d.final != d.original}
    rescore_all_coder = CODER in kinds and getattr(generator, "is_chat", False)
    seen = {(r.get("task_id"), r.get("solution")): r for r in known}
    todo: list[tuple[str, int, list[str], dict]] = []
    for t, progs in pool.items():
        for c, prog in enumerate(progs):
            wanted = [k for k in kinds if (t, c) in changed or (k == CODER and rescore_all_coder)]
            if wanted:
                old = seen.get((t, prog), {})
                rec = {"task_id": t, "solution": prog, **{f: old[f] for k in wanted for f in FIELDS[k] if f in old}}
                todo.append((t, c, wanted, rec))
    if any(missing(rec, k) for _, _, wanted, rec in todo for k in wanted):
        if not hasattr(generator, "score"):
            raise ValueError("the likelihood methods need the model to score the debugged candidates, and this "
                             "generator cannot score text")
        for kind in sorted(kinds):
            score_records([rec for _, _, wanted, rec in todo if kind in wanted], problems, generator, [kind])
    for t, c, wanted, rec in todo:
        for kind in wanted:
            for f in FIELDS[kind]:
                out.setdefault(t, {}).setdefault(f, [float("nan")] * len(pool[t]))[c] = float(rec[f])
    return out


def sd1_table(before, pool_result, debugged: Mapping[tuple[str, int], Debugged], methods: Sequence[str], ks,
              with_plus: bool, rule: str = metrics.DEFAULT_PASS_AT_K_RULE) -> dict[str, dict[str, Any]]:
    """Each method's pass@k after SD-1 (k picks taken by ``rule``, ``metrics.PASS_AT_K_RULES``): its original
    ranking, its top candidates replaced by their debugged versions (judged in ``pool_result``)."""
    from coderank_evalplus.pipeline import correct_array, metrics_table

    def correct(m: str, tid: str, o, split: str) -> np.ndarray:
        """The pick pool's debugged candidates read from the debugged pool's verdicts, the rest as before."""
        arr = correct_array(o, split)
        after = pool_result.outcomes[tid].verdicts
        for c in pick_pool(o.rankings[m], o.n_candidates):
            if (tid, c) in debugged:
                arr[c] = bool(after[c].base if split == "base" else after[c].plus)
        return arr

    return metrics_table(before.outcomes, methods, ks, with_plus, rule, correct)


@dataclass
class SelfDebugResult:
    block: dict  # what goes under "self_debug" in rerank_results.json
    after: object  # the RerankResult of the debugged pool
    debugged: dict


def run_self_debug(dataset: str, problems: Mapping[str, Problem], solutions: Mapping[str, Sequence[str]],
                   test_samples: Mapping[str, Sequence[str]], cfg, cache: Optional[ResultCache], before,
                   generator, settings: DebugSettings, out_dir: str | os.PathLike,
                   features: Optional[Mapping[str, Mapping[str, Sequence[float]]]] = None,
                   executor: Optional[Executor] = None) -> SelfDebugResult:
    """Debug (SD-1 or SD-Multi), then measure every method and the baselines on the debugged pool.

    ``before`` is the ``RerankResult`` of the original pool (SD-1 reads its rankings). ``executor``: the run's (left
    open): the trial tests and the debugged pool's rerank run on its workers, else on ones made for each call.
    Writes ``self_debug_<mode>.jsonl``, ``samples_<mode>.jsonl`` and ``self_debug_<mode>/`` into ``out_dir``."""
    from coderank_evalplus.generation.sampling import _read_jsonl_repair
    from coderank_evalplus.io.samples import write_jsonl
    from coderank_evalplus.pipeline import BASELINES, _json_default, rank_and_judge, write_results
    from coderank_evalplus.rankers.likelihood import features_needed

    out_dir = Path(out_dir)
    mode = settings.mode
    limits = Limits(cpu=cfg.time_limit)
    methods = [m for m in before.config["methods"] if m not in BASELINES]
    chosen = {t: problems[t] for t in solutions}
    trial = trial_outcomes(chosen, solutions, cache, limits, cfg.workers, cfg.progress, executor=executor)
    targets = targets_multi(trial) if mode == "multi" else targets_sd1(before.outcomes, trial, methods)
    debugged = debug_candidates(chosen, solutions, targets, generator, settings, out_dir / f"self_debug_{mode}.jsonl",
                                cache, limits, cfg.workers, cfg.progress, executor)
    pool = debugged_pool(solutions, debugged)
    kinds = features_needed(methods) if mode == "multi" else set()
    pool_path = out_dir / f"samples_{mode}.jsonl"
    known = _read_jsonl_repair(str(pool_path)) if kinds else []
    feats = pool_features(features, chosen, pool, debugged, kinds, generator, known)
    write_jsonl(pool_path, _pool_records(pool, debugged, features, feats))
    after_cfg = replace(cfg, methods=methods if mode == "multi" else ())
    after = rank_and_judge(dataset, chosen, pool, test_samples, after_cfg, cache, feats, executor=executor)
    write_results(after, out_dir / f"self_debug_{mode}")
    table = dict(after.methods)
    if mode == "sd1":
        with_plus = any(v.get("plus") for v in before.methods.values())
        ks = metrics.reportable_ks(cfg.ks, (o.n_candidates for o in before.outcomes.values()))
        rows = sd1_table(before, after, debugged, methods, ks, with_plus, cfg.pass_at_k_rule)
        table = {"random": table["random"], **rows, "oracle": table["oracle"]}
    # the rewrites were driven by the prompt's examples (trial-test feedback): every pick after them used them
    table = {m: {**per, "uses_prompt_examples": True} for m, per in table.items()}
    stops = [d.stop for d in debugged.values()]
    block = {
        "mode": mode, "rounds": settings.n_rounds, "temperature": settings.temperature,
        "candidates_debugged": len(debugged),
        "rewritten": sum(d.final != d.original for d in debugged.values()),
        "now_pass_trial_tests": stops.count("passes"), "stopped_unchanged": stops.count("unchanged"),
        "out_of_rounds": stops.count("rounds"),
        "problems_without_trial_tests": sum(1 for t in solutions if not problems[t].trial_tests),
        "methods": table,
    }
    from coderank_evalplus.storage import atomic_write_json

    atomic_write_json(out_dir / f"self_debug_{mode}" / "self_debug.json", block, indent=2, default=_json_default)
    return SelfDebugResult(block, after, debugged)


def after_run(out: Any, options: Any, tests: Any, cache: Optional[ResultCache], executor: Optional[Executor], *,
              settings: DebugSettings, problems: Mapping[str, Problem], chosen: Sequence[str],
              generator: Any) -> SelfDebugResult:
    """Self-debug after a ``run`` (``api.stream.run_from_model``'s ``after``): on its folder's samples and, where
    ``tests`` (the run's parsed sources) say ``model``, the model's tests, with the run's settings, execution cache
    and executor; its block added to the folder's ``rerank_results.json``."""
    from coderank_evalplus.api.evaluate import stage_config
    from coderank_evalplus.generation.likelihood import features_for
    from coderank_evalplus.generation.sampling import TESTS_FILE
    from coderank_evalplus.io.samples import read_solutions, read_test_samples

    output = Path(options.output)
    wanted = {t: problems[t] for t in chosen}
    solutions = {t: s for t, s in read_solutions(options.solutions, problems).items() if t in wanted}
    raw_tests = read_test_samples(output / TESTS_FILE, problems) if tests.model else {}
    features = features_for(options.methods, options.solutions, wanted, solutions)
    debug = run_self_debug(options.dataset, wanted, solutions, raw_tests, stage_config(options, tests), cache,
                           out.result, generator, settings, output, features, executor=executor)
    add_to_results(output / "rerank_results.json", output)
    return debug


def _pool_records(pool, debugged, features, feats) -> list[dict]:
    """The debugged pool as evalplus samples, with the likelihood fields and how each candidate was debugged."""
    out = []
    source = feats if feats is not None else features or {}
    for t, progs in pool.items():
        for c, prog in enumerate(progs):
            rec = {"task_id": t, "solution": prog}
            for f, vals in source.get(t, {}).items():
                if c < len(vals) and np.isfinite(vals[c]):
                    rec[f] = int(vals[c]) if f.endswith("_tokens") else float(vals[c])
            d = debugged.get((t, c))
            if d is not None:
                rec["self_debug_rounds"] = len(d.rounds)
                rec["self_debug_stop"] = d.stop
            out.append(rec)
    return out


def add_to_results(path: str | os.PathLike, out_dir: str | os.PathLike) -> None:
    """Put the self-debug blocks found in ``out_dir`` (``self_debug_<mode>/self_debug.json``: one per mode run
    there, so SD-1 and SD-Multi on the same samples sit side by side) into rerank_results.json, under
    ``"self_debug": {mode: block}``."""
    from coderank_evalplus.io.results_folder import atomic_write_text
    from coderank_evalplus.pipeline import _json_default

    path = Path(path)
    data = json.loads(path.read_text())
    blocks = {}
    for mode in MODES:
        f = Path(out_dir) / f"self_debug_{mode}" / "self_debug.json"
        if f.is_file():
            blocks[mode] = json.loads(f.read_text())
    data["self_debug"] = blocks
    atomic_write_text(path, json.dumps(data, indent=2, default=_json_default) + "\n")
