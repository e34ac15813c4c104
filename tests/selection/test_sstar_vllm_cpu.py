"""S* with vLLM (its CPU build, SmolLM2-135M-Instruct) on 12 real HumanEval problems: the same machinery check as
with the embedded model (tests/selection/sstar_real.py). Skipped where vLLM is absent; bash tests/vllm_cpu.sh runs
it in the vLLM venv."""

from __future__ import annotations

import os

import pytest

from tests.conftest import needs_data
from tests.vllm_cpu import ENV, needs_vllm, smollm2_dir

pytestmark = [needs_vllm, needs_data, pytest.mark.model, pytest.mark.timeout(1800)]


def test_sstar_end_to_end_with_vllm(tmp_path, tmp_path_factory, monkeypatch):
    from coderank_evalplus.generation import make_generator
    from coderank_evalplus.selection.sstar import make_selector
    from tests.selection.sstar_real import check_sstar_machinery

    for k, v in ENV.items():
        monkeypatch.setenv(k, v)
    gen = make_generator("vllm", smollm2_dir(tmp_path_factory), dtype="float32", max_model_len=4096, seed=0)
    try:
        selector = make_selector("smollm2", "vllm", log_dir=tmp_path, max_tokens=96, generator=gen)
        decisions = check_sstar_machinery(selector, tmp_path)
        assert any(d.attempts for d in decisions.values())
    finally:
        gen.close()
    assert os.path.isfile(tmp_path / "select_sstar.jsonl")
