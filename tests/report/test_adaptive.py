"""Adaptive budget simulated on hand-made stored runs: the curve's draws, τ = 0 and τ = 1, τ chosen on training."""

from __future__ import annotations

import numpy as np

from coderank_evalplus.report.adaptive import (
    at_budget,
    budget_with_cap,
    choose_tau,
    confidences,
    fixed,
    method_report,
    round_tables,
    simulate,
    sweep,
)
from coderank_evalplus.report.curves import budget_curve
from tests.rankers.helpers import agreement_model, make_executions
from tests.report.helpers import stored_problem, stored_run


def _problem(task_id: str, n: int, correct_every: int, seed: int):
    """n candidates: the correct ones agree (one output) and pass assert 0; the others scatter and pass assert 1
    now and then."""
    rng = np.random.default_rng(seed)
    correct = [c % correct_every == 0 for c in range(n)]
    outputs = [[1] if ok else [int(rng.integers(2, 5))] for ok in correct]
    passes = [[ok, (not ok) and o[0] == 2] for ok, o in zip(correct, outputs)]
    ex = make_executions(passes=passes, outputs=outputs, assert_input=[-1, -1])
    return stored_problem(ex, correct, correct, task_id=task_id)


def _run(n: int = 10):
    return stored_run([_problem(f"T/{i}", n, 1 + i % 5, i) for i in range(10)])


def _model(tau: float = 0.8) -> dict:
    return agreement_model(tau, rows=200)


def test_fixed_points_are_the_budget_curves():
    run = _run()
    table = round_tables(run, ["learned_examples", "codet"], draws=6, workers=1)
    curve = budget_curve(run, ["learned_examples", "codet"], "candidates", draws=6, workers=1, splits=("base", "plus"),
                         grid=table["codet"].rounds)
    for m in ("learned_examples", "codet"):
        got = fixed(table[m])
        assert [g["n"] for g in got] == list(range(1, 11))
        for g, c, cp in zip(got, curve["curves"]["base"][m], curve["curves"]["plus"][m]):
            assert g["n"] == c["n"] and abs(g["base"] - c["mean"]) < 0.006 and abs(g["plus"] - cp["mean"]) < 0.006


def test_tau_one_is_the_cap_and_tau_zero_stops_after_the_first_round():
    run = _run()
    t = round_tables(run, ["codet"], draws=4, workers=1)["codet"]
    conf = confidences(t, _model())
    cap, first = simulate(t, conf, 1.0), simulate(t, conf, 0.0)
    assert (cap["samples"] == 10).all() and np.allclose(cap["base"], t.passed[:, -1, 0, 0])
    assert (first["samples"] == 1).all() and np.allclose(first["base"], t.passed[:, 0, :, 0].mean(axis=1))
    rows = sweep(t, conf, taus=(0.0, 0.5, 1.0), n_resamples=50)
    assert rows[0]["mean_samples"] == 1 and rows[-1]["mean_samples"] == 10
    assert rows[-1]["base"] == fixed(t)[-1]["base"]
    assert rows[0]["mean_samples"] <= rows[1]["mean_samples"] <= rows[2]["mean_samples"]
    assert at_budget(rows, 10.0) == rows[-1]["base"] and at_budget(rows, 0.5) is None


def test_a_cap_bounds_the_rule_and_a_budget_is_read_between_taus():
    t = round_tables(_run(), ["codet"], draws=4, workers=1)["codet"]
    conf = confidences(t, _model())
    fixed_at = {f["n"]: f["base"] for f in fixed(t)}
    # with a cap of 4, τ = 1 draws 4 for every problem: a mean of 4 is fixed N = 4 (up to rounding)
    assert abs(budget_with_cap(t, conf, 4.0, cap=4, taus=(0.0, 1.0)) - fixed_at[4]) < 0.006
    assert budget_with_cap(t, conf, 5.0, cap=4, taus=(0.0, 1.0)) is None  # beyond what the capped rule spends
    assert abs(budget_with_cap(t, conf, 10.0, taus=(0.0, 1.0)) - fixed_at[10]) < 0.006  # no cap: the folder's
    mid = budget_with_cap(t, conf, 5.5, taus=(0.0, 1.0))  # halfway between τ = 0 (1 sample) and 1 (10)
    assert abs(mid - (fixed_at[1] + fixed_at[10]) / 2) < 0.006


def test_tau_is_chosen_on_the_given_tables_and_reported():
    run = _run()
    t = round_tables(run, ["codet"], draws=4, workers=1)["codet"]
    model = _model()
    tau, how = choose_tau([t], model)
    sim = simulate(t, confidences(t, model), tau)
    assert 100 * (t.passed[:, -1, :, 0].mean() - sim["base"].mean()) <= 0.5 and "training folders" in how
    from coderank_evalplus.metrics import MIN_PROBLEMS

    conf = np.linspace(0, 1, MIN_PROBLEMS)  # calibration rests on the picks' problems: at least the minimum
    rep = method_report(t, model, tau, {"base": conf}, {"base": conf > 0.5}, n_resamples=50)
    assert set(rep) >= {"fixed", "adaptive", "tau", "at_tau", "calibration", "selective"}
    assert [s["coverage"] for s in rep["selective"]] == [0.5, 0.8, 0.9]
    assert rep["calibration"]["base"]["auroc"] == 1.0
    few = method_report(t, model, tau, {"base": conf[:3]}, {"base": conf[:3] > 0.5}, n_resamples=50)
    assert few["calibration"]["base"] == {"ece": None, "brier": None, "auroc": None}


def test_a_stepped_method_gets_its_step_on_every_subset_or_is_refused():
    """``recommended`` runs a step after its ranker: the round tables and the curves hand each sub-sample to the
    caller's ``subset_steps`` (all of a folder's at once: the path replayed) and score the ranking it returns; without
    one they refuse."""
    import pytest

    from coderank_evalplus.report.scores import rank

    run = _run()
    seen = []

    def subset_steps(r, items):  # a replay whose step changes nothing: recommended's figures are then its ranker's
        seen.append(len(items))
        assert r is run and all(it.method == "recommended" and len(it.candidates) > 1 for it in items)
        return [rank(it.problem, "learned_examples", r.seed, it.executions, it.hidden, it.candidates) for it in items]

    tables = round_tables(run, ["learned_examples", "recommended"], draws=3, workers=1, subset_steps=subset_steps)
    assert np.array_equal(tables["recommended"].passed, tables["learned_examples"].passed)
    assert np.array_equal(tables["recommended"].features, tables["learned_examples"].features)
    curve = budget_curve(run, ["learned_examples", "recommended"], draws=3, workers=1, subset_steps=subset_steps)
    base = curve["curves"]["base"]
    assert base["recommended"] == base["learned_examples"] and len(seen) == 2 and all(seen)
    with pytest.raises(ValueError, match="step after ranking"):
        round_tables(run, ["recommended"], draws=2, workers=1)
