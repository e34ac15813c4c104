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


@needs_data
def test_drop_extra_keeps_the_dataset_problems_with_one_warning(tmp_path, humaneval_problems, capsys):
    path = tmp_path / "samples.jsonl"
    recs = [{"task_id": t, "solution": "x"} for t in ("HumanEval/0", "HumanEval/998", "HumanEval/999",
                                                       "HumanEval/999", "HumanEval/1")]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    with pytest.raises(SampleFileError, match=r"3 samples match no problem"):
        read_solutions(path, humaneval_problems)
    assert capsys.readouterr().err == ""
    sols = read_solutions(path, humaneval_problems, drop_extra=True)
    assert sorted(sols) == ["HumanEval/0", "HumanEval/1"]
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and "dropped 3 samples of 2 problem(s)" in err and "HumanEval/998" in err
    tests = tmp_path / "tests.jsonl"
    tests.write_text("".join(json.dumps({"task_id": t, "asserts": ["assert True"]}) + "\n"
                             for t in ("HumanEval/0", "HumanEval/999")))
    with pytest.raises(SampleFileError, match=r"1 test records match no problem"):
        read_test_samples(tests, humaneval_problems)
    assert list(read_test_samples(tests, humaneval_problems, drop_extra=True)) == ["HumanEval/0"]
    assert "dropped 1 test records of 1 problem(s)" in capsys.readouterr().err


@needs_data
def test_sanitized_mbpp_samples_on_mbpp_plus_keep_its_378_problems(capsys):
    """gpt-3.5-turbo's samples cover sanitized MBPP's 427 problems; MBPP+ has 378 of them."""
    from coderank_evalplus.io.problems import load_problems
    from tests.conftest import SHARED_DATA

    problems = load_problems("mbpp", str(SHARED_DATA))
    path = SHARED_DATA / "extra_mbpp" / "samples" / "gpt-3.5-turbo-0125_mbpp-sanitized_n10_t1.0.jsonl.gz"
    sols = read_solutions(path, problems, drop_extra=True)
    assert len(sols) == len(problems) == 378 and {len(s) for s in sols.values()} == {10}
    assert "dropped 490 samples of 49 problem(s)" in capsys.readouterr().err
