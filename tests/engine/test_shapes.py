"""The three call shapes through the real engine: a class's method and a stdin program run, group and pass their
tests as a function does; a function's program text (and so its cache keys) is untouched. A fourth shape is one
class, registered in this module, and goes through ``pick`` and the rerank stage."""

from __future__ import annotations

import pytest

from coderank_evalplus.engine import lcb, shapes
from coderank_evalplus.engine.execution.execute import ProblemWork, execute, suite_items
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.engine.sandbox.canonical import digest_value
from coderank_evalplus.testgen.extract import parse_assert, suite_from_asserts
from coderank_evalplus.types import ERROR, FAIL, FUNCTION, METHOD, PASS, RETURNED, STDIN, STDIN_CALLEE, TIMEOUT, Problem

METHOD_PROBLEM = Problem("lc/two-sum", "livecodebench", "", "twoSum", shape=METHOD, class_name="Solution",
                         trial_tests=("assert Solution().twoSum([2, 7, 11, 15], 9) == [0, 1]",))
TWO_SUM = ("class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n        seen = {}\n"
           "        for i, x in enumerate(nums):\n            if target - x in seen:\n"
           "                return [seen[target - x], i]\n            seen[x] = i\n")
HARD_CODED = "class Solution:\n    def twoSum(self, nums, target):\n        return [0, 1]\n"

STDIN_PROBLEM = Problem("abc/sum", "livecodebench", "", STDIN_CALLEE, shape=STDIN,
                        trial_tests=("assert run_stdin('1 2\\n') == '3\\n'",))
STDIN_PROGRAMS = {
    "input": "a, b = map(int, input().split())\nprint(a + b)\n",
    "main_guard": ("import sys\ndef main():\n    a, b = map(int, sys.stdin.readline().split())\n"
                   "    print(a + b, end='  \\n\\n')\nif __name__ == '__main__':\n    main()\n"),
    "exit": "a, b = map(int, input().split())\nprint(a + b)\nexit()\nprint('more')\n",
    "from_sys": "from sys import stdin\na, b = map(int, stdin.readline().split())\nprint(a + b)\n",
    "float": "a, b = map(int, input().split())\nprint(float(a + b))\n",
    "constant": "print(3)\n",
    "loop": "while True:\n    pass\n",
    "iterates_stdin": "import sys\nfor line in sys.stdin:\n    print(sum(map(int, line.split())))\n",
}


def test_callee_of_each_shape():
    assert Problem("t", "humaneval", "", "f").callee == "f"
    assert METHOD_PROBLEM.callee == "Solution().twoSum"
    assert STDIN_PROBLEM.callee == STDIN_CALLEE
    assert parse_assert("Solution().twoSum([3, 3], 6) == [0, 1]", METHOD_PROBLEM.callee) == (
        "Solution().twoSum([3, 3], 6)", "[0, 1]", "==")


def test_a_function_runs_as_written():
    assert shapes.runnable(FUNCTION, "def f():\n    pass\n") == "def f():\n    pass\n"
    items = suite_items(suite_from_asserts({"f(1) == 2": 1}, "f"), ("assert f(0) == 1",), "f")[0]
    assert [i[0] for i in items] == ["call", "check", "assert"] and items[1][3] == "=="


def test_a_method_is_called_on_an_instance():
    suite = suite_from_asserts({"Solution().twoSum([3, 2, 4], 6) == [1, 2]": 1,
                                "Solution().twoSum([3, 3], 6) == [0, 1]": 1}, METHOD_PROBLEM.callee)
    ex = execute([ProblemWork(METHOD_PROBLEM, [TWO_SUM, HARD_CODED, "class Solution(:\n"], suite)], None,
                 Limits(cpu=0.5), workers=1, progress=False)[METHOD_PROBLEM.task_id]
    assert ex.pass_matrix.tolist() == [[PASS, PASS], [FAIL, PASS], [ERROR, ERROR]]
    assert ex.trial_matrix[:, 0].tolist() == [PASS, PASS, ERROR]
    assert ex.compiled.tolist() == [True, True, False]
    assert ex.output_matrix[0].tolist() == [digest_value([1, 2]), digest_value([0, 1])]  # List[int] from the imports


@pytest.mark.slow
def test_stdin_programs_read_and_print_as_under_livecodebench():
    suite = suite_from_asserts({"run_stdin('5 6\\n') == '11\\n'": 1, "run_stdin('-1 1') == '0'": 1}, STDIN_CALLEE)
    names = list(STDIN_PROGRAMS)
    ex = execute([ProblemWork(STDIN_PROBLEM, list(STDIN_PROGRAMS.values()), suite)], None, Limits(cpu=0.5),
                 workers=1, progress=False)[STDIN_PROBLEM.task_id]
    got = {name: ex.pass_matrix[i].tolist() for i, name in enumerate(names)}
    assert got == {"input": [PASS, PASS], "main_guard": [PASS, PASS], "exit": [PASS, PASS],
                   "from_sys": [PASS, PASS], "float": [PASS, PASS],  # 11.0 = 11 as Decimals
                   "constant": [FAIL, FAIL], "loop": [TIMEOUT, TIMEOUT],
                   "iterates_stdin": [ERROR, ERROR]}  # LiveCodeBench's stdin cannot be iterated
    assert ex.trial_matrix[:, 0].tolist() == [PASS] * 5 + [PASS, TIMEOUT, ERROR]  # '3' is right for 1 2
    # outputs group as the comparison reads them: trailing blanks and empty lines do not split the group
    assert ex.output_matrix[0].tolist() == ex.output_matrix[1].tolist() == [digest_value("11"), digest_value("0")]
    assert ex.output_kind[0].tolist() == [RETURNED, RETURNED]


