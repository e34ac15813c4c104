"""The rerank stage end to end: extract → execute → rank → judge → metrics, as plain functions.

``rank_and_judge`` is the stage on loaded inputs; every entry point reaches it through the one path
(``api.evaluate.run_rerank``), which loads, selects and writes; none of them re-implements a stage.
"""

from __future__ import annotations

import contextlib
import copy
import math
import sys
import time
from dataclasses import asdict, dataclass
from os import PathLike
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence

import numpy as np

from coderank_evalplus import metrics
from coderank_evalplus.engine.execution import ExecutionStats, ProblemWork, ResultCache, execute
from coderank_evalplus.engine.executor_factory import make_executor
from coderank_evalplus.engine.executors import Executor
from coderank_evalplus.engine.judge import DEFAULT_GT_TIME_LIMIT_FACTOR, DEFAULT_MIN_TIME_LIMIT, Judge
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.io.eval_results import read_verdicts
from coderank_evalplus.io.results_folder import write_folder
from coderank_evalplus.io.samples import read_test_samples
from coderank_evalplus.rankers import RankContext, get_ranker, split_selection, uses_prompt_examples, validate_methods
from coderank_evalplus.rankers.confidence import confidence, confidence_block
from coderank_evalplus.rankers.confidence import default_model as default_confidence_model
from coderank_evalplus.rankers.registry import DEFAULT_METHODS
from coderank_evalplus.storage import atomic_write_json, atomic_write_jsonl, os_storage_error
from coderank_evalplus.testgen.extract import DEFAULT_TESTS_PER_SAMPLE
from coderank_evalplus.testgen.io_tests import suite_for
from coderank_evalplus.testgen.mutate import (
    GeneratedInputs,
    MutateSpec,
    add_generated_inputs,
    keep_valid_inputs,
    split_sources,
)
from coderank_evalplus.types import (  # noqa: F401
    LAYOUT,
    Executions,
    Problem,
    ProblemOutcome,
    Ranking,
    RerankResult,
    TestSuite,
    Verdict,
)

BASELINES = ("random", "oracle")  # always reported; computed from verdicts, not through a ranker
DEFAULT_KS = (1, 10, 100)  # evalplus's; each reported only where every problem has at least k candidates


@dataclass
class RerankConfig:
    """Knobs of one rerank run (defaults follow CodeT's setup)."""

    methods: Sequence[str] = DEFAULT_METHODS
    ks: Sequence[int] = DEFAULT_KS
    tests_per_sample: Optional[int] = DEFAULT_TESTS_PER_SAMPLE
    time_limit: float = 0.1  # CPU seconds per generated test
    workers: Optional[int] = None
    plus: bool = True
    seed: int = 0
    min_time_limit: float = DEFAULT_MIN_TIME_LIMIT
    gt_time_limit_factor: float = DEFAULT_GT_TIME_LIMIT_FACTOR
    progress: bool = True
    executor: str = "local"  # where jobs run: "local" (this machine's pool) or "ray" (a Ray cluster)
    ray_address: Optional[str] = None  # executor "ray": the cluster (None: join the local one or start one)
    limit: Optional[int] = None  # the dataset's first N problems (None or 0: all); see problems.select_problems
    mutate: Optional[int] = None  # test source examples+mutate:N: N inputs grown from the examples (None: off)
    strict: bool = False  # a pass the judge lists as suspicious (its own == decided) counts as a failure
    pass_at_k_rule: str = metrics.DEFAULT_PASS_AT_K_RULE  # how k picks follow a ranking (metrics.PASS_AT_K_RULES)


def all_methods(methods: Sequence[str]) -> list[str]:
    """Requested methods with the baselines first, duplicates removed, names validated."""
    names = [m.strip() for m in methods if m.strip()]
    validate_methods([m for m in names if m not in BASELINES])
    return list(dict.fromkeys(["random", *[m for m in names if m not in BASELINES], "oracle"]))


