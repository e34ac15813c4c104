"""Rank candidates by how many generated asserts they pass (repeated asserts counted each time)."""

from __future__ import annotations

import numpy as np

from coderank_evalplus.rankers.context import RankContext
from coderank_evalplus.rankers.grouping import bucket, sort_groups
from coderank_evalplus.rankers.registry import register_ranker
from coderank_evalplus.types import Executions, Group, Ranking


def passed_weight(ex: Executions) -> np.ndarray:
    """Per candidate: sum of assert_counts over the generated asserts it passes."""
    return ex.candidate_pass().astype(np.int64) @ np.asarray(ex.assert_counts, dtype=np.int64)


@register_ranker("pass_count", "candidates grouped by number of generated asserts passed (with multiplicity)")
def rank_pass_count(ctx: RankContext) -> Ranking:
    """Group by passed-assert count (the score); candidates passing nothing are unranked."""
    ex = ctx.executions
    if ex.n_candidates == 0 or ex.pass_matrix.shape[1] == 0:
        return Ranking([], {"method": "pass_count"})
    weight = passed_weight(ex)
    ranked = np.flatnonzero(weight > 0)
    groups = [Group(cands, float(score)) for score, cands in bucket(weight[ranked].tolist(), ranked).items()]
    return Ranking(sort_groups(groups), {"method": "pass_count"})
