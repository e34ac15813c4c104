"""The minimum number of problems (``metrics.MIN_PROBLEMS``) everywhere the leaderboard prints a statistic over
problems: a 3-problem leaderboard prints no interval, p-value, τ, ECE, Brier, AUROC or selective pass@1 and says
why; a 25-problem one prints them with the number of problems they rest on."""

from __future__ import annotations

import csv
import html
import io
import json
import re

import pytest

from coderank_evalplus.report import page
from coderank_evalplus.report.board import Entry, Leaderboard
from coderank_evalplus.report.leaderboard import build_row, to_csv, to_markdown
from coderank_evalplus.report.models import ModelRow, compare_models, summary
from coderank_evalplus.report.scores import leaderboard_methods, splits_of
from coderank_evalplus.stats import MIN_PROBLEMS
from tests.conftest import needs_data
from tests.rankers.helpers import make_executions
from tests.report.helpers import stored_problem, stored_run

P_VALUE = re.compile(r"p[<=]0?\.\d")  # as printed: "p<0.001", "p=0.043" (not the notes' "p < 0.05")


def _problem(task_id: str, n: int, correct_every: int, offset: int):
    """n candidates; every `correct_every`-th is correct and alone passes assert 0 (CodeT picks it)."""
    correct = [(c + offset) % correct_every == 0 for c in range(n)]
    ex = make_executions(passes=[[ok, not ok] for ok in correct], counts=[3, 1])
    return stored_problem(ex, correct, task_id=task_id)


def _leaderboard(n_problems: int) -> tuple[Leaderboard, str]:
    """Two models on one pool, each row with ``n_problems`` problems: CodeT beats random by a wide margin."""
    methods = leaderboard_methods(["codet"])
    lb = Leaderboard(config={"methods": methods, "compare_to": ["random"], "n_resamples": 1000, "seed": 0,
                             "draws": 20})
    model_rows = []
    for name, offset in (("alpha", 0), ("beta", 1)):
        run = stored_run([_problem(f"T/{i}", 10, 3 + (i + offset) % 4, offset) for i in range(n_problems)])
        entry = Entry(name, run.path, "pool")
        row, scores = build_row(entry, run, methods, ["random"], 1000, 0)
        lb.rows.append(row)
        model_rows.append(ModelRow(name, run.dataset, entry.pool, entry.tests_label,
                                   [p.problem.task_id for p in run.problems], splits_of(run), scores,
                                   [p.executions.n_candidates for p in run.problems]))
    lb.models = compare_models(model_rows, methods, 1000, 0)
    lb.models_summary = summary(lb.rows, methods)
    return lb, to_markdown(lb)


