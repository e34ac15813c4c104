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
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Hashable, Iterator, Mapping, Optional, Sequence

from coderank_evalplus.engine.execution.execute import ProblemWork, ResultCache
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

    def __call__(self, run: StoredRun, items: Sequence) -> list[Ranking]:
        """The final ranking of each item; a sub-sample of candidates replayed before (by this object, with the same
        ranker options: the budget curve's draw that the round tables and the comparisons at N take again) is not
        replayed again: its figures are a function of the folder, the candidates and the settings."""
        options = items[0].options if items else None
        tag = (str(run.path), hashlib.sha256(repr(sorted((options or {}).items())).encode()).hexdigest())
        memo = {id(it): (tag, it.problem.problem.task_id, it.candidates.tobytes(), it.method)
                for it in items if it.candidates is not None}
        todo = [it for it in items if memo.get(id(it)) not in self._done]
        outcomes = self.replay(run, todo, options, confidence=False) if todo else {}  # rankings are all it returns
        fresh = {id(it): outcomes[_key(it)].rankings[it.method] for it in todo}
        self._done.update((memo[i], r) for i, r in fresh.items() if i in memo)
        return [fresh[id(it)] if id(it) in fresh else self._done[memo[id(it)]] for it in items]

    def replay(self, run: StoredRun, items: Sequence, options: Optional[dict] = None, confidence: bool = True
               ) -> dict[Hashable, ProblemOutcome]:
        """Each sub-sample of ``items`` (``report.curves.SubsetItem``; items of one sub-sample share its
        ``key``) down the per-problem path, every method the items ask for: its outcome, by the sub-sample's key
        (``confidence``: with each pick's confidence, as a live run's)."""
        if run.path not in self._texts:
            self._texts[run.path] = self.texts(run)
        texts = self._texts[run.path]
        if (run.summary.get("sstar") or (run.summary.get("config") or {}).get("select_model")) and not self.every:
            logging.getLogger("coderank_evalplus").warning(
                "%s: its run used S*, which needs a model: its sub-samples are replayed without it", run.path)
        config = run.summary.get("config") or {}
        settings = ReplaySettings(float(config.get("time_limit", Limits.cpu)), run.seed, self.workers)
        subsets: dict[Hashable, Any] = {}  # a sub-sample's first item (report.curves.SubsetItem)
        for it in items:
            subsets.setdefault(_key(it), it)
        keys, works, feats, execs, hidden = [], [], [], {}, {}
        for key, it in subsets.items():
            sp, chosen = it.problem, it.candidates
            every = texts[sp.problem.task_id]
            idx = range(len(every)) if chosen is None else [int(c) for c in chosen]
            keys.append(key)
            works.append(ProblemWork(sp.problem, [every[c] for c in idx], it.executions.suite))
            feats.append({k: (v if chosen is None else v[chosen]) for k, v in sp.features.items()})
            execs[key], hidden[key] = it.executions, it.hidden
        methods = list(dict.fromkeys(it.method for it in items))
        path = ProblemPath(settings, methods, self.cache, self.executor, self.every,
                           own={NAME: ModelFreeStep(self.model_of(run), words=False)},
                           source=StoredExecutions(execs, hidden), options=options, confidence=confidence)
        return path.run_keyed(keys, works, feats)


def _key(item) -> Hashable:
    """The sub-sample an item belongs to (its problem and draw; items of every method of one draw share it)."""
    return item.key if getattr(item, "key", None) is not None else id(item)


@contextlib.contextmanager
def stored_steps(cache_dir: "str | Path | None", workers: Optional[int] = None) -> Iterator[StoredSteps]:
    """``StoredSteps`` on ``cache_dir``'s execution cache when given (closed at the end), else on none."""
    cache = ResultCache(Path(cache_dir) / "executions.sqlite") if cache_dir else None
    try:
        yield StoredSteps(cache, workers)
    finally:
        if cache is not None:
            cache.close()
