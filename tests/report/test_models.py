"""Model comparisons on hand-made results whose answers can be reasoned out: identical models tie, a model better on
every problem ranks first in every resample, sub-sampling equals the budget curve, significant order flips."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import kendalltau

from coderank_evalplus.io.results_folder import pool_of
from coderank_evalplus.report.board import Entry
from coderank_evalplus.report.curves import budget_curve, scores_at_budget
from coderank_evalplus.report.models import (
    FULL,
    ModelRow,
    compare_group,
    compare_models,
    groups_of,
    kendall_tau_b,
    summary,
)
from coderank_evalplus.report.scores import problem_scores
from tests.rankers.helpers import make_executions
from tests.report.helpers import stored_problem, stored_run

METHODS = ["random", "codet", "oracle"]


def _row(name: str, per_method: dict, pool: str = "p", tests_label: str = "", n: int = 10,
         task_ids=None) -> ModelRow:
    k = len(next(iter(per_method.values())))
    task_ids = task_ids or [f"T/{i}" for i in range(k)]
    scores = {m: {"base": np.asarray(v, float)} for m, v in per_method.items()}
    return ModelRow(name, "humaneval", pool, tests_label or pool, list(task_ids), ("base",), scores, [n] * k)


def _entry(entries: list[dict], method: str, budget=FULL) -> dict:
    return next(e for e in entries if e["method"] == method and e["budget"] == budget)


def test_identical_models_differ_by_zero_with_p_one_and_tie():
    rng = np.random.default_rng(0)
    s = rng.integers(0, 11, 60) / 10
    a = _row("a", {"random": s, "codet": s})
    b = _row("b", {"random": s.copy(), "codet": s.copy()})
    worse = _row("c", {"random": s * 0.5, "codet": s * 0.5})
    for e in compare_group([a, b, worse], ["random", "codet"], "base", FULL, 1000):
        ab = e["pairs"][0]
        assert (ab["a"], ab["b"]) == ("a", "b")
        assert ab["diff"] == 0.0 and ab["ci95"] == [0.0, 0.0] and ab["p_value"] == 1.0 and ab["n_problems"] == 60
        ranks = {r["name"]: (r["rank"], r["rank_ci95"]) for r in e["ranking"]}
        assert ranks["a"] == ranks["b"] == (1, [1, 1])  # tied: the better rank, in every resample
        assert ranks["c"] == (3, [3, 3])
        assert e["flips"] == []


def test_a_model_better_on_every_problem_ranks_first_in_every_resample():
    rng = np.random.default_rng(1)
    low = rng.random(40) * 0.5
    rows = [_row("weak", {"random": low}), _row("strong", {"random": low + 0.1}),
            _row("noisy", {"random": np.minimum(rng.random(40) * 0.6, low + 0.05)})]  # strong beats it everywhere
    e = compare_group(rows, ["random"], "base", FULL, 2000)[0]
    top = e["ranking"][0]
    assert top["name"] == "strong" and top["rank"] == 1 and top["rank_ci95"] == [1, 1]
    strong_vs_weak = next(p for p in e["pairs"] if {p["a"], p["b"]} == {"weak", "strong"})
    assert strong_vs_weak["p_value"] == 0.0 and abs(abs(strong_vs_weak["diff"]) - 10.0) < 1e-9
    # the two others overlap: their rank intervals are wider than one rank and both lie in [2, 3]
    others = {r["name"]: r["rank_ci95"] for r in e["ranking"][1:]}
    assert all(2 <= lo <= hi <= 3 for lo, hi in others.values())


def _problem(task_id: str, n: int, correct_every: int, offset: int = 0):
    """n candidates; every `correct_every`-th is correct and alone passes assert 0 (CodeT finds it when drawn)."""
    correct = [(c + offset) % correct_every == 0 for c in range(n)]
    ex = make_executions(passes=[[ok, not ok] for ok in correct], counts=[3, 1])
    return stored_problem(ex, correct, task_id=task_id)


def _model_row(name: str, run, pool: str = "p") -> ModelRow:
    return ModelRow(name, "humaneval", pool, pool, [p.problem.task_id for p in run.problems], ("base",),
                    problem_scores(run, METHODS), [p.executions.n_candidates for p in run.problems])


def test_sub_sampling_a_100_sample_row_to_10_equals_the_budget_curve_point():
    big = stored_run([_problem(f"T/{i}", 100, k) for i, k in enumerate((7, 13, 29, 50, 101))])
    small = stored_run([_problem(f"T/{i}", 10, k, 1) for i, k in enumerate((2, 3, 5, 7, 11))])
    rows = [_model_row("big", big), _model_row("small", small)]
    asked = []

    def sub_sample(row, n):
        asked.append((row.name, n))
        return scores_at_budget(big, METHODS, n, draws=20, seed=0, workers=1)

    entries = compare_models(rows, METHODS, 1000, 0, sub_sample)
    assert asked == [("big", 10)]  # the 10-sample row is used as it is
    curve = budget_curve(big, METHODS, "candidates", draws=20, seed=0, workers=1)
    at10 = {m: next(p for p in curve["curves"]["base"][m] if p["n"] == 10)["mean"] for m in METHODS}
    for m in METHODS:
        matched = {r["name"]: r["pass@1"] for r in _entry(entries, m, 10)["ranking"]}
        full = {r["name"]: r["pass@1"] for r in _entry(entries, m, FULL)["ranking"]}
        if m == "random":  # the exact expectation, the full table's
            assert matched["big"] == full["big"]
        else:
            assert matched["big"] == pytest.approx(at10[m], abs=0.006)
        assert matched["small"] == full["small"]
        assert full["big"] == pytest.approx(100 * problem_scores(big, [m])[m]["base"].mean(), abs=0.006)
        assert _entry(entries, m, 10)["samples"] == {"big": 10, "small": 10}
    # with 100 candidates CodeT finds the rare correct one far more often than with 10
    big_codet = {e["budget"]: next(r for r in e["ranking"] if r["name"] == "big")["pass@1"]
                 for e in entries if e["method"] == "codet"}
    assert big_codet[FULL] > big_codet[10]


def test_random_at_a_matched_budget_is_the_exact_expectation_not_an_average_of_draws():
    """A uniform pick from a uniform subset is a uniform pick of all: c / n per problem, as in the full table,
    where three draws of 10 of 100 candidates average to something else."""
    run = stored_run([_problem(f"T/{i}", 100, k) for i, k in enumerate((3, 7, 9))])
    at10 = scores_at_budget(run, ["random", "codet"], 10, draws=3, seed=0, workers=1)
    exact = problem_scores(run, ["random"])["random"]["base"]
    assert at10["random"]["base"].tolist() == exact.tolist()
    assert exact.tolist() == pytest.approx([34 / 100, 15 / 100, 12 / 100])  # every 3rd, 7th, 9th of 100 correct
    curve = budget_curve(run, ["random"], "candidates", draws=3, seed=0, workers=1)
    drawn = next(p for p in curve["curves"]["base"]["random"] if p["n"] == 10)["mean"]
    assert drawn != pytest.approx(100 * exact.mean(), abs=0.01)  # what the table showed before


def test_full_budget_pairs_use_the_problems_both_rows_have():
    a = _row("a", {"random": [1.0, 0.0, 1.0, 0.5]}, task_ids=["T/0", "T/1", "T/2", "T/3"])
    b = _row("b", {"random": [0.0, 0.0, 0.0]}, task_ids=["T/0", "T/1", "T/2"])
    c = _row("c", {"random": [0.5, 0.5]}, task_ids=["T/3", "T/0"])
    e = compare_group([a, b, c], ["random"], "base", FULL, 1000)[0]
    pairs = {(p["a"], p["b"]): p for p in e["pairs"]}
    assert pairs[("a", "b")]["n_problems"] == 3 and pairs[("a", "b")]["diff"] == pytest.approx(100 * 2 / 3, abs=0.01)
    assert pairs[("a", "b")]["a_pass@1"] == pytest.approx(66.67) and pairs[("a", "b")]["b_pass@1"] == 0.0
    assert pairs[("a", "c")]["n_problems"] == 2 and pairs[("a", "c")]["diff"] == pytest.approx(25.0)
    assert e["n_problems"] == 1  # the ranking uses what all three share: T/0


def test_kendall_tau_b_equals_scipy_with_and_without_ties():
    rng = np.random.default_rng(3)
    for _ in range(50):
        x, y = rng.integers(0, 4, 6).astype(float), rng.integers(0, 4, 6).astype(float)
        want = kendalltau(x, y).statistic
        got = kendall_tau_b(x, y)
        assert (np.isnan(want) and np.isnan(got)) or got == pytest.approx(want)
    batch = rng.random((7, 5))
    assert np.allclose(kendall_tau_b(batch, batch[::-1]),
                       [kendalltau(a, b).statistic for a, b in zip(batch, batch[::-1])])


def test_a_reranker_that_reverses_a_significant_order_is_a_flip_with_tau_minus_one():
    """Under random, A beats B and B beats C on every problem; the reranker reverses all three."""
    rng = np.random.default_rng(5)
    base = rng.random(50) * 0.3
    rows = [_row("A", {"random": base + 0.6, "codet": base}),
            _row("B", {"random": base + 0.3, "codet": base + 0.3}),
            _row("C", {"random": base, "codet": base + 0.6})]
    entries = compare_group(rows, ["random", "codet"], "base", FULL, 1000)
    rnd, codet = entries
    assert rnd["kendall_tau"] == {"tau": 1.0, "ci95": [1.0, 1.0]} and rnd["flips"] == []
    assert codet["kendall_tau"] == {"tau": -1.0, "ci95": [-1.0, -1.0]}
    assert sorted(codet["flips"]) == [["B", "A"], ["C", "A"], ["C", "B"]]
    assert [r["name"] for r in codet["ranking"]] == ["C", "B", "A"]


def test_a_reversed_order_that_is_not_significant_is_no_flip():
    """Random: A beats B on every problem. The reranker puts B ahead by +0.1 on one problem and −0.05 on another:
    the order reverses (τ = −1) but the difference is not significant, so it is no flip."""
    s = np.random.default_rng(6).random(30) * 0.8
    b_codet = s.copy()
    b_codet[0] += 0.1
    b_codet[1] -= 0.05
    rows = [_row("A", {"random": s + 0.2, "codet": s}), _row("B", {"random": s, "codet": b_codet})]
    rnd, codet = compare_group(rows, ["random", "codet"], "base", FULL, 2000)
    assert rnd["pairs"][0]["p_value"] == 0.0 and rnd["pairs"][0]["diff"] == pytest.approx(20.0)
    assert codet["pairs"][0]["diff"] < 0 and codet["pairs"][0]["p_value"] > 0.3
    assert codet["kendall_tau"]["tau"] == -1.0 and codet["kendall_tau"]["ci95"][1] == 1.0
    assert codet["flips"] == []


def test_rows_group_by_dataset_and_pool_and_own_pools_join_the_others():
    assert pool_of("gpt-4 tests (own)") == "gpt-4 tests" == pool_of("gpt-4 tests")
    assert Entry("m", ".", "codegen-16B tests (own)").pool == "codegen-16B tests"
    assert Entry("m", ".", "x (own)", pool="mine").pool == "mine"
    rows = [_row("a", {"random": [1.0]}, pool="gpt-4 tests"), _row("b", {"random": [0.0]}, pool="gpt-4 tests"),
            _row("a", {"random": [1.0]}, pool="other"), _row("c", {"random": [0.0]}, pool="third")]
    rows[3].dataset = "mbpp"
    assert [[r.name for r in g] for g in groups_of(rows)] == [["a", "b"]]


def test_summary_lists_each_model_per_benchmark_with_the_main_pool():
    def row(name, ds, pool, value):
        est = {"base": {"pass@1": value, "ci95": [0, 0]}}
        return {"name": name, "dataset": ds, "pool": pool, "tests_label": pool, "samples_per_problem": 10,
                "splits": ["base"],
                "methods": {"random": est, "codet": {"base": {"pass@1": value + 1, "ci95": [0, 0]}}}}
    rows = [row("a", "humaneval", "own", 10), row("a", "humaneval", "g", 10), row("b", "humaneval", "g", 20),
            row("a", "mbpp", "d", 30)]
    out = {m["name"]: m["benchmarks"] for m in summary(rows, ["random", "codet"])}
    assert out["a"]["humaneval"] == {"pool": "g", "samples": 10,
                                     "methods": {"random": {"base": 10}, "codet": {"base": 11}}}
    assert out["a"]["mbpp"]["methods"]["codet"] == {"base": 31} and "mbpp" not in out["b"]


def test_a_suite_over_two_benchmarks_groups_tables_by_dataset():
    """Rows of HumanEval and MBPP in one leaderboard: separate tables per dataset, models compared per dataset."""
    from coderank_evalplus.report import page
    from coderank_evalplus.report.board import Leaderboard
    from coderank_evalplus.report.leaderboard import to_markdown

    def row(name, ds, value):
        est = {"pass@1": value, "ci95": [value - 1, value + 1]}
        return {"name": name, "tests_label": "t", "pool": "t", "dataset": ds, "n_problems": 3,
                "samples_per_problem": 10, "splits": ["base"], "methods": {"random": {"base": est, "plus": None}},
                "comparisons": {}}
    lb = Leaderboard(config={"methods": ["random"], "compare_to": [], "n_resamples": 1000, "seed": 0, "draws": 20})
    lb.rows = [row("a", "humaneval", 50.0), row("b", "humaneval", 40.0), row("a", "mbpp", 30.0), row("b", "mbpp", 20.0)]
    mrows = [_row(n, {"random": v}, pool="t") for n, v in (("a", [1.0, 0.5, 0.0]), ("b", [0.5, 0.5, 0.0]),
                                                         ("a", [0.0, 1.0, 0.0]), ("b", [0.0, 0.0, 1.0]))]
    for r in mrows[2:]:
        r.dataset = "mbpp"
    lb.models = compare_models(mrows, ["random"], 1000, 0)
    lb.models_summary = summary(lb.rows, ["random"])
    md = to_markdown(lb)
    assert "## pass@1 on base tests (humaneval)" in md and "## pass@1 on base tests (mbpp)" in md
    assert "### humaneval · t · base tests" in md and "### mbpp · t · base tests" in md
    assert "| a | 50.00 | 30.00 |" in md.replace(" / ", "")  # the summary: one line per model, a column per benchmark
    html = page.render(lb, {})
    assert html.index("pass@1 on base tests (humaneval)") < html.index("pass@1 on base tests (mbpp)")
    assert html.count('<table class="leaderboard"') == 2
