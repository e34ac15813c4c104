"""Calibration metrics on hand-made confidences."""

from __future__ import annotations

import numpy as np
import pytest

from coderank_evalplus.report.calibration import auroc, brier, coverage_curve, ece, reliability_bins, selective


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
