"""Prompts: example stripping, trial tests, CodeT test-generation prompts, chat prompts and reply parsing."""

from __future__ import annotations

import gzip
import json
import os
import signal
import warnings
from pathlib import Path

import pytest

from coderank_evalplus.testgen.prompts import (
    chat_solution_messages,
    chat_test_messages,
    make_test_prompt_body,
    parse_chat_solution,
    parse_chat_tests,
    solution_prompt,
    strip_examples,
    test_generation_prompt,
    trial_tests_from_prompt,
)
from coderank_evalplus.types import Problem

DATA = Path(os.environ.get("CODERANK_SHARED_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"))
HEP = DATA / "evalplus_humanevalplus_release/v0.1.10/HumanEvalPlus.jsonl.gz"
MBPP = DATA / "evalplus_mbppplus_release/v0.2.0/MbppPlus.jsonl.gz"
CODET_TEST = DATA / "microsoft_CodeT/dataset/HumanEval_for_test_case_generation.jsonl"

HE0_PROMPT = (
    "from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
    '    """ Check if in given list of numbers, are any two numbers closer to each other than\n'
    "    given threshold.\n    >>> has_close_elements([1.0, 2.0, 3.0], 0.5)\n    False\n"
    "    >>> has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)\n    True\n    \"\"\"\n"
)
# CodeT's HumanEval_for_test_case_generation.jsonl prompts for HumanEval/0 and HumanEval/1, verbatim
HE0_CODET = (
    "from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
    '    """ Check if in given list of numbers, are any two numbers closer to each other than\n'
    '    given threshold.\n    """\n    pass\n\n# check the correctness of has_close_elements\nassert '
)
HE1_PROMPT = (
    "from typing import List\n\n\ndef separate_paren_groups(paren_string: str) -> List[str]:\n"
    '    """ Input to this function is a string containing multiple groups of nested parentheses. Your goal is to\n'
    "    separate those group into separate strings and return the list of those.\n"
    "    Separate groups are balanced (each open brace is properly closed) and not nested within each other\n"
    "    Ignore any spaces in the input string.\n    >>> separate_paren_groups('( ) (( )) (( )( ))')\n"
    "    ['()', '(())', '(()())']\n    \"\"\"\n"
)
HE1_CODET = (
    "from typing import List\n\n\ndef separate_paren_groups(paren_string: str) -> List[str]:\n"
    '    """ Input to this function is a string containing multiple groups of nested parentheses. Your goal is to\n'
    "    separate those group into separate strings and return the list of those.\n"
    "    Separate groups are balanced (each open brace is properly closed) and not nested within each other\n"
    '    Ignore any spaces in the input string.\n    """\n    pass\n\n'
    "# check the correctness of separate_paren_groups\nassert "
)


def _problem(task_id, prompt, entry_point, dataset="humaneval", canonical=""):
    body = make_test_prompt_body(prompt, entry_point, canonical, dataset)
    return Problem(
        task_id=task_id,
        dataset=dataset,
        prompt=prompt,
        entry_point=entry_point,
        canonical_solution=canonical,
        trial_tests=tuple(trial_tests_from_prompt(prompt, entry_point)),
        test_prompt_body=body,
    )


def _load(path):
    if not path.exists():
        pytest.skip(f"shared data not found: {path}")
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        return [json.loads(line) for line in f]


# ---------------------------------------------------------------- golden prompts


def test_golden_humaneval_test_prompts_equal_codet():
    # our strip_examples reproduces CodeT's hand-stripped body exactly for these two, so no CodeT body is needed
    assert test_generation_prompt(_problem("HumanEval/0", HE0_PROMPT, "has_close_elements")) == HE0_CODET
    assert test_generation_prompt(_problem("HumanEval/1", HE1_PROMPT, "separate_paren_groups")) == HE1_CODET


def test_golden_against_codet_file():
    codet = {r["task_id"]: r["prompt"] for r in _load(CODET_TEST)}
    he = {r["task_id"]: r for r in _load(HEP)}
    for tid in ("HumanEval/0", "HumanEval/1"):
        r = he[tid]
        assert test_generation_prompt(_problem(tid, r["prompt"], r["entry_point"])) == codet[tid]


MBPP2_PROMPT = ('"""\nWrite a function to find the shared elements from the given two lists.\n'
                'assert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))\n"""\n')
