"""The rerank stage of a benchmark: tests per problem → the per-problem path → judge → metrics → results folder.

``rank_and_judge`` is the stage on loaded inputs; every entry point reaches it through the one path
(``api.evaluate.run_rerank``), which loads, selects and writes; none of them re-implements a stage. What happens to
each problem before the judge (execute → rank → steps after ranking → the pick and its confidence) is
``selection.path.ProblemPath``, which ``pick`` and the adaptive budget's stopper (here) run too.
"""

from __future__ import annotations

import contextlib
import math
import sys
import time
from dataclasses import asdict, dataclass, replace
from os import PathLike
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from coderank_evalplus import metrics
from coderank_evalplus.engine.execution.execute import ExecutionStats, ProblemWork, ResultCache, execute
from coderank_evalplus.engine.execution.executor_factory import make_executor
from coderank_evalplus.engine.execution.executors import Executor
from coderank_evalplus.engine.judging.judge import Judge
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.io.eval_results import read_verdicts
from coderank_evalplus.io.results_folder import write_folder
from coderank_evalplus.io.samples import read_test_samples
from coderank_evalplus.rankers import alias_of, uses_prompt_examples, validate_methods
from coderank_evalplus.rankers.confidence import confidence_block
from coderank_evalplus.rankers.confidence import default_model as default_confidence_model
from coderank_evalplus.rankers.registry import RECOMMENDED
from coderank_evalplus.selection.base import Step
from coderank_evalplus.selection.path import ProblemPath
from coderank_evalplus.storage import atomic_write_json, atomic_write_jsonl, os_storage_error
from coderank_evalplus.testgen.io_tests import suite_for
from coderank_evalplus.testgen.mutate import MutateSpec
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

BASELINES = metrics.BASELINES  # always reported; computed from verdicts, not through a ranker


@dataclass
class RerankConfig:
    """The settings of one rerank run, derived from the options (``api.evaluate.stage_config``: every default
    lives in the options table, ``api.options``). Its fields but the machine's (progress, workers, executor,
    ray_address) are the results' ``config``."""

    methods: Sequence[str]
    ks: Sequence[int]
    tests_per_sample: Optional[int]  # asserts kept per test sample (None: all)
    time_limit: float  # CPU seconds per generated test
    workers: Optional[int]
    plus: bool  # judge on plus tests too
    seed: int
    min_time_limit: float
    gt_time_limit_factor: float
    progress: bool
    executor: str  # where jobs run: "local" (this machine's pool) or "ray" (a Ray cluster)
    ray_address: Optional[str]  # executor "ray": the cluster (None: join the local one or start one)
    limit: Optional[int]  # the dataset's first N problems (None: all); see problems.select_problems
    mutate: Optional[int]  # test source examples+mutate:N: N inputs grown from the examples (None: off)
    strict: bool  # a pass the judge lists as suspicious (its own == decided) counts as a failure
    pass_at_k_rule: str  # how k picks follow a ranking (metrics.PASS_AT_K_RULES)


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


def read_tests(files: Sequence[str], problems: Mapping[str, Problem], data_dir: Optional[str] = None,
               drop_extra: bool = False) -> dict[str, list[str]]:
    """Files of test samples (``TestSources.files``: what ``--tests`` / a suite's ``tests`` name besides
    examples+mutate): their raw test samples, pooled per task."""
    from coderank_evalplus.io.jsonl import SampleFileError
    from coderank_evalplus.testgen.extract import extract_asserts

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
    return pooled


def ranked_methods(methods: Sequence[str]) -> list[str]:
    """The methods the per-problem path ranks: all but the baselines, which are computed from verdicts."""
    return [m for m in methods if m not in BASELINES]