def _page_text(lb: Leaderboard) -> str:
    """The page's text without its tags and scripts, entities decoded."""
    body = re.sub(r"<script>.*?</script>|<style>.*?</style>", " ", page.render(lb, {}), flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


def test_a_three_problem_leaderboard_says_not_meaningful_and_prints_no_p_value():
    lb, md = _leaderboard(3)
    few = f"n = 3 < {MIN_PROBLEMS}: no interval or p-value"
    gain = next(line for line in md.splitlines() if line.startswith("| alpha | pool | 3 |"))
    assert few in gain and "[" not in gain  # the gain over random: the difference, the wording, no interval
    assert f"(n = 3 < {MIN_PROBLEMS}: no interval)" in md  # pass@1 cells
    assert f"n = 3 < {MIN_PROBLEMS}: no rank interval, τ or p-value" in md  # the models block
    assert f"τ with random: – (n = 3 < {MIN_PROBLEMS}: no τ)" in md
    assert not P_VALUE.search(md), P_VALUE.search(md)
    # the pick's confidence: no ECE, Brier, AUROC or selective pass@1 table, each row named with the reason
    assert "| ECE |" not in md and "at 90 %" not in md
    assert f"alpha: n = 3 < {MIN_PROBLEMS}: no ECE, Brier, AUROC or selective pass@1" in md
    assert f"beta: n = 3 < {MIN_PROBLEMS}: no ECE, Brier, AUROC or selective pass@1" in md
    assert "(n = 3 problems)" in md
    assert not re.search(r"#\d \[", md)  # ranks without an interval
    for row in lb.rows:
        for per in row["methods"].values():
            assert per["base"]["ci95"] is None and per["base"]["n_problems"] == 3
        for d in row["comparisons"]["random"].values():
            assert d["base"]["p_value"] is None and d["base"]["ci95"] is None
    for e in lb.models:
        assert all(r["rank_ci95"] is None for r in e["ranking"])
        assert all(p["p_value"] is None and p["ci95"] is None and p["n_problems"] == 3 for p in e["pairs"])
        assert e["kendall_tau"] is None
        assert e["flips"] == []
    for row in lb.rows:
        for rep in row["confidence"].values():
            assert rep["n_problems"] == 3 and rep["reliability"] == {} and rep["coverage_curve"] == {}
            assert all(v is None for c in rep["calibration"].values() for v in c.values())
            assert all(x[s] is None for x in rep["selective"] for s in ("base", "plus") if s in x)
    text = _page_text(lb)
    assert few in text and f"n = 3 < {MIN_PROBLEMS}: no rank interval, τ or p-value" in text
    assert f"– (n = 3 < {MIN_PROBLEMS}: no τ)" in text
    assert f"alpha: n = 3 < {MIN_PROBLEMS}: no ECE, Brier, AUROC or selective pass@1" in text and "AUROC</th>" not in \
        page.render(lb, {})
    assert not P_VALUE.search(text), "a p-value on the 3-problem page"
    lines = list(csv.DictReader(io.StringIO(to_csv(lb))))
    assert lines and all(r["ci95_lo"] == "" and r["p_vs_random"] == "" for r in lines)


def test_a_25_problem_leaderboard_prints_intervals_and_p_values_with_n():
    lb, md = _leaderboard(25)
    assert f"< {MIN_PROBLEMS}: no" not in md
    gain = next(line for line in md.splitlines() if line.startswith("| alpha | pool | 25 |"))
    assert P_VALUE.search(gain) and "[" in gain
    assert "(n = 25 problems)" in md and re.search(r"#\d \[", md)
    assert "| model | tests | n |" in md and "| a − b (points) | n |" in md
    pair = next(line for line in md.splitlines() if line.startswith("| alpha − beta | 25 |"))
    assert P_VALUE.search(pair)
    codet = next(e for e in lb.models if e["method"] == "codet")
    assert codet["kendall_tau"]["ci95"] is not None and codet["n_problems"] == 25
    assert re.search(r"τ with random: \S+ [+-]\d\.\d\d \[", md)
    table = next(line for line in md.splitlines() if line.startswith("| alpha | pool | codet |"))
    assert re.fullmatch(r"\| alpha \| pool \| codet( \| (\d+(\.\d+)?|–)){7} \|", table), table  # the figures
    assert "AUROC</th>" in page.render(lb, {})
    text = _page_text(lb)
    assert P_VALUE.search(text) and "(n = 25 problems)" in text and f"< {MIN_PROBLEMS}: no" not in text


@pytest.mark.parametrize("n", [3, 25])
def test_the_figures_draw_with_and_without_intervals(n, tmp_path):
    from coderank_evalplus.report import figures

    lb, _ = _leaderboard(n)
    figs = figures.make_all(lb, tmp_path)
    assert {"pass1_base", "ranks_humaneval_pool_base_n10", "pairs_humaneval_pool_base_n10"} <= set(figs)
    assert all(p.stat().st_size > 0 for p in figs.values())


def test_the_minimum_is_one_constant_that_the_docs_state():
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "leaderboard.md").read_text()
    assert f"`MIN_PROBLEMS = {MIN_PROBLEMS}`" in docs
    assert MIN_PROBLEMS >= 6  # under 6 paired problems not even an exact test can reach p < 0.05 (2 / 2^n)


@needs_data
def test_a_three_problem_run_follows_the_rule_in_the_terminal_the_json_the_tables_and_the_page(same_named_runs):
    """A real 3-problem run: its terminal table, its rerank_results.json, the leaderboard's markdown and page give
    no ECE, Brier, AUROC, selective pass@1 or τ, and say why in the same words."""
    withheld = f"n = 3 < {MIN_PROBLEMS}: no ECE, Brier, AUROC or selective pass@1"
    stdout, _ = same_named_runs["terminal"]["a"]
    assert f"### confidence of the pick\n\n{withheld} (too few problems for them to mean anything)" in stdout
    assert "| ECE |" not in stdout and "at 90 %" not in stdout
    summary = json.loads((same_named_runs["root"] / "a" / "samples_limit3_rerank" / "rerank_results.json")
                         .read_text())
    cal = summary["confidence"]["calibration"]["codet"]
    assert cal["n_problems"] == 3 and cal["all"] == {"base": 100.0, "plus": 100.0}
    assert all(v is None for c in cal["calibration"].values() for v in c.values())
    assert all(x[s] is None for x in cal["selective"] for s in ("base", "plus"))
    board = same_named_runs["board"]
    md = (board / "leaderboard.md").read_text()
    page = html.unescape(re.sub(r"<[^>]+>", " ", (board / "index.html").read_text()))
    for text in (md, page, same_named_runs["board_terminal"]):
        assert f"samples_limit3 (a/samples_limit3_rerank): {withheld}" in text
        assert f"– (n = 3 < {MIN_PROBLEMS}: no τ)" in text
        assert not P_VALUE.search(text)
    assert "| ECE |" not in md and "AUROC</th>" not in (board / "index.html").read_text()
