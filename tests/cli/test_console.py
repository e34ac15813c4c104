"""`coderank-evalplus rerank` end to end on real CodeGen-16B samples for a few problems."""

import json
import subprocess
import sys

import numpy as np
import pytest

from coderank_evalplus.io.results_folder import load_folder
from coderank_evalplus.metrics import oracle_pass, pass_at_k, ranked_pass_at_k
from coderank_evalplus.report.scores import rank
from tests.conftest import SHARED_DATA, needs_data

TASKS = ["HumanEval/0", "HumanEval/4", "HumanEval/7"]


@pytest.fixture(scope="module")
def small_inputs(tmp_path_factory, codet_samples):
    sols, tests = codet_samples
    d = tmp_path_factory.mktemp("inputs")
    with open(d / "samples.jsonl", "w") as fh:
        for t in TASKS:
            for prog in sols[t][:40]:
                fh.write(json.dumps({"task_id": t, "solution": prog}) + "\n")
    with open(d / "tests.jsonl", "w") as fh:
        for t in TASKS:
            fh.write(json.dumps({"task_id": t, "samples": tests[t][:40]}) + "\n")
    return d


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "coderank_evalplus.cli", *args], capture_output=True, text=True,
                          timeout=600)


@needs_data
@pytest.mark.slow
def test_rerank_writes_results_and_verdicts(small_inputs, tmp_path):
    out = tmp_path / "out"
    r = _cli("rerank", "--dataset", "humaneval", "--data-dir", str(SHARED_DATA), "--solutions",
             str(small_inputs / "samples.jsonl"), "--tests", str(small_inputs / "tests.jsonl"),
             "--methods", "codet,srank,mbr_exec,filter+codet", "--output", str(out), "--quiet", "--workers", "2")
    assert r.returncode == 0, r.stderr
    assert "| codet |" in r.stdout and "| oracle |" in r.stdout
    res = json.loads((out / "rerank_results.json").read_text())
    assert res["dataset"] == "humaneval" and res["n_problems"] == 3
    assert list(res["methods"]) == ["random", "codet", "srank", "mbr_exec", "filter+codet", "oracle"]
    for m in res["methods"].values():
        # 40 candidates a problem: pass@100 is left out (k ≤ n, evalplus's rule)
        assert set(m) == {"base", "plus", "uses_prompt_examples"} and set(m["base"]) == {"pass@1", "pass@10"}
    # the setting is never hidden: only the trial-test filter uses the prompt's examples on a model's pool
    assert {m: v["uses_prompt_examples"] for m, v in res["methods"].items()} == {
        "random": False, "codet": False, "srank": False, "mbr_exec": False, "filter+codet": True, "oracle": False}
    assert "filter+codet †" in r.stdout and "uses the prompt's own examples" in r.stdout
    # random and oracle follow from the per-sample verdicts
    verdicts = [json.loads(line) for line in (out / "verdicts.jsonl").read_text().splitlines()]
    assert len(verdicts) == 3 * 40
    for split in ("base", "plus"):
        per_task = [[v[split] for v in verdicts if v["task_id"] == t] for t in TASKS]
        rand = round(100 * np.mean([pass_at_k(len(c), sum(c), 1) for c in per_task]), 2)
        assert res["methods"]["random"][split]["pass@1"] == rand
        assert res["methods"]["oracle"][split]["pass@1"] == round(100 * np.mean([any(c) for c in per_task]), 2)
        assert res["methods"]["codet"][split]["pass@1"] <= res["methods"]["oracle"][split]["pass@1"]
    # a second run reuses the cache and gives the same numbers
    r2 = _cli("rerank", "--dataset", "humaneval", "--data-dir", str(SHARED_DATA), "--solutions",
              str(small_inputs / "samples.jsonl"), "--tests", str(small_inputs / "tests.jsonl"),
              "--methods", "codet,srank,mbr_exec,filter+codet", "--output", str(out), "--quiet")
    assert r2.returncode == 0
    assert json.loads((out / "rerank_results.json").read_text())["methods"] == res["methods"]


