"""The harnesses' own vLLM paths on the real engine (vLLM's CPU build, SmolLM2-135M-Instruct), in subprocesses as
users run them: ``evalplus.evaluate --backend vllm --rerank`` (evalplus's codegen, then our test samples from the
same model through our vLLM generator) and ``lm-eval --model vllm --tasks humaneval_srank``, with and without
``--apply_chat_template``. Tiny sizes (two problems, three samples): the machinery, not the numbers, is checked.
Skipped where vLLM is absent (tests/vllm_cpu.py)."""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import SHARED_DATA, needs_data
from tests.vllm_cpu import BIN, needs_vllm, smollm2_dir, vllm_env

pytestmark = [needs_vllm, needs_data, pytest.mark.model, pytest.mark.harness, pytest.mark.timeout(1800)]

TASKS = ["HumanEval/0", "HumanEval/2"]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> str:
    return smollm2_dir(tmp_path_factory)


def _run(cmd: list[str], cwd: Path, timeout: int = 1500, **env: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=vllm_env(CODERANK_DATA=str(SHARED_DATA), XDG_CACHE_HOME=str(cwd / "xdg"), **env))
    assert proc.returncode == 0, f"{cmd[0]} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    return proc


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_evalplus_rerank_with_vllm(model_dir, tmp_path):
    with gzip.open(SHARED_DATA / "evalplus_humanevalplus_release" / "v0.1.10" / "HumanEvalPlus.jsonl.gz", "rt") as fh:
        recs = {r["task_id"]: r for r in map(json.loads, fh) if r["task_id"] in TASKS}
    data = tmp_path / "HumanEvalPlus.jsonl"
    data.write_text("".join(json.dumps(recs[t]) + "\n" for t in TASKS))
    proc = _run([BIN / "evalplus.evaluate", "--dataset", "humaneval", "--model", model_dir, "--backend", "vllm",
                 "--n_samples", "3", "--temperature", "0.8", "--dtype", "float32", "--root", tmp_path / "runs",
                 "--rerank", "codet,ll", "--n-test-samples", "3", "--parallel", "2"],
                tmp_path, HUMANEVAL_OVERRIDE_PATH=str(data))
    [samples] = list((tmp_path / "runs").rglob("*vllm_temp_0.8.jsonl"))
    sols = _jsonl(samples)
    assert sorted({r["task_id"] for r in sols}) == TASKS and len(sols) == 6
    assert all(r["logprob_tokens"] > 0 and r["logprob"] <= 0 for r in sols)  # ll: scored by the same model
    tests = _jsonl(samples.with_name(samples.stem + "_tests.jsonl"))
    assert sorted(t["task_id"] for t in tests) == TASKS and all(len(t["samples"]) == 3 for t in tests)
    results = json.loads(samples.with_name(samples.stem + "_rerank_results.json").read_text())
    assert {"random", "codet", "ll", "oracle"} <= set(results["methods"])
    assert "Generating 3 test sample(s) per problem" in proc.stdout
    print("\n" + proc.stdout[-2000:])  # the table (pytest -s shows it)


@pytest.mark.parametrize("chat", [False, True], ids=["base", "chat"])
def test_lm_eval_vllm_humaneval_srank(model_dir, tmp_path, chat):
    out = tmp_path / "out"
    args = [BIN / "lm-eval", "run", "--model", "vllm",
            "--model_args", f"pretrained={model_dir},max_model_len=2048,dtype=float32",
            "--tasks", "humaneval_srank", "--limit", "2", "--metadata", '{"n_samples": 3, "n_test_samples": 3}',
            "--gen_kwargs", f"max_gen_toks={256 if chat else 128}", "--confirm_run_unsafe_code", "--log_samples",
            "--output_path", out]
    if chat:
        args.append("--apply_chat_template")
    _run(args, tmp_path, HF_ALLOW_CODE_EVAL="0")
    [results] = list(out.rglob("results_*.json"))
    metrics = json.loads(results.read_text())["results"]["humaneval_srank"]
    print(f"\nlm-eval vllm {'chat' if chat else 'base'}: {metrics}")
    for key in ("pass@1", "pass@1_random", "pass@1_oracle"):
        assert 0.0 <= metrics[f"{key},none"] <= 1.0
    [log] = list(out.rglob("samples_humaneval_srank_*.jsonl"))
    records = _jsonl(log)
    assert [r["doc"]["task_id"] for r in records] == ["HumanEval/0", "HumanEval/1"]  # lm-eval's --limit: the first
    for r in records:
        assert [len(replies) for replies in r["resps"]] == [3, 3]  # n_samples, n_test_samples replies
        rec = json.loads(r["filtered_resps"][0])  # the task's record of the problem: candidates, groups, pick
        assert rec["task_id"] == r["doc"]["task_id"] and rec["n_candidates"] == 3
        assert bool(rec.get("chat")) is chat
