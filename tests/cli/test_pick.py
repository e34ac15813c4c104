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
    assert "# why:" in out and "examples of the prompt" in out


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
