"""Writes this folder's problem file of every call shape, in your own format beside a LiveCodeBench record, and its
candidates (our own problems, written to test the machinery).

    python tests/data/shapes/build.py

``problems.jsonl`` (one file, shapes mixed, as ``--dataset`` reads it):

* ``mine/inc``: a function, tests as asserts;
* ``mine/two_sum``: a ``class Solution`` method, the documented own format (``task_id, prompt, entry_point,
  test``), its examples in the docstring (LeetCode's ``Input: … Output: …``), tests as asserts on ``Solution()``;
* ``mine/max_profit``: a ``class Solution`` method with input/output tests (each input line a JSON argument);
* ``mine/product``: a stdin program with input/output tests;
* ``abc900_a``: LiveCodeBench's record of ``tests/data/lcb`` (a stdin program), as it is there.

``samples.jsonl``: per problem, ``{"task_id", "solution", "kind"}`` with kind ``right`` (several styles),
``lookalike`` (passes every example or public test, fails a hidden one) or ``wrong`` (fails an example); the LCB
record's non-hostile candidates of ``tests/data/lcb`` (their ``quirk`` ones fail under LiveCodeBench's harness).
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent
LCB = HERE.parent / "lcb"

INC = {"task_id": "mine/inc", "entry_point": "inc",
       "prompt": 'def inc(x: int) -> int:\n    """Return x plus one.\n    >>> inc(1)\n    2\n    """\n',
       "test": "assert inc(1) == 2\nassert inc(-1) == 0\nassert inc(41) == 42\n"}
TWO_SUM = {"task_id": "mine/two_sum", "entry_point": "twoSum",
           "prompt": ('from typing import List\n\n\nclass Solution:\n'
                      '    def twoSum(self, nums: List[int], target: int) -> List[int]:\n'
                      '        """Return the indices i < j of the two numbers of nums that add up to target.\n\n'
                      '        Example 1:\n        Input: nums = [2,7,11,15], target = 9\n        Output: [0,1]\n\n'
                      '        Example 2:\n        Input: nums = [3,2,4], target = 6\n        Output: [1,2]\n'
                      '        """\n'),
           "test": ("assert Solution().twoSum([3, 3], 6) == [0, 1]\n"
                    "assert Solution().twoSum([1, 5, 7], 12) == [1, 2]\n"
                    "assert Solution().twoSum([-1, 4, 0, 9], 8) == [0, 3]\n")}
MAX_PROFIT = {"task_id": "mine/max_profit", "entry_point": "maxProfit",
              "prompt": ('class Solution:\n    def maxProfit(self, prices: List[int]) -> int:\n'
                         '        """The most one buy then one later sale of prices[i] can earn (0 if none)."""\n'),
              "public_tests": [{"input": "[7,1,5,3,6,4]", "output": "5"}, {"input": "[7,6,4,3,1]", "output": "0"}],
              "private_tests": [{"input": "[1,2]", "output": "1"}, {"input": "[2,4,1]", "output": "2"},
                                {"input": "[3,3,5,0,0,3,1,4]", "output": "4"}]}
PRODUCT = {"task_id": "mine/product",
           "prompt": "Read two integers a and b from one line of standard input and print their product.\n",
           "public_tests": [{"input": "2 3\n", "output": "6\n"}, {"input": "4 5\n", "output": "20\n"}],
           "private_tests": [{"input": "0 7\n", "output": "0\n"}, {"input": "-2 3\n", "output": "-6\n"},
                             {"input": "100000 100000\n", "output": "10000000000\n"}]}

