"""Execute every candidate of many problems on their tests: dedup → cache lookup → sandboxed workers.

Identical programs run once; each program runs all its distinct tests in one child process. Results are
stored in an on-disk cache (``cache.ResultCache``) keyed by the content of program, test and limits, committed
as they arrive, so a rerun (another ranker, more tests, a run killed half-way) executes only what is missing.
"""

from __future__ import annotations

import hashlib
import time
from contextlib import closing
from dataclasses import dataclass, field
from typing import Optional, Sequence

import numpy as np

from coderank_evalplus.engine import shapes
from coderank_evalplus.engine.execution.cache import ITEM_RECORD, ResultCache  # noqa: F401 - the cache's home before cache.py
from coderank_evalplus.engine.execution.executors import Executor, LocalExecutor
from coderank_evalplus.engine.sandbox import Limits, max_memory_bytes
from coderank_evalplus.engine.sandbox.verdicts import ProbePlan, decide, plan_items, slow_verdicts
from coderank_evalplus.testgen.extract import assert_body, imported_modules
from coderank_evalplus.types import ERROR, FUNCTION, PASS, RAISED, Executions, Problem, TestSuite


def content_key(*parts: str) -> bytes:
    """16-byte content address of the given strings."""
    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.digest()


@dataclass
class ProblemWork:
    """One problem's candidates (full programs, in sample order) and its generated tests."""

    problem: Problem
    programs: list[str]
    suite: TestSuite = field(default_factory=TestSuite)


def suite_items(suite: TestSuite, trial_tests: Sequence[str], entry_point: Optional[str] = None,
                shape: str = FUNCTION, callee: Optional[str] = None
                ) -> tuple[list[tuple], list[int], list[int], list[int]]:
    """Test items of a suite: one call per distinct input, one check/assert per assert, one per trial test.

    Returns (items, index of each input's call item, index of each assert's item, index of each trial's item).
    ``entry_point`` goes with each check and assert: the candidate's name even where it shadows a builtin.
    ``shape``: a stdin program's checks compare outputs with LiveCodeBench's rule (``shapes.comparison``), its trial
    tests (``run_stdin(x) == y``) too; ``callee`` is what its tests call (``Problem.callee``).
    """
    items: list[tuple] = []
    input_items = []
    for call in suite.inputs:
        input_items.append(len(items))
        items.append(("call", call))
    assert_items = []
    for a, body in enumerate(suite.asserts):
        assert_items.append(len(items))
        i = suite.assert_input[a]
        if i >= 0:
            items.append(("check", input_items[i], suite.expected[a], shapes.comparison(shape, suite.comparisons[a]),
                          entry_point))
        else:
            items.append(("assert", body, entry_point))
    trial_items = []
    for t in trial_tests:
        body = assert_body(t.strip())
        parsed = shapes.shape_of(shape).trial_check(body, callee or entry_point or "")
        if parsed is not None and shapes.comparison(shape, parsed[2]) == shapes.STDOUT:
            items.append(("call", parsed[0]))
            trial_items.append(len(items))
            items.append(("check", len(items) - 1, parsed[1], shapes.STDOUT, entry_point))
            continue
        trial_items.append(len(items))
        items.append(("assert", body, entry_point))
    return items, input_items, assert_items, trial_items


def item_keys(items: Sequence[tuple]) -> list[bytes]:
    """Content address of each item (a check is addressed by its call's text, not by its position)."""
    keys = []
    for item in items:
        if item[0] == "check":
            call = items[item[1]][1]
            keys.append(content_key("check", call, str(item[2]), item[3]))
        else:
            keys.append(content_key(item[0], item[1]))
    return keys


# --- orchestration -----------------------------------------------------------------------------------

@dataclass
class _Plan:
    work: ProblemWork
    items: list[tuple]
    keys: list[bytes]
    input_items: list[int]
    assert_items: list[int]
    trial_items: list[int]
    rows: list[str]  # distinct candidate programs
    texts: list[str]  # what runs for each (``shapes.runnable``: the program itself for a function)
    prog_keys: list[bytes]
    program_of_candidate: np.ndarray
    results: list[dict[int, tuple[int, int]]]
    imported: list[Optional[bool]]
    probes: Optional[ProbePlan] = None  # what the workers' children evaluate for these items (made when needed)
    probes_key: str = ""


