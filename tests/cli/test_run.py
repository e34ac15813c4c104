"""``coderank-evalplus run`` end to end on the embedded model (CPU) with likelihood methods and SD-Multi, tiny
sizes (one problem, two samples of 24 tokens): the machinery, not the numbers, is what is checked."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import SHARED_DATA, needs_data

METHODS = "ll,coder_reviewer,ll+mbr_exec,filter+ll+mbr_exec,codet"
LOGPROB_FIELDS = {"logprob", "logprob_tokens", "reviewer_logprob", "reviewer_logprob_tokens"}


def _jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run_cli(out, *extra, methods=METHODS, timeout=600):
    cmd = [sys.executable, "-m", "coderank_evalplus.cli", "run", "--data-dir", str(SHARED_DATA), "--limit", "1",
           "--n-samples", "2", "--n-test-samples", "1", "--max-tokens", "24", "--methods", methods,
           "--workers", "2", "--output", str(out), "--quiet", *extra]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def check_doce_run(out, mode: str, methods: str = METHODS) -> dict:
    """What a DOCE run leaves behind: samples with likelihood fields, the rounds, results before and after."""
    samples = _jsonl(out / "samples.jsonl")
    fields = LOGPROB_FIELDS if "coder_reviewer" in methods else {"logprob", "logprob_tokens"}
    assert len(samples) == 2 and all(fields <= set(r) for r in samples)
    assert all(r["logprob"] <= 0 and r["logprob_tokens"] > 0 for r in samples)
    res = json.loads((out / "rerank_results.json").read_text())
    names = ["random", *methods.split(","), "oracle"]
    assert list(res["methods"]) == names
    sd = res["self_debug"][mode]
    assert sd["mode"] == mode and list(sd["methods"]) == names
    log = _jsonl(out / f"self_debug_{mode}.jsonl")
    assert sd["candidates_debugged"] >= 1 and len(log) >= sd["candidates_debugged"]
    for r in log:
        assert r["feedback"] and r["shown"] and isinstance(r["program"], str) and r["round"] >= 1
    pool = _jsonl(out / f"samples_{mode}.jsonl")
    assert len(pool) == 2 and any("self_debug_rounds" in r for r in pool)
    return res


@needs_data
@pytest.mark.model
def test_run_embedded_with_likelihoods_and_sd_multi(tmp_path):
    pytest.importorskip("llama_cpp")
    from coderank_evalplus.generation.embedded_backend import default_gguf

    try:
        default_gguf()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    out = tmp_path / "run"
    r = run_cli(out, "--self-debug", "multi")
    assert r.returncode == 0, r.stderr[-3000:]
    res = check_doce_run(out, "multi")
    assert "after self-debug (multi" in r.stdout
    assert "SmolLM2-135M is a weak coder" in r.stdout  # what its table says about itself
    assert_unstreamed_order(out, tmp_path / "again")  # the likelihoods scored as the stream drew the samples
    log = (out / "self_debug_multi.jsonl").read_text()
    # the same command again resumes: nothing generated, scored or debugged twice, the same results
    r2 = run_cli(out, "--self-debug", "multi")
    assert r2.returncode == 0, r2.stderr[-3000:]
    assert (out / "self_debug_multi.jsonl").read_text() == log
    assert json.loads((out / "rerank_results.json").read_text())["self_debug"] == res["self_debug"]
    assert list(res["self_debug"]) == ["multi"]


def assert_unstreamed_order(out, again):
    """The streamed run's folder is its samples reranked in one batch (tests/stream_parity.py)."""
    from coderank_evalplus.io.problems import load_problems
    from tests.stream_parity import rerank_again, results_of

    problems = load_problems("humaneval", str(SHARED_DATA))
    assert results_of(out) == results_of(rerank_again(out, again, problems, str(SHARED_DATA)))


