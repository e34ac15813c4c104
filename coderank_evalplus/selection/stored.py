"""The steps after ranking on a stored run's sub-samples (``report.curves.Refine``): what a budget curve, the
adaptive budget's round tables or a model comparison at N candidates need for a method whose ranking a step refined
(``recommended``, ``<method>+select``).

A report ranks every sub-sample with the method's ranker from the stored matrices and hands all of a folder's
sub-samples here at once; the model-free step runs on them as on a live run (``differential.refine_all``: the same
doubt, search, budget and decision, seeded by the run's seed, on the sub-sample's candidates and executions), its
programs through the execution cache. Sub-samples of one problem share most of their work: the first round's
inputs depend on the problem and the seed alone, so a program runs on them once whatever the sub-samples it is
drawn in. The candidates' texts come from the folder (``io.results_folder.load_programs``), or for a folder written
before it stored them, from the samples file it records (read against the dataset). S* needs a model and is not run
here.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Callable, Iterator, Mapping, Optional, Sequence

from coderank_evalplus.engine.execution.execute import ProblemWork, ResultCache
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.io.results_folder import StoredRun, load_programs
from coderank_evalplus.rankers import split_selection
from coderank_evalplus.selection.base import SelectEnv
from coderank_evalplus.selection.differential import NAME, SHIPPED, refine_all
from coderank_evalplus.types import Ranking

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


class StoredSteps:
    """``report.curves.Refine`` on the execution cache ``cache`` (and ``executor``, else a pool of ``workers``);
    ``texts``: where the candidates' texts come from (default ``recorded_texts``); ``model_of``: the part model a
    folder's steps order their parts with (``differential.refine_all``'s ``model``; default the shipped one)."""

    def __init__(self, cache: Optional[ResultCache], workers: Optional[int] = None, executor=None,
                 texts: Optional[Texts] = None,
                 model_of: Optional[Callable[[StoredRun], "dict | str | None"]] = None) -> None:
        self.cache, self.workers, self.executor = cache, workers, executor
        self.texts = texts or recorded_texts
        self.model_of = model_of or (lambda run: SHIPPED)
        self._texts: dict[Path, Mapping[str, Sequence[str]]] = {}

    def __call__(self, run: StoredRun, items: Sequence) -> list[Ranking]:
        steps = {split_selection(it.method)[1] for it in items}
        if steps - {NAME}:
            raise ValueError(f"{run.path}: the step(s) {', '.join(sorted(s or '' for s in steps - {NAME}))} cannot "
                             f"run on stored sub-samples (only the model-free +{NAME})")
        if run.path not in self._texts:
            self._texts[run.path] = self.texts(run)
        texts = self._texts[run.path]
        config = run.summary.get("config") or {}
        env = SelectEnv(self.cache, Limits(cpu=float(config.get("time_limit", Limits.cpu))), self.workers,
                        self.executor, run.seed)
        works = []
        for it in items:
            every = texts[it.problem.problem.task_id]
            chosen = range(len(every)) if it.candidates is None else it.candidates
            works.append((ProblemWork(it.problem.problem, [every[int(c)] for c in chosen]), it.executions,
                          it.ranking))
        return [sel.ranking for sel in refine_all(works, env, model=self.model_of(run))]


@contextlib.contextmanager
def stored_steps(cache_dir: "str | Path | None", workers: Optional[int] = None) -> Iterator[StoredSteps]:
    """``StoredSteps`` on ``cache_dir``'s execution cache when given (closed at the end), else on none."""
    cache = ResultCache(Path(cache_dir) / "executions.sqlite") if cache_dir else None
    try:
        yield StoredSteps(cache, workers)
    finally:
        if cache is not None:
            cache.close()
