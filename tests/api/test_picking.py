"""The Python API's picking (coderank_evalplus/api/picking.py): pick, Picker, and why the others lost."""

from __future__ import annotations

import json

import pytest

import coderank_evalplus as cr
from tests.conftest import REPO

EXAMPLES = REPO / "coderank_evalplus" / "examples"

PROMPT = '''def add(a: int, b: int) -> int:
    """Add two numbers.
    >>> add(1, 2)
    3
    >>> add(-1, 5)
    4
    """
'''
RIGHT = "    return a + b\n"
WRONG = ["    return a - b\n", "    return abs(a) + b\n", "    return a * b\n"]


@pytest.fixture(scope="module")
def picker():
    with cr.Picker(workers=2) as p:
        yield p


def test_pick_keeps_the_candidate_that_agrees_with_the_examples(picker):
    cands = [WRONG[0], RIGHT, WRONG[1], "def add(a, b):\n    return b + a\n", WRONG[2]]
    choice = picker.pick(PROMPT, cands)
    assert choice.entry_point == "add"
    assert choice.group == [1, 3] and choice.index == 1
    assert choice.program == PROMPT + RIGHT  # a completion is read after the prompt
    assert 0.5 < choice.confidence["base"] < 1.0
    examples = [e for e in choice.evidence if e.kind == "example"]
    assert [e.text for e in examples] == ["assert add(1, 2) == 3", "assert add(-1, 5) == 4"]
    assert all(e.pick_passes for e in examples)
    assert [e.agree for e in examples] == [3, 2]  # a - b fails both; abs(a) + b and a * b pass the first only
    assert any(e.kind == "grown" for e in choice.evidence)
    assert choice.separating and all(e.separates for e in choice.separating)
    assert any("examples of the prompt" in r for r in choice.reasons)
    json.dumps(choice.to_json())  # plain data


def test_given_tests_decide_where_the_prompt_shows_no_example(picker):
    prompt = 'def double(x):\n    """Twice x."""\n'
    cands = ["    return x + x\n", "    return x * x\n", "    return x * x\n"]
    without = picker.pick(prompt, cands)
    assert without.group == [0, 1, 2]  # no example: nothing runs, nothing tells them apart
    assert without.n_groups == 1 and not without.separating
    assert any("no example" in r for r in without.reasons)
    with_tests = picker.pick(prompt, cands, tests="assert double(3) == 6\nassert double(0) == 0")
    assert with_tests.group == [0]
    tests = [e for e in with_tests.evidence if e.kind == "test"]
    assert [(e.text, e.pick_passes, e.agree) for e in tests] == [("assert double(3) == 6", True, 1),
                                                                 ("assert double(0) == 0", True, 3)]
    assert picker.pick(prompt, cands, tests=["assert double(3) == 6"]).group == [0]


def test_entry_point_given_or_found_and_bad_input_is_one_line(picker):
    prompt = "def helper(x):\n    return x\n\n\ndef main_fn(x):\n    '''>>> main_fn(2)\n    2\n    '''\n"
    assert picker.pick(prompt, ["    return helper(x)\n"]).entry_point == "main_fn"
    assert picker.pick(prompt, ["def helper(x):\n    return x\n"], entry_point="helper").index == 0
    with pytest.raises(ValueError, match="defines no function"):
        picker.pick("just words", ["x = 1"])
    with pytest.raises(ValueError, match="at least one"):
        picker.pick(PROMPT, [])
    with pytest.raises(ValueError, match="line 1 does not compile"):
        picker.pick(PROMPT, [RIGHT], tests="assert (")


def test_raw_replies_are_read_as_raw_field_reads_them(picker):
    reply = "Here is the code:\n```python\ndef add(a, b):\n    return a + b\n```\nHope it helps."
    choice = picker.pick(PROMPT, [reply, "Sorry, I cannot."], raw=True)
    assert choice.index == 0 and choice.group == [0]
    assert "Hope it helps" not in choice.program


def test_picker_keeps_its_workers_between_problems(picker):
    picker.pick(PROMPT, [RIGHT, WRONG[0]])  # (a losing group: its reasons are probed on the same workers)
    pids = [w.proc.pid for w in picker._executor._pool.workers]
    picker.pick(PROMPT.replace("add", "plus"), ["    return a + b\n"])
    assert [w.proc.pid for w in picker._executor._pool.workers] == pids


def test_one_shot_pick_starts_and_stops_its_own_workers():
    choice = cr.pick(PROMPT, [WRONG[0], RIGHT], workers=1)
    assert choice.index == 1 and choice.uses_prompt_examples
    assert cr.pick(PROMPT, [WRONG[0], RIGHT], workers=1, mutate=0, method="mbr_exec").method == "mbr_exec"


