"""Writes this folder's problem file: one look-alike problem written in each call shape, in your own format (as
``--dataset`` reads it, docs/usage.md), and its candidates (our own, written to test the explanations).

    python tests/data/lookalike/build.py

``problems.jsonl``: "is n below 100?" as a function (``look/function``), as a ``class Solution`` method
(``look/method``: its examples LeetCode's ``Input: … Output: …``) and as a stdin program (``look/stdin``: it prints
``True`` or ``False``); the examples are 10 (True) and 500 (False).

``samples.jsonl``: per problem, ``{"task_id", "solution", "kind"}``: 4 + 3 ``right`` candidates (two ways of
writing it), 3 ``lookalike`` ones (``n != 9`` too: right on both examples, False on 9, where the right ones say True)
and 1 ``wrong`` one (fails the first example).
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent

FUNCTION = {"task_id": "look/function", "entry_point": "small",
            "prompt": 'def small(n: int) -> bool:\n    """Whether n is below 100.\n    >>> small(10)\n    True\n'
                      '    >>> small(500)\n    False\n    """\n',
            "test": "assert small(9) is True\nassert small(99) is True\nassert small(100) is False\n"}
METHOD = {"task_id": "look/method", "entry_point": "small",
          "prompt": ('class Solution:\n    def small(self, n: int) -> bool:\n        """Whether n is below 100.\n\n'
                     '        Example 1:\n        Input: n = 10\n        Output: true\n\n'
                     '        Example 2:\n        Input: n = 500\n        Output: false\n        """\n'),
          "test": ("assert Solution().small(9) is True\nassert Solution().small(99) is True\n"
                   "assert Solution().small(100) is False\n")}
STDIN = {"task_id": "look/stdin",
         "prompt": "Read an integer n from standard input; print True if n is below 100, else False.\n",
         "public_tests": [{"input": "10\n", "output": "True\n"}, {"input": "500\n", "output": "False\n"}],
         "private_tests": [{"input": "9\n", "output": "True\n"}, {"input": "99\n", "output": "True\n"},
                           {"input": "100\n", "output": "False\n"}]}

BODIES = {  # kind: (function's body, stdin program's line after reading n)
    "right": ("return n < 100", "print(n < 100)"),
    "right2": ("return not n >= 100", "print(not n >= 100)"),
    "lookalike": ("return n < 100 and n != 9", "print(n < 100 and n != 9)"),
    "wrong": ("return n > 100", "print(n > 100)"),
}
POOL = ["right"] * 4 + ["right2"] * 3 + ["lookalike"] * 3 + ["wrong"]


def program(task_id: str, kind: str) -> str:
    body, line = BODIES[kind]
    if task_id == "look/function":
        return f"def small(n):\n    {body}\n"
    if task_id == "look/method":
        return f"class Solution:\n    def small(self, n):\n        {body}\n"
    return f"n = int(input())\n{line}\n"


def main() -> None:
    problems = [FUNCTION, METHOD, STDIN]
    (HERE / "problems.jsonl").write_text("".join(json.dumps(p) + "\n" for p in problems))
    rows = [{"task_id": p["task_id"], "solution": program(p["task_id"], kind), "kind": kind.rstrip("2")}
            for p in problems for kind in POOL]
    (HERE / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(f"wrote {len(problems)} problems, {len(rows)} candidates")


if __name__ == "__main__":
    main()
