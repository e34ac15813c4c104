"""Nothing lost: a rerank killed with SIGKILL mid-execution, rerun, equals an uninterrupted run.

The CLI runs on real CodeT samples (the first solutions and test samples of the first problems of HumanEval) in
its own session, committing every record (``CODERANK_CACHE_COMMIT_S=0``); once the execution cache holds committed
rows the whole session is SIGKILLed (main process and workers at once; the sandbox children die with their
workers). The same command is run again: its results must equal those of an uninterrupted run in another folder,
and only the work missing from the cache may be executed again.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil
import pytest

from coderank_evalplus.engine.execution.execute import ITEM_RECORD
from tests.conftest import SHARED_DATA, needs_data

LIMIT = 2
SOLUTIONS, TEST_SAMPLES = 60, 40  # per problem: execution lasts seconds after the first commit: the kill lands in it


def _write_inputs(d: Path, codet_samples) -> tuple[Path, Path]:
    """The first SOLUTIONS solutions and TEST_SAMPLES test samples of the first LIMIT problems, as jsonl."""
    sols, tests = codet_samples
    tids = [f"HumanEval/{i}" for i in range(LIMIT)]
    solutions, test_file = d / "solutions.jsonl", d / "tests.jsonl"
    solutions.write_text("".join(json.dumps({"task_id": t, "solution": s}) + "\n"
                                 for t in tids for s in sols[t][:SOLUTIONS]))
    test_file.write_text("".join(json.dumps({"task_id": t, "samples": tests[t][:TEST_SAMPLES]}) + "\n"
                                 for t in tids))
    return solutions, test_file


def _cmd(out: Path, inputs: tuple[Path, Path]) -> list[str]:
    return [sys.executable, "-m", "coderank_evalplus.cli", "rerank", "--dataset", "humaneval",
            "--data-dir", str(SHARED_DATA), "--solutions", str(inputs[0]), "--tests", str(inputs[1]),
            "--limit", str(LIMIT), "--methods", "codet,srank,mbr_exec", "--base-only", "--workers", "2",
            "--quiet", "--output", str(out)]


def _rows(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            stored = con.execute("SELECT COALESCE(SUM(LENGTH(records)), 0) FROM item_results").fetchone()[0]
            return stored // ITEM_RECORD.size  # item results stored
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def _outputs(out: Path) -> dict:
    res = json.loads((out / "rerank_results.json").read_text())
    return {"methods": res["methods"], "n_problems": res["n_problems"],
            "rankings": (out / "rankings.jsonl").read_text(), "verdicts": (out / "verdicts.jsonl").read_text()}


def _marked(marker: str) -> list:
    found = []
    for p in psutil.process_iter():
        try:
            if p.pid != os.getpid() and p.environ().get("CODERANK_RESUME_MARKER") == marker \
                    and p.status() != psutil.STATUS_ZOMBIE:
                found.append((p.pid, p.name()))
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            pass
    return found


@needs_data
@pytest.mark.slow
def test_sigkill_mid_execution_then_rerun_equals_uninterrupted(tmp_path, codet_samples):
    inputs = _write_inputs(tmp_path, codet_samples)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]), CODERANK_CACHE_COMMIT_S="0")
    full = tmp_path / "uninterrupted"
    subprocess.run(_cmd(full, inputs), env=env, check=True, capture_output=True, timeout=300)
    expected = _outputs(full)
    total_rows = _rows(full / "cache" / "executions.sqlite")
    total_items = json.loads((full / "rerank_results.json").read_text())["execution"]
    assert total_items["cached_items"] == 0

    out = tmp_path / "killed"
    db = out / "cache" / "executions.sqlite"
    marker = uuid.uuid4().hex
    proc = subprocess.Popen(_cmd(out, inputs), env=dict(env, CODERANK_RESUME_MARKER=marker), start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while _rows(db) == 0 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    time.sleep(0.5)
    assert _marked(marker) == []  # workers and sandbox children went with it
    at_kill = _rows(db)
    assert 0 < at_kill < total_rows, (at_kill, total_rows)
    assert not (out / "rerank_results.json").exists()

    subprocess.run(_cmd(out, inputs), env=env, check=True, capture_output=True, timeout=300)
    got = _outputs(out)
    for key in expected:
        if got[key] != expected[key]:
            import difflib
            print("\n".join(difflib.unified_diff(str(expected[key]).splitlines(), str(got[key]).splitlines(),
                                                 lineterm="", n=0)))
    assert got == expected
    stats = json.loads((out / "rerank_results.json").read_text())["execution"]
    assert stats["cached_items"] > 0
    assert stats["cached_items"] + stats["executed_items"] == total_items["executed_items"]
    assert _rows(db) == total_rows
    print(f"\nrows at kill {at_kill}/{total_rows}; rerun executed {stats['executed_items']}, "
          f"cached {stats['cached_items']}")
