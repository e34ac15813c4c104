"""``coderank-evalplus pick``: a prompt file and a candidates file; the chosen program and why, or JSON."""

from __future__ import annotations

import json

from coderank_evalplus.cli.console import main

PROMPT = 'def add(a, b):\n    """>>> add(1, 2)\n    3\n    """\n'


def _files(tmp_path):
    prompt = tmp_path / "prompt.py"
    prompt.write_text(PROMPT)
    cands = tmp_path / "cands.jsonl"
    cands.write_text("".join(json.dumps({"completion": c}) + "\n" for c in
                             ("    return a - b\n", "    return a + b\n", "    return b + a\n")))
    return prompt, cands


def test_pick_prints_the_program_and_the_reasons(tmp_path, capsys):
    prompt, cands = _files(tmp_path)
    assert main(["pick", str(prompt), str(cands), "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# line 2 (candidate 1 of 3, counting from 0) from ")
    assert "    return a + b" in out and "return a - b" not in out
    assert "# why:" in out and "# - it passes the example of the prompt\n" in out  # one example: said as one


def test_pick_json_and_tests_file(tmp_path, capsys):
    prompt, cands = _files(tmp_path)
    tests = tmp_path / "tests.py"
    tests.write_text("assert add(2, 2) == 4\n")
    assert main(["pick", str(prompt), str(cands), "--tests", str(tests), "--json", "-", "--workers", "1"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["index"] == 1 and res["group"] == [1, 2] and res["entry_point"] == "add"
    assert {"kind": "test", "text": "assert add(2, 2) == 4", "pick_passes": True, "agree": 2, "separates": True} \
        in res["evidence"]
    assert 0 < res["confidence"]["base"] < 1 and res["reasons"]
    assert "no input was grown from the examples" in "\n".join(res["reasons"])  # the file replaced them: said


def test_pick_tests_file_and_examples_mutate_together(tmp_path, capsys):
    """``--tests FILE,examples+mutate`` (as ``pick --help`` shows): the file's asserts and the grown inputs both."""
    prompt, cands = _files(tmp_path)
    tests = tmp_path / "tests.py"
    tests.write_text("assert add(2, 2) == 4\n")
    assert main(["pick", str(prompt), str(cands), "--tests", f"{tests},examples+mutate", "--json", "-",
                 "--workers", "1"]) == 0
    res = json.loads(capsys.readouterr().out)
    kinds = {e["kind"] for e in res["evidence"]}
    assert {"test", "grown"} <= kinds
    assert not any("no input was grown" in r for r in res["reasons"])


def test_bad_input_is_one_line(tmp_path, capsys):
    prompt, cands = _files(tmp_path)
    cands.write_text(json.dumps({"completion": "    return a + b\n"}) + "\n{oops\n")
    assert main(["pick", str(prompt), str(cands)]) == 2
    assert capsys.readouterr().err.strip() == f"error: {cands}:2: not valid JSON (Expecting property name " \
                                              "enclosed in double quotes, column 2): '{oops'"
    assert main(["pick", str(tmp_path / "nope.py"), str(cands)]) == 2
    assert capsys.readouterr().err.strip() == f"error: prompt {tmp_path / 'nope.py'}: no such file"
    prose = tmp_path / "prose.jsonl"
    prose.write_text(json.dumps({"completion": "Use the plus sign."}) + "\n")
    assert main(["pick", str(prompt), str(prose)]) == 2
    assert capsys.readouterr().err.startswith("error: no candidate defines add (line 1: ")
    _, good = _files(tmp_path)
    assert main(["pick", str(prompt), str(good), "--tests", str(prose)]) == 2
    assert "a test record needs 'samples' or 'asserts'" in capsys.readouterr().err
    prompt.write_text("no function here\n")
    assert main(["pick", str(prompt), str(cands)]) == 2
    assert "defines no function" in capsys.readouterr().err


def test_pick_help_shows_how_to_have_a_tests_file_and_grown_inputs(capsys):
    """``pick --help``: recommended already includes the selection step (no ``recommended+select`` suggested), and
    a test file's place beside the grown inputs is said, with the spelling that keeps both."""
    import pytest

    with pytest.raises(SystemExit) as done:
        main(["pick", "--help"])
    assert done.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "recommended+select" not in out and "recommended includes the model-free selection step" in out
    assert "replaces the grown inputs" in out and "--tests asserts.py,examples+mutate" in out
