"""``<feature>+<method>``: a likelihood feature combined with another ranker's score, for any pair by name.

DOCE (Li et al., 2024) combines a candidate's execution agreement with the model's likelihood as a product:
utility = agreement × exp(mean log-probability) (their ``n_best_plus_mbr`` notebook: MBR utility ×
exp(mean reviewer + mean coder log-probability)). Here, in log space so that nothing underflows:
score = log(method score) + feature score. Any ranker whose scores are non-negative (cluster sizes, pass
counts, CodeT's and SRank's scores) can take the method's place; the feature must be a log-score ranker
(``register_ranker(..., log_score=True)``). A candidate that either ranker leaves unranked stays unranked;
a method score of 0 gives −inf (ranked last). Ties (equal combined scores) stay groups.
"""

from __future__ import annotations

import math

import numpy as np

from coderank_evalplus.rankers.context import RankContext, RankFn
from coderank_evalplus.rankers.grouping import rank_by_score
from coderank_evalplus.types import Group, Ranking


def candidate_scores(ranking: Ranking, n: int) -> np.ndarray:
    """Each candidate's group score (nan for unranked candidates)."""
    out = np.full(n, np.nan)
    for g in ranking.groups:
        out[list(g.candidates)] = g.score
    return out


def combine(feature_name: str, feature: RankFn, method_name: str, method: RankFn) -> RankFn:
    """The ranker ``feature_name+method_name``."""
    name = f"{feature_name}+{method_name}"

    def rank(ctx: RankContext) -> Ranking:
        n = ctx.executions.n_candidates
        agreement = method(ctx)
        f = candidate_scores(feature(ctx), n)
        a = candidate_scores(agreement, n)
        if np.any(a[np.isfinite(a)] < 0):
            raise ValueError(f"{name}: {method_name}'s scores must be non-negative to be combined with a likelihood "
                             f"(got {float(np.nanmin(a))} on {ctx.problem.task_id})")
        with np.errstate(divide="ignore"):
            combined = np.log(a) + f  # log 0 = -inf: ranked last; nan (unranked by either) stays nan
        combined[np.isnan(a) | np.isnan(f)] = np.nan
        ranking = rank_by_score(combined, name)
        # rank_by_score keeps finite scores only: the candidates with agreement 0 come back, last, as one group
        zero = [int(c) for c in np.flatnonzero(np.isneginf(combined))]
        if zero:
            ranking.groups.append(Group(zero, -math.inf))
        ranking.info = {**{k: v for k, v in agreement.info.items() if k != "method"}, **ranking.info,
                        "combined": f"log({method_name}) + {feature_name}"}
        ranking.info.pop("unscored", None)
        return ranking

    rank.__name__ = f"rank_{feature_name}_{method_name}".replace("+", "_")
    rank.__doc__ = f"{method_name}'s score × exp({feature_name}) (DOCE's combination)."
    return rank
