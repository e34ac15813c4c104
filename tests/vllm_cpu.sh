#!/usr/bin/env bash
# The vLLM tests on the real engine, on this machine's CPU (docs/scaling.md#vllm-on-the-cpu):
#   bash tests/vllm_cpu.sh [pytest arguments]       (from anywhere; VLLM_VENV=... to use another venv)
# Makes the vLLM venv with tools/vllm_cpu_env.sh where it is missing (.venv-vllm, ~4.5 GB), converts SmolLM2-135M-
# Instruct to a transformers folder once (tools/gguf_to_hf.py, into the venv), then runs the tests that need vLLM
# (tests/vllm_cpu.py lists them; in the normal test venv they are skipped) with that venv's Python.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${VLLM_VENV:-$ROOT/.venv-vllm}"
[ -x "$VENV/bin/python" ] || bash "$ROOT/tools/vllm_cpu_env.sh" "$VENV"
MODEL="${CODERANK_VLLM_MODEL:-$VENV/models/smollm2}"
[ -f "$MODEL/model.safetensors" ] || "$VENV/bin/python" "$ROOT/tools/gguf_to_hf.py" "$MODEL"
cd "$ROOT"
CODERANK_VLLM_MODEL="$MODEL" CODERANK_DATA="${CODERANK_DATA:-$ROOT/../shared/data}" \
  HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 "$VENV/bin/python" -m pytest -q -p no:cacheprovider \
  tests/generation/test_vllm_cpu.py tests/cli/test_vllm_cpu_run.py tests/integrations/test_vllm_cpu_harnesses.py \
  tests/selection/test_sstar_vllm_cpu.py "$@"