def build_works(problems: Mapping[str, Problem], solutions: Mapping[str, Sequence[str]],
                test_samples: Mapping[str, Sequence[str]], tests_per_sample: Optional[int]) -> list[ProblemWork]:
    """One ProblemWork per task that has solutions, in the dataset's order; tasks without test samples get an
    empty suite."""
    works = []
    for tid in (t for t in problems if t in solutions):
        prob = problems[tid]
        suite = suite_for(prob, test_samples.get(tid, []), tests_per_sample)
        works.append(ProblemWork(prob, list(solutions[tid]), suite))
    return works


def read_tests(sources: Sequence[str], problems: Mapping[str, Problem], data_dir: Optional[str] = None,
               drop_extra: bool = False) -> tuple[dict[str, list[str]], Optional[int]]:
    """Test sources as ``--tests`` / a suite's ``tests`` give them: files of test samples (their samples are
    pooled per task) and at most one ``examples+mutate[:N]``. Returns (raw test samples per task, N or None)."""
    from coderank_evalplus.io.jsonl import SampleFileError
    from coderank_evalplus.testgen.extract import extract_asserts

    files, spec = split_sources(sources)
    pooled: dict[str, list[str]] = {}
    for f in files:
        if str(f).endswith(".py"):
            raise SampleFileError(f"tests {f}: a .py of asserts tests one prompt (coderank-evalplus pick); for a "
                                  f"benchmark give test samples as jsonl ({{task_id, samples|asserts}})")
        found = read_test_samples(f, problems, data_dir, drop_extra=drop_extra)
        if not any(extract_asserts(s, problems[tid].entry_point) for tid, ss in found.items() for s in ss):
            raise SampleFileError(f"tests {f}: no usable test in it (a test is an assert that calls the problem's "
                                  f"function, e.g. assert {next(iter(problems.values())).entry_point}(…) == …)")
        for tid, samples in found.items():
            pooled.setdefault(tid, []).extend(samples)
    return pooled, (spec.n if spec is not None else None)