def rank_and_judge(dataset: str, problems: Mapping[str, Problem], solutions: Mapping[str, Sequence[str]],
                   test_samples: Mapping[str, Sequence[str]], cfg: RerankConfig,
                   cache: Optional[ResultCache] = None,
                   features: Optional[Mapping[str, Mapping[str, Sequence[float]]]] = None,
                   executor: Optional[Executor] = None, eval_results: Optional[str | PathLike] = None,
                   load_s: float = 0.0, select: Optional[Step] = None) -> RerankResult:
    """Rerank every task's candidates with each method and measure ranked pass@k on base (and plus) tests.

    Tasks are taken in the dataset's order; ``cfg.limit`` keeps the dataset's first N problems. ``features``: per
    task, per-candidate likelihood features (``io.samples.read_features``) that likelihood rankers read from
    ``RankContext.options``. Jobs run on ``executor`` when given (left open), else on one made from
    ``cfg.executor`` for this call. ``eval_results``: evalplus's ``*_eval_results.json`` for these samples; its
    verdicts are used instead of judging when it matches them (else the samples are judged, with a warning saying
    why). ``load_s``: the caller's seconds spent reading the dataset and samples, reported in the ``timing``
    block. ``select``: a step after ranking for every method, before judging (``selection.sstar.ModelSelector``:
    S*), after the step a method's name asks for; its decisions go in the results (``sstar``). All the problems
    are one batch of ``Stage``, which a streamed run feeds problem by problem instead."""
    start = time.monotonic()
    all_methods(cfg.methods)  # a bad name says so before an executor starts
    with contextlib.ExitStack() as stack:
        if executor is None:
            executor = stack.enter_context(make_executor(cfg.executor, cfg.workers, cfg.ray_address))
        stage = Stage(dataset, problems, cfg, cache, executor, select, eval_results, load_s, start)
        stage.add(build_works(problems, solutions, test_samples, cfg.tests_per_sample), features)
        return stage.result()


