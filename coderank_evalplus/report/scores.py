"""Per-problem pass@1 of every method, recomputed from a results folder's stored matrices and verdicts.

Rankers run again on the stored execution matrices (nothing is executed or judged), so a leaderboard may ask
for methods the run did not: they cost ranking time only. The figures equal ``rerank``'s for the same input.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from coderank_evalplus import metrics
from coderank_evalplus.io.results_folder import StoredProblem, StoredRun
from coderank_evalplus.rankers import RankContext, RankFn, get_ranker, validate_methods
from coderank_evalplus.types import Executions, Ranking

BASELINES = ("random", "oracle")


def leaderboard_methods(methods: Sequence[str]) -> list[str]:
    """``random``, the requested methods (validated, duplicates dropped), then ``oracle``."""
    names = [m.strip() for m in methods if m.strip() and m.strip() not in BASELINES]
    validate_methods(names)
    return list(dict.fromkeys(["random", *names, "oracle"]))


def splits_of(run: StoredRun) -> tuple[str, ...]:
    return ("base", "plus") if run.has_plus else ("base",)


def rank(sp: StoredProblem, method: str | RankFn, seed: int, executions: Optional[Executions] = None,
         hidden: Optional[tuple[np.ndarray, np.ndarray]] = None, candidates: Optional[np.ndarray] = None,
         options: Optional[dict] = None) -> Ranking:
    """``method``'s ranking of the stored problem (or of a subset given as ``executions`` / ``hidden``, made of
    the stored ``candidates`` when they are a subset); ``options``: more ranker options (e.g. a learned model)."""
    ex = executions if executions is not None else sp.executions
    bench = hidden if executions is not None else sp.hidden
    features = {k: (v if candidates is None else v[candidates]) for k, v in sp.features.items()}
    ranker = get_ranker(method) if isinstance(method, str) else method
    return ranker(RankContext(sp.problem, ex, seed=seed, options={**features, **(options or {})},
                              benchmark_outputs=bench))


def pass_at_1(method: str, correct: np.ndarray, ranking: Optional[Ranking]) -> float:
    """One problem's pass@1: the unbiased estimate for ``random``, any-correct for ``oracle``, else ranked."""
    if method == "random":
        return metrics.pass_at_k(len(correct), int(correct.sum()), 1)
    if method == "oracle":
        return metrics.oracle_pass(correct)
    assert ranking is not None
    return metrics.ranked_pass_at_k(ranking, correct, 1)


def problem_scores(run: StoredRun, methods: Sequence[str]) -> dict[str, dict[str, np.ndarray]]:
    """{method: {split: pass@1 per problem (0..1), in the run's problem order}}."""
    splits = splits_of(run)
    out = {m: {s: np.zeros(len(run.problems)) for s in splits} for m in methods}
    for i, sp in enumerate(run.problems):
        for m in methods:
            ranking = None if m in BASELINES else rank(sp, m, run.seed)
            for s in splits:
                out[m][s][i] = pass_at_1(m, sp.correct(s), ranking)
    return out