def benchmark_outputs(works: Sequence[ProblemWork], cache: Optional[ResultCache], limits: Limits,
                      workers: Optional[int], progress: bool, executor: Optional[Executor] = None
                      ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Output digests of every unique program on the benchmark's base inputs (for ``mbr_exec_hidden``).

    Inputs are written as call expressions; inputs whose repr does not evaluate back to an equal value
    (e.g. ``inf``) are skipped.
    """
    from coderank_evalplus.testgen.extract import suite_from_asserts

    hidden = []
    for w in works:
        calls = []
        for args in w.problem.base_input:
            text = repr(list(args))
            try:
                if eval(text, {}) != list(args):  # noqa: S307 - benchmark data, not model output
                    continue
            except Exception:  # noqa: BLE001
                continue
            calls.append(f"{w.problem.entry_point}(*{text})")
        suite = suite_from_asserts({c: 1 for c in calls}, w.problem.entry_point)
        hidden.append(ProblemWork(w.problem, w.programs, suite))
    ex = execute(hidden, cache, limits, workers, progress, executor=executor)
    return {tid: (e.output_matrix, e.output_kind) for tid, e in ex.items()}


def rank_and_judge(dataset: str, problems: Mapping[str, Problem], solutions: Mapping[str, Sequence[str]],
                   test_samples: Mapping[str, Sequence[str]], cfg: RerankConfig,
                   cache: Optional[ResultCache] = None,
                   features: Optional[Mapping[str, Mapping[str, Sequence[float]]]] = None,
                   executor: Optional[Executor] = None, eval_results: Optional[str | PathLike] = None,
                   load_s: float = 0.0, select: Any = None) -> RerankResult:
    """Rerank every task's candidates with each method and measure ranked pass@k on base (and plus) tests.

    Tasks are taken in the dataset's order; ``cfg.limit`` keeps the dataset's first N problems. ``features``: per
    task, per-candidate likelihood features (``io.samples.read_features``) that likelihood rankers read from
    ``RankContext.options``. Jobs run on ``executor`` when given (left open), else on one made from
    ``cfg.executor`` for this call. ``eval_results``: evalplus's ``*_eval_results.json`` for these samples; its
    verdicts are used instead of judging when it matches them (else the samples are judged, with a warning saying
    why). ``load_s``: the caller's seconds spent reading the dataset and samples, reported in the ``timing``
    block. ``select``: a step after ranking and before judging (``selection.sstar.ModelSelector``: S*), which
    may change each method's ranking; its decisions go in the results (``sstar``)."""
    t_start = time.monotonic()
    methods = all_methods(cfg.methods)
    with contextlib.ExitStack() as stack:
        if executor is None:
            executor = stack.enter_context(make_executor(cfg.executor, cfg.workers, cfg.ray_address))
        return _rerank(dataset, problems, solutions, test_samples, cfg, cache, features, executor, methods,
                       eval_results, _Phases(load_s, t_start), select)


def _rerank(dataset: str, problems: Mapping[str, Problem], solutions: Mapping[str, Sequence[str]],
            test_samples: Mapping[str, Sequence[str]], cfg: RerankConfig, cache: Optional[ResultCache],
            features: Optional[Mapping[str, Mapping[str, Sequence[float]]]], executor: Executor,
            methods: list[str], eval_results: Optional[str | PathLike], clock: "_Phases",
            select: Any = None) -> RerankResult:
    limits = Limits(cpu=cfg.time_limit)
    works = build_works(problems, solutions, test_samples, cfg.tests_per_sample)
    generated = add_mutated_inputs(works, cfg)
    clock.lap("load")
    stats = ExecutionStats()
    executions = execute_works(works, generated, cache, limits, cfg, stats, executor)
    hidden = None
    if any(m.endswith("mbr_exec_hidden") for m in methods):
        hidden = benchmark_outputs(works, cache, limits, cfg.workers, cfg.progress, executor)
    canonical = canonical_executions(works, cache, limits, cfg.workers, executor)
    clock.lap("execute")
    outcomes: dict[str, ProblemOutcome] = {}
    for w in works:
        tid = w.problem.task_id
        feats = {k: np.asarray(v, dtype=float) for k, v in (features or {}).get(tid, {}).items()}
        outcomes[tid] = rank_outcome(w, executions[tid], methods, cfg.seed, feats,
                                     hidden.get(tid) if hidden else None, canonical.get(tid), generated.get(tid))
    clock.lap("rank")
    selected = any(split_selection(m)[1] for m in methods)
    if selected:
        env = select_env(cfg, cache, limits, executor)
        for w in works:
            select_outcome(w, outcomes[w.problem.task_id], methods, env)
        clock.lap("select")
    decisions = None
    if select is not None:  # S*: may change the rankings, before anything is judged
        decisions = select.select(outcomes, problems, [m for m in methods if m not in BASELINES], cache, limits,
                                  cfg.workers, executor, cfg.progress)
        clock.lap("select_model")
    prejudged, verdicts_from = None, "judge"
    if eval_results is not None:
        prejudged, why_not = read_verdicts(eval_results, problems, {w.problem.task_id: w.programs for w in works},
                                           cfg.plus)
        if prejudged is None:
            print(f"warning: not using evalplus's verdicts, judging the samples instead: {why_not}", file=sys.stderr)
        else:
            verdicts_from = str(eval_results)
    suspicious: list[dict] = []
    judged, judged_programs, judge_cached = _judge_needed(works, executions, outcomes, problems, methods, cfg, cache,
                                                          executor, prejudged, suspicious)
    clock.lap("judge")
    table = _metrics_table(outcomes, methods, cfg, any(p.has_plus_tests for p in problems.values()) and cfg.plus)
    clock.lap("metrics")
    config = {k: v for k, v in asdict(cfg).items() if k not in ("progress", "workers", "executor", "ray_address")}
    config["methods"] = methods
    stats_json = {"unique_programs": stats.unique_programs, "executed_items": stats.executed_pairs,
                  "cached_items": stats.cached_pairs, "wall_s": round(stats.wall_s, 2)}
    timing = clock.seconds()
    timing.update(programs=stats.unique_programs, items=stats.pairs, executed_items=stats.executed_pairs,
                  cached_items=stats.cached_pairs, judged_samples=judged, judged_programs=judged_programs,
                  judge_cached=judge_cached, verdicts_from=verdicts_from,
                  suspicious=len(suspicious))
    if selected:
        timing.update(selection_totals(outcomes.values()))
    if decisions is not None:
        timing["select_model_calls"] = sum(d.model_calls for d in decisions.values())
    judged_splits = ("base", "plus") if table and next(iter(table.values())).get("plus") is not None else ("base",)
    passed = {m: {s: problem_scores(outcomes, m, 1, s) for s in judged_splits} for m in methods if m not in BASELINES}
    extra = {"suspicious": suspicious,
             "confidence": confidence_block({t: o.confidence for t, o in outcomes.items()}, passed)}
    if cfg.mutate is not None:
        extra["generated_inputs"] = generated_summary(generated, cfg)
    if selected:
        extra["selection"] = {m: selection_totals(outcomes.values(), m) for m in methods if split_selection(m)[1]}
    if decisions is not None:
        extra["sstar"] = {"model": select.model, "decisions": {f"{t}|{m}": d.to_json() for (t, m), d in
                                                               decisions.items()},
                          "model_calls": sum(d.model_calls for d in decisions.values())}
    if table and next(iter(table.values())).get("plus") is not None:
        extra["splits"] = {"plus": {"problems_with_plus_tests": sum(w.problem.has_plus_tests for w in works),
                                    "problems": len(works)}}
    return RerankResult(dataset, len(works), table, outcomes, config, stats_json,
                        {w.problem.task_id: w.problem for w in works}, extra=extra, timing=timing)


def execute_works(works: Sequence[ProblemWork], generated: Mapping[str, GeneratedInputs],
                  cache: Optional[ResultCache], limits: Limits, cfg: RerankConfig,
                  stats: Optional[ExecutionStats] = None, executor: Optional[Executor] = None) -> dict[str, Executions]:
    """Every work's candidates run on its suite (``engine.execution.execute``), then the validity rule of the inputs
    grown from the examples (``generated``) applied to that very execution: nothing runs twice."""
    executions = execute(works, cache, limits, cfg.workers, cfg.progress, stats, executor=executor)
    for w in works:
        gen = generated.get(w.problem.task_id)
        if gen is not None:
            executions[w.problem.task_id] = keep_valid_inputs(executions[w.problem.task_id], gen)
            w.suite = executions[w.problem.task_id].suite
    return executions


def rank_outcome(work: ProblemWork, ex: Executions, methods: Sequence[str], seed: int = 0,
                 features: Optional[Mapping[str, np.ndarray]] = None,
                 hidden: Optional[tuple[np.ndarray, np.ndarray]] = None, canonical: Optional[Executions] = None,
                 generated: Optional[GeneratedInputs] = None) -> ProblemOutcome:
    """One problem's rankings by each method (baselines skipped) and the confidence of each method's pick: no
    verdict is read, so this is also the whole of picking for a problem no benchmark has."""
    feats = dict(features or {})
    out = ProblemOutcome(work.problem.task_id, ex.n_candidates, work.suite, executions=ex, canonical=canonical,
                         hidden=hidden, features=feats, generated=generated.to_json() if generated else None)
    for m in methods:
        if m in BASELINES:
            continue
        base = split_selection(m)[0]  # <method>+<step>: method's ranking here; ``select_outcome`` refines it
        if base != m and base in out.rankings:
            out.rankings[m] = copy.deepcopy(out.rankings[base])
        else:
            ctx = RankContext(work.problem, ex, seed=seed, options=dict(feats), benchmark_outputs=hidden)
            out.rankings[m] = get_ranker(base)(ctx)
        out.confidence[m] = confidence(out.rankings[m], ex)
    return out


def select_env(cfg: RerankConfig, cache: Optional[ResultCache], limits: Limits, executor: Optional[Executor],
               explain: bool = False):
    """Where the selection steps run programs: the run's cache, limits, workers, executor and seed."""
    from coderank_evalplus.selection import SelectEnv

    return SelectEnv(cache, limits, cfg.workers, executor, cfg.seed, progress=False, explain=explain)


def select_outcome(work: ProblemWork, out: ProblemOutcome, methods: Sequence[str], env) -> None:
    """The selection step after ranking (issue 54), for each method named ``<method>+<step>``: the step's strategy
    (``selection``) refines the ranking ``rank_outcome`` gave it, running only the leading programs, in the sandbox,
    through the cache; the new ranking, its confidence and the ``Selection`` (evidence, cost) go into ``out``. The
    one place every face (rerank, run, pick and ``Picker``, evalplus, lm-eval) gets it from."""
    from coderank_evalplus.selection import get_strategy

    assert out.executions is not None  # rank_outcome keeps the executions it ranked
    for m in methods:
        step = split_selection(m)[1]
        if step is None:
            continue
        sel = get_strategy(step)(work, out.executions, out.rankings[m], env)
        sel.ranking.info.setdefault("method", m)
        out.rankings[m] = sel.ranking
        out.selections[m] = sel
        out.confidence[m] = confidence(sel.ranking, out.executions)


def selection_totals(outcomes: Iterable[ProblemOutcome], method: Optional[str] = None) -> dict:
    """The selection steps' cost over the problems (of ``method``, else of every method): problems in doubt,
    problems whose pick changed, distinct programs run, inputs grown, rounds, test items executed, seconds."""
    sels = [s for o in outcomes for m, s in o.selections.items() if method is None or m == method]
    cost = {k: sum(getattr(s.cost, k) for s in sels) for k in ("programs", "inputs", "rounds", "executed_items")}
    return {"select_problems": sum(bool(s.doubt) for s in sels), "select_changed": sum(s.changed for s in sels),
            **{f"select_{k}": v for k, v in cost.items()},
            "select_run_s": round(sum(s.cost.seconds for s in sels), 2)}


def adaptive_stopper(method: str, cfg: RerankConfig, cache: Optional[ResultCache], tau: Optional[float] = None,
                     model: Optional[dict] = None):
    """The adaptive budget's stopper for ``generation.sampling``: execute a problem's solutions so far on its tests
    (the cache keeps earlier rounds' work), rank them with ``method`` and stop once the pick's base confidence
    reaches ``tau`` (default: the confidence model's recorded τ)."""
    model = model or default_confidence_model()
    threshold = adaptive_tau(tau, model)
    limits = Limits(cpu=cfg.time_limit)

    def stop(problem: Problem, solutions: list[str], raw_tests: list[str]) -> tuple[bool, float]:
        tid = problem.task_id
        works = build_works({tid: problem}, {tid: solutions}, {tid: raw_tests}, cfg.tests_per_sample)
        generated = add_mutated_inputs(works, cfg)
        ex = execute(works, cache, limits, cfg.workers, progress=False)[tid]
        if tid in generated:
            ex = keep_valid_inputs(ex, generated[tid])
        # a selection step (<method>+select) is not run while sampling: the stopper ranks with <method>
        ranking = get_ranker(split_selection(method)[0])(RankContext(problem, ex, seed=cfg.seed, options={}))
        conf = confidence(ranking, ex, model)["base"]
        return conf >= threshold, conf

    return stop


def adaptive_method(methods: Sequence[str]) -> str:
    """The method the adaptive budget stops on: ``recommended`` when asked for (or nothing ranked is), else the
    first ranked method."""
    ranked = [m for m in methods if m not in BASELINES]
    return "recommended" if "recommended" in ranked or not ranked else ranked[0]


def adaptive_tau(tau: Optional[float] = None, model: Optional[dict] = None) -> float:
    """The adaptive budget's threshold: ``tau``, or the one recorded in the confidence model."""
    model = model or default_confidence_model()
    return float(model.get("tau", 1.0) if tau is None else tau)


def add_mutated_inputs(works: Sequence[ProblemWork], cfg: RerankConfig) -> dict[str, GeneratedInputs]:
    """With ``cfg.mutate`` (test source ``examples+mutate:N``), add to each work's suite the examples' asserts and N
    inputs grown from them (``testgen.mutate``), seeded by ``cfg.seed``; returns what was added per task."""
    if cfg.mutate is None:
        return {}
    out = {}
    for w in works:
        w.suite, out[w.problem.task_id] = add_generated_inputs(w.suite, w.problem, MutateSpec(cfg.mutate), cfg.seed)
    return out


def generated_summary(generated: Mapping[str, GeneratedInputs], cfg: RerankConfig) -> dict:
    """Totals over the problems: inputs requested, grown, kept by the validity rule; problems without seeds."""
    assert cfg.mutate is not None  # rerank asks for this summary only when examples+mutate ran
    return {"source": MutateSpec(cfg.mutate).label(), "seed": cfg.seed, "problems": len(generated),
            "without_seeds": sum(1 for g in generated.values() if not g.seeds),
            "grown": sum(len(g.calls) for g in generated.values()),
            "kept": sum(sum(g.kept or []) for g in generated.values())}


def canonical_executions(works: Sequence[ProblemWork], cache: Optional[ResultCache], limits: Limits,
                         workers: Optional[int], executor: Optional[Executor] = None) -> dict[str, Executions]:
    """The reference solution of each problem run on the problem's generated tests (one program per problem):
    how accurate a test pool is, for the test-quality report."""
    canon = [ProblemWork(w.problem, [w.problem.prompt + w.problem.canonical_solution], w.suite)
             for w in works if w.problem.canonical_solution and len(w.suite)]
    return execute(canon, cache, limits, workers, progress=False, executor=executor) if canon else {}


class _Phases:
    """Wall seconds per phase of a run: each ``lap(name)`` closes the phase that ran since the previous lap."""

    def __init__(self, load_s: float, start: float) -> None:
        self._laps: dict[str, float] = {"load": load_s}
        self._last = start

    def lap(self, name: str) -> None:
        now = time.monotonic()
        self._laps[name] = self._laps.get(name, 0.0) + (now - self._last)
        self._last = now

    def seconds(self) -> dict:
        out = {f"{name}_s": round(v, 2) for name, v in self._laps.items()}
        out["total_s"] = round(sum(self._laps.values()), 2)
        return out


def _judge_needed(works: Sequence[ProblemWork], executions: Mapping[str, Executions],
                  outcomes: dict[str, ProblemOutcome], problems: Mapping[str, Problem], methods: Sequence[str],
                  cfg: RerankConfig, cache: Optional[ResultCache], executor: Optional[Executor] = None,
                  prejudged: Optional[Mapping[str, Sequence[Verdict]]] = None,
                  suspicious: Optional[list] = None) -> tuple[int, int, int]:
    """Judge exactly the candidates some metric needs (all of them when a baseline is reported); their verdicts
    come from ``prejudged`` (per task, per sample) where it has the task. Returns how many samples were judged,
    how many distinct programs they are (samples with the same program text share one verdict) and how many of
    those verdicts came from the cache;
    the samples that passed only through their own ``==`` go into ``suspicious`` ({task_id, sample, why})."""
    k_max = max(metrics.reportable_ks(cfg.ks, (len(w.programs) for w in works)), default=1)
    need_all = any(m in BASELINES for m in methods)
    to_judge: dict[str, list[str]] = {}
    needed_idx: dict[str, list[int]] = {}
    for w in works:
        tid = w.problem.task_id
        n = len(w.programs)
        if need_all:
            idx = list(range(n))
        else:
            idx = sorted({c for r in outcomes[tid].rankings.values()
                          for c in metrics.needed_candidates(r, k_max, n, cfg.pass_at_k_rule)})
        if prejudged is not None and tid in prejudged:
            outcomes[tid].verdicts = {c: prejudged[tid][c] for c in idx}
            continue
        needed_idx[tid] = idx
        to_judge[tid] = [w.programs[c] for c in idx]
    if not to_judge:
        return 0, 0, 0
    judge = Judge(cache, cfg.workers, cfg.min_time_limit, cfg.gt_time_limit_factor, cfg.progress, executor,
                  strict=cfg.strict)
    verdicts = judge.judge_programs(to_judge, problems, plus=cfg.plus)
    by_tid = {w.problem.task_id: w for w in works}
    for tid, idx in needed_idx.items():
        outcomes[tid].verdicts = dict(zip(idx, verdicts[tid]))
        for c in idx:
            why = judge.suspicious.get((tid, by_tid[tid].programs[c]))
            if why and suspicious is not None:
                suspicious.append({"task_id": tid, "sample": c, "why": why})
    return sum(len(idx) for idx in needed_idx.values()), judge.checked + judge.cached, judge.cached


def correct_array(out: ProblemOutcome, split: str) -> np.ndarray:
    """Which of a problem's candidates pass ``split`` ("base" or "plus"), as far as they were judged (a candidate
    not judged counts as failing; the judge judges every candidate a reported metric reads)."""
    arr = np.zeros(out.n_candidates, dtype=bool)
    for c, v in out.verdicts.items():
        arr[c] = bool(v.base if split == "base" else v.plus)
    return arr


def problem_pass_at_k(out: ProblemOutcome, method: str, correct: np.ndarray, k: int,
                      rule: str = metrics.DEFAULT_PASS_AT_K_RULE) -> float:
    """One problem's pass@k under ``method`` (``random``, ``oracle`` or a ranker's ranking, its k picks taken by
    ``rule``), given which of its candidates are correct: the per-problem value the metrics table averages."""
    if method == "random":
        return metrics.pass_at_k(out.n_candidates, int(correct.sum()), k)
    if method == "oracle":
        return metrics.oracle_pass(correct)
    return metrics.ranked_pass_at_k(out.rankings[method], correct, k, rule)


def problem_scores(outcomes: Mapping[str, ProblemOutcome], method: str, k: int, split: str,
                   rule: str = metrics.DEFAULT_PASS_AT_K_RULE) -> list[float]:
    """Per problem (in ``outcomes``' order), the probability that ``method``'s k picks (by ``rule``) pass ``split``."""
    return [problem_pass_at_k(out, method, correct_array(out, split), k, rule) for out in outcomes.values()]


def _metrics_table(outcomes: Mapping[str, ProblemOutcome], methods: Sequence[str], cfg: RerankConfig,
                   with_plus: bool) -> dict[str, dict[str, Any]]:
    """{method: {"base": {pass@k: %}, "plus": {…} or None, "uses_prompt_examples": bool}}."""
    splits = ("base", "plus") if with_plus else ("base",)
    correct_of = {split: {tid: correct_array(out, split) for tid, out in outcomes.items()} for split in splits}
    ks = metrics.reportable_ks(cfg.ks, (out.n_candidates for out in outcomes.values()))
    table: dict[str, dict[str, Any]] = {}
    for m in methods:
        table[m] = {}
        for split in splits:
            per_k: dict[str, float] = {}
            for k in ks:
                vals = [problem_pass_at_k(out, m, correct_of[split][tid], k, cfg.pass_at_k_rule)
                        for tid, out in outcomes.items()]
                per_k[f"pass@{k}"] = metrics.aggregate_percent(vals)
            table[m][split] = per_k
        if not with_plus:
            table[m]["plus"] = None
        table[m]["uses_prompt_examples"] = uses_prompt_examples(m, cfg.mutate is not None)
    return table


def write_results(result: RerankResult, output_dir: str | Path, samples_name: str = "rerank_results.json") -> Path:
    """Write rerank_results.json, verdicts.jsonl and rankings.jsonl (per problem, per method) into a folder.

    Each file is written to a temporary name and renamed (``storage.atomic_write_text``): a crash leaves the old
    complete file or the new one, never half of one. The JSON summary is removed first and written last."""
    out = Path(output_dir)
    verdicts = []
    for tid, o in result.outcomes.items():
        for c in sorted(o.verdicts):
            v = o.verdicts[c]
            verdicts.append({"task_id": tid, "sample": c, "base": v.base, "plus": v.plus})
    rankings = []
    for tid, o in result.outcomes.items():
        for m, r in o.rankings.items():
            groups = [{"candidates": g.candidates, "score": _finite(g.score)} for g in r.groups[:10]]
            row = {"task_id": tid, "method": m, "n_groups": len(r.groups), "top_groups": groups}
            if m in o.selections:
                row["selection"] = o.selections[m].to_json()
            rankings.append(row)
    path = out / samples_name
    # the summary of an earlier run goes first and comes back last: a folder whose rerank_results.json is there is
    # complete, and its files belong together, even if this process dies half-way
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        raise os_storage_error(exc, out, samples_name) or exc from None
    atomic_write_jsonl(out / "verdicts.jsonl", verdicts)
    atomic_write_jsonl(out / "rankings.jsonl", rankings)
    write_folder(result, result.problems, out)
    atomic_write_json(path, result.to_json(), indent=2, default=_json_default)
    return path


def _finite(x: float) -> Optional[float]:
    return float(x) if math.isfinite(float(x)) else None


def _json_default(obj):
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, float) and math.isnan(obj):
        return None
    return str(obj)