MBPP2_CANON = "\ndef similar_elements(test_tup1, test_tup2):\n  return tuple(set(test_tup1) & set(test_tup2))\n"
MBPP3_PROMPT = '"""\nWrite a python function to identify non-prime numbers.\nassert is_not_prime(2) == False\n"""\n'
MBPP3_CANON = (
    "\nimport math\ndef is_not_prime(n):\n    if n == 1:\n        return True\n"
    "    for i in range(2, int(math.sqrt(n))+1):\n        if n % i == 0:\n            return True\n    return False\n"
)


def test_golden_mbpp_test_prompts():
    # hand-written; identical to CodeT's mbpp_sanitized_for_test_case_generation.jsonl (MbppEval/2, MbppEval/3)
    p2 = _problem("Mbpp/2", MBPP2_PROMPT, "similar_elements", "mbpp", MBPP2_CANON)
    assert test_generation_prompt(p2) == (
        "def similar_elements(test_tup1, test_tup2):\n    '''\n"
        "    Write a function to find the shared elements from the given two lists.\n    '''\n"
        "    pass\n\n# check the correctness of similar_elements\nassert "
    )
    p3 = _problem("Mbpp/3", MBPP3_PROMPT, "is_not_prime", "mbpp", MBPP3_CANON)
    assert test_generation_prompt(p3) == (
        "import math\ndef is_not_prime(n):\n    '''\n    Write a python function to identify non-prime numbers.\n"
        "    '''\n    pass\n\n# check the correctness of is_not_prime\nassert "
    )
    assert p2.trial_tests == ("assert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))",)
    assert p3.trial_tests == ("assert is_not_prime(2) == False",)
    # without a reference solution the signature is derived from the example call
    body = make_test_prompt_body(MBPP3_PROMPT, "is_not_prime", "", "mbpp")
    assert body.startswith("def is_not_prime(arg0):\n")


def test_mbpp_strip_removes_assert_only():
    assert strip_examples(MBPP2_PROMPT, "similar_elements") == (
        '"""\nWrite a function to find the shared elements from the given two lists.\n"""\n'
    )


def test_solution_prompt_is_prompt():
    p = _problem("HumanEval/0", HE0_PROMPT, "has_close_elements")
    assert solution_prompt(p) == HE0_PROMPT


# ---------------------------------------------------------------- example styles


def _doc(body: str, name="f", args="x") -> str:
    return f'def {name}({args}):\n    """\n{body}    """\n'


def test_styles_arrow_and_definitions_kept():
    p = _doc(
        "    The fib4 sequence is defined as follows:\n    fib4(0) -> 0\n    fib4(1) -> 0\n"
        "    fib4(n) -> fib4(n-1) + fib4(n-2).\n    Compute it.\n    >>> fib4(5)\n    4\n",
        "fib4",
        "n",
    )
    s = strip_examples(p, "fib4")
    assert "fib4(0) -> 0" in s and "fib4(n) -> fib4(n-1)" in s and ">>>" not in s and "Compute it." in s
    assert trial_tests_from_prompt(p, "fib4") == ["assert fib4(5) == 4"]


def test_styles_headers_blocks_and_prose_after():
    p = _doc(
        "    Return stuff.\n    For example:\n    f([1, 2]) ➞ 3\n    f('a') => 'b'\n    f(2) returns True\n"
        "    It is assumed that x is valid.\n\n    Note:\n        keep me\n"
    )
    s = strip_examples(p, "f")
    assert "For example" not in s and "➞" not in s and "It is assumed" in s and "keep me" in s
    assert trial_tests_from_prompt(p, "f") == ["assert f([1, 2]) == 3", "assert f('a') == 'b'", "assert f(2) == True"]


def test_styles_input_output_and_for_should_be():
    p = _doc(
        "    Sort.\n\n    Example 1:\n\n        Input: arr = [3, 1], k = 2\n        Output: [1, 3]\n\n"
        "    Examples:\n    For arr = [2, 1], k = 1 the output should be [1]\n",
        args="arr, k",
    )
    s = strip_examples(p, "f")
    assert "Input" not in s and "output should" not in s and "Sort." in s
    assert trial_tests_from_prompt(p, "f") == ["assert f([3, 1], 2) == [1, 3]", "assert f([2, 1], 1) == [1]"]


def test_doctest_variants():
    p = _doc(
        "    Longest.\n    >>> f([])\n\n    >>> f(['a', 'bb'])\n    'bb'\n    >>> f([1]) == 1\n"
        "    >>> round(f([1, 2]), 2) # comment\n    -0.5\n    >>> f([3])\n    [1,\n     2]\n    >>> f(x)\n    3\n"
    )
    assert trial_tests_from_prompt(p, "f") == [
        "assert f([]) is None",
        "assert f(['a', 'bb']) == 'bb'",
        "assert f([1]) == 1",
        "assert round(f([1, 2]), 2) == -0.5",
    ]  # multi-line output and a non-literal argument are skipped
    assert ">>>" not in strip_examples(p, "f")


