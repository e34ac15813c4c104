"""Likelihood rankers (N-best reranking with the model's own scores), as DOCE compares them.

* ``ll``: mean token log-probability of the candidate, log p(candidate | problem) / tokens.
* ``coder_reviewer``: N.Coder-Reviewer (Zhang et al., 2023): mean token log-probability of the candidate plus that
  of the instruction given the candidate (the reviewer), each normalised by its own token count.

Both read per-candidate features from ``ctx.options`` (``logprob``, ``logprob_tokens``, ``reviewer_logprob``,
``reviewer_logprob_tokens``: arrays with one value per candidate, nan where unknown), filled by the pipeline from
the samples' fields (``coderank_evalplus.generation.likelihood``). Candidates without a value are unranked.
Their scores are log-probabilities, so both combine with execution agreement by name (``ll+mbr_exec``, see
``rankers/compose.py``).
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from coderank_evalplus.rankers.context import RankContext
from coderank_evalplus.rankers.grouping import rank_by_score
from coderank_evalplus.rankers.registry import register_ranker
from coderank_evalplus.types import Ranking

# Feature arrays a ranker may find in ctx.options (one value per candidate).
# What each feature ranker needs from the model: "coder" (logprob) and/or "reviewer" (reviewer_logprob).
NEEDS = {"ll": ("coder",), "coder_reviewer": ("coder", "reviewer")}


def features_needed(methods: Iterable[str]) -> set[str]:
    """The features ("coder", "reviewer") that these method names need, looking inside ``filter+`` and
    ``<feature>+<method>`` names."""
    out: set[str] = set()
    for m in methods:
        for part in m.split("+"):
            out.update(NEEDS.get(part.strip(), ()))
    return out


def mean_logprob(ctx: RankContext, prefix: str = "") -> np.ndarray:
    """Per-candidate mean token log-probability of a feature (``prefix`` "" = coder, "reviewer_"); nan where
    unknown. Raises ValueError when the feature is absent altogether."""
    n = ctx.executions.n_candidates
    total, count = ctx.options.get(prefix + "logprob"), ctx.options.get(prefix + "logprob_tokens")
    if total is None or count is None:
        what = "reviewer_logprob, reviewer_logprob_tokens" if prefix else "logprob, logprob_tokens"
        raise ValueError(f"{ctx.problem.task_id}: this ranker needs the samples' log-probabilities ({what}); "
                         f"score them with `coderank-evalplus likelihood`")
    total = np.asarray(total, dtype=float)
    count = np.asarray(count, dtype=float)
    if total.shape != (n,) or count.shape != (n,):
        raise ValueError(f"{ctx.problem.task_id}: {prefix}logprob has {total.shape[0]} values for {n} candidates")
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = total / count
    mean[~(count > 0)] = np.nan
    return mean


@register_ranker("ll", "mean token log-probability of the candidate (needs the model's log-probabilities)",
                 log_score=True, reads_tests=False)
def rank_ll(ctx: RankContext) -> Ranking:
    """Highest mean token log-probability first."""
    return rank_by_score(mean_logprob(ctx), "ll")


@register_ranker("coder_reviewer", "N.Coder-Reviewer: mean token log p(candidate | problem) + mean token "
                 "log p(instruction | candidate) (needs the model's log-probabilities)", log_score=True,
                 reads_tests=False)
def rank_coder_reviewer(ctx: RankContext) -> Ranking:
    """Highest normalised coder + reviewer log-likelihood first."""
    return rank_by_score(mean_logprob(ctx) + mean_logprob(ctx, "reviewer_"), "coder_reviewer")
