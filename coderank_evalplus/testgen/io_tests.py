"""Tests of programs stated as input/output text (CodeContests, AtCoder, Codeforces, LeetCode's JSON lines).

* CodeT's prompt for CodeContests (``codet_stdin_prompt``): the statement as the docstring of ``def solution(stdin:
  str) -> str``, then ``assert `` for a base model to continue -- its tests read ``assert solution("…") == "…"``;
* a chat prompt asking for input/output pairs (``chat_io_messages``), its reply read by ``parse_chat_io`` into
  asserts of the same form;
* either becomes tests for either shape (``suite_for``): a stdin program's tests call ``run_stdin`` (the engine's
  harness) where CodeT's call ``solution``, a function ``solution(stdin)`` keeps them as they are, a LeetCode
  method's pairs (inputs as JSON lines) become ``Solution().f(…) == …``.
"""

from __future__ import annotations

import json
from typing import Iterable, Optional

# CodeT's stdin prompt lives with the stdin shape; its names stay importable from here
from coderank_evalplus.engine.shapes import CODET_STDIN_ENTRY, codet_stdin_prompt, shape_of  # noqa: F401
from coderank_evalplus.engine.shapes import statement as _statement
from coderank_evalplus.io.sanitize import code_blocks
from coderank_evalplus.types import Problem, TestSuite


def chat_io_messages(problem: Problem, n_pairs: int = 5) -> list[dict]:
    """Messages asking an instruct model for ``n_pairs`` test inputs with their exact expected outputs (never the
    public tests)."""
    form = (shape_of(problem).io_pair_input or "").format(entry_point=problem.entry_point)
    user = (f"Here is a programming problem:\n\n{_statement(problem)}\n\n"
            f"Write {n_pairs} different small test cases for it, with the exact expected results. Do not solve the "
            f"problem in code. Answer with a JSON list in one ```json code block: each item an object whose \"input\" "
            f"is {form}.")
    return [{"role": "system", "content": "You are an expert competitive programmer."},
            {"role": "user", "content": user}]


def parse_io_pairs(text: str) -> list[tuple[str, str]]:
    """(input, output) pairs of a reply: the last JSON list of ``{"input", "output"}`` in a code block (or the reply
    itself); values that are not strings are written as JSON."""
    for block in reversed(code_blocks(text, "json") or [text]):
        try:
            items = json.loads(block)
        except ValueError:
            continue
        if not isinstance(items, list):
            continue
        pairs = []
        for item in items:
            if isinstance(item, dict) and "input" in item and "output" in item:
                pairs.append(tuple(v if isinstance(v, str) else json.dumps(v) for v in (item["input"], item["output"])))
        if pairs:
            return pairs  # type: ignore[return-value]  # 2-tuples of str
    return []


def io_assert(shape: str, callee: str, inp: str, expected: str) -> Optional[str]:
    """One input/output pair as an assert on ``callee``: a method's ``assert Solution().f(a, b) == out`` (each
    non-blank input line a JSON argument, the output a JSON value, as LiveCodeBench's functional tests are written;
    None when they are not JSON), else ``assert callee('…') == '…'`` (a stdin program's text in, text out)."""
    return shape_of(shape).io_assert(callee, inp, expected)


def pair_asserts(problem: Problem, pairs: Iterable[tuple[str, str]]) -> list[str]:
    """Each pair as an assert in the problem's test language (CodeT's ``solution(…)`` for a stdin program)."""
    callee = shape_of(problem).test_callee(problem)
    return [a for a in (io_assert(problem.shape, callee, inp, expected) for inp, expected in pairs) if a is not None]


def parse_chat_io(text: str, problem: Problem) -> str:
    """A chat reply with input/output pairs → a raw test sample in CodeT's format (the asserts joined, the first
    without its ``assert ``)."""
    joined = "\n".join(pair_asserts(problem, parse_io_pairs(text)))
    return joined[len("assert "):] if joined.startswith("assert ") else joined


def suite_for(problem: Problem, raw_samples: Iterable[str], tests_per_sample: Optional[int]) -> TestSuite:
    """The suite of a problem's raw test samples (CodeT's extraction, ``build_suite``) in its shape's language: a
    stdin program's samples may call CodeT's ``solution(stdin)`` or ``run_stdin``; both run the program."""
    return shape_of(problem).suite(problem, raw_samples, tests_per_sample)
