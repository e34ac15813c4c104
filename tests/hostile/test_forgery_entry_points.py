"""Forgers through the entry points that judge (issue 25): ``coderank-evalplus rerank`` (``--strict`` too), the
leaderboard's rows read from its results folder and ``leaderboard --strict`` (``--executor ray``:
test_forgery_ray.py). The engine's forgers are in the pool too: none may lift itself into CodeT's pick. ``run``,
``evalplus.evaluate --rerank`` and the lm-eval tasks reach the judge through the same ``pipeline.rank_and_judge``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SHARED_DATA, needs_data
from tests.hostile.forgers import ALWAYS_EQUAL, ENGINE_FORGERS, HONEST_WRONG, for_entry

TASK = "HumanEval/0"
FORGERS = {n: src for n, src in ENGINE_FORGERS.items() if n != "always_equal"}  # the judge's and the engine's
FORGER_NAMES = sorted(FORGERS)


def _write_inputs(d, problem):
    progs = [problem.prompt + problem.canonical_solution, HONEST_WRONG, ALWAYS_EQUAL] + [
        FORGERS[n] for n in FORGER_NAMES]
    with open(d / "samples.jsonl", "w") as fh:
        for p in progs:
            fh.write(json.dumps({"task_id": TASK, "solution": for_entry(p, problem.entry_point)}) + "\n")
    with open(d / "tests.jsonl", "w") as fh:
        fh.write(json.dumps({"task_id": TASK, "samples": [
            "assert has_close_elements([1.0, 2.0, 3.0], 0.5) == False\n"
            "assert has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3) == True"]}) + "\n")


def _rerank(d, out, *extra):
    return subprocess.run([sys.executable, "-m", "coderank_evalplus.cli", "rerank", "--dataset", "humaneval",
                           "--data-dir", str(SHARED_DATA), "--limit", "1", "--solutions", str(d / "samples.jsonl"),
                           "--tests", str(d / "tests.jsonl"), "--methods", "codet", "--output", str(out),
                           "--cache-dir", str(d / "cache"), "--quiet", "--workers", "2", *extra],
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def rerank_runs(tmp_path_factory, humaneval_problems):
    d = tmp_path_factory.mktemp("forge_cli")
    _write_inputs(d, humaneval_problems[TASK])
    lax, strict = _rerank(d, d / "lax"), _rerank(d, d / "strict", "--strict")
    assert lax.returncode == 0, lax.stderr
    assert strict.returncode == 0, strict.stderr
    return d, lax, strict


def _verdicts(folder):
    return {r["sample"]: (r["base"], r["plus"]) for r in map(json.loads, (folder / "verdicts.jsonl").read_text()
                                                             .splitlines())}


@needs_data
def test_rerank_judges_forgers_wrong_and_lists_the_always_equal_object(rerank_runs):
    d, lax, _ = rerank_runs
    v = _verdicts(d / "lax")
    assert v[0] == (True, True) and v[1] == (False, False)
    assert v[2] == (True, True)  # always-equal: evalplus's verdict
    for k, name in enumerate(FORGER_NAMES, start=3):
        assert v[k] == (False, False), name
    res = json.loads((d / "lax" / "rerank_results.json").read_text())
    assert [(s["task_id"], s["sample"]) for s in res["suspicious"]] == [(TASK, 2)]
    assert "its own == decided" in res["suspicious"][0]["why"]
    assert "suspicious: 1 judged samples" in lax.stdout
    assert res["config"]["strict"] is False


@needs_data
def test_rerank_strict_fails_the_suspicious_pass(rerank_runs):
    d, _, strict = rerank_runs
    v = _verdicts(d / "strict")
    assert v[0] == (True, True) and v[2] == (False, False)
    res = json.loads((d / "strict" / "rerank_results.json").read_text())
    assert res["config"]["strict"] is True and len(res["suspicious"]) == 1
    # CodeT's pick is the canonical solution alone: no forger (nor the always-equal object, whose value the
    # engine does not compare) shares its top group, so the pick is right even where the judge fails the rest
    assert res["methods"]["codet"]["base"]["pass@1"] == 100.0


def _forgers_suite(tmp_path, dataset: str, d) -> Path:
    """A one-entry suite over the forgers' samples and tests in ``d``, reranked with CodeT."""
    suite = tmp_path / "suite.toml"
    suite.write_text(f"""methods = ["codet"]
data_dir = "{SHARED_DATA}"
[[entry]]
name = "forgers"
dataset = "{dataset}"
solutions = "{d / 'samples.jsonl'}"
tests = "{d / 'tests.jsonl'}"
tests_label = "t"
""")
    return suite


def _leaderboard(d, *args: str) -> subprocess.CompletedProcess:
    """``coderank-evalplus leaderboard ARGS`` on the first problem, with ``d``'s cache, quiet, no curves."""
    return subprocess.run([sys.executable, "-m", "coderank_evalplus.cli", "leaderboard", *args, "--limit", "1",
                           "--cache-dir", str(d / "cache"), "--quiet", "--no-curves", "--workers", "2"],
                          capture_output=True, text=True, timeout=600)


