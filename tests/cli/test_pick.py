"""``coderank-evalplus pick``: a prompt file and a candidates file; the chosen program and why, or JSON."""

from __future__ import annotations

import json

import pytest

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


# --- a problem file of every shape, and replies with nothing of their own to run --------------------------------
SHAPED = {  # task id → (problem record, a right candidate, a full program that does not compile at its line 3)
    "mine/inc": ({"entry_point": "inc", "prompt": 'def inc(x: int) -> int:\n    """Return x plus one.\n    >>> inc(1)'
                  '\n    2\n    """\n', "test": "assert inc(1) == 2\nassert inc(-1) == 0\n"},
                 "def inc(x):\n    return x + 1\n", "def inc(x):\n    y = x\n    return y +\n"),
    "mine/two_sum": ({"entry_point": "twoSum", "prompt": "from typing import List\n\n\nclass Solution:\n    def twoSum("
                      "self, nums: List[int], target: int) -> List[int]:\n        \"\"\"The indices of the two numbers"
                      " that add up to target.\n\n        Example 1:\n        Input: nums = [2,7,11,15], target = 9\n"
                      "        Output: [0,1]\n        \"\"\"\n",
                      "test": "assert Solution().twoSum([3, 3], 6) == [0, 1]\n"},
                     "class Solution:\n    def twoSum(self, nums, target):\n        seen = {}\n        for i, x in "
                     "enumerate(nums):\n            if target - x in seen:\n                return [seen[target - x],"
                     " i]\n            seen[x] = i\n",
                     "class Solution:\n    def twoSum(self, nums, target):\n        return [0,\n"),
    "mine/product": ({"prompt": "Read two integers a and b from one line of standard input and print their product.\n",
                      "public_tests": [{"input": "2 3\n", "output": "6\n"}],
                      "private_tests": [{"input": "-2 3\n", "output": "-6\n"}]},
                     "a, b = map(int, input().split())\nprint(a * b)\n",
                     "a, b = map(int, input().split())\nc = a * b\nprint(c))\n"),
}
REPLIES = {"empty": "", "prose": "Here is my solution: it does what the statement asks.",
           "other": "def other(x):\n    return x\n", "assign": "x = 1\n"}


def _shaped_files(tmp_path):
    problems = tmp_path / "problems.jsonl"
    problems.write_text("".join(json.dumps({"task_id": tid, **rec}) + "\n" for tid, (rec, _, _) in SHAPED.items()))
    files = {}
    for tid, (_, right, broken) in SHAPED.items():
        nothing = REPLIES if "entry_point" in SHAPED[tid][0] else {k: REPLIES[k] for k in ("empty", "prose")}
        for label, replies in (("all", {"right": right, "broken": broken, **REPLIES}), ("none", nothing)):
            files[tid, label] = tmp_path / f"{tid.split('/')[1]}_{label}.jsonl"
            files[tid, label].write_text("".join(json.dumps({"name": name, "solution": text}) + "\n"
                                                 for name, text in replies.items()))
    return problems, files


@pytest.mark.slow
def test_pick_says_each_candidates_problem_in_its_own_terms_on_every_shape(tmp_path, capsys):
    """A one-line prose reply fails at its line 1 (after the prompt, where the prompt was put first), not at a line
    of the program built around it; an empty reply is empty; a reply without the entry point says so; when no
    candidate defines it: the documented error, exit status 2."""
    problems, files = _shaped_files(tmp_path)
    for tid, entry in (("mine/inc", "inc"), ("mine/two_sum", "twoSum"), ("mine/product", None)):
        args = ["pick", "--dataset", str(problems), "--task-id", tid, "--workers", "1"]
        assert main([*args, str(files[tid, "all"])]) == 0
        out = capsys.readouterr().out
        lost = {line.split(": ", 1)[0]: line.split(": ", 1)[1] for line in
                (line.removeprefix("# - lost: ") for line in out.splitlines() if line.startswith("# - lost: "))}
        assert out.startswith("# right (candidate 0 of 6")
        after = " after the prompt" if entry else ""  # a stdin program is its own text
        assert lost["prose"] == f"does not run: SyntaxError at line 1{after}: invalid syntax"
        assert lost["broken"].startswith("does not run: SyntaxError at line 3: ")
        assert lost["empty"] == "empty"
        if entry:
            assert lost["other, assign"] == f"defines no {entry}"
        else:  # a program that defines a function, or sets x, is a stdin program: it prints nothing
            assert lost["other, assign"].startswith("fail an example of the prompt") and "(other prints nothing)" in out
        assert "<candidate>" not in out and "IndentationError" not in out

        assert main([*args, str(files[tid, "none"])]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: no candidate defines {entry} (empty: empty; prose: does not compile "
                              f"(SyntaxError at line 1{after}: invalid syntax); other: defines no {entry} …)"
                              if entry else "error: no candidate is a program (empty: empty; prose: does not compile"
                              " (SyntaxError at line 1: invalid syntax))")


@pytest.mark.slow
def test_rerank_keeps_the_verdicts_of_replies_without_a_program(tmp_path, capsys):
    """The same replies through rerank: each fails, as evalplus fails a sample without the entry point; the right
    ones pass."""
    problems, files = _shaped_files(tmp_path)
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps({"task_id": tid, "solution": json.loads(line)["solution"]}) + "\n"
                               for tid in SHAPED for line in files[tid, "all"].read_text().splitlines()))
    assert main(["rerank", "--dataset", str(problems), "--solutions", str(samples), "--output",
                 str(tmp_path / "out"), "--workers", "1", "--methods", "recommended"]) == 0
    verdicts = [json.loads(line) for line in (tmp_path / "out" / "verdicts.jsonl").read_text().splitlines()]
    names = ["right", "broken", *REPLIES]
    assert {(v["task_id"], names[v["sample"]]) for v in verdicts if v["base"]} == {(tid, "right") for tid in SHAPED}
    assert len(verdicts) == len(SHAPED) * len(names)


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
