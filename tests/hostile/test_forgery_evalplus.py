"""Forgers through ``evalplus.evaluate --rerank codet`` (issue 25): evalplus's verdicts are its own; our part is
CodeT's ranking, whose pass matrix the engine decides outside the candidates. The engine's forgers (slot and
value-log writers, the expectation hunter) and the always-equal object sit beside the canonical solution: the
pick stays the canonical one. (The judge's descriptor writers are left out: evalplus 0.3.1's own pool hangs on
them, as issue 25 reports.)"""

from __future__ import annotations

import json

import pytest

from tests.conftest import needs_data
from tests.hostile.forgers import ALWAYS_EQUAL, ENGINE_FORGERS, for_entry
from tests.integrations.test_evalplus_integration import BIN, TASKS, _jsonl, _run, data, env, hook_installed  # noqa: F401

FORGER_NAMES = ["slot_writer", "log_forger", "expectation_hunter"]


@needs_data
@pytest.mark.harness
def test_evalplus_rerank_pick_is_not_lifted_by_a_forger(data, env, tmp_path):  # noqa: F811
    problems = {r["task_id"]: r for r in _jsonl(data / "HumanEvalPlus.jsonl")}
    with open(tmp_path / "samples.jsonl", "w") as fh:
        for tid in TASKS:
            p = problems[tid]
            progs = [p["prompt"] + p["canonical_solution"]]
            if tid == TASKS[0]:
                progs += [ENGINE_FORGERS[n] for n in FORGER_NAMES] + [ALWAYS_EQUAL]
            for prog in progs:
                fh.write(json.dumps({"task_id": tid, "solution": for_entry(prog, p["entry_point"])}) + "\n")
    out = _run([str(BIN / "evalplus.evaluate"), "--dataset", "humaneval", "--samples", "samples.jsonl",
                "--parallel", "2", "--rerank", "codet", "--tests", str(data / "tests_ours.jsonl")],
               env, tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    ev = json.loads((tmp_path / "samples_eval_results.json").read_text())["eval"][TASKS[0]]
    assert [r["base_status"] for r in ev][1:4] == ["fail"] * 3  # evalplus's own verdicts on the forgers
    res = json.loads((tmp_path / "samples_rerank_results.json").read_text())
    assert res["timing"]["judged_samples"] == 0
    # CodeT's pick on every task is the canonical solution alone (a forger in its group, judged wrong by
    # evalplus, would bring base pass@1 below 100)
    assert res["methods"]["codet"]["base"]["pass@1"] == 100.0
