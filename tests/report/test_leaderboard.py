"""`coderank-evalplus leaderboard` end to end on real samples: the figures equal `rerank`'s, a second call runs
nothing again, and a report recomputed from copied results folders is identical."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import needs_data
from tests.report.conftest import LIMIT, METHODS, leaderboard_cmd, run_cli

pytestmark = needs_data


def test_json_has_every_method_with_intervals_and_equals_rerank(real_leaderboard):
    lb = json.loads((real_leaderboard["out"] / "leaderboard.json").read_text())
    assert lb["config"]["methods"] == ["random", *METHODS, "oracle"]
    assert lb["config"]["n_resamples"] >= 1000
    assert [(r["name"], r["tests_label"]) for r in lb["rows"]] == [("codegen-16B", "own tests"),
                                                                    ("codegen-16B", "gpt-4 tests")]
    for row in lb["rows"]:
        assert row["n_problems"] == LIMIT and row["samples_per_problem"] == 100
        rerank = json.loads((real_leaderboard["out"] / "runs" / row["folder"].split("/runs/")[1] /
                             "rerank_results.json").read_text())
        assert rerank["task_ids"] == [f"HumanEval/{i}" for i in range(LIMIT)]
        for m in lb["config"]["methods"]:
            for split in ("base", "plus"):
                e = row["methods"][m][split]
                assert e["pass@1"] == rerank["methods"][m][split]["pass@1"]
                # LIMIT problems are under the minimum: no interval, the count instead
                assert e["ci95"] is None and e["n_problems"] == LIMIT < lb["config"]["min_problems"]
        for base in ("random", "codet"):
            cmp = row["comparisons"][base]
            assert base not in cmp and set(cmp) == set(lb["config"]["methods"]) - {base}
            for m, per_split in cmp.items():
                d = per_split["base"]
                expected = row["methods"][m]["base"]["pass@1"] - row["methods"][base]["base"]["pass@1"]
                assert abs(d["diff"] - expected) < 0.02 and d["p_value"] is None and d["n_problems"] == LIMIT
    md = (real_leaderboard["out"] / "leaderboard.md").read_text()
    assert "gain over random" in md and "own tests" in md and "gpt-4 tests" in md
    assert f"n = {LIMIT} < {lb['config']['min_problems']}: no interval or p-value" in md and "p<0." not in md
    csv_lines = (real_leaderboard["out"] / "leaderboard.csv").read_text().splitlines()
    assert len(csv_lines) == 1 + 2 * len(lb["config"]["methods"]) * 2


def test_curves_and_quality_are_written(real_leaderboard):
    curves = json.loads((real_leaderboard["out"] / "curves.json").read_text())["curves"]
    assert curves[0]["candidates"]["budgets"] == [1, 2, 5, 10, 20, 50, 100]
    assert curves[0]["candidates"]["draws"] >= 20
    assert curves[0]["tests"]["budgets"] == [1, 2, 5, 10, 20, 50, 100]
    quality = json.loads((real_leaderboard["out"] / "test_quality.json").read_text())["runs"]
    own, gpt4 = (q["summary"] for q in quality)
    assert own["with_reference"] == LIMIT and 0 <= own["accuracy"] <= 100
    assert gpt4["asserts_per_problem"] < own["asserts_per_problem"]
    assert {p.name for p in (real_leaderboard["out"] / "figures").iterdir()} >= {
        "pass1_base.png", "pass1_plus.png", "budget_candidates_base.png", "budget_tests_base.png", "test_quality.png"}


def test_second_call_executes_nothing(real_leaderboard):
    out = real_leaderboard["out"]
    before = (out / "leaderboard.json").read_text()
    proc = run_cli(leaderboard_cmd(str(real_leaderboard["suite"]), "--output", str(out), "--draws", "20"),
                   cwd=real_leaderboard["root"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "2 of 2 reused" in proc.stdout
    assert "executing" not in proc.stderr and "judging" not in proc.stderr
    assert (out / "leaderboard.json").read_text() == before
    assert len(list((out / "cache" / "report").glob("curves-*.json"))) == 2  # one per row, reused


def test_report_from_copied_folders_is_identical(real_leaderboard, tmp_path):
    out = real_leaderboard["out"]
    copies = []
    for run in sorted((out / "runs").iterdir(), key=lambda p: "gpt-4" in p.name):  # the suite's order
        dest = tmp_path / "elsewhere" / run.name
        shutil.copytree(run, dest, ignore=shutil.ignore_patterns("cache"))
        copies.append(str(dest))
    other = tmp_path / "report"
    proc = run_cli(leaderboard_cmd(*copies, "--output", str(other), "--methods", ",".join(METHODS),
                                   "--draws", "20", "--quiet"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for name in ("leaderboard.md", "leaderboard.csv", "curves.json", "test_quality.json"):
        assert (other / name).read_text() == (out / name).read_text(), name
    a, b = (json.loads((d / "leaderboard.json").read_text()) for d in (out, other))
    for row in a["rows"] + b["rows"]:
        row.pop("folder")
    assert a == b


@pytest.mark.parametrize("text, message", [
    ("[[entry]]\nname = 'x'\ndataset = 'humaneval'\nsolutions = 'missing.jsonl'\ntests = 'suite.toml'\n",
     "entry 1 (x): solutions = 'missing.jsonl'"),
    ("methods = 'codet'\n[[entry]]\nname = 'x'\n", "'methods' must be a list"),
    ("[[entry]]\nname = 'x'\ndataset = 'humaneval'\ntests = 'suite.toml'\n", "entry 1 (x): missing 'solutions'"),
    ("nonsense = 1\n", "unknown key(s) nonsense"),
    ("[[entry]\n", "not valid TOML"),
    ("[[entry]]\nname = 'x'\nresults = '.'\npool = 3\n", "entry 1 (x): 'pool' must be a str"),
    ("drop_extra_problems = 'yes'\n[[entry]]\nname = 'x'\nresults = '.'\n", "'drop_extra_problems' must be a bool"),
    ("[[entry]]\nname = 'x'\nresults = '.'\ntests_label = 'g (own)'\n[[entry]]\nname = 'x'\nresults = '.'\n"
     "tests_label = 'g'\n", "entry 2 (x): entry 1 already ranks x on humaneval with pool 'g'"),
])
def test_suite_errors_name_the_file_and_entry(tmp_path, monkeypatch, capsys, text, message):
    from coderank_evalplus.cli.console import main

    suite = tmp_path / "suite.toml"
    suite.write_text(text)
    monkeypatch.chdir(tmp_path)
    assert main(["leaderboard", str(suite), "--output", str(tmp_path / "out")]) == 2  # (in this process: quick)
    err = capsys.readouterr().err
    assert str(suite) in err and message in err, err


def test_models_compare_rows_of_one_pool_and_identical_models_tie(models_leaderboard):
    """Two pools (the "(own)" label joins the other), each with the same samples under two names: every pair
    differs by exactly 0, both models share rank 1 (no interval or p-value on LIMIT problems), and the figures are
    there."""
    out = models_leaderboard["out"]
    lb = json.loads((out / "leaderboard.json").read_text())
    assert [r["pool"] for r in lb["rows"]] == ["codegen-16B tests", "gpt-4 tests"] * 2
    models = lb["models"]
    keys = {(e["pool"], e["split"], e["method"], e["budget"]) for e in models}
    assert keys == {(p, s, m, b) for p in ("codegen-16B tests", "gpt-4 tests") for s in ("base", "plus")
                    for m in lb["config"]["methods"] for b in (100, "full")}
    for e in models:
        assert e["dataset"] == "humaneval" and e["tests_label"] == e["pool"] and e["n_problems"] == LIMIT
        assert [p["a"] for p in e["pairs"]] == ["codegen-16B"] and [p["b"] for p in e["pairs"]] == ["codegen-16B-copy"]
        p = e["pairs"][0]  # LIMIT problems: under the minimum, no interval or p-value
        assert p["diff"] == 0.0 and p["ci95"] is None and p["p_value"] is None and p["n_problems"] == LIMIT
        assert [(r["rank"], r["rank_ci95"]) for r in e["ranking"]] == [(1, None)] * 2
        assert e["flips"] == []
    # at the full budget pass@1 is the row's (every row has every problem)
    row = next(r for r in lb["rows"] if r["pool"] == "gpt-4 tests")
    e = next(e for e in models if e["pool"] == "gpt-4 tests" and e["method"] == "codet" and e["budget"] == "full"
             and e["split"] == "base")
    assert e["ranking"][0]["pass@1"] == row["methods"]["codet"]["base"]["pass@1"]
    summary = {m["name"]: m for m in lb["models_summary"]}
    assert set(summary) == {"codegen-16B", "codegen-16B-copy"}
    assert summary["codegen-16B"]["benchmarks"]["humaneval"]["pool"] in ("codegen-16B tests", "gpt-4 tests")
    md = (out / "leaderboard.md").read_text()
    assert "## Which model wins?" in md and "matched budget N = 100" in md and "### Models summary" in md
    figures = {p.stem for p in (out / "figures").glob("*.png")}
    assert {"ranks_humaneval_gpt-4_tests_base_n100", "pairs_humaneval_gpt-4_tests_plus_n100"} <= figures


def test_sub_sampled_real_row_equals_its_curve_point_and_is_cached(real_leaderboard, tmp_path, monkeypatch):
    """A real 100-sample row sub-sampled to N = 10 (as the matched budget does) gives, per method, the mean of
    curves.json's N = 10 point (random: its exact expectation, the full table's); a second call reads the cache and
    loads nothing."""
    import numpy as np

    from coderank_evalplus.io.results_folder import load_folder
    from coderank_evalplus.report import leaderboard as lbm
    from coderank_evalplus.report.models import ModelRow
    from coderank_evalplus.report.scores import problem_scores

    out = real_leaderboard["out"]
    lb = json.loads((out / "leaderboard.json").read_text())
    curves = json.loads((out / "curves.json").read_text())["curves"]
    methods = lb["config"]["methods"]
    row = lb["rows"][1]
    run = load_folder(row["folder"])
    model_row = ModelRow(row["name"], row["dataset"], row["pool"], row["tests_label"],
                         [p.problem.task_id for p in run.problems], ("base", "plus"), {},
                         [p.executions.n_candidates for p in run.problems], run.path)
    cfg = lbm.LeaderboardConfig(draws=20, seed=0, workers=1, progress=False, cache_dir=tmp_path)
    scores = lbm._scores_at_budget(model_row, 10, methods, cfg)
    exact = problem_scores(run, ["random"])["random"]
    for split in ("base", "plus"):
        for m in methods:
            point = next(p for p in curves[1]["candidates"]["curves"][split][m] if p["n"] == 10)
            want = 100 * float(np.mean(exact[split])) if m == "random" else point["mean"]  # random: its expectation
            assert abs(100 * float(np.mean(scores[m][split])) - want) < 0.006, (m, split)
    monkeypatch.setattr(lbm, "load_folder", lambda *a, **k: pytest.fail("loaded again"))
    again = lbm._scores_at_budget(model_row, 10, methods, cfg)
    assert all(np.array_equal(again[m][s], scores[m][s]) for m in methods for s in ("base", "plus"))


def test_suite_tests_may_be_examples_mutate_or_a_list(tmp_path):
    from coderank_evalplus.api.suite import SuiteError, fingerprint, load_suite
    from coderank_evalplus.testgen.mutate import GROWN_INPUTS

    (tmp_path / "s.jsonl").write_text("")
    (tmp_path / "t.jsonl").write_text("")
    (tmp_path / "suite.toml").write_text(
        '[[entry]]\nname = "m"\nsolutions = "s.jsonl"\ntests = "examples+mutate"\n'
        '[[entry]]\nname = "m"\ntests_label = "both"\nsolutions = "s.jsonl"\n'
        'tests = ["t.jsonl", "examples+mutate:9"]\n')
    a, b = load_suite(tmp_path / "suite.toml").entries
    assert a.tests is None and a.test_sources == [f"examples+mutate:{GROWN_INPUTS}"]
    assert b.tests == (tmp_path / "t.jsonl").resolve() and b.test_sources == [b.tests, "examples+mutate:9"]
    assert fingerprint(a, ["srank"], False) != fingerprint(b, ["srank"], False)
    (tmp_path / "bad.toml").write_text('[[entry]]\nname = "m"\nsolutions = "s.jsonl"\ntests = "examples+mutate:-"\n')
    with pytest.raises(SuiteError, match="entry 1 .*examples\\+mutate:N"):
        load_suite(tmp_path / "bad.toml")


def test_suite_raw_field_is_read_and_fingerprinted(tmp_path):
    from coderank_evalplus.api.suite import SuiteError, fingerprint, load_suite

    (tmp_path / "s.jsonl").write_text("")
    (tmp_path / "t.jsonl").write_text("")
    entry = '[[entry]]\nname = "m"\nsolutions = "s.jsonl"\ntests = "t.jsonl"\n'
    (tmp_path / "suite.toml").write_text(entry + entry.replace('name = "m"', 'name = "m-raw"\nraw_field = "raw"'))
    a, b = load_suite(tmp_path / "suite.toml").entries
    assert a.raw_field is None and b.raw_field == "raw"
    assert fingerprint(a, ["codet"], False) != fingerprint(b, ["codet"], False)
    (tmp_path / "bad.toml").write_text(entry.replace('name = "m"', 'name = "m"\nraw_field = 3'))
    with pytest.raises(SuiteError, match="raw_field"):
        load_suite(tmp_path / "bad.toml")


def test_suite_dataset_may_be_your_own_problem_file(tmp_path):
    """A problem file is a path relative to the suite file; its content is part of the entry's fingerprint."""
    from coderank_evalplus.api.suite import SuiteError, fingerprint, load_suite

    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "mine.jsonl").write_text('{"task_id": "a", "prompt": "", "entry_point": "f", "test": ""}\n')
    (tmp_path / "s.jsonl").write_text("")
    (tmp_path / "suite.toml").write_text('[[entry]]\nname = "m"\ndataset = "data/mine.jsonl"\nsolutions = "s.jsonl"\n')
    (entry,) = load_suite(tmp_path / "suite.toml").entries
    assert entry.dataset == str((tmp_path / "data" / "mine.jsonl").resolve())
    before = fingerprint(entry, ["recommended"], False)
    (tmp_path / "data" / "mine.jsonl").write_text('{"task_id": "b", "prompt": "", "entry_point": "f", "test": ""}\n')
    assert fingerprint(entry, ["recommended"], False) != before
    (tmp_path / "bad.toml").write_text('[[entry]]\nname = "m"\ndataset = "absent.jsonl"\nsolutions = "s.jsonl"\n')
    with pytest.raises(SuiteError, match="absent.jsonl"):
        load_suite(tmp_path / "bad.toml")