def _plan(work: ProblemWork) -> _Plan:
    prob = work.problem
    items, input_items, assert_items, trial_items = suite_items(work.suite, prob.trial_tests, prob.entry_point,
                                                                prob.shape, prob.callee)
    row_of: dict[str, int] = {}
    poc = np.empty(len(work.programs), dtype=np.int64)
    for c, prog in enumerate(work.programs):
        poc[c] = row_of.setdefault(prog, len(row_of))
    rows = list(row_of)
    texts = [shapes.runnable(prob.shape, p) for p in rows]
    return _Plan(work, items, item_keys(items), input_items, assert_items, trial_items, rows, texts,
                 [content_key("program", t) for t in texts], poc, [{} for _ in rows], [None] * len(rows))


def _assemble(plan: _Plan) -> Executions:
    n_rows = len(plan.rows)
    suite = plan.work.suite
    pm = np.full((n_rows, len(plan.assert_items)), ERROR, dtype=np.uint8)
    om = np.zeros((n_rows, len(plan.input_items)), dtype=np.int64)
    ok = np.full((n_rows, len(plan.input_items)), RAISED, dtype=np.uint8)
    tm = np.full((n_rows, len(plan.trial_items)), ERROR, dtype=np.uint8)
    compiled = np.zeros(n_rows, dtype=bool)
    for r, res in enumerate(plan.results):
        for a, it in enumerate(plan.assert_items):
            pm[r, a] = res[it][0]
        for i, it in enumerate(plan.input_items):
            ok[r, i], om[r, i] = res[it]
        for t, it in enumerate(plan.trial_items):
            tm[r, t] = res[it][0]
        compiled[r] = bool(plan.imported[r])
    return Executions(task_id=plan.work.problem.task_id, program_of_candidate=plan.program_of_candidate,
                      pass_matrix=pm, assert_counts=np.asarray(suite.counts, dtype=np.int64), output_matrix=om,
                      output_kind=ok, trial_matrix=tm, compiled=compiled, suite=suite, programs=plan.rows)


@dataclass
class ExecutionStats:
    unique_programs: int = 0
    pairs: int = 0
    executed_pairs: int = 0
    cached_pairs: int = 0
    jobs: int = 0
    wall_s: float = 0.0


_IMPORT_ITEM = content_key("import-ok")  # cached marker: the program got past its top level
# numpy and libraries built on it: a program importing one goes last (only decides the order of work, never a result)
_NUMPY_LIBS = frozenset({"numpy", "pandas", "scipy", "sklearn", "torch", "tensorflow", "keras", "matplotlib",
                         "seaborn", "statsmodels", "cv2"})


def execute(works: Sequence[ProblemWork], cache: Optional[ResultCache] = None, limits: Limits = Limits(),
            workers: Optional[int] = None, progress: bool = True, stats: Optional[ExecutionStats] = None,
            executor: Optional[Executor] = None) -> dict[str, Executions]:
    """Run all unique programs of all problems on their tests; return Executions per task id.

    Jobs run on ``executor`` (default: this machine's pool of ``workers``); results are cached as they arrive."""
    t0 = time.monotonic()
    stats = stats if stats is not None else ExecutionStats()
    lkey = limits.key()
    plans = [_plan(w) for w in works]
    jobs = []
    for p_idx, plan in enumerate(plans):
        for r, prog in enumerate(plan.texts):
            stats.unique_programs += 1
            stats.pairs += len(plan.items)
            cached = cache.lookup(plan.prog_keys[r], lkey) if cache is not None else {}
            todo = []
            for it, key in enumerate(plan.keys):
                hit = cached.get(key)
                if hit is None:
                    todo.append(it)
                else:
                    plan.results[r][it] = hit
            if _IMPORT_ITEM in cached:
                plan.imported[r] = cached[_IMPORT_ITEM][0] == PASS
            if todo or plan.imported[r] is None:
                jobs.append((p_idx, r, prog, todo))
            stats.cached_pairs += len(plan.items) - len(todo)
    stats.jobs = len(jobs)
    if jobs:
        _run_jobs(jobs, plans, cache, limits, executor or LocalExecutor(workers), progress, stats)
    if cache is not None:
        cache.commit()
    stats.wall_s += time.monotonic() - t0  # over the calls that share ``stats`` (a streamed run's batches)
    return {plan.work.problem.task_id: _assemble(plan) for plan in plans}