def test_stdout_rule():
    assert lcb.stdout_matches("3 \n\n", "3")
    assert lcb.stdout_matches("1.50 2\n", "1.5 2.0")
    assert not lcb.stdout_matches("1 2", "1\n2")
    assert not lcb.stdout_matches("yes", "Yes")
    assert lcb.values_match((0, 1), [0, 1]) and not lcb.values_match([1, 0], [0, 1])


def test_livecodebench_rewrites_a_stdin_program():
    program = "import sys\nn = int(input())\nif __name__ == '__main__':\n    print(n)\n"
    text = lcb.make_function(lcb.clean_if_name(program))
    assert text.startswith(lcb.IMPORT_STRING) and "def wrapped_function():\n    n = int(input())\n    print(n)" in text
    assert lcb.make_function("def f(:\n") == "def f(:\n"  # does not parse: left as it is


def test_one_rule_decides_the_shape_of_every_problem():
    leetcode = "class Solution:\n    def twoSum(self, nums, target):\n        pass\n"
    both = "def helper(x):\n    pass\n\n\nclass Solution:\n    def twoSum(self, nums, target):\n        pass\n"
    assert shapes.decide("def f(x):\n    pass\n") == (FUNCTION, "f", "")
    assert shapes.decide('"""Write a function g."""\n', "g") == (FUNCTION, "g", "")  # MBPP: no def in the prompt
    assert shapes.decide(leetcode) == shapes.decide(leetcode, "twoSum") == shapes.decide(leetcode, "Solution") == (
        METHOD, "twoSum", "Solution")
    assert shapes.decide(both, "twoSum") == (METHOD, "twoSum", "Solution")
    assert shapes.decide(both) == (FUNCTION, "helper", "")  # a top-level function is what a bare prompt asks for
    assert shapes.decide("Print the sum.", None, io_tests=True) == (STDIN, STDIN_CALLEE, "")
    assert shapes.decide(leetcode, "twoSum", io_tests=True) == (METHOD, "twoSum", "Solution")
    assert shapes.decide("", "maxProfit", io_tests=True) == (METHOD, "maxProfit", "Solution")  # LiveCodeBench's
    for prompt, entry, io, why in [("def f(x):\n    pass\n", "f", True, "is a function of the prompt"),
                                   ("class Foo:\n    def f(self):\n        pass\n", "f", True, "name the class"),
                                   ("x = 1\n", None, False, "defines no function"),
                                   ("def f(x):\n    pass\n", "f g", False, "is not a Python name")]:
        with pytest.raises(ValueError, match=why):
            shapes.decide(prompt, entry, io)


# --- a fourth shape: one class, registered here, through rerank and pick -----------------------------------------
class GeneratorShape(shapes.Shape):
    """A function that yields its answer's items: a test compares the list of what it yields."""

    name = "generator"

    def runnable(self, program: str) -> str:
        return program + ("\n\nimport inspect as _cr_inspect\n"
                          "for _cr_name, _cr_f in list(globals().items()):\n"
                          "    if _cr_inspect.isgeneratorfunction(_cr_f):\n"
                          "        globals()[_cr_name] = (lambda g: lambda *a, **k: list(g(*a, **k)))(_cr_f)\n")


EVENS = Problem("G/0", "humaneval", 'def evens(n):\n    """The even numbers below n."""\n', "evens",
                shape="generator", trial_tests=("assert evens(5) == [0, 2, 4]",),
                original_test="assert evens(7) == [0, 2, 4, 6]\nassert evens(0) == []\n")
YIELDS_EVENS = "def evens(n):\n    yield from range(0, n, 2)\n"
YIELDS_ALL = "def evens(n):\n    yield from range(n)\n"


shapes.register_shape(GeneratorShape())  # at import: a worker meeting the shape imports this module


def test_a_fourth_shape_is_one_class_through_rerank_and_pick(tmp_path):
    from coderank_evalplus.api.evaluate import stage_config
    from coderank_evalplus.api.options import RerankOptions
    from coderank_evalplus.api.picking import pick
    from coderank_evalplus.engine.execution.execute import ResultCache
    from coderank_evalplus.pipeline import rank_and_judge

    chosen = pick(EVENS, [YIELDS_ALL, YIELDS_EVENS, YIELDS_ALL], method="codet", mutate=4, workers=1)
    assert chosen.index == 1 and chosen.program == YIELDS_EVENS

    cfg = stage_config(RerankOptions(methods=["codet"], workers=1, progress=False))
    tests = {"G/0": ["evens(3) == [0, 2]", "evens(4) == [0, 2]\nassert evens(1) == [0]"]}
    res = rank_and_judge("humaneval", {"G/0": EVENS}, {"G/0": [YIELDS_ALL, YIELDS_EVENS]}, tests, cfg,
                         ResultCache(tmp_path / "c.sqlite"))
    out = res.outcomes["G/0"]
    assert [out.verdicts[c].base for c in range(2)] == [False, True]  # judged as the shape runs: lists compared
    assert out.rankings["codet"].groups[0].candidates == [1]
