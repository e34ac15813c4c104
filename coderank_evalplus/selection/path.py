"""The per-problem path, written once: execute → rank → steps after ranking → the pick and its confidence.

A batch of problems goes in (each problem's candidates and tests as a ``ProblemWork``, and per-candidate features
such as the model's log-probabilities); each problem's ``ProblemOutcome`` comes out: every method's ranking, each
step's answer (``Selection``), and the confidence of each method's pick, computed once from the ranking the last
step left. Nothing is judged here: a benchmark's judge comes after (``pipeline.rank_and_judge``), and a problem no
benchmark has stops here (``pick``).

::

    works ─▶ grow inputs ─▶ execute ─▶ rank ─────────▶ steps after ranking ─▶ pick + confidence ─▶ (judge)
             examples+mutate  sandbox,   every method,    <method>+select,       metrics.pick_pool,
                              cache      one RankContext  S* (--select-model)    rankers.confidence

Where the executions come from is the path's ``source``: the engine (a live run: inputs grown, candidates run in
the sandbox through the execution cache) or a stored run's executions (``StoredExecutions``: a results folder's
matrices, or a sub-sample of its candidates or tests, replayed: nothing runs but what a step after ranking asks
for, through the execution cache). A replay is the live path fed from the folder, so its rankings, steps and
confidences are the live run's on the same candidates (``selection.stored``).

Callers: ``pipeline.rank_and_judge`` (every entry point: ``api.evaluate.run_rerank``; self-debug's debugged pool),
``api.picking.Picker`` (``pick``), ``pipeline.adaptive_stopper`` (``--adaptive``), ``selection.stored`` (a stored
run's tables, curves and round tables at a budget). Work is batched across the
problems of a call (the worker pool runs them together; a model step asks its questions together); one problem is a
batch of one, so a caller may feed problems one by one as they arrive, with the same executor and cache.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any, Callable, Hashable, Mapping, Optional, Protocol, Sequence

import numpy as np

from coderank_evalplus.engine.execution.execute import ExecutionStats, ProblemWork, ResultCache, execute
from coderank_evalplus.engine.execution.executors import Executor, LocalExecutor, WarmExecutor
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.rankers import rank_problem, split_selection
from coderank_evalplus.rankers.confidence import confidence
from coderank_evalplus.rankers.registry import get_step
from coderank_evalplus.selection.base import SelectEnv, Selection, Step, StepItem
from coderank_evalplus.testgen.mutate import GeneratedInputs, MutateSpec, add_generated_inputs, keep_valid_inputs
from coderank_evalplus.types import Executions, ProblemOutcome

Features = Mapping[str, Sequence[float]]  # one problem's per-candidate features: field → one value per candidate
Lap = Callable[[str], None]  # closes a timing phase (``pipeline``'s clock); the path names its phases


class PathSettings(Protocol):
    """What the path reads of a run's settings (``pipeline.RerankConfig``, derived from the options, has them)."""

    time_limit: float
    seed: int
    mutate: Optional[int]
    workers: Optional[int]
    progress: bool


def _no_lap(_phase: str) -> None:
    return None


class StoredExecutions:
    """A stored run's executions as the path's source (a replay): per key (``run_keyed``'s; a task id for ``run``),
    the candidates' executions (a folder's matrices, or a sub-sample's: ``rankers.filtering.restrict``,
    ``report.curves.restrict_tests``) and the benchmark's outputs (``mbr_exec_hidden``). Inputs grown by the run
    are in its executions already: nothing grows or runs again."""

    def __init__(self, executions: Mapping[Hashable, Executions],
                 hidden: Optional[Mapping[Hashable, Optional[tuple[np.ndarray, np.ndarray]]]] = None) -> None:
        self.executions, self.hidden = executions, dict(hidden or {})


