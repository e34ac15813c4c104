"""Every leaderboard row is one run: same-named runs are told apart by their results folders in every table, and the
leaderboard says how; one model's rows on other pools keep its name."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from pathlib import Path

import pytest

from coderank_evalplus.report.board import Entry
from coderank_evalplus.report.run_names import folder_ends, tell_apart
from coderank_evalplus.types import LAYOUT, CoderankError
from tests.conftest import needs_data

A, B = "samples_limit3 (a/samples_limit3_rerank)", "samples_limit3 (b/samples_limit3_rerank)"


def _folder(path: Path, dataset: str = "humaneval", digest: str = "d1") -> Path:
    """A results folder as far as the names read it: its summary (and an empty matrices file)."""
    path.mkdir(parents=True)
    (path / "rerank_results.json").write_text(json.dumps({"layout": LAYOUT, "dataset": dataset, "provenance": {
        "model": "m", "solutions_digest": digest}}))
    (path / "matrices.npz").write_bytes(b"")
    return path


def test_folder_ends_are_the_shortest_that_differ():
    assert folder_ends([Path("/x/a/r"), Path("/x/b/r"), Path("/y/c")]) == ["a/r", "b/r", "c"]


def test_one_model_on_two_pools_keeps_its_name(tmp_path):
    entries = [Entry("m", _folder(tmp_path / "1"), "gpt-4 tests"), Entry("m", _folder(tmp_path / "2"), "own tests"),
               Entry("m", _folder(tmp_path / "3", dataset="mbpp", digest="d9"), "gpt-4 tests")]
    named, notes = tell_apart(entries)
    assert [e.name for e in named] == ["m", "m", "m"] and notes == []


def test_the_same_model_and_pool_twice_is_told_apart_by_folder(tmp_path):
    entries = [Entry("m", _folder(tmp_path / "x" / "run")), Entry("m", _folder(tmp_path / "y" / "run")),
               Entry("m", _folder(tmp_path / "z" / "other"), "other pool")]
    named, notes = tell_apart(entries)
    assert [e.name for e in named] == ["m (x/run)", "m (y/run)", "m"]
    assert notes == [{"name": "m", "dataset": "humaneval", "by": "results folder",
                      "why": "the same model and pool twice", "rows": ["m (x/run)", "m (y/run)"]}]


def test_other_samples_under_one_name_are_told_apart_on_every_pool(tmp_path):
    entries = [Entry("m", _folder(tmp_path / "a", digest="d1"), "p1"), Entry("m", _folder(tmp_path / "b", digest="d2"),
                                                                            "p2")]
    named, notes = tell_apart(entries)
    assert [e.name for e in named] == ["m (a)", "m (b)"] and notes[0]["why"] == "other samples under one model name"
    assert [e.pool for e in named] == ["p1", "p2"]


def test_a_folder_given_twice_is_refused(tmp_path):
    folder = _folder(tmp_path / "a")
    with pytest.raises(CoderankError, match=r"results folder .*a given twice \(entries 1 and 2\)"):
        tell_apart([Entry("m", folder), Entry("m", tmp_path / "." / "a")])


@needs_data
def test_two_same_named_runs_stay_apart_in_every_table(same_named_runs):
    """The new user's trial: two models' samples_limit3.jsonl in two folders (2 of 4 right a problem, and 1 of 4).
    Every table shows both runs with their own figures (random pass@1 50 and 25), and says how it told them
    apart."""
    board = same_named_runs["board"]
    data = json.loads((board / "leaderboard.json").read_text())
    random = {r["name"]: r["methods"]["random"]["base"]["pass@1"] for r in data["rows"]}
    assert random == {A: 50.0, B: 25.0}
    assert {m["name"]: m["benchmarks"]["humaneval"]["methods"]["random"]["base"] for m in data["models_summary"]} \
        == {A: 50.0, B: 25.0}  # the models table: neither dropped
    for e in data["models"]:  # "Which model wins?": each run's own figures, every pair between the two
        assert {r["name"] for r in e["ranking"]} == {A, B} and [(p["a"], p["b"]) for p in e["pairs"]] == [(A, B)]
        if e["method"] == "random" and e["split"] == "base":
            assert {r["name"]: r["pass@1"] for r in e["ranking"]} == {A: 50.0, B: 25.0}
    assert data["same_names"] == [{"name": "samples_limit3", "dataset": "humaneval", "by": "results folder",
                                   "why": "other samples under one model name", "rows": [A, B]}]
    told = (f"Told apart: 2 runs on humaneval are named samples_limit3 (other samples under one model name); their "
            f"rows show their results folders: {A}, {B}.")
    md = (board / "leaderboard.md").read_text()
    assert told in md and told in same_named_runs["board_terminal"]
    lines = md.splitlines()
    for name, random_cell in ((A, "50.00"), (B, "25.00")):
        assert f"| {name} | 4 | {random_cell} #" in md  # "Which model wins?"
        assert any(line.startswith(f"| {name} | {random_cell} / {random_cell} |") for line in lines)  # summary
        assert sum(line.startswith(f"| {name} | examples+mutate:10 † | humaneval | 3 | 4 | {random_cell} ")
                   for line in lines) == 2  # pass@1, base and plus
        assert sum(line.startswith(f"| {name} | examples+mutate:10 | 3 |") for line in lines) == 4  # differences
    assert sum(line.startswith(f"| {A} − {B} | 3 | +25.00 ") for line in lines) == 2  # the pairs, base and plus
    page = html.unescape(re.sub(r"<[^>]+>", " ", (board / "index.html").read_text()))
    assert told in page and page.count(A) == page.count(B) > 5
    rows = list(csv.DictReader(io.StringIO((board / "leaderboard.csv").read_text())))
    assert {r["name"] for r in rows} == {A, B}
