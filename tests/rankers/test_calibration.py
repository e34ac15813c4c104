"""Calibration metrics (rankers/calibration.py) on hand-made confidences."""

from __future__ import annotations

import numpy as np
import pytest

from coderank_evalplus.rankers.calibration import (
    auroc,
    brier,
    coverage_curve,
    ece,
    ece_if_calibrated,
    reliability_bins,
    selective,
)


def test_perfect_and_useless_confidences():
    y = np.asarray([1, 1, 0, 0, 1.0])
    assert brier(y, y) == 0 and ece(y, y) == 0 and auroc(y, y) == 1.0
    flat = np.full(5, 0.6)
    assert ece(flat, y) == pytest.approx(0.0) and auroc(flat, y) == 0.5
    assert auroc(1 - y, y) == 0.0 and np.isnan(auroc(flat, np.ones(5)))


def test_ece_weighs_bins_by_count_and_fractional_outcomes_count_both_ways():
    conf = np.asarray([0.95, 0.95, 0.15, 0.15])
    y = np.asarray([1.0, 0.0, 0.0, 0.0])
    bins = reliability_bins(conf, y)
    assert [b["count"] for b in bins] == [2, 2]
    assert ece(conf, y) == pytest.approx(0.5 * 0.45 + 0.5 * 0.15)
    # a tie that passes half the time is half a pass, half a failure (which ties with that half pass at 0.9)
    assert auroc(np.asarray([0.9, 0.1]), np.asarray([0.5, 0.0])) == pytest.approx((0.5 * 0.5 * 0.5 + 0.5) / 0.75)


def test_selective_keeps_the_most_confident():
    conf = np.asarray([0.9, 0.8, 0.7, 0.1])
    y = np.asarray([1.0, 1.0, 0.0, 0.0])
    assert selective(conf, y, 0.5) == 100.0 and selective(conf, y, 1.0) == 50.0
    assert coverage_curve(conf, y, points=4)[-1] == {"coverage": 1.0, "pass@1": 50.0}


def test_ece_if_calibrated_is_what_calibrated_outcomes_show_and_shrinks_with_more_problems():
    rng = np.random.default_rng(3)
    small, large = rng.uniform(0, 1, 30), rng.uniform(0, 1, 3000)
    mean_small, p95_small = ece_if_calibrated(small, draws=300)
    mean_large, _ = ece_if_calibrated(large, draws=300)
    assert 0 < mean_large < 0.03 < mean_small < p95_small  # biased upwards, less so on more problems
    # outcomes that really are drawn from the confidences give ECEs around that mean
    drawn = [ece(small, (rng.random(small.size) < small).astype(float)) for _ in range(300)]
    assert abs(np.mean(drawn) - mean_small) < 0.02
    # certain confidences (0 or 1) leave no room for noise; same seed, same figures
    assert ece_if_calibrated(np.array([0.0, 1.0, 1.0])) == (0.0, 0.0)
    assert ece_if_calibrated(small, seed=5) == ece_if_calibrated(small, seed=5)
