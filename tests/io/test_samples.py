import json

import pytest

from coderank_evalplus.io.samples import SampleFileError, read_solutions, read_test_samples
from tests.conftest import needs_data


@needs_data
def test_codet_files_join_to_task_ids(codet_samples):
    sols, tests = codet_samples
    assert len(sols) == 164 and all(len(v) == 100 for v in sols.values())
    assert len(tests) == 164
    prog = sols["HumanEval/0"][0]
    assert prog.startswith("from typing import List") and "def has_close_elements" in prog
    assert "\ndef " not in prog.split("def has_close_elements")[1]  # cut at CodeT's stop sequences


@needs_data
def test_evalplus_jsonl_and_errors(tmp_path, humaneval_problems):
    path = tmp_path / "samples.jsonl"
    path.write_text(json.dumps({"task_id": "HumanEval/0", "completion": "    return True\n"}) + "\n"
                    + json.dumps({"task_id": "HumanEval/0", "solution": "def has_close_elements(a, b): pass"}) + "\n")
    sols = read_solutions(path, humaneval_problems)
    assert sols["HumanEval/0"][0].endswith("    return True\n") and len(sols["HumanEval/0"]) == 2

    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"task_id": "HumanEval/0", "solution": "x"}) + "\n{broken\n")
    with pytest.raises(SampleFileError, match=r"bad.jsonl:2"):
        read_solutions(bad, humaneval_problems)

    unknown = tmp_path / "unknown.jsonl"
    unknown.write_text(json.dumps({"task_id": "HumanEval/999", "solution": "x"}) + "\n")
    with pytest.raises(SampleFileError, match=r"HumanEval/999"):
        read_solutions(unknown, humaneval_problems)

    tests = tmp_path / "tests.jsonl"
    tests.write_text(json.dumps({"task_id": "HumanEval/0", "asserts": ["assert has_close_elements([], 0.1) == False"]})
                     + "\n")
    assert read_test_samples(tests, humaneval_problems)["HumanEval/0"] == ["has_close_elements([], 0.1) == False"]