def test_mutate_0_is_the_examples_alone_as_on_every_other_entry_point():
    """``mutate=0`` is ``examples+mutate:0`` (docs/methods.md): the prompt's examples are the tests, with no grown
    input, as ``rerank --tests examples+mutate:0``; ``None``: neither (only the tests given)."""
    from coderank_evalplus.api.picking import read_pick_tests
    from coderank_evalplus.testgen.mutate import GROWN_INPUTS

    cands = [WRONG[0], RIGHT, WRONG[2]]
    alone = cr.pick(PROMPT, cands, workers=1, mutate=0, method="codet")
    assert alone.group == [1] and alone.uses_prompt_examples
    assert not [e for e in alone.evidence if e.kind == "grown"]
    neither = cr.pick(PROMPT, cands, workers=1, mutate=None, method="codet")
    assert neither.group == [0, 1, 2] and not neither.uses_prompt_examples
    assert read_pick_tests(["examples+mutate:0"])[1].mutate == 0 and read_pick_tests(None)[1].mutate == GROWN_INPUTS


def test_prose_candidates_are_no_candidate(picker):
    """Candidates none of which defines the function: a documented error, not a pick among nothing."""
    with pytest.raises(cr.api.NoCandidate, match="no candidate defines add") as err:
        picker.pick(PROMPT, ["Sure! Use the plus sign.", "I cannot help with that."])
    assert isinstance(err.value, cr.CoderankError) and isinstance(err.value, ValueError)


def test_candidates_without_the_function_are_no_candidate_and_said_so_when_they_lose(picker):
    """Another function, a statement, nothing, a signature alone: the prompt's stub would return None, but there is
    nothing of the candidate's to run. None defines add: the documented error; beside one that does: why each lost."""
    other, statement, stub = "def other(a, b):\n    return a + b\n", "x = 1\n", "def add(a, b):\n    pass\n"
    with pytest.raises(cr.api.NoCandidate) as err:
        picker.pick(PROMPT, [other, statement, "", stub], names=["other.py", "x.py", "empty.py", "stub.py"])
    assert str(err.value) == ("no candidate defines add (other.py: defines no add; x.py: defines no add; "
                              "empty.py: empty …)")
    assert picker.pick(PROMPT, ["add = lambda a, b: a + b\n", statement]).index == 0  # bound otherwise: it runs
    choice = picker.pick(PROMPT, [other, RIGHT, statement, "", stub], names=["o", "right", "x", "e", "s"])
    assert choice.name == "right"
    assert {g.sentence() for g in choice.lost} == {"o, x: defines no add", "e: empty", "s: leaves add without a body"}
    assert all(g.why == "does not run" for g in choice.lost)


@pytest.mark.slow
def test_reasons_say_why_each_losing_group_lost_by_name(picker):
    cands = [RIGHT, "    return a - b\n", "    while True:\n        pass\n", "    raise KeyError('x')\n",
             "    if a < -1:\n        return 0\n    return a + b\n", "def add(a, b):\n    return b + a\n"]
    names = ["right.py", "minus.py", "loop.py", "raises.py", "lookalike.py", "right2.py"]
    choice = picker.pick(PROMPT, cands, names=names)
    assert choice.name == "right.py" and choice.group == [0, 5]
    why = {g.names[0]: g for g in choice.lost}
    assert why["minus.py"].why == "example" and why["minus.py"].does == "returns -1"  # on add(1, 2)
    assert "does not finish" in why["loop.py"].does
    assert why["raises.py"].does.startswith("raises KeyError")
    assert why["lookalike.py"].why == "input" and why["lookalike.py"].does.startswith("returns")
    assert why["lookalike.py"].pick_does.startswith("returns")
    text = "\n".join(choice.reasons)
    assert "recommended picked right.py" in text and "lost: minus.py: fails an example of the prompt" in text
    assert "outvoted on" in text
    assert choice.to_json()["lost"] and choice.to_json()["name"] == "right.py"


def test_reasons_show_the_selection_steps_deciding_input_and_each_sides_output():
    """``recommended`` (its selection step): the lookalikes the pool cannot tell apart are set apart on an input
    grown for them; the reasons name that input and what each side returned there, in words."""
    import re

    prompt = '''def add(a, b):
    """Add two integers.
    >>> add(2, 3)
    5
    >>> add(10, 4)
    14
    """
'''
    bodies = ["    return a + b\n"] * 4 + ["    return b + a\n"] * 3 + ["    return a + b if a != 5 else 0\n"] * 3
    with cr.Picker(method="recommended", workers=2) as picker:
        choice = picker.pick(prompt, bodies)
    assert choice.group == list(range(7))
    text = "\n".join(choice.reasons)
    said = re.search(r"on add\((5), (-?\d+)\): group A returns (-?\d+), group B returns 0; A kept: 7 of 10 "
                     r"candidates agree", text)
    assert said, text
    assert int(said[3]) == int(said[1]) + int(said[2])  # A's output is the sum on that very input
    (lost,) = [g for g in choice.lost if g.why == "selected"]
    assert lost.candidates == [7, 8, 9] and lost.on == f"add(5, {said[2]})"
    assert lost.does == "returns 0" and lost.pick_does == f"returns {said[3]}"
    assert f"set apart on `add(5, {said[2]})`" in text
    assert choice.to_json()["steps"][0]["evidence"][0]["input"] == lost.on