class Stage:
    """The rerank stage fed in batches: each batch of problems goes down the per-problem path (execute → rank →
    steps after ranking → the pick's confidence), its reference solutions run on its tests (the test-quality
    report) and its candidates are judged (``add``); ``result`` computes the metrics over every problem added. A
    problem's outcome depends on that problem alone, so one batch of all (``rank_and_judge``) and one batch per
    problem as the model finishes it (a streamed ``run``) give the same results; the executor (left open) and the
    cache are shared by every batch, and ``timing`` adds up each phase's seconds over them."""

    def __init__(self, dataset: str, problems: Mapping[str, Problem], cfg: RerankConfig,
                 cache: Optional[ResultCache], executor: Executor, select: Optional[Step] = None,
                 eval_results: Optional[str | PathLike] = None, load_s: float = 0.0,
                 start: Optional[float] = None) -> None:
        self.dataset, self.problems, self.cfg, self.cache, self.executor = dataset, problems, cfg, cache, executor
        self.eval_results = eval_results
        self.clock = _Phases(load_s, time.monotonic() if start is None else start)
        self.methods = all_methods(cfg.methods)
        self.stats = ExecutionStats()
        self.path = ProblemPath(cfg, ranked_methods(self.methods), cache, executor,
                                [select] if select is not None else [], stats=self.stats)
        self.judge = Judge(cache, cfg.workers, cfg.min_time_limit, cfg.gt_time_limit_factor, cfg.progress, executor,
                           strict=cfg.strict)
        self.works: dict[str, ProblemWork] = {}
        self.outcomes: dict[str, ProblemOutcome] = {}
        self.early: dict[tuple[str, str], Verdict] = {}  # (task, program) → verdict given before its tests were in
        self.judged: dict[str, Any] = {"judged_samples": 0, "judged_programs": 0, "judge_cached": 0,
                                       "verdicts_from": "judge"}
        self.suspicious: list[dict] = []

    def lap(self, phase: str) -> None:
        """Close a phase of the caller's (a streamed run's wait for the model) in the timing block."""
        self.clock.lap(phase)

    def add(self, works: Sequence[ProblemWork],
            features: Optional[Mapping[str, Mapping[str, Sequence[float]]]] = None,
            ranked: Optional[Callable[[], None]] = None) -> dict[str, ProblemOutcome]:
        """The batch's outcomes (ranked, judged), by task id; they are kept for ``result``. ``ranked()`` is called
        once the batch is through the per-problem path, before its judge (a progress line)."""
        outcomes = self.path.run(works, features, self.clock.lap)
        if ranked is not None:
            ranked()
        limits = Limits(cpu=self.cfg.time_limit)
        for tid, canon in canonical_executions(works, self.cache, limits, self.cfg.workers, self.executor).items():
            outcomes[tid].canonical = canon
        self.clock.lap("execute")
        judged, suspicious = _judge(works, outcomes, self.problems, self.methods, self.cfg, self.judge,
                                    self.eval_results, self.early)
        for key in ("judged_samples", "judged_programs", "judge_cached"):
            self.judged[key] += judged[key]
        if judged["verdicts_from"] != "judge":
            self.judged["verdicts_from"] = judged["verdicts_from"]
        self.suspicious += suspicious
        self.clock.lap("judge")
        self.works.update((w.problem.task_id, w) for w in works)
        self.outcomes.update(outcomes)
        return outcomes

    def judge_early(self, programs: Mapping[str, Sequence[str]]) -> None:
        """Judge these programs of each task now, before their problems' tests are in (the judge needs only the
        programs: a streamed run judges a problem's solutions while the model writes its tests); ``add`` takes their
        verdicts from here. Counted in the timing block as ``add`` counts them."""
        todo = {t: [p for p in dict.fromkeys(progs) if (t, p) not in self.early] for t, progs in programs.items()}
        todo = {t: progs for t, progs in todo.items() if progs}
        if not todo:
            return
        checked, cached = self.judge.checked, self.judge.cached
        verdicts = self.judge.judge_programs(todo, self.problems, plus=self.cfg.plus)
        for t, progs in todo.items():
            self.early.update(((t, p), v) for p, v in zip(progs, verdicts[t]))
        self.judged["judged_programs"] += self.judge.checked - checked + self.judge.cached - cached
        self.judged["judge_cached"] += self.judge.cached - cached
        self.clock.lap("judge")

    def result(self, order: Optional[Sequence[str]] = None) -> RerankResult:
        """The run's result over the problems added, in ``order`` (task ids; default: as they were added)."""
        order = list(self.outcomes) if order is None else list(order)
        works = [self.works[t] for t in order]
        outcomes = {t: self.outcomes[t] for t in order}
        cfg = self.cfg
        place = {t: i for i, t in enumerate(order)}
        suspicious = sorted(self.suspicious, key=lambda s: (place[s["task_id"]], s["sample"]))
        table = _metrics_table(outcomes, self.methods, cfg,
                               any(p.has_plus_tests for p in self.problems.values()) and cfg.plus)
        self.clock.lap("metrics")
        return _result(self.dataset, works, outcomes, table, self.methods, cfg, self.stats, self.clock,
                       self.judged, suspicious, self.path.report(outcomes))


def _result(dataset: str, works: Sequence[ProblemWork], outcomes: dict[str, ProblemOutcome], table: dict,
            methods: list[str], cfg: RerankConfig, stats: ExecutionStats, clock: "_Phases", judged: dict,
            suspicious: list[dict], steps: tuple[dict, dict]) -> RerankResult:
    """The run's ``RerankResult``: the table, the outcomes, the settings, where the time went (``timing``), and
    the blocks beside them (confidence, grown inputs, the steps after ranking, the plus split)."""
    step_timing, step_extra = steps
    timing = {**clock.seconds(), "programs": stats.unique_programs, "items": stats.pairs,
              "executed_items": stats.executed_pairs, "cached_items": stats.cached_pairs, **judged,
              "suspicious": len(suspicious), **step_timing}
    judged_splits = ("base", "plus") if table and next(iter(table.values())).get("plus") is not None else ("base",)
    passed = {m: {s: problem_scores(outcomes, m, 1, s) for s in judged_splits} for m in methods if m not in BASELINES}
    extra = {"suspicious": suspicious,
             "confidence": confidence_block({t: o.confidence for t, o in outcomes.items()}, passed),
             **({"generated_inputs": generated_summary(outcomes, cfg)} if cfg.mutate is not None else {}),
             **step_extra}
    if table and next(iter(table.values())).get("plus") is not None:
        extra["splits"] = {"plus": {"problems_with_plus_tests": sum(w.problem.has_plus_tests for w in works),
                                    "problems": len(works)}}
    config = {k: v for k, v in asdict(cfg).items() if k not in ("progress", "workers", "executor", "ray_address")}
    # what each alias among the methods stood for in this run (a report reads an older folder's by its absence)
    config["aliases"] = {m: a for m in methods if (a := alias_of(m)) is not None}
    stats_json = {"unique_programs": stats.unique_programs, "executed_items": stats.executed_pairs,
                  "cached_items": stats.cached_pairs, "wall_s": round(stats.wall_s, 2)}
    return RerankResult(dataset, len(works), table, outcomes, {**config, "methods": methods}, stats_json,
                        {w.problem.task_id: w.problem for w in works}, extra=extra, timing=timing)


