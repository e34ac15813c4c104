"""The API's pick on problems beyond a bare function: a LeetCode-style prompt given as text (a class with a method
and a docstring example) and a LiveCodeBench record."""

from __future__ import annotations

import json
from pathlib import Path

import coderank_evalplus as cr
from coderank_evalplus.io.problems import problem_from_prompt
from coderank_evalplus.types import METHOD

LEETCODE_PROMPT = '''class Solution:
    def twoSum(self, nums: List[int], target: int) -> List[int]:
        """Given an array of integers nums and an integer target, return the indices i < j of the two
        numbers that add up to target.

        Example 1:
        Input: nums = [2,7,11,15], target = 9
        Output: [0,1]

        Example 2:
        Input: nums = [3,2,4], target = 6
        Output: [1,2]
        """
'''
RIGHT = ("class Solution:\n    def twoSum(self, nums, target):\n        seen = {}\n"
         "        for i, x in enumerate(nums):\n            if target - x in seen:\n"
         "                return [seen[target - x], i]\n            seen[x] = i\n")
RIGHT_TOO = ("class Solution:\n    def twoSum(self, nums, target):\n        for i in range(len(nums)):\n"
             "            for j in range(i + 1, len(nums)):\n                if nums[i] + nums[j] == target:\n"
             "                    return [i, j]\n")
HARD_CODED = "class Solution:\n    def twoSum(self, nums, target):\n        return [0, 1]\n"


def test_a_leetcode_prompt_is_a_method_with_its_examples():
    p = problem_from_prompt(LEETCODE_PROMPT)
    assert (p.shape, p.entry_point, p.callee) == (METHOD, "twoSum", "Solution().twoSum")
    assert p.trial_tests == ("assert Solution().twoSum([2, 7, 11, 15], 9) == [0, 1]",
                             "assert Solution().twoSum([3, 2, 4], 6) == [1, 2]")
    assert problem_from_prompt(LEETCODE_PROMPT, "Solution").callee == "Solution().twoSum"  # the class named
    assert problem_from_prompt(LEETCODE_PROMPT, "twoSum").callee == "Solution().twoSum"


def test_pick_on_a_leetcode_prompt_picks_right_over_hard_coded():
    chosen = cr.pick(LEETCODE_PROMPT, [HARD_CODED, RIGHT, HARD_CODED, RIGHT_TOO], workers=1)
    assert chosen.index in (1, 3) and set(chosen.group) <= {1, 3}
    assert chosen.entry_point == "twoSum" and chosen.uses_prompt_examples
    examples = [e for e in chosen.evidence if e.kind == "example"]
    assert [e.pick_passes for e in examples] == [True, True] and examples[1].agree == 2


def test_pick_on_a_livecodebench_record_uses_its_public_tests():
    data = Path(__file__).parents[1] / "data" / "lcb"
    record = json.loads((data / "problems.jsonl").read_text().splitlines()[10])  # abc900_a, a stdin problem
    right = "n = int(input())\nprint(sum(map(int, input().split())))\n"
    wrong = "n = int(input())\nprint(n)\n"
    chosen = cr.pick(record, [wrong, right, wrong], workers=1)
    assert chosen.index == 1
    assert [e.text for e in chosen.evidence if e.kind == "example"] == [
        "assert run_stdin('3\\n1 2 3\\n') == '6\\n'", "assert run_stdin('2\\n10 -4\\n') == '6\\n'"]
