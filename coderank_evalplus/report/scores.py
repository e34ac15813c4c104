"""Per-problem pass@1 of every method, recomputed from a results folder's stored matrices and verdicts.

Rankers run again on the stored execution matrices (nothing is executed or judged), so a leaderboard may ask
for methods the run did not: they cost ranking time only. A ranker is called as the live per-problem path calls it
(``rankers.rank_problem``) and a problem is scored by the run's own rule (``metrics.problem_pass_at_k``), so the
figures equal ``rerank``'s for the same input; a method with a step after ranking is replayed on the path itself
(``selection.stored``).
"""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

import numpy as np

from coderank_evalplus import metrics
from coderank_evalplus.io.results_folder import StoredProblem, StoredRun
from coderank_evalplus.rankers import RankFn, rank_problem, split_selection, validate_methods
from coderank_evalplus.types import Executions, Ranking

BASELINES = metrics.BASELINES


def leaderboard_methods(methods: Sequence[str]) -> list[str]:
    """``random``, the requested methods (validated, duplicates dropped), then ``oracle``."""
    names = [m.strip() for m in methods if m.strip() and m.strip() not in BASELINES]
    validate_methods(names)
    return list(dict.fromkeys(["random", *names, "oracle"]))


def splits_of(run: StoredRun) -> tuple[str, ...]:
    return ("base", "plus") if run.has_plus else ("base",)


def stored_method(run: StoredRun, method: str) -> str:
    """The name ``method`` is read under in ``run``: itself, except an alias that gained a step after ranking since
    the folder was written (its config records no aliases): ``recommended`` in a folder from before the selection
    step joined it meant its ranker alone (``rankers.recommended.BEFORE_STEP``), and the folder's own table says
    so."""
    return name_read_as(run.summary.get("config") or {}, method, any(method in p.rankings for p in run.problems))


def name_read_as(config: Mapping, method: str, stored: bool) -> str:
    """``stored_method`` from a folder's recorded config and whether it stores ``method``'s ranking (readable from
    ``rerank_results.json`` alone, without loading the folder)."""
    from coderank_evalplus.rankers.recommended import BEFORE_STEP

    if "aliases" in config or stored:
        return method
    return BEFORE_STEP.get(method, method)


def rank(sp: StoredProblem, method: str | RankFn, seed: int, executions: Optional[Executions] = None,
         hidden: Optional[tuple[np.ndarray, np.ndarray]] = None, candidates: Optional[np.ndarray] = None,
         options: Optional[dict] = None) -> Ranking:
    """``method``'s ranking of the stored problem (or of a subset given as ``executions`` / ``hidden``, made of
    the stored ``candidates`` when they are a subset), ranked as a live run ranks it (``rankers.rank_problem``, the
    per-problem path's own call); ``options``: more ranker options (e.g. a learned model). A method with a step
    after ranking (``recommended``, ``<method>+select``) is read from the folder at its full budget, where the run
    stored its final ranking; on a sub-sample the step runs programs, so it is replayed on the per-problem path
    (``selection.stored.StoredSteps``, the reports' ``subset_steps``), not here."""
    if isinstance(method, str) and split_selection(method)[1] is not None:
        if executions is None and method in sp.rankings:
            return sp.rankings[method]
        where = "on a sub-sample of the candidates or tests (replay it with the run's execution cache)" \
            if executions is not None else \
            "here: the folder does not store its ranking (run the rerank again with it among --methods)"
        raise ValueError(f"{sp.problem.task_id}: {method} ends with a step after ranking, which runs programs; it "
                         f"cannot be ranked from the stored matrices {where}")
    if executions is None:
        return rank_problem(method, sp.problem, sp.executions, seed, sp.features, options, sp.hidden)
    features = {k: (v if candidates is None else v[candidates]) for k, v in sp.features.items()}
    return rank_problem(method, sp.problem, executions, seed, features, options, hidden)


def pass_at_1(method: str, correct: np.ndarray, ranking: Optional[Ranking]) -> float:
    """One problem's pass@1 (``metrics.problem_pass_at_k``)."""
    return metrics.problem_pass_at_k(method, correct, ranking)


def problem_scores(run: StoredRun, methods: Sequence[str]) -> dict[str, dict[str, np.ndarray]]:
    """{method: {split: pass@1 per problem (0..1), in the run's problem order}}."""
    splits = splits_of(run)
    out = {m: {s: np.zeros(len(run.problems)) for s in splits} for m in methods}
    read_as = {m: stored_method(run, m) for m in methods}
    for i, sp in enumerate(run.problems):
        for m in methods:
            ranking = None if m in BASELINES else rank(sp, read_as[m], run.seed)
            for s in splits:
                out[m][s][i] = pass_at_1(m, sp.correct(s), ranking)
    return out