@needs_data
def test_leaderboard_strict_judges_its_suite_strictly(rerank_runs, tmp_path):
    d, _, _ = rerank_runs
    suite = _forgers_suite(tmp_path, "humaneval", d)

    def board(*extra):
        return _leaderboard(d, *extra)

    lax = board(str(suite), "--output", str(tmp_path / "lax"))
    strict = board(str(suite), "--output", str(tmp_path / "strict"), "--strict")
    assert lax.returncode == 0 and strict.returncode == 0, (lax.stderr[-2000:], strict.stderr[-2000:])
    [lax_run] = list((tmp_path / "lax" / "runs").iterdir())
    [strict_run] = list((tmp_path / "strict" / "runs").iterdir())
    assert _verdicts(lax_run)[2] == (True, True) and _verdicts(strict_run)[2] == (False, False)
    folders = board(str(lax_run), "--output", str(tmp_path / "again"), "--strict")
    assert folders.returncode != 0 and "--strict needs a suite" in folders.stderr


@needs_data
def test_leaderboard_row_flags_the_suspicious_sample(rerank_runs):
    from coderank_evalplus.io.results_folder import load_folder
    from coderank_evalplus.report.board import Entry
    from coderank_evalplus.report.leaderboard import build_row

    d, _, _ = rerank_runs
    run = load_folder(d / "lax")
    row, _ = build_row(Entry("forgers", d / "lax"), run, ["random", "codet", "oracle"], ["random"], 50, 0)
    assert row["suspicious"] == 1


# the original tests (issue 33): plain HumanEval's check() and sanitized MBPP's asserts, through rerank and the
# leaderboard; the first problem of each, with asserts for CodeT of our own
ORIGINAL = {
    "humaneval-original": ("HumanEval/0", ["assert has_close_elements([1.0, 2.0, 3.0], 0.5) == False\n"
                                           "assert has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3) == True"]),
    "mbpp-sanitized": ("Mbpp/2", ["assert set(similar_elements((3, 4, 5, 6), (5, 7, 4, 10))) == {4, 5}\n"
                                  "assert set(similar_elements((1, 2, 3, 4), (5, 4, 3, 7))) == {3, 4}"]),
}


@pytest.fixture(scope="module", params=sorted(ORIGINAL))
def original_runs(request, tmp_path_factory):
    from coderank_evalplus.io.problems import load_problems

    dataset = request.param
    task, tests = ORIGINAL[dataset]
    problem = load_problems(dataset, str(SHARED_DATA))[task]
    d = tmp_path_factory.mktemp("forge_" + dataset)
    progs = [problem.prompt + problem.canonical_solution if dataset == "humaneval-original"
             else problem.canonical_solution, HONEST_WRONG, ALWAYS_EQUAL] + [FORGERS[n] for n in FORGER_NAMES]
    with open(d / "samples.jsonl", "w") as fh:
        for p in progs:
            fh.write(json.dumps({"task_id": task, "solution": for_entry(p, problem.entry_point)}) + "\n")
    (d / "tests.jsonl").write_text(json.dumps({"task_id": task, "samples": tests}) + "\n")
    runs = {}
    for mode in ("lax", "strict"):
        out = subprocess.run([sys.executable, "-m", "coderank_evalplus.cli", "rerank", "--dataset", dataset,
                              "--data-dir", str(SHARED_DATA), "--limit", "1", "--solutions", str(d / "samples.jsonl"),
                              "--tests", str(d / "tests.jsonl"), "--methods", "codet", "--output", str(d / mode),
                              "--cache-dir", str(d / "cache"), "--quiet", "--workers", "2",
                              *(["--strict"] if mode == "strict" else [])],
                             capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr[-3000:]
        runs[mode] = out
    return dataset, task, d


@needs_data
def test_rerank_on_the_original_tests_judges_every_forger_wrong(original_runs):
    dataset, task, d = original_runs
    for mode in ("lax", "strict"):
        v = _verdicts(d / mode)
        assert v[0][0] is True and v[1][0] is False, (dataset, mode)
        for k, name in enumerate(FORGER_NAMES, start=3):
            assert v[k][0] is False, (dataset, mode, name)
        res = json.loads((d / mode / "rerank_results.json").read_text())
        listed = {s["sample"] for s in res["suspicious"]}
        assert listed <= {2} and (v[2][0] is False or (mode == "lax" and listed == {2})), (dataset, mode)
        # CodeT's pick is the canonical solution alone: no forger lifts itself into its top group
        assert res["methods"]["codet"]["base"]["pass@1"] == 100.0, (dataset, mode)


@needs_data
def test_leaderboard_on_the_original_tests_scores_the_forgers_wrong(original_runs, tmp_path):
    dataset, task, d = original_runs
    suite = _forgers_suite(tmp_path, dataset, d)
    out = _leaderboard(d, str(suite), "--strict", "--output", str(tmp_path / "board"))
    assert out.returncode == 0, out.stderr[-3000:]
    [run] = list((tmp_path / "board" / "runs").iterdir())
    v = _verdicts(run)
    assert v[0][0] is True and not any(v[k][0] for k in range(1, 3 + len(FORGER_NAMES))), dataset
