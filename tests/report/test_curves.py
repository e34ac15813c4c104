"""Budget curves from stored matrices: sub-sampling candidates or test samples, never executing."""

from __future__ import annotations

from coderank_evalplus.report.curves import budget_curve, budgets_for, restrict_tests
from coderank_evalplus.report.scores import problem_scores
from tests.rankers.helpers import make_executions
from tests.report.helpers import stored_problem, stored_run


def _problem(task_id: str, n: int, correct_every: int):
    """n candidates; every `correct_every`-th is correct and alone passes assert 0; the others pass assert 1."""
    correct = [c % correct_every == 0 for c in range(n)]
    ex = make_executions(passes=[[ok, not ok] for ok in correct], counts=[3, 1])
    return stored_problem(ex, correct, task_id=task_id)


def test_budgets_stop_at_what_exists():
    assert budgets_for(100, (1, 2, 5, 10, 20, 50, 100, 200)) == [1, 2, 5, 10, 20, 50, 100]
    assert budgets_for(10, (1, 2, 5, 10, 20)) == [1, 2, 5, 10]
    assert budgets_for(7, (1, 2, 5, 10)) == [1, 2, 5, 7]
    assert budgets_for(0, (1, 2)) == []


def test_full_budget_equals_the_table_and_one_candidate_equals_random():
    run = stored_run([_problem("T/0", 8, 2), _problem("T/1", 8, 4), _problem("T/2", 8, 8)])
    methods = ["random", "codet", "oracle"]
    curve = budget_curve(run, methods, "candidates", draws=20, workers=1)
    assert curve["budgets"] == [1, 2, 5, 8]
    full = problem_scores(run, methods)
    pts = curve["curves"]["base"]
    for m in methods:
        last = pts[m][-1]
        assert last["n"] == 8 and last["std"] == 0.0
        assert abs(last["mean"] - 100 * full[m]["base"].mean()) < 0.01
    # with one candidate every method picks it: codet's and oracle's draws equal random's
    assert pts["codet"][0] == pts["oracle"][0]
    # codet puts the correct candidates (the heavier assert) first whenever one is drawn: it equals the oracle
    for a, b in zip(pts["codet"], pts["oracle"]):
        assert a["mean"] == b["mean"]
    # random's mean stays near the share of correct candidates, (1/2 + 1/4 + 1/8) / 3
    assert abs(pts["random"][-1]["mean"] - 100 * (0.5 + 0.25 + 0.125) / 3) < 0.01


def test_draws_are_seeded():
    run = stored_run([_problem("T/0", 8, 3), _problem("T/1", 8, 5)])
    a = budget_curve(run, ["random", "codet", "oracle"], "candidates", draws=5, seed=1, workers=1)
    b = budget_curve(run, ["random", "codet", "oracle"], "candidates", draws=5, seed=1, workers=1)
    c = budget_curve(run, ["random", "codet", "oracle"], "candidates", draws=5, seed=2, workers=1)
    assert a == b and a != c


def test_restrict_tests_recounts_asserts_and_keeps_their_inputs():
    ex = make_executions(passes=[[1, 0, 1], [0, 1, 1]], outputs=[[5, 6], [7, 6]], counts=[2, 1, 1],
                         assert_input=[0, 1, -1])
    ex.suite.sample_asserts = [[0], [0, 1], [2]]
    sub = restrict_tests(ex, [0, 2])
    assert sub.suite.asserts == [ex.suite.asserts[0], ex.suite.asserts[2]]
    assert sub.suite.counts == [1, 1] and list(sub.assert_counts) == [1, 1]
    assert sub.suite.inputs == ["f(0)"] and sub.suite.assert_input == [0, -1]
    assert sub.pass_matrix.tolist() == ex.pass_matrix[:, [0, 2]].tolist()
    assert sub.output_matrix.tolist() == [[5], [7]]
    whole = restrict_tests(ex, [0, 1, 2])
    assert whole.suite.counts == ex.suite.counts and whole.pass_matrix.shape == ex.pass_matrix.shape


def test_test_budget_curve_grows_from_no_information():
    """Two test samples: one with the assert only correct candidates pass, one with a useless assert."""
    probs = []
    for t in range(3):
        correct = [c == t for c in range(4)]
        ex = make_executions(passes=[[ok, True] for ok in correct])
        ex.suite.sample_asserts = [[0], [1]]
        probs.append(stored_problem(ex, correct, task_id=f"T/{t}"))
    curve = budget_curve(stored_run(probs), ["random", "codet", "oracle"], "tests", draws=40, workers=1)
    assert curve["budgets"] == [1, 2]
    pts = curve["curves"]["base"]["codet"]
    assert pts[1]["mean"] == 100.0  # both samples: the discriminating assert is there
    assert 25.0 < pts[0]["mean"] < 100.0  # one sample: half of the draws get the useless assert (random: 25)
