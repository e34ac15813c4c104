"""Samples of LiveCodeBench problems: lcb_runner's own output file (``code_list``) read directly, evalplus-style
records, chat replies whose fenced program is kept whole, candidates of each shape as full programs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coderank_evalplus.io.candidates import as_program
from coderank_evalplus.io.jsonl import SampleFileError
from coderank_evalplus.io.problems import load_problems
from coderank_evalplus.io.samples import LCB_OUTPUT, detect_format, read_solutions
from coderank_evalplus.io.sanitize import fenced_program

DATA = Path(__file__).parents[1] / "data" / "lcb"


@pytest.fixture(scope="module")
def problems():
    return load_problems(str(DATA / "problems.jsonl"))


def _samples() -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for line in (DATA / "samples.jsonl").read_text().splitlines():
        rec = json.loads(line)
        out.setdefault(rec["task_id"], []).append(rec)
    return out


def test_lcb_runners_output_file_is_read_directly(problems):
    assert detect_format(DATA / "code_list.json")[0] == LCB_OUTPUT
    got = read_solutions(DATA / "code_list.json", problems)
    want = {t: [r["solution"] for r in recs if r["kind"] != "hostile"] for t, recs in _samples().items()}
    assert got == want


def test_records_with_solution_are_programs(problems):
    got = read_solutions(DATA / "samples.jsonl", problems)
    assert got == {t: [r["solution"] for r in recs] for t, recs in _samples().items()}


def test_chat_replies_keep_the_fenced_program_whole(problems):
    got = read_solutions(DATA / "replies.jsonl", problems, raw_field="reply")
    replies: dict[str, list[dict]] = {}
    for line in (DATA / "replies.jsonl").read_text().splitlines():
        rec = json.loads(line)
        replies.setdefault(rec["task_id"], []).append(rec)
    for tid, recs in replies.items():
        assert got[tid] == [r["solution"].rstrip("\n") for r in recs], tid
    guarded = "import sys\n\ndef main():\n    print(1)\n\nif __name__ == \"__main__\":\n    main()"
    assert fenced_program(f"Sure!\n```python\n{guarded}\n```\nDone.") == guarded
    assert fenced_program("no code here") == ""
    assert fenced_program("print(1)\n") == "print(1)\n"  # no fence: the reply itself when it compiles


def test_a_candidate_of_each_shape_as_a_full_program(problems):
    method, stdin = problems["lc-two-sum"], problems["abc900_a"]
    full = "class Solution:\n    def twoSum(self, nums, target):\n        return [0, 1]\n"
    assert as_program(full, method) == full
    assert as_program("return [0, 1]\n", method) == method.prompt + "return [0, 1]\n"  # a completion of the starter
    assert as_program("print(1)\n", stdin) == "print(1)\n"


def test_a_malformed_output_file_names_the_item(tmp_path, problems):
    bad = tmp_path / "out.json"
    bad.write_text(json.dumps([{"question_id": "lc-two-sum", "code_list": "not a list"}]))
    with pytest.raises(SampleFileError, match="item 1: field 'code_list'"):
        read_solutions(bad, problems)
