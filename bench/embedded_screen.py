"""Which HumanEval problems does the embedded SmolLM2-135M solve at all? The screen behind ``run``'s default set.

    IDS=$(python bench/embedded_screen.py --short-ids)    # problems whose reference solution is <= 2 lines
    coderank-evalplus run --task-ids $IDS --n-samples 5 --tests examples+mutate --methods recommended \\
        --output runs/embedded_screen          # 5 chat replies each, no test samples
    python bench/embedded_screen.py runs/embedded_screen [--max-share 0.8]

Screening all 164 problems costs about an hour and a half on 2 busy cores; the 135M model's solutions are short when
they are right at all, so the screen covers the 51 problems whose canonical solution has at most two non-blank lines
(chosen by the reference solution, before any sample is seen). The report reads ``verdicts.jsonl`` (one verdict per
sample, base tests) and prints each problem's passing samples, then the problems where some but not all samples pass
(the candidates differ and some pass: where a reranker has something to choose), ``--max-share`` the largest passing
share kept. ``run``'s default set for the embedded model (``EMBEDDED_TASKS`` in ``cli/run.py``) was taken from this
screen's output; the run that shows the table samples afresh, so its figures are not the screen's.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder", nargs="?", help="a `coderank-evalplus run` results folder (verdicts.jsonl)")
    ap.add_argument("--short-ids", action="store_true",
                    help="print the HumanEval problems whose canonical solution has at most 2 non-blank lines")
    ap.add_argument("--max-share", type=float, default=0.8, help="keep problems with at most this share passing")
    args = ap.parse_args()
    if args.short_ids:
        from coderank_evalplus.io.problems import load_problems_or_original

        _, problems = load_problems_or_original("humaneval", None)
        print(",".join(t for t, p in problems.items()
                       if sum(1 for line in p.canonical_solution.splitlines() if line.strip()) <= 2))
        return
    if not args.folder:
        ap.error("give a results folder (or --short-ids)")
    passed: dict[str, list[bool]] = defaultdict(list)
    with open(Path(args.folder) / "verdicts.jsonl", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            passed[r["task_id"]].append(bool(r["base"]))
    solved = {t: v for t, v in passed.items() if any(v)}
    print(f"{len(passed)} problems, {sum(len(v) for v in passed.values())} samples; "
          f"{sum(sum(v) for v in passed.values())} pass the base tests; {len(solved)} problems solved at least once")
    for t, v in sorted(solved.items(), key=lambda kv: -sum(kv[1])):
        print(f"  {t:16s} {sum(v):3d} / {len(v)}")
    mixed = [t for t, v in passed.items() if 0 < sum(v) <= args.max_share * len(v)]
    print(f"some but at most {args.max_share:.0%} passing ({len(mixed)}): {','.join(mixed)}")


if __name__ == "__main__":
    main()
