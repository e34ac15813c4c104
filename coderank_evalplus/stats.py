"""Bootstrap statistics over problems: intervals of a mean and paired comparisons of two methods, and the one rule
for when a bootstrap interval or p-value is shown at all (``has_interval``: ``metrics.MIN_PROBLEMS``).

Every method of a leaderboard row is scored on the same problems, so all of them are resampled with the SAME
problem indices (one index matrix per row): intervals of differences are then paired, and a method compared with
itself gives a difference of exactly 0 with p = 1. numpy does the resampling; scipy.stats.bootstrap is not used
because it resamples each call afresh (no shared, paired draws across many methods) and gives no p-value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
from scipy.stats import norm

from coderank_evalplus.metrics import MIN_PROBLEMS, aggregate_percent, enough_problems  # noqa: F401 - re-exported

DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 0
CI_LEVEL = 95.0
# A per-problem score is a ratio of small integers (pass@1 of a pick inside a tie group, the unbiased random
# estimate); two methods that pick equally well can still differ by float rounding (~1e-16). Differences below
# this many units (scores 0..1, resampled means in points) are exact ties: 0, not "significant".
TIE_TOLERANCE = 1e-9
# The one minimum (``metrics.MIN_PROBLEMS``, ``metrics.enough_problems``): below it no interval, p-value, rank
# interval or τ is reported, nor any other statistic over problems.
has_interval = enough_problems  # the name the interval code reads


def resample_indices(n_items: int, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> np.ndarray:
    """(n_resamples, n_items) problem indices drawn with replacement, reproducible from ``seed``."""
    if n_items <= 0:
        return np.zeros((n_resamples, 0), dtype=np.int64)
    return np.random.default_rng(seed).integers(0, n_items, size=(n_resamples, n_items))


def percentile_interval(values: np.ndarray, level: float = CI_LEVEL) -> tuple[float, float]:
    tail = (100.0 - level) / 2
    lo, hi = np.percentile(values, [tail, 100.0 - tail])
    return float(lo), float(hi)


def _rounded(ci: tuple[float, float], n_problems: int) -> list[float] | None:
    return [round(ci[0], 2), round(ci[1], 2)] if has_interval(n_problems) else None


def tau_interval(estimate: float, boot: np.ndarray, n_items: Optional[int] = None,
                 level: float = CI_LEVEL) -> tuple[float, float]:
    """Interval of Kendall's τ between two orders of ``n_items`` things, from its bootstrap replicates ``boot``:
    the normal bootstrap interval, estimate ± z · sd(replicates), clipped to [−1, 1], then (given ``n_items``) its
    ends moved out to the nearest values τ of that many untied things takes (steps of 4 / (m (m − 1))).

    The percentile interval fails here: τ of a few models takes few values and resampled orders are noisier than
    the observed one, so the replicates often all lie on one side of the estimate and the interval ends at it
    (held strictly inside in 51–93 % of replications at n = 20–50, bench/bootstrap_coverage.py). This one holds
    the estimate strictly inside whenever the replicates vary and |estimate| < 1; moving the ends to τ's values
    lets it cover a true τ of ±1, the common case of two orders that agree (at n ≥ 20 it covered the true τ in
    98–100 % of replications, against 89–97 % unmoved; docs/leaderboard.md). Replicates all equal to the estimate
    give [estimate, estimate]. Written here because scipy's bootstrap intervals are percentile-based (BCa too:
    none can leave the replicates' range)."""
    boot = np.asarray(boot, dtype=float)
    boot = boot[~np.isnan(boot)]
    if boot.size == 0 or np.isnan(estimate):
        return float("nan"), float("nan")
    sd = float(boot.std(ddof=1)) if boot.size > 1 else 0.0
    if sd < TIE_TOLERANCE:  # every replicate gives the estimate
        return float(estimate), float(estimate)
    half = float(norm.ppf(0.5 + level / 200.0)) * sd
    lo, hi = max(-1.0, estimate - half), min(1.0, estimate + half)
    if n_items is not None and n_items > 1:
        step = 4.0 / (n_items * (n_items - 1))
        lo = max(-1.0, round(-1.0 + step * float(np.floor((lo + 1.0) / step + 1e-9)), 12))
        hi = min(1.0, round(-1.0 + step * float(np.ceil((hi + 1.0) / step - 1e-9)), 12))
    return lo, hi


@dataclass(frozen=True)
class Estimate:
    """A mean over ``n_problems`` problems in percent, with its bootstrap interval (JSON: null below
    ``MIN_PROBLEMS``)."""

    value: float
    ci95: tuple[float, float]
    n_problems: int = 0

    def to_json(self) -> dict:
        return {"pass@1": round(self.value, 2), "ci95": _rounded(self.ci95, self.n_problems),
                "n_problems": self.n_problems}


@dataclass(frozen=True)
class Difference:
    """Mean paired difference (a − b) in percentage points over ``n_problems`` problems, its bootstrap interval and
    two-sided p-value (JSON: both null below ``MIN_PROBLEMS``)."""

    diff: float
    ci95: tuple[float, float]
    p_value: float
    n_problems: int = 0

    def to_json(self) -> dict:
        shown = has_interval(self.n_problems)
        return {"diff": round(self.diff, 2), "ci95": _rounded(self.ci95, self.n_problems),
                "p_value": round(self.p_value, 4) if shown else None, "n_problems": self.n_problems}


def snap_ties(values: np.ndarray) -> np.ndarray:
    """``values`` with those within ``TIE_TOLERANCE`` of 0 set to exactly 0 (a sum of exact ties that float
    summation left at ±1e-17 is a tie)."""
    return np.where(np.abs(values) < TIE_TOLERANCE, 0.0, values)


def mean_estimate(scores: np.ndarray, indices: np.ndarray) -> Estimate:
    """Mean of per-problem scores (0..1) as a percentage, with the percentile interval over ``indices``."""
    scores = np.asarray(scores, dtype=float)
    if scores.size == 0:
        return Estimate(float("nan"), (float("nan"), float("nan")))
    boot = 100.0 * scores[indices].mean(axis=1)
    # the point value is computed as `rerank` computes its table, so both print the same figure
    return Estimate(aggregate_percent(scores.tolist()), percentile_interval(boot), scores.size)


def paired_difference(a: np.ndarray, b: np.ndarray, indices: np.ndarray) -> Difference:
    """Paired bootstrap of mean(a) − mean(b) over problems.

    The p-value is that of the percentile interval's test: twice the smaller share of resampled differences on
    either side of 0 (each side counting 0 itself), capped at 1. Identical inputs give 0 [0, 0] and p = 1; a
    difference of the same sign in every resample gives p = 0, meaning p < 1 / n_resamples. Differences within
    float rounding of 0 (``TIE_TOLERANCE``) are 0, per problem and per resample: an exact tie gets p = 1."""
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if d.size == 0:
        return Difference(float("nan"), (float("nan"), float("nan")), float("nan"))
    d = np.where(np.abs(d) < TIE_TOLERANCE, 0.0, d)
    boot = snap_ties(100.0 * d[indices].mean(axis=1))
    p = min(1.0, 2.0 * min(float((boot <= 0).mean()), float((boot >= 0).mean())))
    diff = 100.0 * float(d.mean())
    return Difference(0.0 if abs(diff) < TIE_TOLERANCE else diff, percentile_interval(boot), p, d.size)