def adaptive_stopper(method: str, cfg: RerankConfig, cache: Optional[ResultCache], tau: Optional[float] = None,
                     model: Optional[dict] = None, executor: Optional[Executor] = None) -> "AdaptiveStopper":
    """The adaptive budget's stopper for ``generation.sampling`` (``AdaptiveStopper``)."""
    return AdaptiveStopper(method, cfg, cache, tau, model, executor)


class AdaptiveStopper:
    """The adaptive budget's stopper: a problem's solutions so far go down the per-problem path (executed on its
    tests, the cache keeping earlier rounds' work; ranked with ``method``, with the samples' features, as a rerank
    ranks them, its step after ranking included: ``recommended`` runs the selection step), and sampling stops once
    the pick's base confidence reaches ``tau`` (default: the confidence model's recorded τ). Called with one problem
    (``generation.sampling``'s ``Stopper``); ``decide`` answers a batch at once (a streamed run's, on its
    ``executor``: None, a pool per batch)."""

    def __init__(self, method: str, cfg: RerankConfig, cache: Optional[ResultCache], tau: Optional[float] = None,
                 model: Optional[dict] = None, executor: Optional[Executor] = None) -> None:
        model = model or default_confidence_model()
        self.threshold = adaptive_tau(tau, model)
        self.method = method
        self.tests_per_sample = cfg.tests_per_sample
        self.path = ProblemPath(replace(cfg, progress=False), [method], cache, executor, confidence_model=model)

    def __call__(self, problem: Problem, solutions: list[str], raw_tests: list[str],
                 features: Mapping[str, Sequence[float]]) -> tuple[bool, float]:
        return self.decide([(problem, solutions, raw_tests, features)])[0]

    def decide(self, asks: Sequence[tuple[Problem, list[str], list[str], Mapping[str, Sequence[float]]]]
               ) -> list[tuple[bool, float]]:
        """(stop now, the pick's base confidence) for each (problem, solutions so far, raw tests, features)."""
        problems = {p.task_id: p for p, _, _, _ in asks}
        works = build_works(problems, {p.task_id: s for p, s, _, _ in asks}, {p.task_id: t for p, _, t, _ in asks},
                            self.tests_per_sample)
        outcomes = self.path.run(works, {p.task_id: f for p, _, _, f in asks})
        answers = []
        for p, _, _, _ in asks:
            conf = outcomes[p.task_id].confidence[self.method]["base"]
            answers.append((conf >= self.threshold, conf))
        return answers


def adaptive_method(methods: Sequence[str]) -> str:
    """The method the adaptive budget stops on: ``recommended`` when asked for (or nothing ranked is), else the
    first ranked method."""
    ranked = [m for m in methods if m not in BASELINES]
    return RECOMMENDED if RECOMMENDED in ranked or not ranked else ranked[0]


