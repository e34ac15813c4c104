"""Likelihood features: the coder and reviewer texts that are scored, filling a samples file, reading the fields
back aligned with the samples, and the clear error when a method needs fields a file lacks."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from coderank_evalplus.generation.likelihood import (
    REVIEW_REQUEST,
    add_likelihoods,
    code_without_docs,
    coder_pair,
    features_for,
    instruction_text,
    reviewer_pair,
)
from coderank_evalplus.io.samples import SampleFileError, read_features, read_solutions
from coderank_evalplus.testgen.prompt_examples import trial_tests_from_prompt
from coderank_evalplus.types import Problem

PROMPT = 'def add(a, b):\n    """ Add two numbers.\n    >>> add(1, 2)\n    3\n    """\n'
ADD = Problem(task_id="T/0", dataset="humaneval", prompt=PROMPT, entry_point="add",
              trial_tests=tuple(trial_tests_from_prompt(PROMPT, "add")))
MBPP = Problem(task_id="M/1", dataset="mbpp", entry_point="sq",
               prompt='"""\nWrite a function to square a number.\nassert sq(3) == 9\n"""\n')
PROBLEMS = {"T/0": ADD, "M/1": MBPP}


class FakeScorer:
    is_chat = False

    def __init__(self):
        self.pairs = []

    def score(self, pairs):
        self.pairs.extend(pairs)
        return [(-float(len(c)), len(c.split())) for _, c in pairs]


def test_instruction_and_reviewer_text():
    assert instruction_text(ADD) == "Add two numbers.\n>>> add(1, 2)\n3"
    assert instruction_text(MBPP) == "Write a function to square a number.\nassert sq(3) == 9"
    program = PROMPT + "    # add them\n    return a + b\n"
    assert code_without_docs(program) == "def add(a, b):\n    return a + b"
    context, continuation = reviewer_pair(ADD, program)
    # the candidate comes first, without its docstring and comments; the instruction is what is scored
    assert context == f'def add(a, b):\n    return a + b\n\n\n{REVIEW_REQUEST}"""\n'
    assert continuation == 'Add two numbers.\n>>> add(1, 2)\n3\n"""\n'
    assert "Add two numbers" not in context
    broken = PROMPT + "    return a +\n"  # does not parse: the instruction is cut out of the text instead
    assert "Add two numbers" not in reviewer_pair(ADD, broken)[0]


def test_coder_text_for_base_and_chat_models():
    assert coder_pair(ADD, PROMPT + "    return a + b\n", FakeScorer()) == (PROMPT, "    return a + b\n")
    other = "def add(a, b):\n    return b + a\n"  # does not start with the prompt: scored whole
    assert coder_pair(ADD, other, FakeScorer()) == (PROMPT, other)

    class Chat(FakeScorer):
        is_chat = True

        def apply_chat_template(self, messages):
            return "<user>" + messages[-1]["content"] + "<assistant>"

    ctx, cont = coder_pair(ADD, other, Chat())
    assert ctx.startswith("<user>") and ctx.endswith("<assistant>") and cont == f"```python\n{other.strip()}\n```"

    class Server(FakeScorer):
        is_chat = True

    with pytest.raises(ValueError, match="chat template"):
        coder_pair(ADD, other, Server())


def _write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_add_likelihoods_fills_only_what_is_missing_and_keeps_everything_else(tmp_path):
    f = tmp_path / "samples.jsonl"
    _write(f, [
        {"task_id": "T/0", "solution": PROMPT + "    return a + b\n", "logprob": -3.5, "logprob_tokens": 4, "x": 1},
        {"task_id": "T/0", "completion": "    return a - b\n"},
        {"task_id": "Other/9", "solution": "whatever"},  # not a known task: kept as it is
        {"task_id": "M/1", "solution": "def sq(x):\n    return x * x\n", "logprob": -1.0},  # no token count
    ])
    scorer = FakeScorer()
    n = add_likelihoods(f, PROBLEMS, scorer, ["coder", "reviewer"])
    assert n == 2 + 3  # coder of samples 2 and 4, reviewer of the three known ones
    recs = [json.loads(line) for line in f.read_text().splitlines()]
    assert recs[0]["logprob"] == -3.5 and recs[0]["x"] == 1 and "reviewer_logprob" in recs[0]
    assert recs[1]["logprob"] == -float(len("    return a - b\n")) and recs[1]["logprob_tokens"] == 4
    assert recs[2] == {"task_id": "Other/9", "solution": "whatever"}
    assert recs[3]["logprob_tokens"] > 0 and recs[3]["reviewer_logprob_tokens"] > 0
    assert not (tmp_path / "samples.jsonl.tmp").exists()
    assert add_likelihoods(f, PROBLEMS, FakeScorer(), ["coder", "reviewer"]) == 0  # nothing left to score
    with pytest.raises(SampleFileError, match="not a sample folder"):
        add_likelihoods(tmp_path, PROBLEMS, FakeScorer())


def test_features_are_read_aligned_with_the_samples(tmp_path):
    f = tmp_path / "samples.jsonl"
    _write(f, [{"task_id": "T/0", "solution": "a", "logprob": -1.0, "logprob_tokens": 2},
               {"task_id": "M/1", "solution": "b", "logprob": -5.0, "logprob_tokens": 5},
               {"task_id": "T/0", "solution": "c", "logprob": True},  # not a number: ignored
               {"task_id": "T/0", "solution": "d", "logprob": -2.0, "logprob_tokens": 1, "note": "x"}])
    feats = read_features(f, PROBLEMS)
    sols = read_solutions(f, PROBLEMS)
    assert sols["T/0"] == ["a", "c", "d"]
    assert feats["T/0"]["logprob"][0] == -1.0 and math.isnan(feats["T/0"]["logprob"][1])
    assert feats["T/0"]["logprob_tokens"][2] == 1.0 and feats["M/1"]["logprob"] == [-5.0]
    with pytest.raises(ValueError, match=r"T/0.*coderank-evalplus likelihood --samples"):
        features_for(["filter+ll+mbr_exec"], f, PROBLEMS, sols)
    assert features_for(["codet"], f, PROBLEMS, sols) is None
    assert features_for(["ll"], f, {"M/1": MBPP}, {"M/1": ["b"]})["M/1"]["logprob"] == [-5.0]


