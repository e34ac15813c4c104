"""Baselines: random pick, first sample, and the correctness oracle (upper bound)."""

from __future__ import annotations

import numpy as np

from coderank_evalplus.rankers.context import RankContext
from coderank_evalplus.rankers.registry import register_ranker
from coderank_evalplus.types import Group, Ranking


@register_ranker("random", "one group with every candidate: a uniformly random pick", reads_tests=False)
def rank_random(ctx: RankContext) -> Ranking:
    """One group holding all candidates (score 0)."""
    n = ctx.executions.n_candidates
    return Ranking([Group(list(range(n)), 0.0)] if n else [], {"method": "random"})


@register_ranker("first", "the samples in generation order (candidate 0 first): pass@k of the first k samples",
                 reads_tests=False)
def rank_first(ctx: RankContext) -> Ranking:
    """Every candidate is its own group, in index order (scores n, n-1, ..., 1: no ties)."""
    n = ctx.executions.n_candidates
    return Ranking([Group([c], float(n - c)) for c in range(n)], {"method": "first"})


@register_ranker("oracle", "upper bound: all correct candidates first (needs options['correct'])",
                 reads_tests=False)
def rank_oracle(ctx: RankContext) -> Ranking:
    """Correct candidates (score 1) before the others (score 0); needs ``ctx.options['correct']``."""
    correct = ctx.options.get("correct")
    if correct is None:
        raise ValueError("the oracle ranker needs ctx.options['correct'] (a bool per candidate): "
                         "run it only where ground-truth correctness is known")
    correct = np.asarray(correct, dtype=bool)
    n = ctx.executions.n_candidates
    if correct.shape != (n,):
        raise ValueError(f"options['correct'] has shape {correct.shape}, expected ({n},)")
    groups = [Group([int(c) for c in np.flatnonzero(correct)], 1.0),
              Group([int(c) for c in np.flatnonzero(~correct)], 0.0)]
    return Ranking([g for g in groups if g.candidates], {"method": "oracle"})