def _run_jobs(jobs: list[tuple], plans: list[_Plan], cache: Optional[ResultCache], limits: Limits,
              executor: Executor, progress: bool, stats: ExecutionStats) -> None:
    """Send each job's probes to the workers, decide its tests' verdicts here as its results come back.

    A worker gets only the probes (the candidate's parts of the tests), never an expected value: the verdicts
    are decided in this process (``sandbox.verdicts``), so nothing a candidate's child can read tells it what its
    tests expect, and nothing it writes is more than a claim about its own outputs. Remainders that are not a
    fast form are evaluated at the end, in batches, each in one confined child."""
    from coderank_evalplus.io.progress import progress_bar

    lkey = limits.key()
    mem = max_memory_bytes()
    # Programs that import numpy (or a library built on it) go last: a worker loads numpy once before their
    # forks, and until then forks from a smaller process (cheaper). Within each part, big jobs first so that
    # the pool does not end on one long straggler.
    preload = [(("numpy",) if not _NUMPY_LIBS.isdisjoint(imported_modules(job[2])) else ())
               + shapes.preload_modules(plans[job[0]].work.problem.shape) for job in jobs]
    order = sorted(range(len(jobs)), key=lambda j: (bool(preload[j]), -len(jobs[j][3])))
    jobs = [jobs[j] for j in order]
    args = []
    for k, j in enumerate(order):
        p_idx, row, prog, todo = jobs[k]
        plan = plans[p_idx]
        if plan.probes is None:
            plan.probes = plan_items(plan.items)
            plan.probes_key = content_key(*plan.probes.probes).hex()
        args.append((p_idx, row, prog, plan.probes_key, plan.probes.probes, plan.probes.want,
                     plan.probes.probes_for(todo), limits, mem, preload[j]))
    deferred: list[tuple] = []  # (plan index, row, item, ...) of remainders to evaluate at the end
    bar = progress_bar(total=len(jobs), desc="executing", unit="prog", enabled=progress)
    try:
        with closing(executor.run("coderank_evalplus.engine.sandbox.worker:worker_run", args, on_lost=None)) as done:
            for k, result in done:
                p_idx, row, imported, failure, probe_results, values = result
                plan = plans[p_idx]
                slow: list[tuple] = []
                results = decide(plan.probes, plan.items, jobs[k][3], failure, probe_results, values, limits.cpu,
                                 limits.wall, defer=slow)
                deferred.extend(((p_idx, row, entry[0]),) + entry[1:] for entry in slow)
                _record(plan, row, results, imported, cache, lkey, stats)
                bar.update(1)
    finally:
        bar.close()
    for start in range(0, len(deferred), _SLOW_BATCH):
        batch = deferred[start:start + _SLOW_BATCH]
        decided: dict[tuple, dict[int, tuple[int, int]]] = {}
        for (p_idx, row, item), outcome in slow_verdicts(batch, limits.cpu, limits.wall).items():
            decided.setdefault((p_idx, row), {})[item] = outcome
        for (p_idx, row), results in decided.items():
            _record(plans[p_idx], row, results, plans[p_idx].imported[row], cache, lkey, stats)


_SLOW_BATCH = 4000  # remainders per confined child (a child lost to one of them costs the batch its verdicts)


def _record(plan: _Plan, row: int, results: dict[int, tuple[int, int]], imported: Optional[bool],
            cache: Optional[ResultCache], lkey: str, stats: ExecutionStats) -> None:
    known = plan.imported[row] is not None
    plan.results[row].update(results)
    plan.imported[row] = imported
    stats.executed_pairs += len(results)
    if cache is not None and (results or not known):  # a job whose items are all deferred adds no row yet
        rows = [(plan.keys[it], st, dg) for it, (st, dg) in results.items()]
        rows.append((_IMPORT_ITEM, PASS if imported else ERROR, 0))
        cache.store(plan.prog_keys[row], lkey, rows)
