"""The original tests unrolled and split (engine/judging/original.py): what the child evaluates, what the referee
decides."""

from __future__ import annotations

from coderank_evalplus.engine.judging.judge import Judge
from coderank_evalplus.engine.judging.original import plan_in_child, plan_original
from coderank_evalplus.types import Problem

CHECK = '''
METADATA = {"author": "x"}


def check(candidate):
    import math
    import copy
    assert candidate(1, 2) == 3, "message"
    assert abs(candidate(0.5, 0.25) - 0.75) < 1e-6
    lst = list(range(3))
    assert candidate(lst[0], sum(lst)) == 3
    for x in range(2):
        assert candidate(x, x) == 2 * x
    out = candidate(copy.deepcopy(5), 5)
    assert math.fabs(helper(out)) >= 0
    unused = candidate(7, 7)
    assert True
    print


check(add)
'''


def test_a_check_function_is_unrolled_into_probes_and_asserts():
    plan = plan_original(CHECK, "add")
    assert plan.fails is None
    assert plan.probes == ["add(1, 2)", "add(0.5, 0.25)", "add(0, 3)", "add(0, 0)", "add(1, 1)",
                           "helper(add(5, 5))", "add(7, 7)"]
    assert plan.want == [True] * 6 + [False]  # the unused call must only return
    forms = [a[1] for a in plan.asserts]
    assert forms[0] == ("==", 0, 3) and forms[3] == ("==", 0, 0) and forms[-1] == ("runs",)
    assert [a[2] for a in plan.asserts if a[2]] == ["abs(__probe(0) - 0.75) < 1e-06", "math.fabs(__probe(0)) >= 0"]
    # the candidate's namespace gets what it got from the test: its top-level literals and a stub for check
    assert "METADATA = {'author': 'x'}" in plan.prelude and "def check(" in plan.prelude
    assert "== 3" not in plan.prelude and not any("== " in p for p in plan.probes)  # no expected value there


def test_module_level_asserts_and_imports_as_in_sanitized_mbpp():
    plan = plan_in_child("import math\nassert math.isclose(area(2), 12.56, rel_tol=0.01)\nassert set(f2(1)) == {1}\n",
                         "area")
    assert plan.fails is None and plan.prelude == "import math\n"
    assert plan.probes == ["area(2)", "f2(1)"]


def test_tests_that_cannot_be_split_fail_with_a_reason():
    plan = plan_original("def check(candidate):\n    while candidate(1):\n        pass\n\ncheck(f)\n", "f")
    assert plan.fails and "depends on the candidate" in plan.fails
    assert "does not hold" in plan_original("assert 1 == 2\n", "f").fails


def _problem(test: str, entry: str = "add", tid: str = "Orig/add") -> Problem:
    return Problem(task_id=tid, dataset="humaneval", prompt=f"def {entry}(a, b):\n", entry_point=entry,
                   canonical_solution="    return a + b\n", original_test=test)


def test_judge_keeps_the_original_semantics():
    test = ("METADATA = {}\ndef check(candidate):\n    assert candidate(1, 2) == 3\n"
            "    assert abs(candidate(1.5, 1) - 2.5) < 1e-9\n\ncheck(add)\n")
    progs = {
        "good": "def add(a, b):\n    return a + b\n",
        "wrong": "def add(a, b):\n    return a - b\n",
        "raises": "def add(a, b):\n    raise ValueError\n",
        "slow_wrong": "def add(a, b):\n    return 3\n",  # passes the first assert, fails the remainder child's
        "main_block": "def add(a, b):\n    return a + b\nif __name__ == '__main__':\n    raise SystemExit\n",
        # the test's check replaces a helper of that name, as when the test ran beside it
        "own_check_helper": "def check(x):\n    return x\ndef add(a, b):\n    return check(a) + b\n",
        "metadata": "def add(a, b):\n    return a + b + len(METADATA)\n",
        "numpy_scalar": "import numpy as np\ndef add(a, b):\n    return np.float64(a + b)\n",
        "dict_keys": "def add(a, b):\n    return {a + b: 0}.keys() if a == 1 else a + b\n",
    }
    out = Judge(None, workers=1, progress=False).judge_programs({"Orig/add": list(progs.values())},
                                                                {"Orig/add": _problem(test)})["Orig/add"]
    got = dict(zip(progs, (v.base for v in out), strict=True))
    assert got == {"good": True, "wrong": False, "raises": False, "slow_wrong": False, "main_block": False,
                   "own_check_helper": False, "metadata": True, "numpy_scalar": True, "dict_keys": False}


def test_humaneval_tests_with_loops_helpers_and_random_inputs_keep_their_verdicts():
    # tests that are more than a list of asserts: a loop over rng inputs with the prompt's helper on the output
    # (/32), random inputs through the prompt's encoder (/38), values of the test's own (/151); canonical passes,
    # a wrong one fails
    from coderank_evalplus.io.problems import load_original_humaneval

    probs = load_original_humaneval()
    tasks = [f"HumanEval/{n}" for n in (32, 38, 151)]
    progs = {}
    for t in tasks:
        p = probs[t]
        progs[t] = [p.prompt + p.canonical_solution, p.prompt + "    return None\n"]
    out = Judge(None, workers=2, progress=False).judge_programs(progs, probs)
    assert {t: [v.base for v in vs] for t, vs in out.items()} == {t: [True, False] for t in tasks}


def test_a_check_function_called_with_an_expression_over_the_candidate():
    """``check(Solution().twoSum)`` (a class's method): the expression is inlined where ``candidate`` is used, as
    ``check(add)`` inlines the name; it once made one probe that had only to run (every candidate passed)."""
    test = ("def check(candidate, k):\n    assert candidate([3, 3], k) == [0, 1]\n    assert candidate([1, 5, 7], 12)"
            " == [1, 2]\n\n\ncheck(Solution().twoSum, 6)\n")
    plan = plan_original(test, "twoSum")
    assert plan.fails is None
    assert plan.probes == ["Solution().twoSum([3, 3], 6)", "Solution().twoSum([1, 5, 7], 12)"]
    assert [a[1] for a in plan.asserts] == [("==", 0, [0, 1]), ("==", 0, [1, 2])]
