"""``coderank-evalplus run --backend vllm`` end to end on the real engine (vLLM's CPU build, SmolLM2-135M-Instruct):
chat replies sampled with their log-probabilities, test samples, likelihood features scored by the same engine,
the rerank. Tiny sizes (two problems, three samples); skipped where vLLM is absent (tests/vllm_cpu.py)."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.conftest import SHARED_DATA, needs_data
from tests.vllm_cpu import BIN, needs_vllm, smollm2_dir, vllm_env

pytestmark = [needs_vllm, needs_data, pytest.mark.model, pytest.mark.timeout(1800)]

METHODS = "codet,ll,coder_reviewer,filter+ll+mbr_exec"


def _jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_run_backend_vllm(tmp_path_factory, tmp_path):
    model = smollm2_dir(tmp_path_factory)
    out = tmp_path / "run"
    cmd = [str(BIN / "coderank-evalplus"), "run", "--backend", "vllm", "--model", model, "--data-dir",
           str(SHARED_DATA), "--limit", "2", "--n-samples", "3", "--n-test-samples", "3", "--max-tokens", "192",
           "--methods", METHODS, "--workers", "2", "--output", str(out), "--quiet"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=1500, env=vllm_env())
    assert r.returncode == 0, f"{r.stdout[-3000:]}\n{r.stderr[-6000:]}"
    # --quiet: none of vLLM's or torch's own lines (engine start, compile, shutdown), only the run's
    noisy = [line for line in (r.stdout + r.stderr).splitlines()
             if any(word in line for word in ("INFO", "WARNING", "Warning", "Loading safetensors", "leaked"))]
    assert not noisy, noisy[:5]
    samples = _jsonl(out / "samples.jsonl")
    assert len(samples) == 6 and len({s["task_id"] for s in samples}) == 2
    for s in samples:  # chat replies (SmolLM2-Instruct has a chat template), the reply kept, both likelihoods
        assert s["raw"] and s["logprob"] <= 0 and s["logprob_tokens"] > 0 and s["reviewer_logprob_tokens"] > 0
    assert [len(t["samples"]) for t in _jsonl(out / "tests_raw.jsonl")] == [3, 3]
    res = json.loads((out / "rerank_results.json").read_text())
    assert list(res["methods"]) == ["random", *METHODS.split(","), "oracle"]
    from tests.cli.test_run import assert_unstreamed_order

    assert_unstreamed_order(out, tmp_path / "again")  # the streamed run's numbers are the unstreamed order's
