"""``coderank-evalplus budget``: the --json layout scripts read, on a hand-made stored run."""

from __future__ import annotations

import json

import pytest

from coderank_evalplus.cli import budget as budget_cli
from coderank_evalplus.cli.console import build_parser, main
from tests.rankers.helpers import agreement_model
from tests.report.test_adaptive import _run


@pytest.fixture()
def model_file(tmp_path):
    path = tmp_path / "model.json"
    path.write_text(json.dumps(agreement_model(0.8, rows=100)))
    return path


def test_budget_json_has_the_documented_layout(tmp_path, monkeypatch, model_file):
    monkeypatch.setattr("coderank_evalplus.io.results_folder.load_folder", lambda folder: _run())
    out = tmp_path / "budget.json"
    assert main(["budget", "somewhere", "--adaptive", "--methods", "recommended,codet", "--json", str(out),
                 "--confidence-model", str(model_file), "--draws", "3", "--workers", "1", "--quiet"]) == 0
    rep = json.loads(out.read_text())
    assert set(rep["methods"]) == {"recommended", "codet"}
    r = rep["methods"]["codet"]
    assert [f["n"] for f in r["fixed"]] == list(range(1, 11)) and set(r["fixed"][0]) == {"n", "base", "plus"}
    assert {"tau", "mean_samples", "base", "plus"} <= set(r["adaptive"][0]) and r["tau"] == 0.8
    assert set(r["at_tau"]) == {"mean_samples", "base", "plus"}
    assert set(r["calibration"]) == {"base", "plus"} and set(r["calibration"]["base"]) == {"ece", "brier", "auroc"}
    assert [s["coverage"] for s in r["selective"]] == [0.5, 0.8, 0.9]


def test_without_adaptive_no_sweep_and_a_bad_tau_is_refused(monkeypatch, model_file):
    monkeypatch.setattr("coderank_evalplus.io.results_folder.load_folder", lambda folder: _run())
    args = build_parser().parse_args(["budget", "x", "--confidence-model", str(model_file), "--draws", "2",
                                      "--workers", "1", "--quiet"])
    rep = budget_cli.budget_report(args)
    assert rep["methods"]["recommended"]["adaptive"] == [] and rep["methods"]["recommended"]["at_tau"] is None
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["budget", "x", "--tau", "1.5"])
    assert exit_.value.code == 2


def test_report_says_what_it_is_about_and_what_its_columns_mean(monkeypatch, model_file, capsys):
    monkeypatch.setattr("coderank_evalplus.io.results_folder.load_folder", lambda folder: _run())
    assert main(["budget", "x", "--methods", "recommended", "--confidence-model", str(model_file), "--draws", "2",
                 "--workers", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    head = out.splitlines()[0]
    assert "problems" in head and "samples per problem" in head and "random pick" in head
    from coderank_evalplus.metrics import MIN_PROBLEMS

    # 10 problems: no calibration figures, and the line that says why instead of a legend for them
    assert f"n = 10 < {MIN_PROBLEMS}: no ECE, Brier, AUROC or selective pass@1" in out
    assert "AUROC" not in out.replace("no ECE, Brier, AUROC", "") and "ECE: expected calibration error" not in out


def test_the_adaptive_table_carries_n_and_gives_no_interval_under_the_minimum(monkeypatch, model_file, capsys):
    from coderank_evalplus.stats import MIN_PROBLEMS

    monkeypatch.setattr("coderank_evalplus.io.results_folder.load_folder", lambda folder: _run())  # 10 problems
    assert main(["budget", "x", "--adaptive", "--methods", "codet", "--confidence-model", str(model_file),
                 "--draws", "2", "--workers", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "base [95 %, n = 10]" in out and f"(n = 10 < {MIN_PROBLEMS}: no interval)" in out
