"""How many requests per second does `run --backend openai` keep going, at --concurrency 1 and at the default?

Starts the canned chat-only server of the tests (tests/generation/chat_server.py) on 127.0.0.1, replaying
DeepSeek-Coder-6.7B-Instruct's real HumanEval replies (../shared/data/extra_humaneval), each request held
``--delay`` seconds as a model would, and drives the sampling loop (``generate_samples``, what `run` calls) through
the openai generator with each concurrency in turn, side by side in one run, each into a fresh folder. Prints per
concurrency: requests, wall seconds, requests/s, the most requests the server held at once, and the load average.

    python bench/openai_throughput.py --data-dir ../shared/data --problems 40 --delay 0.5

``--ignore-n`` makes the server answer one reply per request (llama.cpp's server ignores ``n``): the generator then
sends ``n`` one-sample requests per prompt.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: tests.generation.chat_server

SET = "extra_humaneval/samples/deepseek-coder-6.7b-instruct-q5_humaneval_n10_t0.6.jsonl.gz"


def main() -> None:
    from coderank_evalplus.generation import generate_samples, make_generator
    from coderank_evalplus.generation.openai_backend import DEFAULT_CONCURRENCY
    from coderank_evalplus.io.problems import load_problems
    from tests.generation.chat_server import CannedChatServer

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", default=os.environ.get("CODERANK_DATA", "../shared/data"))
    ap.add_argument("--problems", type=int, default=40, help="the first N HumanEval problems")
    ap.add_argument("--n-samples", type=int, default=10, help="replies per problem (the set has 10)")
    ap.add_argument("--delay", type=float, default=0.5, help="seconds the server holds each request")
    ap.add_argument("--concurrency", default=f"1,{DEFAULT_CONCURRENCY}", help="comma-separated, run in turn")
    ap.add_argument("--ignore-n", action="store_true", help="one reply per request, as llama.cpp's server")
    args = ap.parse_args()

    problems = load_problems("humaneval", args.data_dir)
    chosen = list(problems)[: args.problems]
    replies: dict[str, list[str]] = {t: [] for t in chosen}
    with gzip.open(Path(args.data_dir) / SET, "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            if rec["task_id"] in replies:
                replies[rec["task_id"]].append(rec["raw"])
    prompts = {t: problems[t].prompt.strip() for t in chosen}
    print(f"{len(chosen)} problems × {args.n_samples} replies, server delay {args.delay} s per request, "
          f"{'one reply per request' if args.ignore_n else 'n replies per request'}")
    print(f"{'concurrency':>11} {'requests':>8} {'wall s':>7} {'req/s':>6} {'held at once':>12}  load average")
    for c in [int(x) for x in args.concurrency.split(",")]:
        server = CannedChatServer(replies, prompts, delay=args.delay, honour_n=not args.ignore_n).start()
        try:
            gen = make_generator("openai", server.model, base_url=server.url, concurrency=c, logprobs=True)
            _ = gen.is_chat  # the chat-or-not probe, outside the timing
            with tempfile.TemporaryDirectory() as out:
                t0 = time.monotonic()
                generate_samples([problems[t] for t in chosen], gen, args.n_samples, 0, out_dir=out, progress=False)
                wall = time.monotonic() - t0
        finally:
            server.stop()
        n = len(server.served)
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"{c:>11} {n:>8} {wall:>7.2f} {n / wall:>6.2f} {server.max_inflight:>12}  {load}")


if __name__ == "__main__":
    main()