class ProblemPath:
    """The path for ``methods`` (ranked methods, each ``<ranker>`` or ``<ranker>+<step>``) with one run's settings,
    execution cache and executor (left open; None: a pool per call), and ``steps``: steps after ranking applied to
    every method (S*), after the one a method's name asks for. ``stats`` counts the executions;
    ``confidence_model``: the confidence model (default: the shipped one); ``source``: where the executions come
    from (None: the engine, a live run; ``StoredExecutions``: a replay); ``own``: the step a method's name asks
    for, by name, set up by the caller (default: the registry's, as it is built); ``options``: more ranker options
    for every problem (a study's held-out weights); ``confidence``: False leaves the picks' confidence out (a caller
    that reads the rankings alone). ``run(works)`` takes a batch."""

    def __init__(self, cfg: PathSettings, methods: Sequence[str], cache: Optional[ResultCache] = None,
                 executor: Optional[Executor] = None, steps: Sequence[Step] = (), *,
                 stats: Optional[ExecutionStats] = None, confidence_model: Optional[dict] = None,
                 source: Optional[StoredExecutions] = None, own: Optional[Mapping[str, Step]] = None,
                 options: Optional[Mapping[str, Any]] = None, confidence: bool = True) -> None:
        self.cfg, self.methods = cfg, list(methods)
        self.source, self.options = source, dict(options or {})
        self.cache, self.executor = cache, executor
        self.limits = Limits(cpu=cfg.time_limit)
        self.stats = stats if stats is not None else ExecutionStats()
        self.confidence_model = confidence_model
        self.with_confidence = confidence  # False: a caller that reads the rankings alone (a replay's curve points)
        self.env = SelectEnv(cache, self.limits, cfg.workers, executor, cfg.seed, progress=cfg.progress)
        asked = dict.fromkeys(s for s in (split_selection(m)[1] for m in self.methods) if s is not None)
        self.steps: dict[str, Step] = {name: (own or {}).get(name) or get_step(name)() for name in asked}
        self._every = [s.name for s in steps]  # the steps every method goes through
        self.steps.update((s.name, s) for s in steps)

    def run(self, works: Sequence[ProblemWork], features: Optional[Mapping[str, Features]] = None,
            lap: Lap = _no_lap) -> dict[str, ProblemOutcome]:
        """Each work's outcome, by task id, in the works' order (a work's suite becomes the one executed: with the
        grown inputs the validity rule kept). ``features``: per task id, per-candidate features that rankers read
        from ``RankContext.options`` (likelihood rankers). ``lap``: called as each phase ends ("load", "execute",
        "rank", and each step's phase). This machine's workers stay up from the execution to the last step (where
        the run's executor would start a pool for each call)."""
        keys = [w.problem.task_id for w in works]
        outcomes = self.run_keyed(keys, works, [(features or {}).get(k) for k in keys], lap)
        return {str(k): out for k, out in outcomes.items()}

    def run_keyed(self, keys: Sequence[Hashable], works: Sequence[ProblemWork],
                  features: Optional[Sequence[Optional[Features]]] = None, lap: Lap = _no_lap
                  ) -> dict[Hashable, ProblemOutcome]:
        """``run`` with each work under a key of the caller's (a replay's sub-samples of one problem share its task
        id): the source's executions and the outcomes are keyed so; ``features``: one per work."""
        saved = self.executor
        if saved is not None and not isinstance(saved, LocalExecutor):
            return self._run(keys, works, features, lap)
        pool = WarmExecutor(self.cfg.workers if saved is None else saved.workers)  # started by its first job
        self.executor, self.env = pool, replace(self.env, executor=pool)
        try:
            return self._run(keys, works, features, lap)
        finally:
            pool.__exit__(None, None, None)
            self.executor, self.env = saved, replace(self.env, executor=saved)

    def _run(self, keys: Sequence[Hashable], works: Sequence[ProblemWork],
             features: Optional[Sequence[Optional[Features]]], lap: Lap) -> dict[Hashable, ProblemOutcome]:
        if self.source is None:
            generated = self.grow_inputs(works)
            lap("load")
            ran = self.execute(works, generated)
            bench = self.benchmark_outputs(works) if any(m.endswith("mbr_exec_hidden") for m in self.methods) else {}
            executions = [ran[w.problem.task_id] for w in works]
            hidden = [bench.get(w.problem.task_id) for w in works]
            grown = [generated.get(w.problem.task_id) for w in works]
        else:
            executions = [self.source.executions[k] for k in keys]
            hidden = [self.source.hidden.get(k) for k in keys]
            grown = [None] * len(works)
        lap("execute")
        feats = list(features) if features is not None else [None] * len(works)
        outcomes = {k: self.rank(w, ex, f, h, g) for k, w, ex, f, h, g in zip(keys, works, executions, feats, hidden,
                                                                              grown)}
        lap("rank")
        self.apply_steps(works, outcomes, lap, keys)
        if self.with_confidence:
            self.pick(outcomes)
        lap("rank")
        return outcomes

    # --- the phases, in order ---------------------------------------------------------------------------------
    def grow_inputs(self, works: Sequence[ProblemWork]) -> dict[str, GeneratedInputs]:
        """With ``mutate`` (test source ``examples+mutate:N``), each work's suite gets the examples' asserts and N
        inputs grown from them (``testgen.mutate``), seeded by ``seed``; returns what was added per task."""
        if self.cfg.mutate is None:
            return {}
        out = {}
        for w in works:
            w.suite, out[w.problem.task_id] = add_generated_inputs(w.suite, w.problem, MutateSpec(self.cfg.mutate),
                                                                   self.cfg.seed)
        return out

    def execute(self, works: Sequence[ProblemWork], generated: Mapping[str, GeneratedInputs]) -> dict[str, Executions]:
        """Every work's candidates on its suite (``engine.execution.execute``), then the validity rule of the grown
        inputs applied to that very execution: nothing runs twice."""
        executions = execute(works, self.cache, self.limits, self.cfg.workers, self.cfg.progress, self.stats,
                             executor=self.executor)
        for w in works:
            gen = generated.get(w.problem.task_id)
            if gen is not None:
                executions[w.problem.task_id] = keep_valid_inputs(executions[w.problem.task_id], gen)
                w.suite = executions[w.problem.task_id].suite
        return executions

    def benchmark_outputs(self, works: Sequence[ProblemWork]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Output digests of every unique program on the benchmark's base inputs (``mbr_exec_hidden``). Inputs are
        written as call expressions; inputs whose repr does not evaluate back to an equal value (e.g. ``inf``) are
        skipped."""
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
            hidden.append(ProblemWork(w.problem, w.programs, suite_from_asserts({c: 1 for c in calls},
                                                                                w.problem.entry_point)))
        ex = execute(hidden, self.cache, self.limits, self.cfg.workers, self.cfg.progress, executor=self.executor)
        return {tid: (e.output_matrix, e.output_kind) for tid, e in ex.items()}

    def rank(self, work: ProblemWork, ex: Executions, features: Optional[Features] = None,
             hidden: Optional[tuple[np.ndarray, np.ndarray]] = None,
             generated: Optional[GeneratedInputs] = None) -> ProblemOutcome:
        """One problem's ranking by each method; every ranker gets the same context (features, benchmark outputs,
        seed). ``<method>+<step>`` starts from ``<method>``'s ranking (the steps reorder it)."""
        feats = {k: np.asarray(v, dtype=float) for k, v in (features or {}).items()}
        out = ProblemOutcome(work.problem.task_id, ex.n_candidates, work.suite, executions=ex, hidden=hidden,
                             features=feats, generated=generated.to_json() if generated else None)
        for m in self.methods:
            base = split_selection(m)[0]
            if base != m and base in out.rankings:
                out.rankings[m] = copy.deepcopy(out.rankings[base])
            else:
                out.rankings[m] = rank_problem(base, work.problem, ex, self.cfg.seed, feats, self.options, hidden)
        return out

    def apply_steps(self, works: Sequence[ProblemWork], outcomes: Mapping[Hashable, ProblemOutcome],
                    lap: Lap = _no_lap, keys: Optional[Sequence[Hashable]] = None) -> None:
        """Each step once over every (problem, method) that goes through it (the one its name asks for, then the
        steps for every method): the new ranking replaces the old, the answer goes into ``outcome.steps``.
        ``keys``: the outcomes' key of each work (default: its task id)."""
        by_tid = dict(zip(keys if keys is not None else [w.problem.task_id for w in works], works))
        for name, step in self.steps.items():
            asked = [(t, m) for t in outcomes for m in self.methods if name in self.chain(m)]
            if not asked:
                continue
            items = []
            for t, m in asked:
                ex = outcomes[t].executions
                assert ex is not None  # rank keeps the executions it ranked
                items.append(StepItem(by_tid[t], ex, outcomes[t].rankings[m], m))
            for (t, m), sel in zip(asked, step.run(items, self.env)):
                sel.ranking.info.setdefault("method", m)
                outcomes[t].rankings[m] = sel.ranking
                outcomes[t].steps.setdefault(m, []).append(sel)
            lap(step.phase)

    def pick(self, outcomes: Mapping[Hashable, ProblemOutcome]) -> None:
        """The confidence of each method's pick (``rankers.confidence``, on ``metrics.pick_pool``), from the ranking
        the last step left: computed once, here."""
        for out in outcomes.values():
            assert out.executions is not None  # rank keeps the executions it ranked
            for m in self.methods:
                out.confidence[m] = confidence(out.rankings[m], out.executions, self.confidence_model)

    # --- what the steps did, over a run ------------------------------------------------------------------------
    def chain(self, method: str) -> list[str]:
        """The steps ``method`` goes through, in order: the one its name asks for, then the steps for every
        method."""
        own = split_selection(method)[1]
        return list(dict.fromkeys(([own] if own else []) + self._every))

    def report(self, outcomes: Mapping[str, ProblemOutcome]) -> tuple[dict, dict]:
        """Each step's summary over ``outcomes`` (``Step.report``): keys for the timing block, keys for
        ``rerank_results.json``."""
        timing: dict = {}
        extra: dict = {}
        for name, step in self.steps.items():
            done: dict[tuple[str, str], Selection] = {(t, m): s for t, o in outcomes.items()
                                                       for m, sels in o.steps.items() for s in sels
                                                       if s.strategy == name}
            if done:
                t_keys, e_keys = step.report(done)
                timing.update(t_keys)
                extra.update(e_keys)
        return timing, extra
