"""Test-pool accuracy and toxic share, CodeT's analysis, on a hand-made problem."""

from __future__ import annotations

import numpy as np

from coderank_evalplus.report.scores import problem_scores
from coderank_evalplus.report.test_quality import problem_quality, run_quality
from coderank_evalplus.types import FAIL, PASS
from tests.rankers.helpers import make_executions
from tests.report.helpers import stored_problem, stored_run


def _problem(task_id="T/0"):
    # 4 asserts; the reference solution passes 0 and 1; candidate 0 is correct, candidates 1 and 2 are wrong.
    # Wrong candidate 1 passes assert 2 (the reference fails it: toxic); nobody passes assert 3 (wrong, not toxic).
    ex = make_executions(passes=[[1, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]])
    return stored_problem(ex, [True, False, False], canonical_pass=[PASS, PASS, FAIL, FAIL], task_id=task_id)


def test_accuracy_and_toxic_share():
    q = problem_quality(_problem())
    assert q["n_asserts"] == 4 and q["accuracy"] == 0.5 and q["toxic"] == 0.25


def test_plus_verdicts_decide_who_is_wrong_when_present():
    sp = _problem()
    sp.verdict_plus = np.array([1, 1, 0], dtype=np.int8)  # candidate 1 is correct on plus tests: not wrong
    assert problem_quality(sp)["toxic"] == 0.0


def test_no_reference_run_gives_no_accuracy():
    ex = make_executions(passes=[[1], [0]])
    q = problem_quality(stored_problem(ex, [True, False]))
    assert q["accuracy"] is None and q["toxic"] is None


def test_gain_against_accuracy_summary():
    probs = [_problem(f"T/{i}") for i in range(3)]
    run = stored_run(probs)
    methods = ["random", "codet", "oracle"]
    res = run_quality(run, problem_scores(run, methods), methods)
    s = res["summary"]
    assert s["accuracy"] == 50.0 and s["toxic"] == 25.0 and s["asserts_per_problem"] == 4.0
    g = s["gain_vs_accuracy"]["codet"]
    assert g["spearman_rho"] is None  # every problem has the same accuracy: no correlation to compute
    assert [b["n_problems"] for b in g["bins"]] == [0, 0, 3, 0]
    # codet ranks candidate 0 (2 asserts) alone on top: pass@1 1.0 against random's 1/3
    assert abs(g["bins"][2]["mean_gain"] - 100 * (1 - 1 / 3)) < 0.01