@pytest.mark.slow
def test_rerank_cli_refuses_likelihood_methods_without_the_fields(tmp_path):
    import subprocess
    import sys

    from tests.conftest import SHARED_DATA, needs_data  # noqa: F401

    if not SHARED_DATA.is_dir():
        pytest.skip("shared data not present")
    f = tmp_path / "s.jsonl"
    _write(f, [{"task_id": "HumanEval/0", "solution": "def has_close_elements(a, b):\n    return False\n"}])
    t = tmp_path / "t.jsonl"
    _write(t, [{"task_id": "HumanEval/0", "samples": ["has_close_elements([], 1.0) == False"]}])
    r = subprocess.run([sys.executable, "-m", "coderank_evalplus.cli", "rerank", "--data-dir", str(SHARED_DATA),
                        "--solutions", str(f), "--tests", str(t), "--methods", "ll+mbr_exec", "--output",
                        str(tmp_path / "o"), "--quiet"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "logprob, logprob_tokens" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "o" / "cache").exists()  # refused before any work


def test_scored_features_reach_the_rankers_and_the_results_folder(tmp_path):
    from coderank_evalplus.api.evaluate import stage_config
    from coderank_evalplus.api.options import RerankOptions
    from coderank_evalplus.io.results_folder import load_folder
    from coderank_evalplus.pipeline import rank_and_judge, write_results
    from coderank_evalplus.report.curves import budget_curve
    from coderank_evalplus.report.scores import problem_scores

    problems = {"T/0": ADD}
    progs = [PROMPT + b for b in ("    return a + b\n", "    return a - b\n", "    return b + a\n")]
    feats = {"T/0": {"logprob": [-1.0, -0.5, -6.0], "logprob_tokens": [1, 1, 2]}}
    methods = ["ll", "ll+mbr_exec", "filter+ll"]
    res = rank_and_judge("humaneval", problems, {"T/0": progs}, {"T/0": ["add(2, 2) == 4"]},
                 stage_config(RerankOptions(methods=methods, workers=1, progress=False)), None, feats)
    r = res.outcomes["T/0"].rankings
    assert [g.candidates for g in r["ll"].groups] == [[1], [0], [2]]
    assert [g.candidates for g in r["filter+ll"].groups] == [[0], [2]]  # 1 fails the trial test add(1, 2) == 3
    # mbr_exec clusters {0, 2} (equal outputs) × exp(ll): 2·e^-1 > 1·e^-0.5 > 2·e^-3
    assert [g.candidates for g in r["ll+mbr_exec"].groups] == [[0], [1], [2]]
    assert np.isclose(r["ll+mbr_exec"].groups[0].score, math.log(2) - 1)
    # the results folder keeps the features: the leaderboard ranks them again with the same figures
    write_results(res, tmp_path)
    run = load_folder(tmp_path)
    assert run.problems[0].features["logprob"].tolist() == [-1.0, -0.5, -6.0]
    scores = problem_scores(run, methods)
    for m in methods:
        assert 100 * scores[m]["base"][0] == res.methods[m]["base"]["pass@1"]
    curve = budget_curve(run, ["ll"], grid=[2], draws=3)  # candidate subsets take their features along
    assert curve is not None


@pytest.mark.model
def test_likelihood_command_on_a_tiny_model(tmp_path):
    """``coderank-evalplus likelihood --backend hf``: fills the fields, keeps the rest, writes --output."""
    import subprocess
    import sys

    from tests.conftest import SHARED_DATA
    from tests.generation.test_generation import _tiny_llama

    if not SHARED_DATA.is_dir():
        pytest.skip("shared data not present")
    model = _tiny_llama(str(tmp_path / "tiny"))
    f = tmp_path / "s.jsonl"
    _write(f, [{"task_id": "HumanEval/2", "completion": "    return number % 1.0\n", "mine": 1},
               {"task_id": "HumanEval/2", "completion": "    return 0.5\n", "logprob": -2.0, "logprob_tokens": 3}])
    cli = [sys.executable, "-m", "coderank_evalplus.cli", "likelihood", "--backend", "hf", "--model", model,
           "--samples", str(f), "--data-dir", str(SHARED_DATA), "--quiet"]
    r = subprocess.run(cli + ["--output", str(tmp_path / "o.jsonl")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "scored 3 value(s)" in r.stdout
    recs = [json.loads(line) for line in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert recs[0]["mine"] == 1 and recs[0]["logprob"] < 0 and recs[0]["logprob_tokens"] > 0
    assert recs[1]["logprob"] == -2.0 and all(r["reviewer_logprob_tokens"] > 0 for r in recs)
    assert "logprob" not in f.read_text()[:60]  # --output: the input file is left as it was
    bad = subprocess.run(cli + ["--features", "coder,nope"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--features" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.slow
def test_run_checks_its_self_debug_flags():
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "coderank_evalplus.cli", "run", "--debug-rounds", "2"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--debug-rounds applies with --self-debug" in r.stderr
    r = subprocess.run([sys.executable, "-m", "coderank_evalplus.cli", "run", "--self-debug", "multi",
                        "--debug-rounds", "0"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "expected an integer ≥ 1" in r.stderr
