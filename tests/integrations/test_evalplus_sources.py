"""``evalplus.evaluate --rerank`` judges nothing itself whatever file evalplus read its dataset from.

In process, with a stand-in for evalplus's ``evaluate`` that writes its results file the way evalplus does, with
evalplus's own problems and evalplus's own hash function at that moment (the real evaluation waits ~20 s for a
watchdog thread and needs samples for every problem; ``test_evalplus_integration.py`` runs it once, with an
override path and CODERANK_DATA both set). One case per dataset source: evalplus's cache, ``HUMANEVAL_OVERRIDE_PATH``
and ``MBPP_OVERRIDE_PATH`` (gunzipped, or the release .gz), CODERANK_DATA alone; HumanEval+ and MBPP+.
"""

from __future__ import annotations

import inspect
import json

import pytest

from tests.conftest import needs_data
from tests.io.test_problems import HE_OLD_GZ, SOURCES, evalplus_state

TASKS = {"humaneval": ("HumanEval/0", "HumanEval/2"), "mbpp": ("Mbpp/2", "Mbpp/3")}


def _stand_in_for_evalplus(written_hash=None):
    """evalplus.evaluate's signature; writes ``<samples>_eval_results.json`` as evalplus does: its hash, its
    problems' prompts, one record per sample in order (pass: the canonical solution; fail: anything else)."""
    import evalplus.evaluate as ev
    from evalplus.data import load_solutions

    def evaluate(dataset, samples=None, **_):
        he = dataset == "humaneval"
        problems = ev.get_human_eval_plus() if he else ev.get_mbpp_plus()
        dataset_hash = written_hash or (ev.get_human_eval_plus_hash() if he else ev.get_mbpp_plus_hash())
        records: dict[str, list] = {}
        for s in load_solutions(samples):
            p = problems[s["task_id"]]
            status = "pass" if s["solution"] == p["prompt"] + p["canonical_solution"] else "fail"
            records.setdefault(s["task_id"], []).append(
                {"task_id": s["task_id"], "solution": s["solution"], "base_status": status, "plus_status": status,
                 "base_fail_tests": [], "plus_fail_tests": []})
        with open(samples.replace(".jsonl", "_eval_results.json"), "w") as fh:
            json.dump({"date": "2026-01-01 00:00", "hash": dataset_hash, "eval": records}, fh)

    evaluate.__signature__ = inspect.signature(ev.evaluate.__dict__.get("__coderank_original__", ev.evaluate))
    return evaluate


def _inputs(dataset: str, tmp_path):
    """Two samples per task (the canonical solution, a wrong one) and the task's trial test as its test sample."""
    from coderank_evalplus.io.problems import load_problems

    problems = load_problems(dataset)
    samples, tests = tmp_path / "samples.jsonl", tmp_path / "tests.jsonl"
    with open(samples, "w") as fh, open(tests, "w") as th:
        for tid in TASKS[dataset]:
            p = problems[tid]
            for sol in (p.prompt + p.canonical_solution, p.prompt + "    return None\n"):
                fh.write(json.dumps({"task_id": tid, "solution": sol}) + "\n")
            th.write(json.dumps({"task_id": tid, "asserts": list(p.trial_tests)}) + "\n")
    return samples, tests


def _rerank(dataset, tmp_path, evaluate):
    from coderank_evalplus.integrations.evalplus import make_evaluate

    samples, tests = _inputs(dataset, tmp_path)
    make_evaluate(evaluate, {})(dataset, samples=str(samples), parallel=1, rerank="codet", tests=str(tests))
    return json.loads((tmp_path / "samples_rerank_results.json").read_text())


@needs_data
@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.slow
def test_evalplus_verdicts_are_used_whatever_the_source(source, monkeypatch, tmp_path, capsys):
    dataset = evalplus_state(monkeypatch, tmp_path, source)
    res = _rerank(dataset, tmp_path, _stand_in_for_evalplus())
    assert res["timing"]["verdicts_from"] == str(tmp_path / "samples_eval_results.json"), capsys.readouterr().err
    assert res["timing"]["judged_samples"] == 0
    assert "not using evalplus's verdicts" not in capsys.readouterr().err
    for split in ("base", "plus"):  # the stand-in's verdicts: one of two samples passes per task
        assert res["methods"]["random"][split]["pass@1"] == 50.0
        assert res["methods"]["oracle"][split]["pass@1"] == 100.0


@needs_data
@pytest.mark.slow
def test_results_about_another_dataset_version_are_still_refused(monkeypatch, tmp_path, capsys):
    import hashlib

    dataset = evalplus_state(monkeypatch, tmp_path, "humaneval:cache")
    other = hashlib.md5(HE_OLD_GZ.read_bytes()).hexdigest()  # what evalplus writes when it reads v0.1.9
    res = _rerank(dataset, tmp_path, _stand_in_for_evalplus(written_hash=other))
    err = capsys.readouterr().err
    assert "not using evalplus's verdicts, judging the samples instead" in err and other in err
    assert res["timing"]["verdicts_from"] == "judge" and res["timing"]["judged_samples"] == 4
    # our judge agrees with the stand-in on these samples (the canonical solution passes, `return None` fails)
    assert res["methods"]["random"]["base"]["pass@1"] == 50.0


@needs_data
@pytest.mark.parametrize("source", ["humaneval:cache", "mbpp:override_jsonl"])
@pytest.mark.slow
def test_rerank_cli_takes_what_evalplus_wrote_from_another_form_of_the_release(source, monkeypatch, tmp_path):
    """``coderank-evalplus rerank --eval-results``, reading the .gz release through CODERANK_DATA, takes the
    verdicts evalplus wrote when it read the same release decompressed (its cache, a gunzipped override)."""
    from coderank_evalplus.cli.console import main

    dataset = evalplus_state(monkeypatch, tmp_path, source)
    evalplus_run = _rerank(dataset, tmp_path, _stand_in_for_evalplus())
    out = tmp_path / "cli"
    assert main(["rerank", "--dataset", dataset, "--solutions", str(tmp_path / "samples.jsonl"), "--tests",
                 str(tmp_path / "tests.jsonl"), "--methods", "codet", "--output", str(out), "--workers", "1",
                 "--quiet", "--eval-results", str(tmp_path / "samples_eval_results.json")]) == 0
    cli = json.loads((out / "rerank_results.json").read_text())
    assert cli["timing"]["judged_samples"] == 0 and cli["timing"]["verdicts_from"] != "judge"
    assert cli["methods"] == evalplus_run["methods"]
