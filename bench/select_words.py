"""What does saying the selection step's evidence in words cost on a real set?

``<method>+select`` ends each batch with one probe per side of every deciding input (``selection.differential.
in_words_of``: all of the batch's probes at once, in the sandbox), so that ``rankings.jsonl``, ``pick``'s reasons
and the step's evidence say "returns False" or "prints 6" rather than a digest. This runs one rerank (the API's, as
``coderank-evalplus rerank`` runs it) with that function timed, and prints the problems the step looked at, the
deciding inputs said in words, the probes, the seconds they took beside the step's and the run's, and the load
average. Run it twice with the same ``--cache-dir`` to see the words beside a step whose executions are cached
(the probes never are: each run makes them again).

    python bench/select_words.py --cache-dir /tmp/words_cache \\
        --solutions ../shared/data/extra_humaneval/samples/gpt-4_n10_t0.2.jsonl.gz
"""

from __future__ import annotations

import argparse
import os
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--solutions", required=True, help="a samples file rerank reads")
    ap.add_argument("--dataset", default="humaneval")
    ap.add_argument("--methods", default="recommended+select")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cache-dir", default=None, help="the execution cache (kept between runs)")
    args = ap.parse_args()

    import coderank_evalplus as cr
    from coderank_evalplus.selection import differential

    spent = {"seconds": 0.0, "batches": 0, "inputs": 0, "probes": 0}
    say = differential.in_words_of

    def timed(items, sels, env) -> None:
        t0 = time.monotonic()
        say(items, sels, env)
        spent["seconds"] += time.monotonic() - t0
        spent["batches"] += 1
        spent["inputs"] += sum(len(s.evidence) for s in sels)
        spent["probes"] += sum(len(e.sides) for s in sels for e in s.evidence)

    differential.in_words_of = timed  # the step calls it through the module: timed wherever the step runs
    t0 = time.monotonic()
    out = cr.rerank(args.solutions, dataset=args.dataset, methods=args.methods, workers=args.workers,
                    cache_dir=args.cache_dir, progress=False)
    wall = time.monotonic() - t0
    timing = out.result.timing
    print(f"{out.result.n_problems} problems, {args.methods}: the step looked at {timing.get('select_problems', 0)}, "
          f"changed {timing.get('select_changed', 0)} picks")
    print(f"words: {spent['inputs']} deciding inputs, {spent['probes']} probes in {spent['batches']} batch(es): "
          f"{spent['seconds']:.2f} s")
    print(f"select {timing.get('select_s', 0.0):.2f} s (words included), execute {timing.get('execute_s', 0.0):.2f} s,"
          f" run {wall:.1f} s: the words are {100 * spent['seconds'] / max(wall, 1e-9):.2f} % of the run")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