@needs_data
@pytest.mark.slow
def test_pass_at_n_is_the_oracle_on_real_samples_and_the_table_says_its_rule(small_inputs, tmp_path):
    """40 real samples a problem, k up to 40: taking them all cannot miss a right one (the default rule, k picks in
    rank order); CodeT's rule, asked for by name, keeps pass@1 and is recorded and printed with the table."""
    methods = "codet,srank,mbr_exec,filter+codet,recommended"

    def rerank(*more):
        out = tmp_path / ("default" if not more else more[-1])
        r = _cli("rerank", "--dataset", "humaneval", "--data-dir", str(SHARED_DATA), "--solutions",
                 str(small_inputs / "samples.jsonl"), "--tests", str(small_inputs / "tests.jsonl"), "--methods",
                 methods, "--k", "1,2,10,40", "--output", str(out), "--quiet", "--workers", "2",
                 "--cache-dir", str(tmp_path / "cache"), *more)
        assert r.returncode == 0, r.stderr
        return json.loads((out / "rerank_results.json").read_text()), r.stdout

    ranked, stdout = rerank()
    for split in ("base", "plus"):
        oracle = ranked["methods"]["oracle"][split]["pass@40"]
        for m in methods.split(","):
            row = [ranked["methods"][m][split][f"pass@{k}"] for k in (1, 2, 10, 40)]
            assert row[-1] == oracle and row == sorted(row), (m, split, row)
    # exactly, problem by problem (a table rounds to two decimals): every ranking of the stored matrices
    run = load_folder(tmp_path / "default")
    for sp in run.problems:
        for m in methods.split(","):
            ranking = rank(sp, m, run.seed)
            for split in ("base", "plus"):
                correct = sp.correct(split)
                assert ranked_pass_at_k(ranking, correct, len(correct)) == oracle_pass(correct), (m, split)
    assert ranked["config"]["pass_at_k_rule"] == "ranked" and "pass@k rule: ranked — " in stdout
    codet, stdout = rerank("--pass-at-k-rule", "codet")
    assert codet["config"]["pass_at_k_rule"] == "codet" and "pass@k rule: codet — " in stdout
    for split in ("base", "plus"):
        for m in methods.split(","):
            assert codet["methods"][m][split]["pass@1"] == ranked["methods"][m][split]["pass@1"], (m, split)


def test_unknown_method_lists_the_available_ones(tmp_path):
    r = _cli("rerank", "--dataset", "humaneval", "--solutions", "x.jsonl", "--tests", "y.jsonl",
             "--methods", "codet,nonsense", "--output", str(tmp_path))
    assert r.returncode == 2
    assert "nonsense" in r.stderr and "srank" in r.stderr and "Traceback" not in r.stderr


@needs_data
@pytest.mark.slow
def test_bad_samples_file_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"task_id": "HumanEval/0", "solution": "x"}\nnot json\n')
    r = _cli("rerank", "--dataset", "humaneval", "--data-dir", str(SHARED_DATA), "--solutions", str(bad),
             "--tests", str(bad), "--output", str(tmp_path / "o"))
    assert r.returncode == 2 and "bad.jsonl:2" in r.stderr and "Traceback" not in r.stderr


@needs_data
@pytest.mark.slow
def test_rerank_drops_problems_the_dataset_lacks_only_when_asked(tmp_path):
    sols = tmp_path / "samples.jsonl"
    sols.write_text("".join(json.dumps({"task_id": t, "solution": "def has_close_elements(n, t):\n    return False\n"})
                            + "\n" for t in ("HumanEval/0", "HumanEval/0", "HumanEval/999")))
    tests = tmp_path / "tests.jsonl"
    tests.write_text(json.dumps({"task_id": "HumanEval/0", "asserts": ["assert has_close_elements([], 0.1) == False"]})
                     + "\n")
    args = ["rerank", "--dataset", "humaneval", "--data-dir", str(SHARED_DATA), "--solutions", str(sols),
            "--tests", str(tests), "--methods", "codet", "--base-only", "--quiet", "--output", str(tmp_path / "o")]
    r = _cli(*args)
    assert r.returncode == 2 and "1 samples match no problem" in r.stderr and "HumanEval/999" in r.stderr
    r = _cli(*args, "--drop-extra-problems")
    assert r.returncode == 0, r.stderr
    assert "dropped 1 samples of 1 problem(s)" in r.stderr and "HumanEval/999" in r.stderr
    assert json.loads((tmp_path / "o" / "rerank_results.json").read_text())["task_ids"] == ["HumanEval/0"]


