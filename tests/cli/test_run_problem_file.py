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
    """Answers every solution prompt with one right and one wrong body, every test prompt with a plain assert."""

    is_chat = False

    def generate(self, prompts, n, temperature, top_p, max_tokens, stop):
        out = []
        for p in prompts:
            if p.rstrip().endswith("assert"):
                out.append([Sample(" True\n")] * n)
            elif "def inc" in p:
                out.append([Sample("    return x + 1\n"), Sample("    return x - 1\n")][:n])
            else:
                out.append([Sample("    return -x\n"), Sample("    return x\n")][:n])
        return out


def test_run_on_your_own_problem_file(tmp_path, monkeypatch):
    from coderank_evalplus.cli import run as run_mod
    from coderank_evalplus.cli.console import main
    from coderank_evalplus.engine.workers import CANDIDATE_LOG_ENV

    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in PROBLEMS))
    monkeypatch.setattr(run_mod, "make_model", lambda *a, **k: StandIn())
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