def test_only_entry_point_docstring_is_touched():
    p = ('def helper(s):\n    """\n    >>> helper(1)\n    2\n    """\n\n\n'
         'def f(x):\n    """ Do.\n    >>> f(1)\n    1\n    """\n')
    s = strip_examples(p, "f")
    assert ">>> helper(1)" in s and ">>> f(1)" not in s
    assert trial_tests_from_prompt(p, "f") == ["assert f(1) == 1"]


def test_no_examples_is_identity():
    p = _doc("    Nothing to see.\n")
    assert strip_examples(p, "f") == p and trial_tests_from_prompt(p, "f") == []


# ---------------------------------------------------------------- whole datasets (figures for the report)


def _norm(s: str) -> str:
    return " ".join(s.split())


def test_strip_examples_matches_codet_on_humaneval():
    codet = {r["task_id"]: r for r in _load(CODET_TEST)}
    he = _load(HEP)
    match = 0
    for r in he:
        c = codet[r["task_id"]]
        body = c["prompt"][: -len(f"    pass\n\n# check the correctness of {r['entry_point']}\nassert ")]
        match += _norm(strip_examples(r["prompt"], r["entry_point"])) == _norm(body)
    # measured: 163/164 (HumanEval/115: evalplus moved `import math` out of the function; not an example issue)
    assert match >= 163, match


def _run_trials(records):
    """(problems with >= 1 trial test, tests, tests passing on the canonical solution)."""

    def alarm(*_):
        raise TimeoutError

    old = signal.signal(signal.SIGALRM, alarm)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # escape sequences in the reference solutions
        return _run_trials_inner(records, old)


def _run_trials_inner(records, old):
    covered = total = passed = 0
    try:
        for r in records:
            tests = trial_tests_from_prompt(r["prompt"], r["entry_point"])
            covered += bool(tests)
            total += len(tests)
            g: dict = {}
            exec(r["prompt"] + r["canonical_solution"], g)
            for t in tests:
                compile(t, "<t>", "exec")
                try:
                    signal.alarm(5)
                    exec(t, dict(g))
                    passed += 1
                except (AssertionError, TimeoutError):
                    pass
                finally:
                    signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, old)
    return covered, total, passed


def test_trial_tests_humaneval_coverage_and_canonical():
    covered, total, passed = _run_trials(_load(HEP))
    # measured: 153/164 problems, 431 tests, 427 pass; the 4 failures are wrong docstring examples
    # (HumanEval/47 median 15.0, HumanEval/116 x2, HumanEval/148 ("Venus") is not a tuple)
    assert covered >= 150 and total >= 420 and total - passed <= 4, (covered, total, passed)


def test_trial_tests_mbpp_canonical():
    covered, total, passed = _run_trials(_load(MBPP))
    assert covered == total == passed == 378


# ---------------------------------------------------------------- chat


def test_chat_test_messages_hide_examples():
    p = _problem("HumanEval/0", HE0_PROMPT, "has_close_elements")
    text = "\n".join(m["content"] for m in chat_test_messages(p, n_asserts=7))
    assert "7 different test cases" in text and "```python" in text
    assert ">>>" not in text and "0.5" not in text and "2.8" not in text
    sol = "\n".join(m["content"] for m in chat_solution_messages(p))
    assert "has_close_elements" in sol


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


def test_trial_tests_compile_without_warnings_reaching_the_user(recwarn):
    """A prompt whose example compiles with a SyntaxWarning ("is" with a literal) gives its trial test silently:
    warnings about model or prompt text never reach the user's terminal (issue 41)."""
    import warnings

    from coderank_evalplus.testgen.prompts import trial_tests_from_prompt

    prompt = 'def f(x):\n    """Is it one?\n    >>> f(1) is 1\n    True\n    """\n'
    warnings.simplefilter("always")
    tests = trial_tests_from_prompt(prompt, "f")
    assert tests and not [w for w in recwarn if issubclass(w.category, SyntaxWarning)]


def test_unbalanced_brackets_in_an_example_line_give_no_trial_test_and_no_crash():
    """``Input: 1), (2`` parses as a tuple, not a call (mypy found the crash: AttributeError on .args)."""
    from coderank_evalplus.testgen.prompts import trial_tests_from_prompt

    prompt = 'def f(a, b):\n    """Add.\n    Input: 1), (2\n    Output: 3\n    """\n'
    assert trial_tests_from_prompt(prompt, "f") == []
