"""Bootstrap intervals and paired differences on hand-made per-problem scores whose answers can be reasoned out."""

from __future__ import annotations

import numpy as np
import pytest

from coderank_evalplus.stats import mean_estimate, paired_difference, resample_indices


def test_identical_methods_differ_by_zero_with_p_one():
    rng = np.random.default_rng(1)
    a = rng.random(50)
    idx = resample_indices(50, 1000, seed=3)
    d = paired_difference(a, a.copy(), idx)
    assert d.diff == 0.0 and d.ci95 == (0.0, 0.0) and d.p_value == 1.0


def test_a_method_better_on_every_problem_has_p_zero_and_its_interval_excludes_zero():
    a, b = np.ones(30), np.zeros(30)
    d = paired_difference(a, b, resample_indices(30, 1000))
    assert d.diff == 100.0 and d.ci95 == (100.0, 100.0) and d.p_value == 0.0
    d = paired_difference(b, a, resample_indices(30, 1000))
    assert d.diff == -100.0 and d.p_value == 0.0


def test_constant_scores_have_a_degenerate_interval():
    e = mean_estimate(np.full(20, 0.25), resample_indices(20, 1000))
    assert e.value == 25.0 and e.ci95 == (25.0, 25.0)


def test_interval_contains_the_mean_and_narrows_with_more_problems():
    rng = np.random.default_rng(0)
    small, large = rng.random(20) < 0.4, rng.random(2000) < 0.4
    e_small = mean_estimate(small, resample_indices(20, 2000))
    e_large = mean_estimate(large, resample_indices(2000, 2000))
    for e in (e_small, e_large):
        assert e.ci95[0] <= e.value <= e.ci95[1]
    assert (e_large.ci95[1] - e_large.ci95[0]) < (e_small.ci95[1] - e_small.ci95[0]) / 4
    # binomial standard error at p = 0.4, n = 2000 is 1.1 points: the 95 % interval is about ±2.1
    assert 3.0 < e_large.ci95[1] - e_large.ci95[0] < 5.6


def test_one_problem_of_difference_gives_a_p_value_from_how_often_it_is_drawn():
    """a beats b on exactly one of n problems: a resample shows no difference exactly when it misses that problem,
    probability (1 - 1/n)^n; the p-value is twice that share (the ≤ 0 side), here about 0.73."""
    n = 10
    a, b = np.zeros(n), np.zeros(n)
    a[3] = 1.0
    d = paired_difference(a, b, resample_indices(n, 20000, seed=5))
    assert d.diff == 10.0 and d.ci95[0] == 0.0
    assert abs(d.p_value - 2 * (1 - 1 / n) ** n) < 0.02


def test_resampling_is_reproducible_and_paired():
    assert np.array_equal(resample_indices(7, 100, seed=2), resample_indices(7, 100, seed=2))
    assert not np.array_equal(resample_indices(7, 100, seed=2), resample_indices(7, 100, seed=3))
    a = np.array([1.0, 0.0, 1.0, 0.5])
    b = a - 0.25  # a beats b by the same amount on every problem: the paired interval is a single point
    d = paired_difference(a, b, resample_indices(4, 1000))
    assert d.ci95 == (25.0, 25.0)


def test_differences_of_rounding_size_are_an_exact_tie_with_p_one():
    """The MBPP+ bug: a method that picks exactly as random does, scored through another float path, differs by
    ~1e-16 per problem, all on one side of 0; that is a tie (p = 1), not p < 0.001."""
    rng = np.random.default_rng(4)
    a = rng.integers(0, 11, 80) / 10.0
    b = a + rng.choice([0.0, 2.2e-16, 4.4e-16], 80)
    assert (b - a >= 0).all() and (b - a > 0).any()
    d = paired_difference(b, a, resample_indices(80, 2000))
    assert d.diff == 0.0 and d.ci95 == (0.0, 0.0) and d.p_value == 1.0
    # a real difference on top of the rounding noise is still seen
    b[:10] += 0.5
    d = paired_difference(b, a, resample_indices(80, 2000))
    assert d.diff > 0 and d.p_value < 0.01


