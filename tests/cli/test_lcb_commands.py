"""The command line on LiveCodeBench-schema problems: ``pick --dataset PATH --task-id QID CANDIDATES --json`` (the
public tests as trial tests) and ``rerank --dataset lcb.jsonl`` (its table, verdicts.jsonl per sample)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coderank_evalplus.cli.console import main

DATA = Path(__file__).parents[1] / "data" / "lcb"


def _samples(task_id: str) -> list[dict]:
    return [r for r in map(json.loads, (DATA / "samples.jsonl").read_text().splitlines()) if r["task_id"] == task_id]


def test_pick_a_problem_of_a_problem_file(tmp_path, capsys):
    recs = [r for r in _samples("cf2001_b") if r["kind"] != "hostile"]
    cands = tmp_path / "cands.jsonl"
    cands.write_text("".join(json.dumps({"solution": r["solution"]}) + "\n" for r in recs))
    assert main(["pick", "--dataset", str(DATA / "problems.jsonl"), "--task-id", "cf2001_b", str(cands), "--json", "-",
                 "--workers", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert recs[out["index"]]["kind"] == "right" and out["entry_point"] == "run_stdin"
    assert sum(e["kind"] == "example" for e in out["evidence"]) == 2  # the two public tests


def test_pick_needs_both_dataset_and_task_id(tmp_path, capsys):
    assert main(["pick", "--dataset", str(DATA / "problems.jsonl"), str(tmp_path / "c.jsonl")]) == 2
    assert "--task-id" in capsys.readouterr().err
    assert main(["pick", "--dataset", str(DATA / "problems.jsonl"), "--task-id", "nope", "x.jsonl"]) == 2
    assert "not in" in capsys.readouterr().err


@pytest.mark.slow
def test_rerank_a_livecodebench_file(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["rerank", "--dataset", str(DATA / "problems.jsonl"), "--solutions", str(DATA / "samples.jsonl"),
                 "--limit", "3", "--methods", "recommended", "--output", str(out), "--workers", "2", "--quiet"]) == 0
    assert "recommended" in capsys.readouterr().out
    verdicts = [json.loads(line) for line in (out / "verdicts.jsonl").read_text().splitlines()]
    expected = json.loads((DATA / "lcb_verdicts.json").read_text())
    for tid in ("lc-two-sum", "lc-max-subarray", "lc-palindrome-number"):
        kinds = [r["kind"] for r in _samples(tid)]
        ours = [v["base"] for v in verdicts if v["task_id"] == tid]
        assert [b for b, k in zip(ours, kinds) if k != "hostile"] == expected[tid]
        assert all(v["plus"] == v["base"] for v in verdicts)  # no plus tests: plus is the base verdict
    from coderank_evalplus.io.results_folder import load_folder

    stored = load_folder(out)  # the results folder keeps each problem's shape
    assert [(p.problem.shape, p.problem.callee) for p in stored.problems][:1] == [("method", "Solution().twoSum")]
