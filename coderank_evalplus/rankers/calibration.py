"""How well a confidence predicts that a pick is right: Brier score, expected calibration error, AUROC, the
reliability diagram's bins, and selective pass@1 (abstain on the least confident problems), in numpy.

Outcomes may be fractional (a pick among tied candidates passes with the share of the tie that passes): a
problem then counts as a pass with weight y and as a failure with weight 1 − y, in every metric. Each of these
rests on the problems it is computed over, so ``summary`` follows the one minimum (``metrics.enough_problems``):
below it the figures are null. Here, beside the confidence model, because ``rerank_results.json``'s confidence
block carries them (``confidence.confidence_block``); the leaderboard and ``budget`` read them through
``report.calibration``.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from coderank_evalplus.metrics import enough_problems

ECE_BINS = 10
COVERAGES = (0.5, 0.8, 0.9)


def brier(conf: np.ndarray, y: np.ndarray) -> float:
    """Mean squared difference between confidence and outcome."""
    conf, y = np.asarray(conf, dtype=float), np.asarray(y, dtype=float)
    return float(np.mean((conf - y) ** 2)) if conf.size else float("nan")


def _bin_index(conf: np.ndarray, bins: int) -> np.ndarray:
    """Each confidence's equal-width bin (1.0 in the last)."""
    return np.minimum((conf * bins).astype(int), bins - 1)


def reliability_bins(conf: np.ndarray, y: np.ndarray, bins: int = ECE_BINS) -> list[dict]:
    """Equal-width bins of confidence: for each non-empty one, its count, mean confidence and mean outcome."""
    conf, y = np.asarray(conf, dtype=float), np.asarray(y, dtype=float)
    idx = _bin_index(conf, bins)
    out = []
    for b in range(bins):
        m = idx == b
        if m.any():
            out.append({"lo": b / bins, "hi": (b + 1) / bins, "count": int(m.sum()),
                        "confidence": float(conf[m].mean()), "accuracy": float(y[m].mean())})
    return out


def ece(conf: np.ndarray, y: np.ndarray, bins: int = ECE_BINS) -> float:
    """Expected calibration error: Σ_bins (count / n) · |mean outcome − mean confidence|."""
    n = len(conf)
    if n == 0:
        return float("nan")
    return float(sum(b["count"] / n * abs(b["accuracy"] - b["confidence"]) for b in reliability_bins(conf, y, bins)))


def ece_if_calibrated(conf: np.ndarray, bins: int = ECE_BINS, draws: int = 1000, seed: int = 0) -> tuple[float, float]:
    """The ECE a perfectly calibrated confidence would still show on this many problems: outcomes drawn as
    Bernoulli(conf) ``draws`` times (seeded); returns (mean, 95th percentile). ECE is biased upwards on a finite
    set (each bin's outcome mean is noisy), so an observed ECE is read against this, not against 0."""
    conf = np.asarray(conf, dtype=float)
    if conf.size == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    in_bin = np.eye(bins)[_bin_index(conf, bins)]  # problems × bins, one 1 per row
    conf_sum = conf @ in_bin
    y_sum = (rng.random((draws, conf.size)) < conf) @ in_bin  # draws × bins: passing picks per bin
    values = np.abs(y_sum - conf_sum).sum(axis=1) / conf.size  # Σ_b n_b/n · |mean y − mean conf|
    return float(values.mean()), float(np.percentile(values, 95))


def auroc(conf: np.ndarray, y: np.ndarray) -> float:
    """P(confidence of a right pick > that of a wrong one), ties counting ½, outcomes as weights; nan when
    every pick is right or every one wrong."""
    conf, y = np.asarray(conf, dtype=float), np.asarray(y, dtype=float)
    pos, neg = y, 1.0 - y
    if pos.sum() <= 0 or neg.sum() <= 0:
        return float("nan")
    order = np.argsort(conf, kind="mergesort")
    c, p, q = conf[order], pos[order], neg[order]
    # for each distinct confidence: negatives strictly below, and ties
    uniq, start = np.unique(c, return_index=True)
    neg_by = np.add.reduceat(q, start)
    pos_by = np.add.reduceat(p, start)
    below = np.concatenate([[0.0], np.cumsum(neg_by)[:-1]])
    return float((pos_by * (below + 0.5 * neg_by)).sum() / (pos.sum() * neg.sum()))


def selective(conf: np.ndarray, y: np.ndarray, coverage: float) -> float:
    """Mean outcome (percent) over the ``coverage`` share of problems with the highest confidence (ties broken by
    problem order, so the figure is deterministic)."""
    conf, y = np.asarray(conf, dtype=float), np.asarray(y, dtype=float)
    if conf.size == 0:
        return float("nan")
    k = max(1, int(round(coverage * len(conf))))
    order = np.argsort(-conf, kind="mergesort")[:k]
    return float(100.0 * y[order].mean())


def coverage_curve(conf: np.ndarray, y: np.ndarray, points: int = 20) -> list[dict]:
    """Accuracy–coverage curve: selective pass@1 at coverage 1/points … 1."""
    return [{"coverage": round(k / points, 4), "pass@1": round(selective(conf, y, k / points), 2)}
            for k in range(1, points + 1)]


def summary(conf: dict[str, np.ndarray], y: dict[str, np.ndarray],
            coverages: Sequence[float] = COVERAGES) -> dict:
    """``{"n_problems": n, "calibration": {split: {ece, brier, auroc}}, "selective": [{coverage, split: pass@1}],
    "all": {split: pass@1}}`` for per-problem confidences and outcomes of each split. Under
    ``metrics.MIN_PROBLEMS`` problems ECE, Brier, AUROC and selective pass@1 are null (the keys stay, so every
    reader finds the same shape); ``all``, the plain pass@1 of the picks, is given at every n."""
    n = min((len(v) for v in conf.values()), default=0)
    shown = enough_problems(n)

    def r(x: float, d: int = 4) -> float | None:
        return None if not shown or np.isnan(x) else round(float(x), d)

    cal = {s: {"ece": r(ece(conf[s], y[s])), "brier": r(brier(conf[s], y[s])), "auroc": r(auroc(conf[s], y[s]))}
           for s in conf}
    sel = [{"coverage": c, **{s: r(selective(conf[s], y[s], c), 2) for s in conf}} for c in coverages]
    return {"n_problems": n, "calibration": cal, "selective": sel,
            "all": {s: round(100.0 * float(np.mean(y[s])), 2) if len(y[s]) else None for s in conf}}
