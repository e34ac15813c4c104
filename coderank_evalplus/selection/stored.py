"""A stored run replayed on the per-problem path (``report.curves.SubsetSteps``): what a budget curve, the adaptive
budget's round tables or a model comparison at N candidates need for a method whose ranking a step reordered
(``recommended``, ``<method>+select``).

A report draws a folder's sub-samples (of its candidates or of its tests) and hands them all here at once; each goes
down ``selection.path.ProblemPath`` with the folder's stored executions as its source (``StoredExecutions``):
ranked by the method's ranker on the sub-sample's matrices, its step after ranking run as on a live run (the same
contenders, search, budget and decision, seeded by the run's seed, on the sub-sample's candidates), and its confidence
computed once after it, so that a sub-sample's figures are those a live ``rerank`` of its candidates gives. The
step's programs run through the execution cache, and sub-samples of one problem share their work: the search of
every sub-sample of the folder is one batch (one execution per round for all of them), and a (program, input)
pair runs at most once whatever the sub-samples that draw it. The candidates' texts come from the folder
(``io.results_folder.load_programs``), or for a folder written before it stored them, from the samples file it
records (read against the dataset). S* needs a model: it runs where one is given (``every``), and a folder whose
run used it says that its sub-samples are replayed without it.

A report's call is split by problem over this machine's cores (``StoredSteps``'s ``workers``): each share of the
problems is replayed in a process of its own, kept for the report's later calls (a problem goes to the same process
every time, so the inputs grown for it are grown once), with one sandbox worker each and the execution cache shared.
A problem's search, budget and decision read only that problem, so the rankings are those of one batch; what is
gained is that ranking, growing and deciding, which run in this process between the sandbox's rounds, run on every
core beside them.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import multiprocessing
import os
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Hashable, Iterator, Mapping, Optional, Sequence

from coderank_evalplus.engine.execution.execute import ProblemWork, ResultCache
from coderank_evalplus.engine.execution.executors import WarmExecutor
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.io.results_folder import StoredRun, load_programs
from coderank_evalplus.selection.base import Step
from coderank_evalplus.selection.differential import NAME, SHIPPED, ModelFreeStep
from coderank_evalplus.selection.path import ProblemPath, StoredExecutions
from coderank_evalplus.types import ProblemOutcome, Ranking

Texts = Callable[[StoredRun], Mapping[str, Sequence[str]]]  # a run → its candidates' texts per task id


def recorded_texts(run: StoredRun, data_dir: Optional[str] = None) -> dict[str, list[str]]:
    """The candidates' texts of a folder: stored in it, else read from the samples file its summary records."""
    stored = load_programs(run.path)
    if stored and all(sp.problem.task_id in stored for sp in run.problems):
        return stored
    from coderank_evalplus.io.problems import load_problems
    from coderank_evalplus.io.samples import read_solutions

    path = (run.summary.get("inputs") or {}).get("solutions") or (run.summary.get("provenance") or {}).get(
        "solutions")
    if not path or not Path(path).exists():
        raise ValueError(f"{run.path}: the folder stores no program texts and records no samples file that exists "
                         f"({path!r}); write it again with this version to run a step on its sub-samples")
    return read_solutions(path, load_problems(run.dataset, data_dir), drop_extra=True)


@dataclass
class ReplaySettings:
    """The path's settings for a replay (``selection.path.PathSettings``): the run's time limit and seed; nothing
    grows (the run's grown inputs are in its executions)."""

    time_limit: float
    seed: int
    workers: Optional[int] = None
    mutate: Optional[int] = None
    progress: bool = False