def test_resampled_sums_that_cancel_up_to_rounding_count_as_zero():
    """0.3 − 0.1 − 0.2 is 5.6e-17 in floats: a resample whose exact mean is 0 must count as 0 on both sides."""
    a = np.array([0.3, 0.0, 0.0])
    b = np.array([0.0, 0.1, 0.2])
    d = paired_difference(a, b, np.array([[0, 1, 2]] * 1000))
    assert d.diff == 0.0 and d.p_value == 1.0


def test_under_the_minimum_the_json_has_no_interval_and_no_p_value_but_says_n():
    from coderank_evalplus.stats import MIN_PROBLEMS

    for n in (3, MIN_PROBLEMS - 1):
        a = np.r_[np.ones(n - 1), 0.0]
        e = mean_estimate(a, resample_indices(n, 1000)).to_json()
        d = paired_difference(a, np.zeros(n), resample_indices(n, 1000)).to_json()
        assert e["ci95"] is None and e["n_problems"] == n and e["pass@1"] == round(100 * (n - 1) / n, 2)
        assert d["ci95"] is None and d["p_value"] is None and d["n_problems"] == n and d["diff"] > 0
    n = MIN_PROBLEMS
    a = np.r_[np.ones(n - 1), 0.0]
    e = mean_estimate(a, resample_indices(n, 1000)).to_json()
    d = paired_difference(a, np.zeros(n), resample_indices(n, 1000)).to_json()
    assert e["ci95"][0] < e["pass@1"] <= e["ci95"][1] and e["n_problems"] == n
    assert d["p_value"] == 0.0 and d["ci95"][0] > 0 and d["n_problems"] == n


def test_tau_interval_holds_the_estimate_where_the_percentile_interval_ends_at_it():
    """Five models; the method keeps random's order but for one pair it reverses by a small, noisy margin: τ = 0.8,
    and every resample gives 0.8 or more (that pair flips back in some), so the percentile interval is [0.8, 1.0]
    with τ on its edge. The leaderboard's interval holds 0.8 strictly inside and reaches 1."""
    from coderank_evalplus.report.models import compare_group, kendall_tau_b
    from coderank_evalplus.stats import percentile_interval, tau_interval
    from tests.report.test_models import _row

    rng = np.random.default_rng(7)
    n = 40
    base = rng.random(n) * 0.2
    random = np.stack([base + 0.15 * (4 - k) for k in range(5)])  # models 0 > 1 > 2 > 3 > 4 on every problem
    method = random.copy()
    method[4] = method[3] + np.r_[[0.4, -0.3, 0.35, -0.3, 0.3, -0.3], np.zeros(n - 6)]  # 4 passes 3, barely
    idx = resample_indices(n, 2000)
    tau = float(kendall_tau_b(random.mean(axis=1), method.mean(axis=1)))
    boot = kendall_tau_b(random[:, idx].mean(axis=2).T, method[:, idx].mean(axis=2).T)
    assert tau == pytest.approx(0.8) and (boot >= tau - 1e-12).all() and (boot > tau).any()
    assert percentile_interval(boot)[0] == pytest.approx(tau)  # the percentile interval fails: τ on its edge
    lo, hi = tau_interval(tau, boot, 5)
    assert lo < tau < hi and hi == 1.0 and lo == pytest.approx(0.6)
    lo, hi = tau_interval(tau, boot)  # without the models' count: τ ± 1.96 sd, unmoved
    assert lo < tau < hi < 1.0 and hi - tau == pytest.approx(tau - lo)
    # the same through the model comparison, as the leaderboard prints it
    rows = [_row(f"m{k}", {"random": random[k], "codet": method[k]}) for k in range(5)]
    codet = compare_group(rows, ["random", "codet"], "base", "full", 2000, 0)[1]["kendall_tau"]
    assert codet["ci95"][0] < codet["tau"] == 0.8 < codet["ci95"][1]


def test_tau_interval_at_the_bound_and_without_spread():
    from coderank_evalplus.stats import tau_interval

    assert tau_interval(1.0, np.array([1.0, 0.6, 1.0, 0.8] * 50), 5) == (pytest.approx(0.6), 1.0)
    assert tau_interval(-1.0, np.array([-1.0, -0.6] * 50), 5) == (-1.0, pytest.approx(-0.6))
    assert tau_interval(0.4, np.full(100, 0.4), 5) == (0.4, 0.4)
    assert np.isnan(tau_interval(0.4, np.full(10, np.nan))[0])
