"""Iterative CodeT-style ranking: mutual reinforcement between agreement groups and generated asserts.

Groups are the CodeT agreement groups (equal sets of passed asserts). W is the pass matrix with duplicates
counted on both sides, as CodeT's score counts them: W[G, a] = (candidates in group G) × (copies of assert a)
when G passes a, else 0 — the number of passing (candidate, assert sample) pairs. Scores are refined for
``iterations`` rounds (defaults α = β = 0.9, 3 rounds):
    f ← normalise((1−α)·f₀ + α·W·g)        then        g ← normalise((1−β)·g₀ + β·Wᵀ·f)
normalise = L1 (divide by the sum; all entries are ≥ 0); f₀ ∝ √(group size); g₀ = 1/M over the M distinct
asserts. Groups are ranked by the final f; groups passing nothing are unranked.
No released code defines this variant. On the CodeGen-16B HumanEval samples this form gives 37.29 pass@1
(base) against 37.85 for ``codet``; a 0/1 W (duplicates ignored) gives 30.09, because the consensus signal of
group sizes is lost.
Options: ``alpha``, ``beta``, ``iterations``.
"""

from __future__ import annotations

import numpy as np

from coderank_evalplus.rankers.codet import agreement_sets
from coderank_evalplus.rankers.context import RankContext
from coderank_evalplus.rankers.grouping import sort_groups
from coderank_evalplus.rankers.registry import register_ranker
from coderank_evalplus.types import Group, Ranking


def _l1(v: np.ndarray) -> np.ndarray:
    total = v.sum()
    return v / total if total > 0 else v


def iterate_scores(w: np.ndarray, f0: np.ndarray, g0: np.ndarray, alpha: float, beta: float,
                   iterations: int) -> np.ndarray:
    """Final group scores f after ``iterations`` rounds of the two updates above (w: group × assert weights)."""
    f, g = _l1(f0.astype(float)), _l1(g0.astype(float))
    f0, g0 = f.copy(), g.copy()
    for _ in range(iterations):
        f = _l1((1 - alpha) * f0 + alpha * (w @ g))
        g = _l1((1 - beta) * g0 + beta * (w.T @ f))
    return f


@register_ranker("codet_iter", "iterative CodeT: group and assert scores reinforce each other (α=β=0.9, 3 rounds)")
def rank_codet_iter(ctx: RankContext) -> Ranking:
    """Agreement groups ranked by iteratively refined scores; groups passing nothing are unranked."""
    ex = ctx.executions
    sets = agreement_sets(ex)
    alpha = float(ctx.options.get("alpha", 0.9))
    beta = float(ctx.options.get("beta", 0.9))
    iterations = int(ctx.options.get("iterations", 3))
    info = {"method": "codet_iter", "alpha": alpha, "beta": beta, "iterations": iterations}
    if not sets:
        return Ranking([], info)
    sizes = np.asarray([len(cands) for _, cands in sets], dtype=float)
    counts = np.asarray(ex.assert_counts, dtype=float)
    w = sizes[:, None] * np.stack([mask for mask, _ in sets]).astype(float) * counts[None, :]
    f = iterate_scores(w, np.sqrt(sizes), np.ones(w.shape[1]), alpha, beta, iterations)
    # Rounded so that groups in symmetric positions tie exactly despite float summation order.
    groups = [Group(cands, round(float(score), 12)) for (_, cands), score in zip(sets, f)]
    return Ranking(sort_groups(groups), info)
