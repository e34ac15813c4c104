"""Prompts: CodeT's test-generation prompts (golden, against CodeT's own files), solution prompts, chat prompts."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from coderank_evalplus.testgen.prompt_examples import make_test_prompt_body, trial_tests_from_prompt
from coderank_evalplus.testgen.prompts import (
    chat_solution_messages,
    chat_test_messages,
    solution_prompt,
    test_generation_prompt,
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


def test_solution_prompt_is_prompt():
    p = _problem("HumanEval/0", HE0_PROMPT, "has_close_elements")
    assert solution_prompt(p) == HE0_PROMPT


# ---------------------------------------------------------------- chat


def test_chat_test_messages_hide_examples():
    p = _problem("HumanEval/0", HE0_PROMPT, "has_close_elements")
    text = "\n".join(m["content"] for m in chat_test_messages(p, n_asserts=7))
    assert "7 different test cases" in text and "```python" in text
    assert ">>>" not in text and "0.5" not in text and "2.8" not in text
    sol = "\n".join(m["content"] for m in chat_solution_messages(p))
    assert "has_close_elements" in sol
