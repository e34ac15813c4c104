"""Forgers on the original tests (issue 33): plain HumanEval's check() and sanitized MBPP's asserts are split, so
the candidate's child only reports what its calls returned and none of the forgers is judged correct.

Through the judge, on problems of our own in both shapes (a ``check(candidate)`` function, module-level asserts),
so no data is needed; the entry points (rerank, leaderboard, lm-eval) are in test_forgery_entry_points.py and
test_forgery_lm_eval.py."""

from __future__ import annotations

import pytest

from coderank_evalplus.engine.execution.execute import ResultCache
from coderank_evalplus.engine.judging.judge import Judge
from coderank_evalplus.types import Problem
from tests.hostile.forgers import ALWAYS_EQUAL, ENGINE_FORGERS, GOOD, HONEST_WRONG, OPAQUE_CLAIMS

TESTS = {
    "Orig/check": "METADATA = {}\n\n\ndef check(candidate):\n    assert candidate(1, 2) == 3\n"
                  "    assert candidate(2, 2) == 4\n    for k in range(5):\n"
                  "        assert candidate(k, 3 * k) == 4 * k\n"
                  "    assert abs(candidate(0.5, 0.25) - 0.75) < 1e-6\n\n\ncheck(add)\n",
    "Orig/asserts": "import math\nassert add(1, 2) == 3\nassert math.isclose(add(0.5, 0.25), 0.75)\n"
                    "assert set([add(2, 2)]) == {4}\n",
}
FORGERS = {n: s for n, s in ENGINE_FORGERS.items() if n != "always_equal"}


def _problems() -> dict[str, Problem]:
    return {t: Problem(task_id=t, dataset="humaneval", prompt="def add(a, b):\n", entry_point="add",
                       canonical_solution="    return a + b\n", original_test=test) for t, test in TESTS.items()}


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    progs = [GOOD, HONEST_WRONG, ALWAYS_EQUAL, OPAQUE_CLAIMS] + list(FORGERS.values())
    judge = Judge(ResultCache(tmp_path_factory.mktemp("forge_orig") / "c.sqlite"), workers=2, progress=False)
    out = judge.judge_programs({t: progs for t in TESTS}, _problems())
    return {t: dict(zip(progs, vs, strict=True)) for t, vs in out.items()}, judge


@pytest.mark.parametrize("task", sorted(TESTS))
@pytest.mark.parametrize("name", sorted(FORGERS))
def test_forger_is_judged_wrong_on_the_original_tests(judged, task, name):
    verdicts, judge = judged
    assert verdicts[task][FORGERS[name]].base is False, (task, name)
    assert (task, FORGERS[name]) not in judge.suspicious


@pytest.mark.parametrize("task", sorted(TESTS))
def test_honest_programs_keep_their_verdicts_and_own_equality_is_listed(judged, task):
    verdicts, judge = judged
    assert verdicts[task][GOOD].base is True and verdicts[task][HONEST_WRONG].base is False
    assert (task, GOOD) not in judge.suspicious
    # the test's own code (abs, math.isclose, set) runs outside on the values: the always-equal object fails there
    assert verdicts[task][ALWAYS_EQUAL].base is False
    v = verdicts[task][OPAQUE_CLAIMS]  # claims "my object compared equal": can do no more than such an object
    assert v.base is False or "decided" in judge.suspicious[(task, OPAQUE_CLAIMS)]


def test_own_equality_passes_as_before_and_strict_fails_it(tmp_path):
    # where an assert is a plain ``call == literal``, the candidate's == decided before (its object beside the
    # test): it still does, the pass is listed as suspicious, and --strict fails it; the cache remembers why
    problems = {"Orig/eq": Problem(task_id="Orig/eq", dataset="humaneval", prompt="def add(a, b):\n",
                                   entry_point="add", canonical_solution="    return a + b\n",
                                   original_test="def check(candidate):\n    assert candidate(1, 2) == 3\n\n"
                                                 "check(add)\n")}
    cache = ResultCache(tmp_path / "c.sqlite")
    lax = Judge(cache, workers=1, progress=False)
    assert [v.base for v in lax.judge_programs({"Orig/eq": [GOOD, ALWAYS_EQUAL]}, problems)["Orig/eq"]] == [True, True]
    assert "its own == decided" in lax.suspicious[("Orig/eq", ALWAYS_EQUAL)]
    strict = Judge(cache, workers=1, progress=False, strict=True)
    assert [v.base for v in strict.judge_programs({"Orig/eq": [GOOD, ALWAYS_EQUAL]}, problems)["Orig/eq"]] == [
        True, False]
