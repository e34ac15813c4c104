"""Candidates for one prompt (io/candidates.py): JSON lines, a folder of .py files, raw chat replies."""

from __future__ import annotations

import json

import pytest

from coderank_evalplus.io.candidates import as_program, diagnose, entry_point_fault, read_candidates
from coderank_evalplus.io.jsonl import SampleFileError
from coderank_evalplus.io.problems import problem_from_prompt, problem_of_record

PROBLEM = problem_from_prompt("def inc(x):\n    \"\"\">>> inc(1)\n    2\n    \"\"\"\n")


def test_jsonl_solutions_completions_and_raw_replies(tmp_path):
    path = tmp_path / "c.jsonl"
    recs = [{"solution": "def inc(x):\n    return x + 1\n"}, {"task_id": "ignored", "completion": "    return 2\n"},
            {"raw": "Sure!\n```python\ndef inc(x):\n    return x + 1\n```\nDone."}]
    path.write_text("\n".join(json.dumps(r) for r in recs[:2]) + "\n")
    assert read_candidates(path, PROBLEM) == ([recs[0]["solution"], PROBLEM.prompt + "    return 2\n"],
                                              ["line 1", "line 2"])
    raw = tmp_path / "raw.jsonl"
    raw.write_text(json.dumps(recs[2]) + "\n")
    (program,), _ = read_candidates(raw, PROBLEM, raw_field="raw")
    assert "def inc(x):" in program and "Done." not in program


def test_a_folder_of_py_files_in_natural_order(tmp_path):
    for name, body in (("10.py", "    return 10\n"), ("2.py", "def inc(x):\n    return 2\n"), ("a.txt", "no")):
        (tmp_path / name).write_text(body)
    assert read_candidates(tmp_path, PROBLEM) == (["def inc(x):\n    return 2\n", PROBLEM.prompt + "    return 10\n"],
                                                  ["2.py", "10.py"])


def test_bad_input_is_one_line_naming_file_and_line(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"solution": "x"}) + "\n" + json.dumps({"code": "x"}) + "\n")
    with pytest.raises(SampleFileError, match=r"c.jsonl:2: a candidate needs 'solution' or 'completion'"):
        read_candidates(path, PROBLEM)
    path.write_text(json.dumps({"solution": 3}) + "\n")
    with pytest.raises(SampleFileError, match=r"c.jsonl:1: "):
        read_candidates(path, PROBLEM)
    (tmp_path / "empty").mkdir()
    with pytest.raises(SampleFileError, match="no .py file"):
        read_candidates(tmp_path / "empty", PROBLEM)
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_candidates(tmp_path / "absent.jsonl", PROBLEM)


def test_as_program_keeps_full_programs():
    assert as_program("import os\n\ndef inc(x):\n    return x\n", PROBLEM).startswith("import os")
    assert as_program("    return x\n", PROBLEM) == PROBLEM.prompt + "    return x\n"


METHOD = problem_from_prompt("class Solution:\n    def inc(self, x: int) -> int:\n        \"\"\">>> Solution().inc(1)\n"
                             "        2\n        \"\"\"\n")


@pytest.mark.parametrize("problem, candidate, fault", [
    (PROBLEM, "", "empty"),
    (PROBLEM, "\n  \n", "empty"),
    (PROBLEM, "    return x + 1\n", ""),  # a completion gives the prompt's inc its body
    (PROBLEM, "def inc(x):\n    return x + 1\n", ""),
    (PROBLEM, "inc = lambda x: x + 1\n", ""),  # bound otherwise: it runs
    (PROBLEM, "Here is the answer.", ""),  # does not compile: the sandbox says where
    (PROBLEM, "def other(x):\n    return x + 1\n", "defines no inc"),
    (PROBLEM, "x = 1\n", "defines no inc"),
    (PROBLEM, "# TODO\n", "leaves inc without a body"),
    (PROBLEM, "import math\n\ndef inc(x):\n    \"\"\"Add one.\"\"\"\n", "leaves inc without a body"),
    (PROBLEM, "def inc(x):\n    pass\n", "leaves inc without a body"),
    (METHOD, "", "empty"),
    (METHOD, "        return x + 1\n", ""),
    (METHOD, "class Solution:\n    def inc(self, x):\n        return x + 1\n", ""),
    (METHOD, "def other(x):\n    return x\n", "defines no inc"),
    (METHOD, "class Solution:\n    def other(self, x):\n        return x\n", "defines no inc"),
    (METHOD, "class Solution:\n    def inc(self, x):\n        ...\n", "leaves inc without a body"),
])
def test_what_a_candidate_lacks_before_it_runs(problem, candidate, fault):
    assert entry_point_fault(as_program(candidate, problem), problem) == fault


def test_a_stdin_program_lacks_nothing_but_text():
    stdin = problem_of_record({"task_id": "p", "prompt": "Print the sum of two integers.\n",
                               "public_tests": [{"input": "1 2\n", "output": "3\n"}]}, "p")
    assert [entry_point_fault(c, stdin) for c in ("", " \n", "def other():\n    pass\n", "x = 1\n")] == \
        ["empty", "empty", "", ""]


def test_one_parse_gives_the_fault_and_the_compile_error():
    """``diagnose``: ``entry_point_fault``'s words and, where the program does not compile, the parser's error (what
    ``pick`` refuses with), so that a candidate is parsed once."""
    fault, error = diagnose(as_program("Here is the answer.", PROBLEM), PROBLEM)
    assert fault == "" and isinstance(error, SyntaxError)
    assert diagnose(as_program("def other(x):\n    return x\n", PROBLEM), PROBLEM) == ("defines no inc", None)
    assert diagnose(as_program("    return x + 1\n", PROBLEM), PROBLEM) == ("", None)
    broken = problem_from_prompt("def inc(x):\n")  # a prompt that compiles only with a body: empty, and no program
    fault, error = diagnose(as_program("", broken), broken)
    assert fault == "empty" and isinstance(error, SyntaxError)