class StoredSteps:
    """``report.curves.SubsetSteps`` on the execution cache ``cache`` (and ``executor``, else a pool of ``workers``):
    each item replayed on the per-problem path (``replay``); ``texts``: where the candidates' texts come from
    (default ``recorded_texts``); ``model_of``: the part model a folder's steps order their parts with
    (``differential.select_all``'s ``model``; default the shipped one); ``every``: steps for every method (S*,
    where a model is given)."""

    def __init__(self, cache: Optional[ResultCache], workers: Optional[int] = None, executor=None,
                 texts: Optional[Texts] = None,
                 model_of: Optional[Callable[[StoredRun], "dict | str | None"]] = None,
                 every: Sequence[Step] = ()) -> None:
        self.cache, self.workers, self.executor = cache, workers, executor
        self.texts = texts or recorded_texts
        self.model_of = model_of or (lambda run: SHIPPED)
        self.every = list(every)
        self._texts: dict[Path, Mapping[str, Sequence[str]]] = {}
        self._done: dict[tuple, Ranking] = {}  # (folder and options, task, candidates, method) → final ranking
        self._pools: dict[int, ProcessPoolExecutor] = {}  # the shard processes (``_rankings``), started when first used
        self._shard_of: dict[str, int] = {}  # task id → its shard

    def __call__(self, run: StoredRun, items: Sequence) -> list[Ranking]:
        """The final ranking of each item; a sub-sample of candidates replayed before (by this object, with the same
        ranker options: the budget curve's draw that the round tables and the comparisons at N take again) is not
        replayed again: its figures are a function of the folder, the candidates and the settings."""
        options = items[0].options if items else None
        tag = (str(run.path), hashlib.sha256(repr(sorted((options or {}).items())).encode()).hexdigest())
        memo = {id(it): (tag, it.problem.problem.task_id, it.candidates.tobytes(), it.method)
                for it in items if it.candidates is not None}
        todo = [it for it in items if memo.get(id(it)) not in self._done]
        keys = [_key(it) for it in todo]
        rankings = self._rankings(run, todo, keys, options) if todo else {}
        fresh = {id(it): rankings[k][it.method] for it, k in zip(todo, keys)}
        self._done.update((memo[i], r) for i, r in fresh.items() if i in memo)
        return [fresh[id(it)] if id(it) in fresh else self._done[memo[id(it)]] for it in items]

    def replay(self, run: StoredRun, items: Sequence, options: Optional[dict] = None, confidence: bool = True
               ) -> dict[Hashable, ProblemOutcome]:
        """Each sub-sample of ``items`` (``report.curves.SubsetItem``; items of one sub-sample share its
        ``key``) down the per-problem path, every method the items ask for: its outcome, by the sub-sample's key
        (``confidence``: with each pick's confidence, as a live run's)."""
        return replay_items(self._setup(run), self.cache, self.executor, self.every, items, [_key(it) for it in items],
                            options, confidence)

    def _setup(self, run: StoredRun) -> "_Replay":
        """What every replay of ``run`` shares: its settings, its candidates' texts, its part model."""
        if run.path not in self._texts:
            self._texts[run.path] = self.texts(run)
        if (run.summary.get("sstar") or (run.summary.get("config") or {}).get("select_model")) and not self.every:
            logging.getLogger("coderank_evalplus").warning(
                "%s: its run used S*, which needs a model: its sub-samples are replayed without it", run.path)
        config = run.summary.get("config") or {}
        settings = ReplaySettings(float(config.get("time_limit", Limits.cpu)), run.seed, self.workers)
        return _Replay(settings, self._texts[run.path], self.model_of(run))

    def _rankings(self, run: StoredRun, items: Sequence, keys: Sequence[Hashable], options: Optional[dict]
                  ) -> dict[Hashable, dict[str, Ranking]]:
        """Each sub-sample's final rankings, by its key: replayed here, or split by problem over the shard
        processes (the module's doc) where this machine has several cores and nothing needs this process (a cluster
        executor, a step with a model)."""
        setup = self._setup(run)
        n = (os.cpu_count() or 1) if self.workers is None else self.workers
        if n < 2 or self.executor is not None or self.every or len({it.problem.problem.task_id for it in items}) < 2:
            return rankings_of(setup, self.cache, self.executor, self.every, items, keys, options)
        shards: dict[int, tuple[list, list]] = {}
        for it, k in zip(items, keys):
            s = self._shard(it.problem.problem.task_id, n)
            shards.setdefault(s, ([], []))[0].append(it)
            shards[s][1].append(k)
        if self.cache is not None:
            self.cache.commit()  # what this process ran is there for the shards to read
        cache = str(self.cache.path) if self.cache is not None else None
        futures: list[tuple[Future, int, list, list]] = []
        for s, (its, ks) in shards.items():
            texts = {it.problem.problem.task_id: setup.texts[it.problem.problem.task_id] for it in its}
            part = _Replay(replace(setup.settings, workers=1), texts, setup.model)
            try:
                f = self._pool(s).submit(_replay_shard, cache, part, its, ks, options)
            except BrokenProcessPool:  # its process was lost since the last call: a fresh one
                self._pools.pop(s).shutdown(wait=False)
                f = self._pool(s).submit(_replay_shard, cache, part, its, ks, options)
            futures.append((f, s, its, ks))
        out: dict[Hashable, dict[str, Ranking]] = {}
        for f, s, its, ks in futures:
            try:
                out.update(f.result())
            except BrokenProcessPool:  # a shard process lost (killed, out of memory): its share replayed here
                logging.getLogger("coderank_evalplus").warning(
                    "%s: a process replaying its sub-samples was lost; replaying its %d items in this process",
                    run.path, len(its))
                self._pools.pop(s).shutdown(wait=False)  # the next call starts that shard afresh
                out.update(rankings_of(setup, self.cache, None, (), its, ks, options))
        return out

    def _shard(self, task_id: str, n: int) -> int:
        """The shard process of a problem: the same every time (its grown inputs are kept there), the least loaded
        one when the problem is new."""
        if task_id not in self._shard_of:
            load = [sum(1 for s in self._shard_of.values() if s == k) for k in range(n)]
            self._shard_of[task_id] = load.index(min(load))
        return self._shard_of[task_id]

    def _pool(self, shard: int) -> ProcessPoolExecutor:
        if shard not in self._pools:
            self._pools[shard] = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
        return self._pools[shard]

    def __enter__(self) -> "StoredSteps":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Stop the shard processes (a report's end)."""
        for pool in self._pools.values():
            with contextlib.suppress(Exception):  # a broken pool refuses the call: its process is gone already
                pool.submit(_close_shard).result()
        for pool in self._pools.values():
            pool.shutdown(cancel_futures=True)
        self._pools.clear()


@dataclass
class _Replay:
    """What the replays of one folder share: the path's settings, the candidates' texts by task id, the part model."""

    settings: ReplaySettings
    texts: Mapping[str, Sequence[str]]
    model: "dict | str | None"


def replay_items(setup: _Replay, cache: Optional[ResultCache], executor, every: Sequence[Step], items: Sequence,
                 keys: Sequence[Hashable], options: Optional[dict], confidence: bool) -> dict[Hashable, ProblemOutcome]:
    """Each sub-sample of ``items`` (its key in ``keys``: items of one sub-sample share it) down the per-problem
    path, every method the items ask for: its outcome, by the sub-sample's key."""
    subsets: dict[Hashable, Any] = {}  # a sub-sample's first item (report.curves.SubsetItem)
    for it, key in zip(items, keys):
        subsets.setdefault(key, it)
    works, feats, execs, hidden = [], [], {}, {}
    for key, it in subsets.items():
        sp, chosen = it.problem, it.candidates
        every_text = setup.texts[sp.problem.task_id]
        idx = range(len(every_text)) if chosen is None else [int(c) for c in chosen]
        works.append(ProblemWork(sp.problem, [every_text[c] for c in idx], it.executions.suite))
        feats.append({k: (v if chosen is None else v[chosen]) for k, v in sp.features.items()})
        execs[key], hidden[key] = it.executions, it.hidden
    methods = list(dict.fromkeys(it.method for it in items))
    path = ProblemPath(setup.settings, methods, cache, executor, every,
                       own={NAME: ModelFreeStep(setup.model, words=False)},
                       source=StoredExecutions(execs, hidden), options=options, confidence=confidence)
    return path.run_keyed(list(subsets), works, feats)


def rankings_of(setup: _Replay, cache: Optional[ResultCache], executor, every: Sequence[Step], items: Sequence,
                keys: Sequence[Hashable], options: Optional[dict]) -> dict[Hashable, dict[str, Ranking]]:
    """``replay_items`` for a caller that reads the rankings alone (no confidence computed): each sub-sample's
    final rankings, by its key."""
    return {k: o.rankings for k, o in replay_items(setup, cache, executor, every, items, keys, options,
                                                   confidence=False).items()}


# a shard process's connection to the execution cache, opened once, and its sandbox worker, kept from call to call
_SHARD_CACHE: dict[str, ResultCache] = {}
_SHARD_WORKER: list[WarmExecutor] = []


def _replay_shard(cache_path: Optional[str], setup: _Replay, items: Sequence, keys: Sequence[Hashable],
                  options: Optional[dict]) -> dict[Hashable, dict[str, Ranking]]:
    """A shard process's part of a report's call: its sub-samples' final rankings, by key."""
    cache = None
    if cache_path is not None:
        if cache_path not in _SHARD_CACHE:
            _SHARD_CACHE[cache_path] = ResultCache(cache_path)
        cache = _SHARD_CACHE[cache_path]
    if not _SHARD_WORKER:
        _SHARD_WORKER.append(WarmExecutor(1))
    out = rankings_of(setup, cache, _SHARD_WORKER[0], (), items, keys, options)
    if cache is not None:
        cache.commit()
    return out


def _close_shard() -> None:
    """A shard process's end: its sandbox worker stopped, its cache closed."""
    for worker in _SHARD_WORKER:
        worker.__exit__(None, None, None)
    _SHARD_WORKER.clear()
    for cache in _SHARD_CACHE.values():
        cache.close()
    _SHARD_CACHE.clear()


def _key(item) -> Hashable:
    """The sub-sample an item belongs to (its problem and draw; items of every method of one draw share it)."""
    return item.key if getattr(item, "key", None) is not None else id(item)


@contextlib.contextmanager
def stored_steps(cache_dir: "str | Path | None", workers: Optional[int] = None) -> Iterator[StoredSteps]:
    """``StoredSteps`` on ``cache_dir``'s execution cache when given (closed at the end), else on none."""
    cache = ResultCache(Path(cache_dir) / "executions.sqlite") if cache_dir else None
    steps = StoredSteps(cache, workers)
    try:
        yield steps
    finally:
        steps.close()
        if cache is not None:
            cache.close()