def adaptive_tau(tau: Optional[float] = None, model: Optional[dict] = None) -> float:
    """The adaptive budget's threshold: ``tau``, or the one recorded in the confidence model."""
    model = model or default_confidence_model()
    return float(model.get("tau", 1.0) if tau is None else tau)


def generated_summary(outcomes: Mapping[str, ProblemOutcome], cfg: RerankConfig) -> dict:
    """Totals over the problems: inputs requested, grown, kept by the validity rule; problems without seeds."""
    assert cfg.mutate is not None  # rerank asks for this summary only when examples+mutate ran
    grown = [o.generated for o in outcomes.values() if o.generated is not None]
    return {"source": MutateSpec(cfg.mutate).label(), "seed": cfg.seed, "problems": len(grown),
            "without_seeds": sum(1 for g in grown if not g["seeds"]), "grown": sum(len(g["inputs"]) for g in grown),
            "kept": sum(sum(g["kept"] or []) for g in grown)}


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


def _judge(works: Sequence[ProblemWork], outcomes: dict[str, ProblemOutcome], problems: Mapping[str, Problem],
           methods: Sequence[str], cfg: RerankConfig, judge: Judge, eval_results: Optional[str | PathLike],
           early: Optional[Mapping[tuple[str, str], Verdict]] = None) -> tuple[dict[str, Any], list[dict]]:
    """The judge phase: verdicts for exactly the candidates some metric needs, from evalplus's ``eval_results``
    when they match these samples (else judged, with a warning saying why). Returns the timing block's keys and the
    samples that passed only through their own ``==`` ({task_id, sample, why})."""
    prejudged, verdicts_from = None, "judge"
    if eval_results is not None:
        prejudged, why_not = read_verdicts(eval_results, problems, {w.problem.task_id: w.programs for w in works},
                                           cfg.plus)
        if prejudged is None:
            print(f"warning: not using evalplus's verdicts, judging the samples instead: {why_not}", file=sys.stderr)
        else:
            verdicts_from = str(eval_results)
    suspicious: list[dict] = []
    judged, programs, cached = _judge_needed(works, outcomes, problems, methods, cfg, judge, prejudged, suspicious,
                                             early)
    return {"judged_samples": judged, "judged_programs": programs, "judge_cached": cached,
            "verdicts_from": verdicts_from}, suspicious


def _judge_needed(works: Sequence[ProblemWork], outcomes: dict[str, ProblemOutcome], problems: Mapping[str, Problem],
                  methods: Sequence[str], cfg: RerankConfig, judge: Judge,
                  prejudged: Optional[Mapping[str, Sequence[Verdict]]] = None,
                  suspicious: Optional[list] = None,
                  early: Optional[Mapping[tuple[str, str], Verdict]] = None) -> tuple[int, int, int]:
    """Judge exactly the candidates some metric needs (all of them when a baseline is reported, as ``all_methods``
    always has them: what a batch judges then depends on its own problems only); their verdicts come from
    ``prejudged`` (per task, per sample) where it has the task, and from ``early`` ((task, program) → verdict: the
    same judge's, given before the problem's tests were in) where it has the program. Returns how many samples were
    judged, how many distinct programs they are (samples with the same program text share one verdict) and how many
    of those verdicts came from the cache (this batch's, with ``judge`` shared by the batches of a run);
    the samples that passed only through their own ``==`` go into ``suspicious`` ({task_id, sample, why})."""
    early = early or {}
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
        missing = list(dict.fromkeys(w.programs[c] for c in idx if (tid, w.programs[c]) not in early))
        if missing:
            to_judge[tid] = missing
    if not needed_idx:
        return 0, 0, 0
    checked, cached = judge.checked, judge.cached
    verdicts = judge.judge_programs(to_judge, problems, plus=cfg.plus) if to_judge else {}
    by_tid = {w.problem.task_id: w for w in works}
    for tid, idx in needed_idx.items():
        fresh = dict(zip(to_judge.get(tid, ()), verdicts.get(tid, ())))
        programs = by_tid[tid].programs
        outcomes[tid].verdicts = {c: fresh[programs[c]] if programs[c] in fresh else early[(tid, programs[c])]
                                  for c in idx}
        for c in idx:
            why = judge.suspicious.get((tid, by_tid[tid].programs[c]))
            if why and suspicious is not None:
                suspicious.append({"task_id": tid, "sample": c, "why": why})
    return (sum(len(idx) for idx in needed_idx.values()), judge.checked - checked + judge.cached - cached,
            judge.cached - cached)