@pytest.mark.slow
def test_rerank_with_examples_mutate_alone_and_combined(small_inputs, tmp_path):
    """``--tests examples+mutate:N``: no test file needed; the grown inputs are stored and the same on a rerun;
    repeated ``--tests`` combine a pool with them."""
    common = ["rerank", "--dataset", "humaneval", "--data-dir", str(SHARED_DATA), "--solutions",
              str(small_inputs / "samples.jsonl"), "--methods", "codet,mbr_exec,srank", "--quiet", "--workers", "2"]
    out = tmp_path / "mutate"
    r = _cli(*common, "--tests", "examples+mutate:8", "--output", str(out))
    assert r.returncode == 0, r.stderr
    assert "no test samples" not in r.stderr
    res = json.loads((out / "rerank_results.json").read_text())
    assert res["config"]["mutate"] == 8
    gen = res["generated_inputs"]
    assert gen["source"] == "examples+mutate:8" and gen["problems"] == 3 and gen["grown"] == 24
    recs = [json.loads(line) for line in (out / "problems.jsonl").read_text().splitlines()]
    for rec in recs:
        g = rec["generated_inputs"]
        assert len(g["inputs"]) == len(g["kept"]) == len(g["returned_share"]) == 8
        kept = [c for c, k in zip(g["inputs"], g["kept"]) if k]
        assert [c for c in rec["inputs"] if c in g["inputs"]] == kept  # kept ones are the suite's inputs
        assert rec["asserts"] == [t[len("assert "):] for t in rec["trial_tests"]]  # the examples' asserts only
    first = (out / "problems.jsonl").read_text()
    assert _cli(*common, "--tests", "examples+mutate:8", "--output", str(out)).returncode == 0  # the same command
    assert (out / "problems.jsonl").read_text() == first
    both = tmp_path / "both"  # (the first run's cache: only the pool's asserts are new)
    r = _cli(*common, "--tests", str(small_inputs / "tests.jsonl"), "--tests", "examples+mutate:8", "--output",
             str(both), "--cache-dir", str(out / "cache"))
    assert r.returncode == 0, r.stderr
    recs_both = [json.loads(line) for line in (both / "problems.jsonl").read_text().splitlines()]
    for rec, alone in zip(recs_both, recs):
        assert set(alone["asserts"]) < set(rec["asserts"])  # the pool's asserts beside the examples'
        assert rec["generated_inputs"]["inputs"] == alone["generated_inputs"]["inputs"]
    assert _cli(*common, "--tests", "examples+mutate:x", "--output", str(tmp_path / "bad")).returncode == 2


@pytest.mark.slow
def test_rerank_without_tests_runs_examples_mutate(small_inputs, tmp_path):
    """No ``--tests``: the pool that needs no model (examples+mutate, default N), said in one line; the default
    methods, with recommended (which uses the prompt's examples) marked."""
    out = tmp_path / "default"
    r = _cli("rerank", "--dataset", "humaneval", "--data-dir", str(SHARED_DATA), "--solutions",
             str(small_inputs / "samples.jsonl"), "--limit", "1", "--output", str(out), "--quiet", "--workers", "2")
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("no test pool given: ranking on examples+mutate") == 1
    res = json.loads((out / "rerank_results.json").read_text())
    assert res["config"]["mutate"] == 10 and res["generated_inputs"]["grown"] == 10
    assert list(res["methods"]) == ["random", "recommended", "codet", "srank", "mbr_exec", "oracle"]
    assert res["methods"]["recommended"]["uses_prompt_examples"] and res["methods"]["codet"]["uses_prompt_examples"]
    assert "| recommended † |" in r.stdout