@needs_data
@pytest.mark.model
def test_run_backend_hf_is_the_unstreamed_order(tmp_path):
    """``run --backend hf`` (a tiny random Llama: a base model, CodeT's stop sequences, solutions and tests in
    calls by count): the streamed folder is the one its samples give reranked in one batch."""
    from tests.generation.test_generation import _tiny_llama

    model = _tiny_llama(str(tmp_path / "tiny"))
    out = tmp_path / "run"
    r = run_cli(out, "--backend", "hf", "--model", model, "--limit", "2", "--n-test-samples", "2",
                methods="codet,ll,mbr_exec")
    assert r.returncode == 0, r.stderr[-3000:]
    assert_unstreamed_order(out, tmp_path / "again")


def _task_args(**kw):
    import argparse

    base = {"task_ids": None, "limit": None, "model": "embedded", "dataset": "humaneval"}
    return argparse.Namespace(**{**base, **kw})


def test_run_task_ids_choose_the_problems():
    """--task-ids picks problems in the dataset's order; --limit the first N; the embedded model on HumanEval
    defaults to its screened set (EMBEDDED_TASKS), any other model to the first RUN_LIMIT; bad ids are named."""
    from coderank_evalplus.cli.run import EMBEDDED_TASKS, RUN_LIMIT, run_task_ids

    problems = {f"HumanEval/{i}": None for i in range(164)}
    assert run_task_ids(_task_args(task_ids=["HumanEval/7", "HumanEval/3"]), problems) == (
        ["HumanEval/3", "HumanEval/7"], None, "")
    assert run_task_ids(_task_args(limit=2), problems) == (["HumanEval/0", "HumanEval/1"], 2, "")
    ids, limit, why = run_task_ids(_task_args(), problems)
    assert set(ids) == set(EMBEDDED_TASKS) and limit is None and why
    assert run_task_ids(_task_args(model="org/model"), problems)[0] == list(problems)[:RUN_LIMIT]
    assert run_task_ids(_task_args(dataset="mbpp"), {f"Mbpp/{i}": None for i in range(2, 9)})[0] == [
        f"Mbpp/{i}" for i in range(2, 2 + RUN_LIMIT)]
    with pytest.raises(ValueError, match="HumanEval/999"):
        run_task_ids(_task_args(task_ids=["HumanEval/999"]), problems)
    with pytest.raises(ValueError, match="one of them"):
        run_task_ids(_task_args(task_ids=["HumanEval/1"], limit=3), problems)


@pytest.mark.parametrize("backend", ["embedded", "hf", "vllm", "openai"])
@pytest.mark.parametrize("flag, chat", [([], None), (["--chat"], True), (["--no-chat"], False)])
def test_chat_flags_reach_every_backend(monkeypatch, backend, flag, chat):
    """``--chat`` / ``--no-chat`` on run and likelihood become ``chat=`` for the backend; with neither the backend
    decides (no ``chat=`` given: the embedded engines' own default, the tokenizer's template, the server)."""
    import coderank_evalplus.generation as generation
    from coderank_evalplus.cli.console import build_parser
    from coderank_evalplus.cli.run import model_from_args

    seen = {}
    monkeypatch.setattr(generation, "make_generator", lambda b, m=None, **kw: seen.update(kw, backend=b))
    for command in (["run"], ["likelihood", "--samples", "x.jsonl"]):
        args = build_parser().parse_args([*command, "--backend", backend, "--model", "m", *flag])
        seen.clear()
        model_from_args(args)
        assert seen["backend"] == backend and seen.get("chat", "not given") == ("not given" if chat is None else chat)


def test_concurrency_and_retries_are_the_openai_backends(monkeypatch):
    import coderank_evalplus.generation as generation
    from coderank_evalplus.cli.console import build_parser
    from coderank_evalplus.cli.run import model_from_args

    seen = {}
    monkeypatch.setattr(generation, "make_generator", lambda b, m=None, **kw: seen.update(kw))
    args = build_parser().parse_args(["run", "--backend", "openai", "--concurrency", "3", "--retries", "0"])
    model_from_args(args)
    assert seen["concurrency"] == 3 and seen["max_retries"] == 0
    args = build_parser().parse_args(["run", "--backend", "hf", "--model", "m", "--concurrency", "3"])
    with pytest.raises(ValueError, match="--concurrency and --retries apply to --backend openai, not hf"):
        model_from_args(args)
