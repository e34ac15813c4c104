"""A chat model's replies read back: asserts in CodeT's format, a full program."""

from __future__ import annotations

from coderank_evalplus.testgen.replies import parse_chat_solution, parse_chat_tests
from tests.testgen.test_prompts import HE0_PROMPT, _problem


def test_parse_chat_tests():
    reply = (
        "Sure! Here are the tests:\n```python\nfrom x import y\nassert f(1) == 2\nassert f(\n    [1, 2]\n) == [2]\n"
        "assert g(3) == 3\nprint('done')\nassert f(2) == 3  # comment\n```\nHope it helps"
    )
    raw = parse_chat_tests(reply, "f")
    assert raw == "f(1) == 2\nassert f( [1, 2] ) == [2]\nassert f(2) == 3  # comment"
    parts = [p.strip() for p in ("assert " + raw).split("assert ") if p.strip()]
    assert parts[0] == "f(1) == 2" and len(parts) == 3
    assert parse_chat_tests("no code here", "f") == ""
    assert parse_chat_tests("assert f(0) == 0", "f") == "f(0) == 0"  # no code fence


def test_parse_chat_solution():
    p = _problem("HumanEval/0", HE0_PROMPT, "has_close_elements")
    reply = (
        "Here you go:\n```python\nfrom typing import List\n\ndef has_close_elements(numbers, threshold):\n"
        "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n\n"
        "print(has_close_elements([1.0], 0.5))\n```\n"
    )
    code = parse_chat_solution(reply, p)
    assert "def has_close_elements" in code and "print(" not in code
    g: dict = {}
    exec(code, g)
    assert g["has_close_elements"]([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3) is True


def test_parse_chat_solution_gives_the_prompt_imports_and_reads_a_continued_body():
    """A reply written against the prompt's ``from typing import List`` without repeating it runs (issue 41: 13 of
    20 embedded samples failed on ``NameError: List``), and is the program ``rerank --raw-field`` reads."""
    from coderank_evalplus.io.sanitize import raw_program

    p = _problem("HumanEval/0", HE0_PROMPT, "has_close_elements")
    reply = ("```python\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
             "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n```")
    code = parse_chat_solution(reply, p)
    assert code == raw_program(reply, p) and code.startswith("from typing import List")
    g: dict = {}
    exec(code, g)
    assert g["has_close_elements"]([1.0, 2.8, 3.0], 0.3) is True
    body = "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n"
    g = {}
    exec(parse_chat_solution(body, p), g)  # a reply that only continues the function, as SmolLM2's often do
    assert g["has_close_elements"]([1.0, 2.0], 0.5) is False
    assert parse_chat_solution("I cannot help with that.", p) == "I cannot help with that."  # fails, stays readable
