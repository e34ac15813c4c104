"""Writes this folder's LiveCodeBench-schema problem file and candidate pools (our own problems, not LCB's).

    python tests/data/lcb/build.py

``problems.jsonl``: 20 problems in ``livecodebench/code_generation_lite``'s exact schema (10 LeetCode, 10 stdin;
private tests of every third problem in LCB's compressed form); expected outputs are those of the reference
solution below, run here. ``samples.jsonl``: per problem, candidates as models write them, each
``{"task_id", "solution", "kind"}`` with kind ``right`` (several styles), ``lookalike`` (passes every public test,
fails a private one), ``wrong`` (fails a public test), ``quirk`` (whose verdict depends on LiveCodeBench's harness:
iterating ``sys.stdin``, ``open(0)``, ``from sys import stdin``, ``sys.stdin.buffer``, a main guard that is not the
last statement, a top-level function instead of a method, a tuple, a float printed for an integer) or ``hostile``
(attacks the sandbox; never graded by LCB).
``code_list.json``: the non-hostile candidates as lcb_runner's custom output file (``question_id`` + ``code_list``).
``replies.jsonl``: two candidates per problem as a chat model's raw reply (``reply``: prose around the fenced
program, once after another fenced block), with the program it stands for (``solution``).
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import pickle
import random
import sys
import zlib
from pathlib import Path

HERE = Path(__file__).parent
LC_IMPORTS = "from typing import *\nfrom collections import *\n"

HOSTILE_METHOD = {
    "loop": "class Solution:\n    def {f}(self, *args):\n        while True:\n            pass\n",
    "os_exit": "import os\nclass Solution:\n    def {f}(self, *args):\n        os._exit(0)\n",
    "fork": "import posix\nclass Solution:\n    def {f}(self, *args):\n        while True:\n            posix.fork()\n",
}
HOSTILE_STDIN = {
    "loop": "while True:\n    pass\n",
    "os_exit": "import os\nprint(0)\nos._exit(0)\n",
    "write_outside": "import io\nwith io.open('/tmp/coderank_lcb_hostile.txt', 'w') as fh:\n    fh.write('x')\nprint(0)\n",
    "fork": "import posix\nwhile True:\n    posix.fork()\n",
}


def leetcode(qid, title, date, difficulty, func, sig, content, ref, public, private, cands, hostile):
    return dict(qid=qid, title=title, platform="leetcode", date=date, difficulty=difficulty, func=func,
                starter=f"class Solution:\n    def {func}(self, {sig}:\n        ", content=content, ref=ref,
                public=public, private=private, cands=cands, hostile=hostile)


def stdin(qid, title, platform, date, difficulty, content, ref, public, private, cands, hostile):
    return dict(qid=qid, title=title, platform=platform, date=date, difficulty=difficulty, func=None, starter="",
                content=content, ref=ref, public=public, private=private, cands=cands, hostile=hostile)


def cls(func, sig, body):
    return f"class Solution:\n    def {func}(self, {sig}:\n" + "".join("        " + ln + "\n" for ln in body.split("\n"))


R = random.Random(53)

PROBLEMS = [
    leetcode("lc-two-sum", "Two Sum", "2024-06-02T00:00:00", "easy", "twoSum", "nums: List[int], target: int) -> List[int]",
             "Return the indices of the two numbers of nums that add up to target (exactly one answer; i < j).",
             cls("twoSum", "nums, target)", "seen = {}\nfor i, x in enumerate(nums):\n    if target - x in seen:\n        return [seen[target - x], i]\n    seen[x] = i"),
             [[[2, 7, 11, 15], 9], [[3, 2, 4], 6]], [[[3, 3], 6], [[1, 5, 9, 2], 11], [[-4, 8, 0, 4], 0], [[5, 6, 1, 8], 14]],
             [("right", cls("twoSum", "nums: List[int], target: int) -> List[int]", "seen = {}\nfor i, x in enumerate(nums):\n    if target - x in seen:\n        return [seen[target - x], i]\n    seen[x] = i\nreturn []")),
              ("right", cls("twoSum", "nums: List[int], target: int) -> List[int]", "n = len(nums)\nfor i in range(n):\n    for j in range(i + 1, n):\n        if nums[i] + nums[j] == target:\n            return [i, j]")),
              ("right", cls("twoSum", "nums, target)", "idx = sorted(range(len(nums)), key=lambda k: nums[k])\nlo, hi = 0, len(nums) - 1\nwhile lo < hi:\n    s = nums[idx[lo]] + nums[idx[hi]]\n    if s == target:\n        return sorted([idx[lo], idx[hi]])\n    if s < target:\n        lo += 1\n    else:\n        hi -= 1")),
              ("lookalike", cls("twoSum", "nums: List[int], target: int) -> List[int]", "for i in range(len(nums) - 1):\n    if nums[i] + nums[i + 1] == target:\n        return [i, i + 1]\nreturn [0, 1]")),
              ("wrong", cls("twoSum", "nums, target)", "return [0, 1]")),
              ("quirk", "def twoSum(nums, target):\n    for i in range(len(nums)):\n        for j in range(i + 1, len(nums)):\n            if nums[i] + nums[j] == target:\n                return (i, j)\n"),
              ("wrong", cls("twoSum", "nums, target)", "for i, x in enumerate(nums):\n    if target - x in nums:\n        return [i, nums.index(target - x)]"))],
             "loop"),
    leetcode("lc-max-subarray", "Maximum Subarray", "2024-06-09T00:00:00", "medium", "maxSubArray", "nums: List[int]) -> int",
             "Return the largest sum of a non-empty contiguous subarray of nums.",
             cls("maxSubArray", "nums)", "best = cur = nums[0]\nfor x in nums[1:]:\n    cur = max(x, cur + x)\n    best = max(best, cur)\nreturn best"),
             [[[-2, 1, -3, 4, -1, 2, 1, -5, 4]], [[1]], [[5, 4, -1, 7, 8]]], [[[-3, -1, -2]], [[-5]], [[2, -1, 2, -9, 3]], [[0, 0, -1]]],
             [("right", cls("maxSubArray", "nums: List[int]) -> int", "best = cur = nums[0]\nfor x in nums[1:]:\n    cur = max(x, cur + x)\n    best = max(best, cur)\nreturn best")),
              ("right", cls("maxSubArray", "nums: List[int]) -> int", "best = -float('inf')\ncur = 0\nfor x in nums:\n    cur += x\n    best = max(best, cur)\n    if cur < 0:\n        cur = 0\nreturn best")),
              ("right", cls("maxSubArray", "nums: List[int]) -> int", "n = len(nums)\nreturn max(sum(nums[i:j + 1]) for i in range(n) for j in range(i, n))")),
              ("lookalike", cls("maxSubArray", "nums: List[int]) -> int", "best = cur = 0\nfor x in nums:\n    cur = max(0, cur + x)\n    best = max(best, cur)\nreturn best")),
              ("lookalike", cls("maxSubArray", "nums: List[int]) -> int", "best = 0\ncur = 0\nfor x in nums:\n    cur += x\n    if cur < 0:\n        cur = 0\n    best = max(best, cur)\nreturn best")),
              ("wrong", cls("maxSubArray", "nums: List[int]) -> int", "return sum(nums)"))],
             "os_exit"),
    leetcode("lc-palindrome-number", "Palindrome Number", "2024-06-16T00:00:00", "easy", "isPalindrome", "x: int) -> bool",
             "Return true if the integer x reads the same backward as forward.",
             cls("isPalindrome", "x)", "return str(x) == str(x)[::-1]"),
             [[121], [10]], [[-121], [0], [1221], [12321], [-1]],
             [("right", cls("isPalindrome", "x: int) -> bool", "return str(x) == str(x)[::-1]")),
              ("right", cls("isPalindrome", "x: int) -> bool", "if x < 0:\n    return False\nrev, y = 0, x\nwhile y:\n    rev = rev * 10 + y % 10\n    y //= 10\nreturn rev == x")),
              ("right", cls("isPalindrome", "x: int) -> bool", "s = str(x)\nreturn all(s[i] == s[-1 - i] for i in range(len(s) // 2))")),
              ("lookalike", cls("isPalindrome", "x: int) -> bool", "s = str(abs(x))\nreturn s == s[::-1]")),
              ("wrong", cls("isPalindrome", "x: int) -> bool", "return x % 10 == x // 10")),
              ("wrong", cls("isPalindrome", "x: int) -> bool", "return str(x)[0] == str(x)[1]"))],
             "fork"),
    leetcode("lc-climb-stairs", "Climbing Stairs", "2024-07-07T00:00:00", "easy", "climbStairs", "n: int) -> int",
             "Return in how many distinct ways one can climb n steps taking 1 or 2 steps at a time.",
             cls("climbStairs", "n)", "a, b = 1, 1\nfor _ in range(n):\n    a, b = b, a + b\nreturn a"),
             [[2], [3]], [[1], [5], [10], [45], [30]],
             [("right", cls("climbStairs", "n: int) -> int", "a, b = 1, 1\nfor _ in range(n):\n    a, b = b, a + b\nreturn a")),
              ("right", cls("climbStairs", "n: int) -> int", "@lru_cache(None)\ndef f(k):\n    return 1 if k <= 1 else f(k - 1) + f(k - 2)\nreturn f(n)")),
              ("right", cls("climbStairs", "n: int) -> int", "dp = [1, 1] + [0] * n\nfor i in range(2, n + 1):\n    dp[i] = dp[i - 1] + dp[i - 2]\nreturn dp[n]")),
              ("lookalike", cls("climbStairs", "n: int) -> int", "return n if n <= 3 else 2 * self.climbStairs(n - 1) - 1")),
              ("wrong", cls("climbStairs", "n: int) -> int", "return 2 ** (n - 1)")),
              ("wrong", cls("climbStairs", "n: int) -> int", "return n * 2"))],
             "loop"),
    leetcode("lc-longest-substring", "Longest Substring Without Repeating Characters", "2024-07-14T00:00:00", "medium",
             "lengthOfLongestSubstring", "s: str) -> int",
             "Return the length of the longest substring of s without repeating characters.",
             cls("lengthOfLongestSubstring", "s)", "last, start, best = {}, 0, 0\nfor i, c in enumerate(s):\n    if last.get(c, -1) >= start:\n        start = last[c] + 1\n    last[c] = i\n    best = max(best, i - start + 1)\nreturn best"),
             [["abcabcbb"], ["bbbbb"]], [["pwwkew"], [""], ["dvdf"], ["abba"], ["au"]],
             [("right", cls("lengthOfLongestSubstring", "s: str) -> int", "last, start, best = {}, 0, 0\nfor i, c in enumerate(s):\n    if last.get(c, -1) >= start:\n        start = last[c] + 1\n    last[c] = i\n    best = max(best, i - start + 1)\nreturn best")),
              ("right", cls("lengthOfLongestSubstring", "s: str) -> int", "best = 0\nfor i in range(len(s)):\n    seen = set()\n    for c in s[i:]:\n        if c in seen:\n            break\n        seen.add(c)\n    best = max(best, len(seen))\nreturn best")),
              ("right", cls("lengthOfLongestSubstring", "s: str) -> int", "window = deque()\nbest = 0\nfor c in s:\n    while c in window:\n        window.popleft()\n    window.append(c)\n    best = max(best, len(window))\nreturn best")),
              ("lookalike", cls("lengthOfLongestSubstring", "s: str) -> int", "return len(set(s))")),
              ("lookalike", cls("lengthOfLongestSubstring", "s: str) -> int", "best = cur = 0\nseen = set()\nfor c in s:\n    if c in seen:\n        seen = {c}\n        cur = 1\n    else:\n        seen.add(c)\n        cur += 1\n    best = max(best, cur)\nreturn best")),
              ("wrong", cls("lengthOfLongestSubstring", "s: str) -> int", "return len(s) // 2"))],
             "os_exit"),
    leetcode("lc-search-insert", "Search Insert Position", "2024-08-04T00:00:00", "easy", "searchInsert", "nums: List[int], target: int) -> int",
             "nums is sorted with distinct values: return the index of target, or where it would be inserted.",
             cls("searchInsert", "nums, target)", "import bisect\nreturn bisect.bisect_left(nums, target)"),
             [[[1, 3, 5, 6], 5], [[1, 3, 5, 6], 2]], [[[1, 3, 5, 6], 7], [[1, 3, 5, 6], 0], [[1], 1], [[2, 4], 5]],
             [("right", cls("searchInsert", "nums: List[int], target: int) -> int", "return bisect_left(nums, target)")),
              ("right", cls("searchInsert", "nums: List[int], target: int) -> int", "lo, hi = 0, len(nums)\nwhile lo < hi:\n    mid = (lo + hi) // 2\n    if nums[mid] < target:\n        lo = mid + 1\n    else:\n        hi = mid\nreturn lo")),
              ("right", cls("searchInsert", "nums: List[int], target: int) -> int", "for i, x in enumerate(nums):\n    if x >= target:\n        return i\nreturn len(nums)")),
              ("lookalike", cls("searchInsert", "nums: List[int], target: int) -> int", "lo, hi = 0, len(nums) - 1\nwhile lo < hi:\n    mid = (lo + hi) // 2\n    if nums[mid] < target:\n        lo = mid + 1\n    else:\n        hi = mid\nreturn lo")),
              ("wrong", cls("searchInsert", "nums: List[int], target: int) -> int", "return nums.index(target) if target in nums else 0"))],
             "fork"),
    leetcode("lc-count-primes", "Count Primes", "2024-08-18T00:00:00", "medium", "countPrimes", "n: int) -> int",
             "Return the number of prime numbers strictly less than n.",
             cls("countPrimes", "n)", "if n < 3:\n    return 0\nsieve = [True] * n\nsieve[0] = sieve[1] = False\nfor i in range(2, int(n ** 0.5) + 1):\n    if sieve[i]:\n        sieve[i * i::i] = [False] * len(sieve[i * i::i])\nreturn sum(sieve)"),
             [[10], [0]], [[1], [2], [3], [7], [100], [5000]],
             [("right", cls("countPrimes", "n: int) -> int", "if n < 3:\n    return 0\nsieve = [True] * n\nsieve[0] = sieve[1] = False\nfor i in range(2, int(n ** 0.5) + 1):\n    if sieve[i]:\n        sieve[i * i::i] = [False] * len(sieve[i * i::i])\nreturn sum(sieve)")),
              ("right", cls("countPrimes", "n: int) -> int", "def prime(k):\n    return k > 1 and all(k % d for d in range(2, int(k ** 0.5) + 1))\nreturn sum(prime(k) for k in range(n))")),
              ("lookalike", cls("countPrimes", "n: int) -> int", "def prime(k):\n    return k > 1 and all(k % d for d in range(2, int(k ** 0.5) + 1))\nreturn sum(prime(k) for k in range(n + 1))")),
              ("lookalike", cls("countPrimes", "n: int) -> int", "if n < 2:\n    return 0\nsieve = [True] * (n + 1)\nsieve[0] = sieve[1] = False\nfor i in range(2, int(n ** 0.5) + 1):\n    if sieve[i]:\n        for j in range(i * i, n + 1, i):\n            sieve[j] = False\nreturn sum(sieve)")),
              ("wrong", cls("countPrimes", "n: int) -> int", "return n // 2"))],
             "loop"),
    leetcode("lc-merge-intervals", "Merge Intervals", "2024-09-01T00:00:00", "medium", "merge", "intervals: List[List[int]]) -> List[List[int]]",
             "Merge all overlapping intervals and return them sorted by start.",
             cls("merge", "intervals)", "out = []\nfor s, e in sorted(intervals):\n    if out and s <= out[-1][1]:\n        out[-1][1] = max(out[-1][1], e)\n    else:\n        out.append([s, e])\nreturn out"),
             [[[[1, 3], [2, 6], [8, 10], [15, 18]]], [[[1, 4], [4, 5]]]], [[[[1, 4], [0, 4]]], [[[2, 3], [1, 2], [5, 6]]], [[[1, 10], [2, 3]]], [[[5, 5]]]],
             [("right", cls("merge", "intervals: List[List[int]]) -> List[List[int]]", "out = []\nfor s, e in sorted(intervals):\n    if out and s <= out[-1][1]:\n        out[-1][1] = max(out[-1][1], e)\n    else:\n        out.append([s, e])\nreturn out")),
              ("right", cls("merge", "intervals: List[List[int]]) -> List[List[int]]", "intervals.sort(key=lambda x: x[0])\nres = [list(intervals[0])]\nfor s, e in intervals[1:]:\n    if s <= res[-1][1]:\n        res[-1][1] = max(res[-1][1], e)\n    else:\n        res.append([s, e])\nreturn res")),
              ("lookalike", cls("merge", "intervals: List[List[int]]) -> List[List[int]]", "out = []\nfor s, e in intervals:\n    if out and s <= out[-1][1]:\n        out[-1][1] = max(out[-1][1], e)\n    else:\n        out.append([s, e])\nreturn out")),
              ("lookalike", cls("merge", "intervals: List[List[int]]) -> List[List[int]]", "out = []\nfor s, e in sorted(intervals):\n    if out and s <= out[-1][1]:\n        out[-1][1] = e\n    else:\n        out.append([s, e])\nreturn out")),
              ("wrong", cls("merge", "intervals: List[List[int]]) -> List[List[int]]", "return intervals"))],
             "os_exit"),
    leetcode("lc-max-profit", "Best Time to Buy and Sell Stock", "2024-10-06T00:00:00", "easy", "maxProfit", "prices: List[int]) -> int",
             "Return the largest profit of one buy followed by one later sell (0 if none).",
             cls("maxProfit", "prices)", "low, best = float('inf'), 0\nfor p in prices:\n    low = min(low, p)\n    best = max(best, p - low)\nreturn best"),
             [[[7, 1, 5, 3, 6, 4]]], [[[7, 6, 4, 3, 1]], [[2, 4, 1]], [[3]], [[1, 2]], [[9, 1, 3, 2, 8]]],
             [("right", cls("maxProfit", "prices: List[int]) -> int", "low, best = float('inf'), 0\nfor p in prices:\n    low = min(low, p)\n    best = max(best, p - low)\nreturn best")),
              ("right", cls("maxProfit", "prices: List[int]) -> int", "best = 0\nfor i in range(len(prices)):\n    for j in range(i + 1, len(prices)):\n        best = max(best, prices[j] - prices[i])\nreturn best")),
              ("right", cls("maxProfit", "prices: List[int]) -> int", "ans, lo = 0, prices[0]\nfor p in prices[1:]:\n    if p < lo:\n        lo = p\n    elif p - lo > ans:\n        ans = p - lo\nreturn ans")),
              ("wrong", cls("maxProfit", "prices: List[int]) -> int", "return max(prices) - min(prices)")),
              ("lookalike", cls("maxProfit", "prices: List[int]) -> int", "i = prices.index(min(prices))\nreturn max(prices[i:]) - prices[i]")),
              ("wrong", cls("maxProfit", "prices: List[int]) -> int", "return prices[-1] - prices[0]"))],
             "fork"),
    leetcode("lc-reverse-words", "Reverse Words in a String", "2024-11-03T00:00:00", "medium", "reverseWords", "s: str) -> str",
             "Return the words of s in reverse order, separated by single spaces (no leading or trailing spaces).",
             cls("reverseWords", "s)", "return ' '.join(reversed(s.split()))"),
             [["the sky is blue"], ["hello world"]], [["  hello world  "], ["a good   example"], ["one"], ["x  y z"]],
             [("right", cls("reverseWords", "s: str) -> str", "return ' '.join(reversed(s.split()))")),
              ("right", cls("reverseWords", "s: str) -> str", "return ' '.join(s.split()[::-1])")),
              ("right", cls("reverseWords", "s: str) -> str", "words = [w for w in s.split(' ') if w]\nwords.reverse()\nreturn ' '.join(words)")),
              ("lookalike", cls("reverseWords", "s: str) -> str", "return ' '.join(s.split(' ')[::-1])")),
              ("wrong", cls("reverseWords", "s: str) -> str", "return s[::-1]"))],
             "loop"),
    # --- stdin ---------------------------------------------------------------------------------------------------
    stdin("abc900_a", "Big Sum", "atcoder", "2024-06-08T00:00:00", "easy",
          "Given N and N integers A_i (|A_i| <= 10^18), print their sum.\nInput: N on the first line, A_1 ... A_N on the second.",
          "n = int(input())\nprint(sum(map(int, input().split())))\n",
          ["3\n1 2 3\n", "2\n10 -4\n"], ["1\n1000000000000000000\n", "3\n999999999999999999 1 -5\n", "4\n0 0 0 0\n"],
          [("right", "n = int(input())\nprint(sum(map(int, input().split())))\n"),
           ("right", "import sys\ndef main():\n    data = sys.stdin.read().split()\n    n = int(data[0])\n    print(sum(int(x) for x in data[1:n + 1]))\n\nif __name__ == '__main__':\n    main()\n"),
           ("right", "N = int(input())\nA = list(map(int, input().split()))\ntotal = 0\nfor a in A:\n    total += a\nprint(total)\n"),
           ("lookalike", "n = int(input())\nprint(int(sum(map(float, input().split()))))\n"),
           ("wrong", "n = int(input())\nprint(n)\n"),
           ("quirk", "import sys\nlines = [line for line in sys.stdin]\nprint(sum(map(int, lines[1].split())))\n"),
           ("quirk", "data = open(0).read().split()\nprint(sum(map(int, data[1:])))\n"),
           ("quirk", "from sys import stdin\nn = int(stdin.readline())\nprint(sum(map(int, stdin.readline().split())))\n")],
          "loop"),
    stdin("abc900_b", "Palindrome?", "atcoder", "2024-06-22T00:00:00", "easy",
          "Given a string S of lowercase letters, print Yes if it is a palindrome, No otherwise.",
          "s = input().strip()\nprint('Yes' if s == s[::-1] else 'No')\n",
          ["abba\n", "abc\n"], ["abca\n", "a\n", "racecar\n", "ab\n", "xyzyx\n"],
          [("right", "s = input().strip()\nprint('Yes' if s == s[::-1] else 'No')\n"),
           ("right", "S = input()\nn = len(S)\nok = True\nfor i in range(n // 2):\n    if S[i] != S[n - 1 - i]:\n        ok = False\nif ok:\n    print('Yes')\nelse:\n    print('No')\n"),
           ("right", "import sys\ns = sys.stdin.readline().rstrip()\nif s != s[::-1]:\n    print('No')\n    exit()\nprint('Yes')\n"),
           ("lookalike", "s = input().strip()\nprint('Yes' if s[0] == s[-1] else 'No')\n"),
           ("wrong", "s = input().strip()\nprint('yes' if s == s[::-1] else 'no')\n"),
           ("quirk", "def main():\n    s = input()\n    print('Yes' if s == s[::-1] else 'No', end='')\nif __name__ == '__main__':\n    main()\ndef unused():\n    pass\n")],
          "os_exit"),
    stdin("abc901_c", "Factorial Mod", "atcoder", "2024-07-06T00:00:00", "medium",
          "Given N (1 <= N <= 10^5), print N! modulo 998244353.",
          "n = int(input())\nr = 1\nfor i in range(2, n + 1):\n    r = r * i % 998244353\nprint(r)\n",
          ["3\n", "5\n"], ["20\n", "1\n", "100000\n", "13\n"],
          [("right", "n = int(input())\nr = 1\nfor i in range(2, n + 1):\n    r = r * i % 998244353\nprint(r)\n"),
           ("right", "MOD = 998244353\n\ndef solve():\n    n = int(input())\n    ans = 1\n    for k in range(1, n + 1):\n        ans = (ans * k) % MOD\n    print(ans)\n\nsolve()\n"),
           ("lookalike", "import math\nprint(math.factorial(int(input())))\n"),
           ("lookalike", "n = int(input())\nr = 1\nfor i in range(2, n + 1):\n    r = r * i % 1000000007\nprint(r)\n"),
           ("wrong", "n = int(input())\nprint(n * (n + 1) // 2)\n")],
          "write_outside"),
    stdin("abc901_d", "Divisors", "atcoder", "2024-07-20T00:00:00", "medium",
          "Given N (1 <= N <= 10^12), print the number of positive divisors of N.",
          "n = int(input())\nc = 0\nd = 1\nwhile d * d <= n:\n    if n % d == 0:\n        c += 1 if d * d == n else 2\n    d += 1\nprint(c)\n",
          ["12\n", "7\n"], ["16\n", "1\n", "1000000000000\n", "36\n", "97\n"],
          [("right", "n = int(input())\nc = 0\nd = 1\nwhile d * d <= n:\n    if n % d == 0:\n        c += 1 if d * d == n else 2\n    d += 1\nprint(c)\n"),
           ("right", "import math\nN = int(input())\ncnt = 0\nfor i in range(1, math.isqrt(N) + 1):\n    if N % i == 0:\n        cnt += 2\n        if i * i == N:\n            cnt -= 1\nprint(cnt)\n"),
           ("lookalike", "n = int(input())\nc = 0\nd = 1\nwhile d * d <= n:\n    if n % d == 0:\n        c += 2\n    d += 1\nprint(c)\n"),
           ("wrong", "n = int(input())\nprint(sum(1 for d in range(1, n) if n % d == 0))\n")],
          "fork"),
    stdin("cf2001_a", "Count Hashes", "codeforces", "2024-08-10T00:00:00", "easy",
          "Given H W and an H x W grid of '.' and '#', print the number of '#' cells.",
          "h, w = map(int, input().split())\nprint(sum(input().count('#') for _ in range(h)))\n",
          ["2 2\n#.\n.#\n", "3 3\n###\n...\n#..\n"], ["2 5\n#####\n#....\n", "1 1\n.\n", "3 1\n#\n#\n.\n"],
          [("right", "h, w = map(int, input().split())\nprint(sum(input().count('#') for _ in range(h)))\n"),
           ("right", "import sys\ninput = sys.stdin.readline\nH, W = map(int, input().split())\ncnt = 0\nfor _ in range(H):\n    row = input().strip()\n    for ch in row:\n        if ch == '#':\n            cnt += 1\nprint(cnt)\n"),
           ("lookalike", "h, w = map(int, input().split())\ng = [input() for _ in range(h)]\nprint(sum(g[i][j] == '#' for i in range(h) for j in range(h)))\n"),
           ("wrong", "h, w = map(int, input().split())\nprint(h * w)\n")],
          "loop"),
    stdin("cf2001_b", "Second Largest", "codeforces", "2024-08-24T00:00:00", "easy",
          "Given N and N integers with at least two distinct values, print the second largest distinct value.",
          "n = int(input())\nprint(sorted(set(map(int, input().split())))[-2])\n",
          ["3\n1 3 2\n", "4\n10 20 30 40\n"], ["4\n5 5 3 1\n", "2\n-1 -2\n", "5\n7 7 7 8 8\n"],
          [("right", "n = int(input())\nprint(sorted(set(map(int, input().split())))[-2])\n"),
           ("right", "n = int(input())\na = list(map(int, input().split()))\nm = max(a)\nprint(max(x for x in a if x != m))\n"),
           ("right", "def main():\n    n = int(input())\n    vals = sorted(set(int(x) for x in input().split()), reverse=True)\n    print(vals[1])\n\nif __name__ == \"__main__\":\n    main()\n"),
           ("lookalike", "n = int(input())\nprint(sorted(map(int, input().split()))[-2])\n"),
           ("wrong", "n = int(input())\nprint(max(map(int, input().split())))\n"),
           ("quirk", "n = int(input())\nprint(float(sorted(set(map(int, input().split())))[-2]))\n")],
          "os_exit"),
    stdin("cf2002_c", "Run Length", "codeforces", "2024-09-14T00:00:00", "medium",
          "Given a string S, print its run-length encoding: each maximal run as the character followed by its length.",
          "from itertools import groupby\ns = input().strip()\nprint(''.join(c + str(len(list(g))) for c, g in groupby(s)))\n",
          ["aaabcc\n", "xyz\n"], ["aaaaaaaaaaaab\n", "z\n", "abababa\n", "bbbbbbbbbbbbbbbbbbbbbbbbb\n"],
          [("right", "from itertools import groupby\ns = input().strip()\nprint(''.join(c + str(len(list(g))) for c, g in groupby(s)))\n"),
           ("right", "s = input().strip()\nout = []\ni = 0\nwhile i < len(s):\n    j = i\n    while j < len(s) and s[j] == s[i]:\n        j += 1\n    out.append(s[i] + str(j - i))\n    i = j\nprint(''.join(out))\n"),
           ("lookalike", "s = input().strip()\nout = []\ni = 0\nwhile i < len(s):\n    j = i\n    while j < len(s) and s[j] == s[i]:\n        j += 1\n    out.append(s[i] + str((j - i) % 10))\n    i = j\nprint(''.join(out))\n"),
           ("lookalike", "s = input().strip()\nres = ''\ncnt = 1\nfor i in range(1, len(s)):\n    if s[i] == s[i - 1] and cnt < 9:\n        cnt += 1\n    else:\n        res += s[i - 1] + str(cnt)\n        cnt = 1\nres += s[-1] + str(cnt)\nprint(res)\n"),
           ("wrong", "s = input().strip()\nprint(''.join(c + '1' for c in s))\n")],
          "fork"),
    stdin("abc902_b", "K-th Smallest", "atcoder", "2024-10-12T00:00:00", "easy",
          "Given N K and N integers, print the K-th smallest (1-indexed).",
          "n, k = map(int, input().split())\nprint(sorted(map(int, input().split()))[k - 1])\n",
          ["5 2\n3 1 4 1 5\n", "3 3\n2 9 7\n"], ["4 2\n10 9 100 20\n", "1 1\n42\n", "3 1\n-5 12 3\n"],
          [("right", "n, k = map(int, input().split())\nprint(sorted(map(int, input().split()))[k - 1])\n"),
           ("right", "import heapq\nn, k = map(int, input().split())\na = list(map(int, input().split()))\nprint(heapq.nsmallest(k, a)[-1])\n"),
           ("right", "import sys\ndata = sys.stdin.read().split()\nn, k = int(data[0]), int(data[1])\na = sorted(int(x) for x in data[2:2 + n])\nsys.stdout.write(str(a[k - 1]) + '\\n')\n"),
           ("lookalike", "n, k = map(int, input().split())\nprint(sorted(input().split())[k - 1])\n"),
           ("wrong", "n, k = map(int, input().split())\nprint(sorted(map(int, input().split()))[k])\n"),
           ("quirk", "import sys\nn, k = map(int, sys.stdin.buffer.readline().split())\na = sorted(map(int, sys.stdin.buffer.read().split()))\nprint(a[k - 1])\n")],
          "write_outside"),
    stdin("abc903_c", "Floor Average", "atcoder", "2024-11-16T00:00:00", "medium",
          "Given N and N integers, print the floor of their average.",
          "n = int(input())\nprint(sum(map(int, input().split())) // n)\n",
          ["3\n1 2 4\n", "2\n5 6\n"], ["3\n-1 -2 -4\n", "1\n-7\n", "4\n1 1 1 2\n", "2\n-3 0\n"],
          [("right", "n = int(input())\nprint(sum(map(int, input().split())) // n)\n"),
           ("right", "import math\nn = int(input())\nxs = list(map(int, input().split()))\nprint(math.floor(sum(xs) / n))\n"),
           ("lookalike", "n = int(input())\nprint(int(sum(map(int, input().split())) / n))\n"),
           ("wrong", "n = int(input())\nprint(round(sum(map(int, input().split())) / n))\n")],
          "loop"),
    stdin("cf2003_d", "Pairs Product", "codeforces", "2025-01-11T00:00:00", "hard",
          "Given N and N integers, print the sum of A_i * A_j over all pairs i < j, modulo 10^9+7 (as a non-negative number).",
          "n = int(input())\na = list(map(int, input().split()))\ns = sum(a)\nq = sum(x * x for x in a)\nprint((s * s - q) // 2 % 1000000007)\n",
          ["3\n1 2 3\n", "2\n4 5\n"], ["3\n-1 2 3\n", "1\n7\n", "4\n1000000000 1000000000 1000000000 1000000000\n"],
          [("right", "n = int(input())\na = list(map(int, input().split()))\ns = sum(a)\nq = sum(x * x for x in a)\nprint((s * s - q) // 2 % 1000000007)\n"),
           ("right", "MOD = 10 ** 9 + 7\nn = int(input())\na = list(map(int, input().split()))\nans = 0\nprefix = 0\nfor x in a:\n    ans += prefix * x\n    prefix += x\nprint(ans % MOD)\n"),
           ("lookalike", "n = int(input())\na = list(map(int, input().split()))\nprint(sum(a[i] * a[j] for i in range(n) for j in range(i + 1, n)))\n"),
           ("wrong", "n = int(input())\na = list(map(int, input().split()))\nprint(sum(a) ** 2 % 1000000007)\n")],
          "fork"),
]


def run_function(ref: str, func: str, args: list):
    env: dict = {}
    exec("from typing import *\nfrom collections import *\nfrom functools import *\nfrom bisect import *\n" + ref, env)
    out = getattr(env["Solution"](), func)(*[json.loads(json.dumps(a)) for a in args])
    return list(out) if isinstance(out, tuple) else out


def run_stdin(ref: str, text: str) -> str:
    buf = io.StringIO()
    old = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        with contextlib.redirect_stdout(buf):
            exec(ref, {"__name__": "__main__"})
    finally:
        sys.stdin = old
    return buf.getvalue()


def tests_of(p: dict, inputs: list) -> list[dict]:
    out = []
    for inp in inputs:
        if p["func"]:
            text = "\n".join(json.dumps(a) for a in inp)
            out.append({"input": text, "output": json.dumps(run_function(p["ref"], p["func"], inp)),
                        "testtype": "functional"})
        else:
            out.append({"input": inp, "output": run_stdin(p["ref"], inp), "testtype": "stdin"})
    return out


def hostile_source(p: dict) -> str:
    if p["func"]:
        return HOSTILE_METHOD[p["hostile"] if p["hostile"] in HOSTILE_METHOD else "loop"].replace("{f}", p["func"])
    return HOSTILE_STDIN[p["hostile"]]


def main() -> None:
    problems, samples, code_list, replies = [], [], [], []
    for k, p in enumerate(PROBLEMS):
        private = json.dumps(tests_of(p, p["private"]))
        if k % 3 == 1:  # LiveCodeBench's compressed form
            private = base64.b64encode(zlib.compress(pickle.dumps(private))).decode("ascii")
        content = p["content"] + ("" if p["func"] else "\n")
        problems.append({"question_title": p["title"], "question_content": content, "platform": p["platform"],
                         "question_id": p["qid"], "contest_id": p["qid"].rsplit("_", 1)[0], "contest_date": p["date"],
                         "starter_code": p["starter"], "difficulty": p["difficulty"],
                         "public_test_cases": json.dumps(tests_of(p, p["public"])), "private_test_cases": private,
                         "metadata": json.dumps({"func_name": p["func"]} if p["func"] else {})})
        cands = list(p["cands"])
        order = list(range(len(cands)))
        R.shuffle(order)  # as sampled, not grouped by kind
        kinds_sources = [cands[i] for i in order] + [("hostile", hostile_source(p))]
        kept = []
        for kind, src in kinds_sources:
            samples.append({"task_id": p["qid"], "solution": src, "kind": kind})
            if kind != "hostile":
                kept.append(src)
        code_list.append({"question_id": p["qid"], "code_list": kept})
        for j, (kind, src) in enumerate(kinds_sources[:2]):
            example = "Example:\n```\n" + (p["public"][0] if not p["func"] else "...") + "\n```\n" if j else ""
            replies.append({"task_id": p["qid"], "kind": kind, "solution": src,
                            "reply": f"{example}Here is my solution.\n\n```python\n{src}```\n\nThis reads the "
                                     f"input, computes the answer and prints it."})
    (HERE / "problems.jsonl").write_text("".join(json.dumps(r) + "\n" for r in problems))
    (HERE / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in samples))
    (HERE / "code_list.json").write_text(json.dumps(code_list, indent=1) + "\n")
    (HERE / "replies.jsonl").write_text("".join(json.dumps(r) + "\n" for r in replies))
    print(f"{len(problems)} problems, {len(samples)} samples")


if __name__ == "__main__":
    main()
