"""Generated tests of problems stated as input/output text: CodeT's CodeContests prompt and asserts, a chat reply's
input/output pairs, both as tests of a stdin program, a CodeT-style function or a LeetCode method; LiveCodeBench's
own prompts."""

from __future__ import annotations

from pathlib import Path

import pytest

from coderank_evalplus.engine.execution.execute import ProblemWork, execute
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.io.problems import load_problems
from coderank_evalplus.testgen import io_tests, prompts
from coderank_evalplus.types import FAIL, PASS, Problem

DATA = Path(__file__).parents[1] / "data" / "lcb"
REPLY = """Here are some tests.
```json
[{"input": "2\\n3 4\\n", "output": "7\\n"}, {"input": "1\\n-5\\n", "output": "-5"},
 {"input": "3\\n1 1 1\\n", "output": "4"}]
```"""


@pytest.fixture(scope="module")
def problems():
    return load_problems(str(DATA / "problems.jsonl"))


def test_codet_prompt_for_a_stdin_problem(problems):
    text = prompts.test_generation_prompt(problems["abc900_a"])
    assert text.startswith("'''\nGiven N and N integers") and text.endswith(
        "'''\ndef solution(stdin: str) -> str:\n    pass\n\n# check the correctness of solution\nassert ")


def test_codet_asserts_and_chat_pairs_become_stdin_tests_that_run(problems):
    p = problems["abc900_a"]
    codet_sample = 'solution("3\\n1 2 3\\n") == "6\\n"\nassert solution("1\\n5\\n") == "6"'
    chat_sample = io_tests.parse_chat_io(REPLY, p)
    assert chat_sample.startswith("solution('2\\n3 4\\n') == '7\\n'")
    suite = io_tests.suite_for(p, [codet_sample, chat_sample], None)
    assert suite.inputs[0] == "run_stdin('3\\n1 2 3\\n')" and len(suite.asserts) == 5
    right = "n = int(input())\nprint(sum(map(int, input().split())))\n"
    ex = execute([ProblemWork(p, [right], suite)], None, Limits(cpu=0.5), workers=1, progress=False)[p.task_id]
    assert ex.pass_matrix[0].tolist() == [PASS, FAIL, PASS, PASS, FAIL]  # the wrong expected values fail


def test_pairs_as_tests_of_a_method_and_of_a_codet_function(problems):
    method = problems["lc-two-sum"]
    reply = '```json\n[{"input": "[1, 2, 3]\\n5", "output": "[1, 2]"}, {"input": "not json", "output": "1"}]\n```'
    assert io_tests.pair_asserts(method, io_tests.parse_io_pairs(reply)) == [
        "assert Solution().twoSum([1, 2, 3], 5) == [1, 2]"]
    codet = Problem("CodeContests/0", "codecontests", "def solution(stdin: str) -> str:\n", "solution")
    assert io_tests.pair_asserts(codet, [("1 2\n", "3\n")]) == ["assert solution('1 2\\n') == '3\\n'"]
    assert "one JSON value per line" in io_tests.chat_io_messages(method)[1]["content"]


def test_livecodebench_prompts(problems):
    chat = prompts.chat_solution_messages(problems["abc900_a"])
    assert chat[0]["content"] == prompts.LCB_SYSTEM
    assert chat[1]["content"].startswith("### Question:\nGiven N and N integers")
    assert "# YOUR CODE HERE" in chat[1]["content"]
    base = prompts.solution_prompt(problems["lc-two-sum"])
    assert base.startswith("### Question\nYou are given a 0-indexed array") and base.endswith(
        "### Starter Code\nclass Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n"
        "        \n\n### Answer\n\n")
    assert prompts.base_stops(problems["abc900_a"], "solution") == ["###"]
    assert prompts.base_program(problems["abc900_a"], "print(1)\n\n") == "print(1)"
