"""Does coderank_evalplus.io.sanitize give evalplus.sanitize's output on every raw reply of the shared chat sets,
and how much faster? Prints, per file: replies, identical outputs, both sanitizers' seconds side by side (each
reply timed with both, alternating, so machine load hits both alike), and how many replies the ``raw_field``
reader turns into exactly the file's ``solution``.

    CODERANK_DATA=../shared/data PYTHONPATH=$PWD python bench/sanitize_vs_evalplus.py [--limit N] [--skip-evalplus]

``--limit N``: the first N replies of each file (a quick look); ``--skip-evalplus``: our sanitizer alone.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import time
from pathlib import Path

DATA = Path(os.environ.get("CODERANK_DATA", "../shared/data"))
FILES = [
    ("humaneval", "extra_humaneval/samples/llama-3-8b-instruct-q6_humaneval_n10_t0.6.jsonl.gz"),
    ("humaneval", "extra_humaneval/samples/deepseek-coder-6.7b-instruct-q5_humaneval_n10_t0.6.jsonl.gz"),
    ("humaneval", "extra_humaneval/samples/codellama-7b-instruct-q5_humaneval_n10_t0.6.jsonl.gz"),
    ("humaneval", "extra_humaneval/samples/gpt-3.5-turbo-1106_humaneval_n5.jsonl.gz"),
    ("mbpp", "extra_mbpp/samples/deepseek-coder-6.7b-instruct-q5_mbpp+_n10_t0.6.jsonl.gz"),
    ("mbpp", "extra_mbpp/samples/codellama-7b-instruct-q5_mbpp+_n10_t0.6.jsonl.gz"),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--skip-evalplus", action="store_true")
    args = ap.parse_args()
    from evalplus.sanitize import sanitize as evalplus_sanitize

    from coderank_evalplus.io.problems import load_problems
    from coderank_evalplus.io.sanitize import raw_program, sanitize

    print(f"{'file':58s} {'replies':>7s} {'same':>6s} {'evalplus s':>10s} {'ours s':>8s} {'ratio':>6s} "
          f"{'ms/reply ep|ours (median)':>26s} {'= solution':>10s}")
    totals = [0, 0, 0.0, 0.0]
    all_same = True
    for dataset, rel in FILES:
        problems = load_problems(dataset, str(DATA))
        with gzip.open(DATA / rel, "rt", encoding="utf-8") as fh:
            recs = [json.loads(line) for line in fh]
        if args.limit:
            recs = recs[:args.limit]
        same = as_solution = 0
        t_ep: list[float] = []
        t_ours: list[float] = []
        for rec in recs:
            problem = problems[rec["task_id"]]
            raw = rec["raw"]
            t0 = time.perf_counter()
            ours = sanitize(raw, problem.entry_point)
            t_ours.append(time.perf_counter() - t0)
            if not args.skip_evalplus:
                t0 = time.perf_counter()
                theirs = evalplus_sanitize(raw, problem.entry_point)
                t_ep.append(time.perf_counter() - t0)
                same += ours == theirs
                if ours != theirs and same < 5:
                    print(f"  DIFFERS: {rel} {rec['task_id']}", file=sys.stderr)
            as_solution += raw_program(raw, problem) == rec["solution"]
        ep_s, ours_s = sum(t_ep), sum(t_ours)
        med = (f"{statistics.median(t_ep) * 1e3:.1f} | " if t_ep else "- | ") + f"{statistics.median(t_ours) * 1e3:.2f}"
        ratio = f"{ep_s / ours_s:.0f}×" if t_ep and ours_s else "-"
        shown_same = str(same) if t_ep else "-"
        print(f"{Path(rel).name[:58]:58s} {len(recs):7d} {shown_same:>6s} {ep_s:10.1f} {ours_s:8.2f} {ratio:>6s} "
              f"{med:>26s} {as_solution:10d}", flush=True)
        totals[0] += len(recs)
        totals[1] += same
        totals[2] += ep_s
        totals[3] += ours_s
        all_same &= (same == len(recs)) or args.skip_evalplus
    ratio = f"{totals[2] / totals[3]:.0f}×" if totals[2] and totals[3] else "-"
    print(f"{'all':58s} {totals[0]:7d} {totals[1]:6d} {totals[2]:10.1f} {totals[3]:8.2f} {ratio:>6s}")
    return 0 if all_same else 1


if __name__ == "__main__":
    sys.exit(main())