@needs_data
@pytest.mark.slow
def test_rerank_raw_field_sanitizes_chat_replies(tmp_path):
    """The issue's case: raw replies (prose around a fenced block) for HumanEval/0 score 0 read as programs (with a
    warning); with --raw-field they are sanitized, counted in rerank_results.json and in a printed line."""
    fenced = ("Sure! Here is the function:\n\n```python\ndef has_close_elements(numbers, threshold):\n"
              "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n```\n\n"
              "It compares every pair.")
    wrong = "Here you go:\n```python\ndef has_close_elements(numbers, threshold):\n    return False\n```"
    samples = tmp_path / "replies.jsonl"
    samples.write_text("".join(json.dumps({"task_id": "HumanEval/0", "solution": r}) + "\n"
                               for r in (fenced, wrong, fenced, wrong)))
    tests = tmp_path / "tests.jsonl"
    tests.write_text(json.dumps({"task_id": "HumanEval/0", "asserts": [
        "assert has_close_elements([1.0, 2.0, 3.9, 4.0], 0.3) == True",
        "assert has_close_elements([1.0, 2.0, 3.0], 0.5) == False"]}) + "\n")
    common = ["rerank", "--dataset", "humaneval", "--data-dir", str(SHARED_DATA), "--solutions", str(samples),
              "--tests", str(tests), "--methods", "codet", "--quiet", "--workers", "2"]
    r = _cli(*common, "--output", str(tmp_path / "as_programs"))
    assert r.returncode == 0, r.stderr
    assert "--raw-field" in r.stderr  # the warning
    plain = json.loads((tmp_path / "as_programs" / "rerank_results.json").read_text())
    assert plain["methods"]["oracle"]["base"]["pass@1"] == 0 and "sanitized" not in plain
    r = _cli(*common, "--raw-field", "solution", "--output", str(tmp_path / "sanitized"))
    assert r.returncode == 0, r.stderr
    assert "sanitized 4 samples (field 'solution'" in r.stderr
    res = json.loads((tmp_path / "sanitized" / "rerank_results.json").read_text())
    assert {k: res["sanitized"][k] for k in ("field", "samples", "changed", "empty")} == {
        "field": "solution", "samples": 4, "changed": 4, "empty": 0}
    assert res["methods"]["random"]["base"]["pass@1"] == 50.0
    assert res["methods"]["codet"]["base"]["pass@1"] == 100.0


@needs_data
@pytest.mark.slow
def test_a_leaderboard_of_folders_without_the_default_pick_leaves_it_out_and_says_so(small_inputs, tmp_path):
    """``recommended`` ends with the selection step, which runs programs: a leaderboard over a folder reranked
    without it cannot rank it again from the stored matrices, so the defaulted methods leave it out with one warning
    (named with --methods, it fails loudly instead)."""
    out = tmp_path / "out"
    r = _cli("rerank", "--dataset", "humaneval", "--solutions", str(small_inputs / "samples.jsonl"), "--tests",
             str(small_inputs / "tests.jsonl"), "--methods", "codet", "--output", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    board = _cli("leaderboard", str(out), "--output", str(tmp_path / "board"), "--no-curves", "--quiet")
    assert board.returncode == 0, board.stderr
    assert "recommended left out: it ends with a step after ranking" in board.stderr and str(out) in board.stderr
    header = next(line for line in board.stdout.splitlines() if line.startswith("| model"))
    assert "codet" in header and "recommended" not in header
    named = _cli("leaderboard", str(out), "--methods", "recommended", "--output", str(tmp_path / "b2"), "--no-curves")
    assert named.returncode != 0 and "recommended ends with a step after ranking" in named.stderr


@pytest.mark.parametrize("asked", [False, True])
def test_other_libraries_warnings_stay_off_the_terminal_unless_asked_for(asked, monkeypatch):
    """A command shows the package's own warnings, not matplotlib's (or another library's): a user cannot act on
    those. ``-W`` / ``PYTHONWARNINGS`` (sys.warnoptions) still brings them back."""
    import warnings

    from coderank_evalplus.cli.console import library_messages

    monkeypatch.setattr(sys, "warnoptions", ["default"] if asked else [])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with library_messages():
            warnings.warn_explicit("Tight layout not applied", UserWarning, "figure.py", 1,
                                   module="matplotlib.figure")
            warnings.warn_explicit("its original tests cannot be split", UserWarning, "judge.py", 2,
                                   module="coderank_evalplus.engine.judging.judge")
        warnings.warn_explicit("after the command", UserWarning, "figure.py", 3, module="matplotlib.figure")
    shown = [str(w.message) for w in seen]
    assert shown == (["Tight layout not applied"] if asked else []) + ["its original tests cannot be split",
                                                                       "after the command"]
