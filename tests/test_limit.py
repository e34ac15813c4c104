"""`--limit N` takes the dataset's first N problems, whatever the order of the input files (issue 17)."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from coderank_evalplus.io.samples import codet_prompt_index, read_jsonl
from tests.conftest import CODET_SOLUTIONS, CODET_TESTS, SHARED_DATA, needs_data

# CodeT's files list HumanEval/0, /1, /10, /100, … (string order): /10 and /100 come before /2
TASKS = ["HumanEval/0", "HumanEval/1", "HumanEval/2", "HumanEval/3", "HumanEval/10", "HumanEval/100"]
N = 10  # samples kept per problem (real CodeGen-16B samples, a few so that the test stays fast)


def _codet_records(path, problems) -> dict[str, dict]:
    index = codet_prompt_index(problems, str(SHARED_DATA))
    out = {}
    for _, rec in read_jsonl(path):
        tid = index.get(rec["prompt"])
        if tid in TASKS:
            out[tid] = {"prompt": rec["prompt"], "samples": rec["samples"][:N]}
    return out


def _write(path, records) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def _rerank(solutions, tests, out, cache, limit):
    return subprocess.run([sys.executable, "-m", "coderank_evalplus.cli", "rerank", "--dataset", "humaneval",
                           "--data-dir", str(SHARED_DATA), "--solutions", str(solutions), "--tests", str(tests),
                           "--limit", str(limit), "--methods", "codet,srank", "--workers", "2", "--quiet",
                           "--output", str(out), "--cache-dir", str(cache)],
                          capture_output=True, text=True, timeout=600)


def _outputs(out) -> dict:
    res = json.loads((out / "rerank_results.json").read_text())
    return {"task_ids": res["task_ids"], "n_problems": res["n_problems"], "methods": res["methods"],
            "limit": res["config"]["limit"], "verdicts": (out / "verdicts.jsonl").read_text(),
            "rankings": (out / "rankings.jsonl").read_text()}


@needs_data
@pytest.mark.slow
def test_shuffled_solutions_give_the_same_subset_and_numbers(tmp_path, humaneval_problems):
    sols = _codet_records(CODET_SOLUTIONS, humaneval_problems)
    tests = _codet_records(CODET_TESTS, humaneval_problems)
    assert set(sols) == set(TASKS) == set(tests)
    ordered = tmp_path / "ordered.jsonl"
    _write(ordered, [sols[t] for t in TASKS])
    shuffled_ids = TASKS[:]
    random.Random(0).shuffle(shuffled_ids)
    shuffled_ids.sort(key=lambda t: t not in ("HumanEval/10", "HumanEval/100"))  # the file's first 3 are not /0-/2
    shuffled = tmp_path / "shuffled.jsonl"
    _write(shuffled, [sols[t] for t in shuffled_ids])
    test_file = tmp_path / "tests.jsonl"
    _write(test_file, [tests[t] for t in reversed(TASKS)])

    runs = {}
    for name, path in (("ordered", ordered), ("shuffled", shuffled)):
        r = _rerank(path, test_file, tmp_path / name, tmp_path / "cache", 3)
        assert r.returncode == 0, r.stderr
        assert "--limit 3: 3 of 6 problems, the dataset's first (HumanEval/0 … HumanEval/2)" in r.stderr
        runs[name] = _outputs(tmp_path / name)
    assert runs["shuffled"]["task_ids"] == ["HumanEval/0", "HumanEval/1", "HumanEval/2"]
    assert runs["shuffled"]["limit"] == 3 and runs["shuffled"]["n_problems"] == 3
    assert runs["shuffled"] == runs["ordered"]
    assert {json.loads(line)["task_id"] for line in runs["shuffled"]["verdicts"].splitlines()} == set(TASKS[:3])


@needs_data
@pytest.mark.slow
def test_limit_with_no_solutions_among_the_first_problems_is_a_clear_error(tmp_path, humaneval_problems):
    sols = _codet_records(CODET_SOLUTIONS, humaneval_problems)
    path = tmp_path / "late.jsonl"
    _write(path, [sols["HumanEval/100"]])
    r = _rerank(path, path, tmp_path / "out", tmp_path / "cache", 2)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines()[-1] == (f"error: --limit 2: none of the first 2 problems of humaneval has "
                                                 f"solutions in {path}")


@needs_data
@pytest.mark.slow
def test_run_takes_the_dataset_first_problems_and_a_smaller_limit_reruns(tmp_path, monkeypatch, capsys):
    from coderank_evalplus import generation
    from coderank_evalplus.cli.console import main
    from tests.generation.test_generation import FakeGenerator

    monkeypatch.setattr(generation, "make_generator", lambda *args, **kwargs: FakeGenerator())
    out = tmp_path / "run"

    def run(limit: int) -> dict:
        rc = main(["run", "--dataset", "humaneval", "--data-dir", str(SHARED_DATA), "--n-samples", "3",
                   "--n-test-samples", "2", "--limit", str(limit), "--methods", "codet", "--workers", "2",
                   "--quiet", "--output", str(out)])
        assert rc == 0, capsys.readouterr().err
        return json.loads((out / "rerank_results.json").read_text())

    res = run(3)
    assert "humaneval: 3 problems (HumanEval/0 … HumanEval/2)" in capsys.readouterr().err
    assert res["task_ids"] == ["HumanEval/0", "HumanEval/1", "HumanEval/2"] and res["config"]["limit"] == 3
    assert not list(out.glob("*.partial")) and (out / "samples.jsonl").is_file()
    res = run(2)  # the folder's sample files hold 3 problems; a smaller limit reranks the first 2
    assert "humaneval: 2 problems (HumanEval/0, HumanEval/1)" in capsys.readouterr().err
    assert res["task_ids"] == ["HumanEval/0", "HumanEval/1"] and res["n_problems"] == 2


@needs_data
@pytest.mark.slow
def test_leaderboard_suite_limit_follows_the_dataset_order(tmp_path, humaneval_problems, caplog):
    """Two suite entries, the same samples in dataset order and shuffled: both scored on the dataset's first problems,
    with the same numbers; the problems taken are printed and recorded."""
    from coderank_evalplus.api.suite import ensure_results, load_suite

    sols = _codet_records(CODET_SOLUTIONS, humaneval_problems)
    tests = _codet_records(CODET_TESTS, humaneval_problems)
    _write(tmp_path / "ordered.jsonl", [sols[t] for t in TASKS])
    _write(tmp_path / "shuffled.jsonl", [sols[t] for t in reversed(TASKS)])  # /100, /10, /3, /2, … first
    _write(tmp_path / "tests.jsonl", [tests[t] for t in reversed(TASKS)])
    entry = 'dataset = "humaneval"\nsolutions = "{}.jsonl"\ntests = "tests.jsonl"\n'
    (tmp_path / "suite.toml").write_text(f'methods = ["codet", "srank"]\nlimit = 2\ndata_dir = "{SHARED_DATA}"\n'
                                         f'[[entry]]\nname = "ordered"\n{entry.format("ordered")}'
                                         f'[[entry]]\nname = "shuffled"\n{entry.format("shuffled")}')
    with caplog.at_level("INFO", logger="coderank_evalplus"):  # (the library logs; the CLI shows it as --limit)
        done = ensure_results(load_suite(tmp_path / "suite.toml"), tmp_path / "report", None, 2, False)
    assert caplog.text.count("limit 2: 2 of 6 problems, the dataset's first (HumanEval/0, HumanEval/1)") == 2
    res = {e.name: json.loads((folder / "rerank_results.json").read_text()) for e, folder, _ in done}
    assert res["shuffled"]["task_ids"] == ["HumanEval/0", "HumanEval/1"] and res["shuffled"]["config"]["limit"] == 2
    assert res["shuffled"]["methods"] == res["ordered"]["methods"]
    assert res["shuffled"]["task_ids"] == res["ordered"]["task_ids"]