SAMPLES = {
    "mine/inc": [
        ("lookalike", "def inc(x: int) -> int:\n    return 2\n"),
        ("right", "def inc(x: int) -> int:\n    return x + 1\n"),
        ("wrong", "def inc(x: int) -> int:\n    return x\n"),
        ("right", "def inc(x):\n    return 1 + x\n"),
        ("right", "def inc(x):\n    y = x\n    y += 1\n    return y\n"),
    ],
    "mine/two_sum": [
        ("lookalike", "class Solution:\n    def twoSum(self, nums, target):\n        return [0, 1] if nums[0] == 2 "
                      "else [1, 2]\n"),
        ("right", "from typing import List\n\n\nclass Solution:\n    def twoSum(self, nums: List[int], target: int) "
                  "-> List[int]:\n        seen = {}\n        for i, x in enumerate(nums):\n"
                  "            if target - x in seen:\n                return [seen[target - x], i]\n"
                  "            seen[x] = i\n        return []\n"),
        ("wrong", "class Solution:\n    def twoSum(self, nums, target):\n        return [0, len(nums) - 1]\n"),
        ("right", "class Solution:\n    def twoSum(self, nums, target):\n        for i in range(len(nums)):\n"
                  "            for j in range(i + 1, len(nums)):\n                if nums[i] + nums[j] == target:\n"
                  "                    return [i, j]\n"),
        # List without its import: LiveCodeBench's imports come first, for the engine and the judge alike
        ("right", "class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n"
                  "        where = {x: i for i, x in enumerate(nums)}\n        for i, x in enumerate(nums):\n"
                  "            j = where.get(target - x)\n            if j is not None and j != i:\n"
                  "                return sorted([i, j])\n"),
    ],
    "mine/max_profit": [
        ("lookalike", "class Solution:\n    def maxProfit(self, prices):\n"
                      "        lo, hi = prices.index(min(prices)), prices.index(max(prices))\n"
                      "        return prices[hi] - prices[lo] if lo < hi else 0\n"),
        ("right", "class Solution:\n    def maxProfit(self, prices: List[int]) -> int:\n        best, low = 0, "
                  "float('inf')\n        for p in prices:\n            low = min(low, p)\n"
                  "            best = max(best, p - low)\n        return best\n"),
        ("wrong", "class Solution:\n    def maxProfit(self, prices):\n        return 0\n"),
        ("right", "class Solution:\n    def maxProfit(self, prices):\n        return max([0] + [prices[j] - prices[i] "
                  "for i in range(len(prices)) for j in range(i + 1, len(prices))])\n"),
        ("lookalike", "class Solution:\n    def maxProfit(self, prices):\n"
                      "        lo, hi = prices.index(min(prices)), prices.index(max(prices))\n"
                      "        return max(0, prices[hi] - prices[lo]) if lo <= hi else 0\n"),
        ("right", "class Solution:\n    def maxProfit(self, prices):\n        best = 0\n"
                  "        for i in range(1, len(prices)):\n            best = max(best, prices[i] - min(prices[:i]))\n"
                  "        return best\n"),
    ],
    "mine/product": [
        ("lookalike", "a, b = map(int, input().split())\nprint(a * b if a > 0 else 0)\n"),
        ("right", "a, b = map(int, input().split())\nprint(a * b)\n"),
        ("wrong", "a, b = map(int, input().split())\nprint(a + b)\n"),
        ("right", "import sys\n\n\ndef main():\n    a, b = map(int, sys.stdin.read().split())\n    print(a * b)\n\n\n"
                  "if __name__ == '__main__':\n    main()\n"),
        ("lookalike", "a, b = map(int, input().split())\nprint(abs(a) * abs(b))\n"),
        ("right", "x = input().split()\nprint(int(x[0]) * int(x[1]))\n"),
    ],
}


def main() -> None:
    record = next(json.loads(line) for line in (LCB / "problems.jsonl").read_text().splitlines()
                  if json.loads(line)["question_id"] == "abc900_a")
    problems = [INC, TWO_SUM, MAX_PROFIT, PRODUCT, record]
    (HERE / "problems.jsonl").write_text("".join(json.dumps(p) + "\n" for p in problems))
    lcb = [json.loads(line) for line in (LCB / "samples.jsonl").read_text().splitlines()]
    rows = [{"task_id": tid, "solution": prog, "kind": kind} for tid, pool in SAMPLES.items() for kind, prog in pool]
    rows += [r for r in lcb if r["task_id"] == "abc900_a" and r["kind"] != "hostile"]
    (HERE / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(f"wrote {len(problems)} problems, {len(rows)} candidates")


if __name__ == "__main__":
    main()