def correct_array(out: ProblemOutcome, split: str) -> np.ndarray:
    """Which of a problem's candidates pass ``split`` ("base" or "plus"), as far as they were judged (a candidate
    not judged counts as failing; the judge judges every candidate a reported metric reads)."""
    arr = np.zeros(out.n_candidates, dtype=bool)
    for c, v in out.verdicts.items():
        arr[c] = bool(v.base if split == "base" else v.plus)
    return arr


def problem_pass_at_k(out: ProblemOutcome, method: str, correct: np.ndarray, k: int,
                      rule: str = metrics.DEFAULT_PASS_AT_K_RULE) -> float:
    """One problem's pass@k under ``method`` (``metrics.problem_pass_at_k`` on the outcome's ranking), given which
    of its candidates are correct: the per-problem value the metrics table averages."""
    return metrics.problem_pass_at_k(method, correct, out.rankings.get(method), k, rule)


def problem_scores(outcomes: Mapping[str, ProblemOutcome], method: str, k: int, split: str,
                   rule: str = metrics.DEFAULT_PASS_AT_K_RULE) -> list[float]:
    """Per problem (in ``outcomes``' order), the probability that ``method``'s k picks (by ``rule``) pass ``split``."""
    return [problem_pass_at_k(out, method, correct_array(out, split), k, rule) for out in outcomes.values()]


def _metrics_table(outcomes: Mapping[str, ProblemOutcome], methods: Sequence[str], cfg: RerankConfig,
                   with_plus: bool) -> dict[str, dict[str, Any]]:
    """{method: {"base": {pass@k: %}, "plus": {…} or None, "uses_prompt_examples": bool}}."""
    ks = metrics.reportable_ks(cfg.ks, (out.n_candidates for out in outcomes.values()))
    table = metrics_table(outcomes, methods, ks, with_plus, cfg.pass_at_k_rule)
    for m in methods:
        table[m]["uses_prompt_examples"] = uses_prompt_examples(m, cfg.mutate is not None)
    return table


Correct = Callable[[str, str, ProblemOutcome, str], np.ndarray]  # (method, task id, outcome, split) → bool each


def metrics_table(outcomes: Mapping[str, ProblemOutcome], methods: Sequence[str], ks: Sequence[int],
                  with_plus: bool, rule: str = metrics.DEFAULT_PASS_AT_K_RULE,
                  correct: Optional[Correct] = None) -> dict[str, dict[str, Any]]:
    """{method: {"base": {pass@k: %}, "plus": {…} or None}}: each problem scored by ``metrics.problem_pass_at_k``
    and averaged. ``correct``: which candidates are correct for a method (default the outcome's verdicts,
    ``correct_array``; self-debug's SD-1 reads some of them from the debugged pool)."""
    splits = ("base", "plus") if with_plus else ("base",)
    correct_of = {split: {tid: correct_array(out, split) for tid, out in outcomes.items()} for split in splits}
    table: dict[str, dict[str, Any]] = {}
    for m in methods:
        table[m] = {}
        for split in splits:
            per_tid = {tid: correct(m, tid, out, split) if correct is not None else correct_of[split][tid]
                       for tid, out in outcomes.items()}
            table[m][split] = {f"pass@{k}": metrics.aggregate_percent(
                problem_pass_at_k(out, m, per_tid[tid], k, rule) for tid, out in outcomes.items()) for k in ks}
        if not with_plus:
            table[m]["plus"] = None
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
            if o.steps.get(m):
                row["steps"] = [sel.to_json() for sel in o.steps[m]]
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
