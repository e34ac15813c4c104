"""``coderank-evalplus run --dataset PATH.jsonl``: a stand-in model samples your own problems; they are judged on
the file's tests."""

from __future__ import annotations

import json

from coderank_evalplus.generation.base import Sample

PROBLEMS = [
    {"task_id": "mine/inc", "prompt": 'def inc(x):\n    """>>> inc(1)\n    2\n    """\n', "entry_point": "inc",
     "test": "def check(candidate):\n    assert candidate(5) == 6\n    assert candidate(-1) == 0\n"},
    {"task_id": "mine/neg", "prompt": 'def neg(x):\n    """>>> neg(2)\n    -2\n    """\n', "entry_point": "neg",
     "test": "assert neg(3) == -3\n"},
]


class StandIn:
    """Answers a solution prompt with the right and the wrong sample of the first marker the prompt holds (``""``
    holds in every prompt), every test prompt with a plain assert."""

    is_chat = False

    def __init__(self, answers: list[tuple[str, tuple[str, str]]]) -> None:
        self.answers = answers

    def generate(self, prompts, n, temperature, top_p, max_tokens, stop):
        out = []
        for p in prompts:
            if p.rstrip().endswith("assert"):
                out.append([Sample(" True\n")] * n)
            else:
                pair = next(pair for marker, pair in self.answers if marker in p)
                out.append([Sample(text) for text in pair][:n])
        return out


FUNCTIONS = [("def inc", ("    return x + 1\n", "    return x - 1\n")), ("", ("    return -x\n", "    return x\n"))]
# a method completed from its prompt; a stdin statement answered (LiveCodeBench's base prompt) with a whole program
METHOD_AND_STDIN = [
    ("class Solution", ("        return max(0, *(b - min(prices[:i + 1]) for i, b in enumerate(prices)))\n",
                        "        return max(prices) - min(prices)\n")),
    ("", ("a, b = map(int, input().split())\nprint(a * b)\n",
          "a, b = map(int, input().split())\nprint(abs(a) * abs(b))\n"))]


def test_run_on_your_own_problem_file(tmp_path, monkeypatch):
    from coderank_evalplus.cli import run as run_mod
    from coderank_evalplus.cli.console import main
    from coderank_evalplus.engine.execution.workers import CANDIDATE_LOG_ENV

    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in PROBLEMS))
    monkeypatch.setattr(run_mod, "make_model", lambda *a, **k: StandIn(FUNCTIONS))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(CANDIDATE_LOG_ENV, str(tmp_path / "before.log"))  # run sets it (relative): put it back after
    rc = main(["run", "--dataset", str(path), "--model", "stand-in", "--limit", "0", "--n-samples", "2",
               "--n-test-samples", "1", "--methods", "recommended", "--workers", "1", "--quiet"])
    assert rc == 0
    folder = tmp_path / "coderank_results" / "stand-in-mine.jsonl"
    verdicts = {(r["task_id"], r["sample"]): r["base"] for r in map(json.loads, (folder / "verdicts.jsonl")
                                                                    .read_text().splitlines())}
    assert verdicts == {("mine/inc", 0): True, ("mine/inc", 1): False, ("mine/neg", 0): True, ("mine/neg", 1): False}
    res = json.loads((folder / "rerank_results.json").read_text())
    assert res["methods"]["recommended"]["base"]["pass@1"] == 100.0
    assert res["methods"]["random"]["base"]["pass@1"] == 50.0


def test_run_on_a_method_and_a_stdin_program_of_your_own(tmp_path, monkeypatch):
    """The same file ``rerank`` reads: a method completed from its prompt, a stdin program answered to
    LiveCodeBench's prompt; each judged on its input/output tests."""
    from coderank_evalplus.cli import run as run_mod
    from coderank_evalplus.cli.console import main
    from coderank_evalplus.engine.execution.workers import CANDIDATE_LOG_ENV
    from tests.conftest import REPO

    shapes = [json.loads(line) for line in (REPO / "tests" / "data" / "shapes" / "problems.jsonl").read_text()
              .splitlines()]
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in shapes if r.get("task_id") in ("mine/max_profit",
                                                                                         "mine/product")))
    monkeypatch.setattr(run_mod, "make_model", lambda *a, **k: StandIn(METHOD_AND_STDIN))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(CANDIDATE_LOG_ENV, str(tmp_path / "before.log"))
    rc = main(["run", "--dataset", str(path), "--model", "stand-in", "--limit", "0", "--n-samples", "2",
               "--n-test-samples", "1", "--methods", "recommended", "--workers", "1", "--quiet",
               "--output", str(tmp_path / "out")])
    assert rc == 0
    verdicts = {(r["task_id"], r["sample"]): r["base"] for r in map(json.loads, (tmp_path / "out" / "verdicts.jsonl")
                                                                    .read_text().splitlines())}
    assert verdicts == {("mine/max_profit", 0): True, ("mine/max_profit", 1): False, ("mine/product", 0): True,
                        ("mine/product", 1): False}
