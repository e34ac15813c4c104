"""Verdicts read from evalplus's ``*_eval_results.json``, used only when the file is about these very samples."""

import json

from coderank_evalplus.engine.judging.judge import Verdict
from coderank_evalplus.io.eval_results import evalplus_results_path, read_verdicts
from coderank_evalplus.types import Problem

PROB = Problem(task_id="T/0", dataset="humaneval", prompt="def add(a, b):\n", entry_point="add",
               canonical_solution="    return a + b\n", base_input=[[1, 2]], plus_input=[[5, 5]], dataset_hash="h1")
PROBLEMS = {"T/0": PROB}
PROGS = ["def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a - b\n", "def add(a, b):\n    return 3\n"]
STATUSES = [("pass", "pass"), ("fail", "pass"), ("pass", "fail")]


def _write(path, progs=PROGS, statuses=STATUSES, dataset_hash="h1", task="T/0"):
    recs = [{"task_id": task, "solution": p, "base_status": b, "plus_status": pl, "base_fail_tests": [],
             "plus_fail_tests": []} for p, (b, pl) in zip(progs, statuses)]
    path.write_text(json.dumps({"date": "2024-01-01 00:00", "hash": dataset_hash, "eval": {task: recs}}))
    return path


def test_matching_file_gives_each_samples_verdict(tmp_path):
    verdicts, why = read_verdicts(_write(tmp_path / "r.json"), PROBLEMS, {"T/0": PROGS}, plus=True)
    assert why == ""
    # plus means base and plus pass, as evalplus counts its plus pass@k (it runs the plus tests after a base
    # failure too)
    assert verdicts == {"T/0": [Verdict(True, True), Verdict(False, False), Verdict(True, False)]}
    verdicts, _ = read_verdicts(tmp_path / "r.json", PROBLEMS, {"T/0": PROGS}, plus=False)
    assert verdicts == {"T/0": [Verdict(True, None), Verdict(False, None), Verdict(True, None)]}


def test_file_about_other_samples_is_refused_with_the_reason(tmp_path):
    cases = {
        "dataset 'h2'": _write(tmp_path / "hash.json", dataset_hash="h2"),
        "2 judged samples, the samples file 3": _write(tmp_path / "count.json", progs=PROGS[:2]),
        "sample 1: judged program differs": _write(tmp_path / "text.json", progs=[PROGS[0], "x", PROGS[2]]),
        "no results for T/0": _write(tmp_path / "task.json", task="T/1"),
        "no such file": tmp_path / "missing.json",
    }
    for expected, path in cases.items():
        verdicts, why = read_verdicts(path, PROBLEMS, {"T/0": PROGS}, plus=True)
        assert verdicts is None and expected in why and str(path) in why, (expected, why)
    (tmp_path / "bad.json").write_text("{not json")
    verdicts, why = read_verdicts(tmp_path / "bad.json", PROBLEMS, {"T/0": PROGS}, plus=True)
    assert verdicts is None and "not an evalplus results file" in why


def test_base_only_file_serves_base_only(tmp_path):
    path = _write(tmp_path / "b.json", statuses=[("pass", None), ("fail", None), ("pass", None)])
    assert read_verdicts(path, PROBLEMS, {"T/0": PROGS}, plus=False)[0] == {
        "T/0": [Verdict(True, None), Verdict(False, None), Verdict(True, None)]}
    verdicts, why = read_verdicts(path, PROBLEMS, {"T/0": PROGS}, plus=True)
    assert verdicts is None and "base tests only" in why


def test_results_path_follows_evalplus(tmp_path):
    assert evalplus_results_path("runs/s.jsonl") == evalplus_results_path("runs/s.jsonl")
    assert str(evalplus_results_path("runs/s.jsonl")) == "runs/s_eval_results.json"
    assert evalplus_results_path(tmp_path) == tmp_path / "eval_results.json"


def test_either_form_of_the_release_is_the_same_dataset(tmp_path):
    """evalplus hashes the bytes of the file it read: the release .gz and its decompressed text (evalplus's cache)
    hash differently; a problem knows both, and nothing else."""
    from dataclasses import replace

    problems = {"T/0": replace(PROB, dataset_hash="gz", dataset_hash_aliases=frozenset({"text"}))}
    for h in ("gz", "text"):
        verdicts, why = read_verdicts(_write(tmp_path / f"{h}.json", dataset_hash=h), problems, {"T/0": PROGS}, True)
        assert why == "" and len(verdicts["T/0"]) == 3
    verdicts, why = read_verdicts(_write(tmp_path / "o.json", dataset_hash="other"), problems, {"T/0": PROGS}, True)
    assert verdicts is None and "judged on dataset 'other', these samples are for dataset gz" in why
    verdicts, why = read_verdicts(_write(tmp_path / "e.json", dataset_hash=""), problems, {"T/0": PROGS}, True)
    assert verdicts is None and "judged on dataset ''" in why
