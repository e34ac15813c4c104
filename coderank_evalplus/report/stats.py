"""Bootstrap statistics over problems: intervals of a mean and paired comparisons of two methods.

Every method of a leaderboard row is scored on the same problems, so all of them are resampled with the SAME
problem indices (one index matrix per row): intervals of differences are then paired, and a method compared with
itself gives a difference of exactly 0 with p = 1. numpy does the resampling; scipy.stats.bootstrap is not used
because it resamples each call afresh (no shared, paired draws across many methods) and gives no p-value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from coderank_evalplus.metrics import aggregate_percent

DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 0
CI_LEVEL = 95.0
# A per-problem score is a ratio of small integers (pass@1 of a pick inside a tie group, the unbiased random
# estimate); two methods that pick equally well can still differ by float rounding (~1e-16). Differences below
# this many units (scores 0..1, resampled means in points) are exact ties: 0, not "significant".
TIE_TOLERANCE = 1e-9


def resample_indices(n_items: int, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> np.ndarray:
    """(n_resamples, n_items) problem indices drawn with replacement, reproducible from ``seed``."""
    if n_items <= 0:
        return np.zeros((n_resamples, 0), dtype=np.int64)
    return np.random.default_rng(seed).integers(0, n_items, size=(n_resamples, n_items))


def percentile_interval(values: np.ndarray, level: float = CI_LEVEL) -> tuple[float, float]:
    tail = (100.0 - level) / 2
    lo, hi = np.percentile(values, [tail, 100.0 - tail])
    return float(lo), float(hi)


@dataclass(frozen=True)
class Estimate:
    """A mean over problems in percent, with its bootstrap interval."""

    value: float
    ci95: tuple[float, float]

    def to_json(self) -> dict:
        return {"pass@1": round(self.value, 2), "ci95": [round(self.ci95[0], 2), round(self.ci95[1], 2)]}


@dataclass(frozen=True)
class Difference:
    """Mean paired difference (a − b) in percentage points, its bootstrap interval and two-sided p-value."""

    diff: float
    ci95: tuple[float, float]
    p_value: float

    def to_json(self) -> dict:
        return {"diff": round(self.diff, 2), "ci95": [round(self.ci95[0], 2), round(self.ci95[1], 2)],
                "p_value": round(self.p_value, 4)}


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
    return Estimate(aggregate_percent(scores.tolist()), percentile_interval(boot))


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
    return Difference(0.0 if abs(diff) < TIE_TOLERANCE else diff, percentile_interval(boot), p)
