"""How many requests per second does `run --backend openai` keep going, at --concurrency 1 and at the default?

Starts the canned chat-only server of the tests (tests/generation/chat_server.py) on 127.0.0.1 in a process of its
own (so that its work does not take the client's GIL: the figures are the client's), replaying
DeepSeek-Coder-6.7B-Instruct's real HumanEval replies (../shared/data/extra_humaneval), each request held
``--delay`` seconds as a model would, and drives the sampling loop (``generate_samples``, what `run` calls) through
the openai generator with each concurrency in turn, side by side in one run, each into a fresh folder. Prints per
concurrency: requests, wall seconds, requests/s, the most requests the server held at once, the CPU seconds this
process (the client) used and the load average; then each concurrency's requests/s as a multiple of the first one's
(the ceiling: the concurrency ratio).

    python bench/openai_throughput.py --data-dir ../shared/data --problems 40 --delay 0.5

``--ignore-n`` makes the server answer one reply per request (llama.cpp's server ignores ``n``): the generator then
sends ``n`` one-sample requests per prompt. ``--requests-only`` takes the replies from the generator
(``generate_mixed``, the sampling loop's entry point: solutions and tests in flight together) and drops them: the
requests without the loop's reading of each reply (a chat reply is sanitized, ~1–2 ms of CPU, in the loop's thread) and
writing, to tell the one's cost from the other's.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: tests.generation.chat_server


def main() -> None:
    from coderank_evalplus.generation import generate_samples, make_generator
    from coderank_evalplus.generation.base import Prompt, generate_mixed
    from coderank_evalplus.generation.openai_backend import DEFAULT_CONCURRENCY
    from coderank_evalplus.io.problems import load_problems
    from coderank_evalplus.testgen.prompts import chat_solution_messages, chat_test_messages
    from tests.generation.chat_server import ServerProcess, humaneval_replies

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", default=os.environ.get("CODERANK_DATA", "../shared/data"))
    ap.add_argument("--problems", type=int, default=40, help="the first N HumanEval problems")
    ap.add_argument("--n-samples", type=int, default=10, help="replies per problem (the set has 10)")
    ap.add_argument("--n-tests", type=int, default=0, help="test samples per problem too (`run`'s 2)")
    ap.add_argument("--delay", type=float, default=0.5, help="seconds the server holds each request")
    ap.add_argument("--concurrency", default=f"1,{DEFAULT_CONCURRENCY}", help="comma-separated, run in turn")
    ap.add_argument("--ignore-n", action="store_true", help="one reply per request, as llama.cpp's server")
    ap.add_argument("--requests-only", action="store_true", help="the generator's replies dropped, not written")
    args = ap.parse_args()

    problems = load_problems("humaneval", args.data_dir)
    chosen = list(problems)[: args.problems]
    # the server knows a request's problem by its entry point's def line, which a test prompt shows too (it is
    # answered with the problem's solution replies: the figures are the requests', not the tests')
    replies, prompts = humaneval_replies(args.data_dir, problems, chosen)
    print(f"{len(chosen)} problems × ({args.n_samples} + {args.n_tests} test) replies, server delay {args.delay} s per "
          f"request, {'one reply per request' if args.ignore_n else 'n replies per request'}"
          f"{', requests only (replies dropped)' if args.requests_only else ', through the sampling loop'}")
    print(f"{'concurrency':>11} {'requests':>8} {'wall s':>7} {'req/s':>6} {'held at once':>12} {'client cpu s':>12}  "
          f"load average")
    rates = {}
    for c in [int(x) for x in args.concurrency.split(",")]:
        server = ServerProcess(replies, prompts, delay=args.delay, honour_n=not args.ignore_n)
        with server as (url, model):
            gen = make_generator("openai", model, base_url=url, concurrency=c, logprobs=True)
            _ = gen.is_chat  # the chat-or-not probe, outside the timing
            with tempfile.TemporaryDirectory() as out:
                t0, cpu0 = time.monotonic(), time.process_time()
                if args.requests_only:  # as the loop asks: the solutions beside the tests
                    asks: list[Prompt] = [ask(problems[t]) for ask in (chat_solution_messages, chat_test_messages)
                                          for t in chosen]
                    counts = [args.n_samples] * len(chosen) + [args.n_tests] * len(chosen)
                    for _ in generate_mixed(gen, asks, counts, [[]] * len(asks), 0.8, 0.95, 300):
                        pass
                else:
                    generate_samples([problems[t] for t in chosen], gen, args.n_samples, args.n_tests, out_dir=out,
                                     progress=False)
                wall, cpu = time.monotonic() - t0, time.process_time() - cpu0
        assert server.stats is not None  # the block ended: the server said what it answered
        n, held = server.stats
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        rates[c] = n / wall
        print(f"{c:>11} {n:>8} {wall:>7.2f} {rates[c]:>6.2f} {held:>12} {cpu:>12.2f}  {load}", flush=True)
    first, *rest = rates
    for c in rest:
        print(f"concurrency {c}: {rates[c] / rates[first]:.2f}× concurrency {first}'s requests/s (ceiling "
              f"{c / first:g}×)")


if __name__ == "__main__":
    main()
