"""Results folders: what rerank writes reads back identically, and old, future or damaged folders are named."""

from __future__ import annotations

import json

import numpy as np
import pytest

from coderank_evalplus.engine.judging.judge import Verdict
from coderank_evalplus.io.results_folder import ResultsFolderError, load_folder
from coderank_evalplus.pipeline import ProblemOutcome, RerankResult, write_results
from coderank_evalplus.types import Problem, Ranking
from tests.rankers.helpers import make_executions


def _result() -> RerankResult:
    outcomes, problems = {}, {}
    for t in range(2):
        tid = f"HumanEval/{t}"
        ex = make_executions(passes=[[1, 0], [0, 1], [1, 0]], outputs=[[5, 6], [7, 6], [5, 6]],
                             trial=[[0], [1], [0]], program_ids=[0, 1, 0], assert_input=[0, 1])
        ex.task_id = tid
        ex.suite.sample_asserts = [[0, 1], [0], []]
        canonical = make_executions(passes=[[1, 1]], outputs=[[5, 6]])
        problems[tid] = Problem(task_id=tid, dataset="humaneval", prompt=f"def f{t}(x):\n", entry_point=f"f{t}",
                                trial_tests=("assert f(1) == 1",))
        out = ProblemOutcome(tid, 3, ex.suite, rankings={"codet": Ranking()}, executions=ex, canonical=canonical,
                             hidden=(np.array([[1, 2], [3, 4]]), np.zeros((2, 2), dtype=np.uint8)) if t else None)
        out.verdicts = {0: Verdict(True, False), 1: Verdict(False, False), 2: Verdict(True, True)}
        outcomes[tid] = out
    return RerankResult("humaneval", 2, {}, outcomes, {"seed": 3}, {}, problems)


def test_a_run_without_plus_inputs_has_no_plus_split(tmp_path):
    # plus verdicts equal base where a problem has no plus inputs; the run's own table (plus: None) says so
    result = _result()
    result.methods = {"random": {"base": {"pass@1": 50.0}, "plus": None, "uses_prompt_examples": False}}
    write_results(result, tmp_path)
    assert not load_folder(tmp_path).has_plus


def test_written_folder_reads_back_identically(tmp_path):
    result = _result()
    write_results(result, tmp_path)
    run = load_folder(tmp_path)
    assert run.dataset == "humaneval" and run.seed == 3 and run.has_plus
    assert [p.problem.task_id for p in run.problems] == ["HumanEval/0", "HumanEval/1"]
    for sp, (tid, o) in zip(run.problems, result.outcomes.items()):
        for name in ("program_of_candidate", "pass_matrix", "output_matrix", "output_kind", "trial_matrix",
                     "compiled", "assert_counts"):
            assert np.array_equal(getattr(sp.executions, name), getattr(o.executions, name)), name
        assert sp.executions.suite == o.suite
        assert sp.problem.entry_point == result.problems[tid].entry_point
        assert sp.problem.trial_tests == ("assert f(1) == 1",)
        assert sp.verdict_base.tolist() == [1, 0, 1] and sp.verdict_plus.tolist() == [0, 0, 1]
        assert np.array_equal(sp.canonical.pass_matrix, o.canonical.pass_matrix)
    assert run.problems[0].hidden is None and run.problems[1].hidden[0].tolist() == [[1, 2], [3, 4]]
    summary = json.loads((tmp_path / "rerank_results.json").read_text())
    assert summary["layout"] == {"name": "coderank-results", "version": 1}
    assert summary["task_ids"] == ["HumanEval/0", "HumanEval/1"]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # written through renames


def test_a_problem_file_of_ones_own_is_named_not_called_humaneval_or_livecodebench(tmp_path):
    """Each record names the problem file the run read; the prompt family its problems were read in (a stdin
    program's is LiveCodeBench's) still comes back from the folder."""
    from dataclasses import replace

    from coderank_evalplus.io.problem_fields import LIVECODEBENCH

    result = _result()
    result.dataset = "bench/my_problems.jsonl"
    result.problems["HumanEval/1"] = replace(result.problems["HumanEval/1"], dataset=LIVECODEBENCH)
    write_results(result, tmp_path)
    records = [json.loads(line) for line in (tmp_path / "problems.jsonl").read_text().splitlines()]
    assert [r["dataset"] for r in records] == ["bench/my_problems.jsonl"] * 2
    run = load_folder(tmp_path)
    assert run.dataset == "bench/my_problems.jsonl"
    assert [p.problem.dataset for p in run.problems] == ["humaneval", LIVECODEBENCH]


def test_only_the_asked_problems(tmp_path):
    write_results(_result(), tmp_path)
    assert [p.problem.task_id for p in load_folder(tmp_path, ["HumanEval/1"]).problems] == ["HumanEval/1"]


def test_folder_of_an_older_version_says_how_to_complete_it(tmp_path):
    (tmp_path / "rerank_results.json").write_text(json.dumps({"dataset": "humaneval", "methods": {}}))
    with pytest.raises(ResultsFolderError, match="older version.*run the same `coderank-evalplus rerank`"):
        load_folder(tmp_path)
    with pytest.raises(ResultsFolderError, match="not a results folder"):
        load_folder(tmp_path / "nothing")


def test_newer_layout_and_damaged_matrices_are_named(tmp_path):
    write_results(_result(), tmp_path)
    summary = json.loads((tmp_path / "rerank_results.json").read_text())
    (tmp_path / "matrices.npz").write_bytes(b"PK\x03\x04 not a zip archive")
    with pytest.raises(ResultsFolderError, match=f"{tmp_path}: damaged results folder"):
        load_folder(tmp_path)
    summary["layout"]["version"] = 99
    (tmp_path / "rerank_results.json").write_text(json.dumps(summary))
    with pytest.raises(ResultsFolderError, match="version 99 is newer"):
        load_folder(tmp_path)
