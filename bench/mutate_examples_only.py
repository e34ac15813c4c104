"""What the grown inputs add over the examples alone, from stored ``examples+mutate`` results folders.

For each folder and method: pass@1 with every kept grown input, with none (N = 0: the examples' asserts and
inputs only; ``testgen.mutate.first_inputs``), and the paired difference with its 95 % bootstrap interval. Nothing
is executed or judged.

    python bench/mutate_examples_only.py /work/runs/mutate/runs/*--examples+mutate
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

METHODS = ("mbr_exec", "srank", "overlap_agreement", "filter+srank", "filter+overlap_agreement")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--methods", default=",".join(METHODS))
    args = ap.parse_args()

    import numpy as np

    from coderank_evalplus.io.results_folder import PROBLEMS_FILE, load_folder
    from coderank_evalplus.report.scores import pass_at_1, rank, splits_of
    from coderank_evalplus.stats import paired_difference, resample_indices
    from coderank_evalplus.testgen.mutate import first_inputs

    methods = args.methods.split(",")
    print("| folder | method | split | N = 0 | with the grown inputs | difference [95 %] |")
    print("|---|---|---|---:|---:|---:|")
    for f in args.folders:
        run = load_folder(f)
        generated = {}
        for line in (Path(f) / PROBLEMS_FILE).read_text().splitlines():
            rec = json.loads(line)
            generated[rec["task_id"]] = rec.get("generated_inputs") or {}
        idx = resample_indices(len(run.problems))
        for m in methods:
            for s in splits_of(run):
                full, none = [], []
                for sp in run.problems:
                    ex0 = first_inputs(sp.executions, generated[sp.problem.task_id], 0)
                    full.append(pass_at_1(m, sp.correct(s), rank(sp, m, run.seed)))
                    none.append(pass_at_1(m, sp.correct(s), rank(sp, m, run.seed, executions=ex0)))
                d = paired_difference(np.asarray(full), np.asarray(none), idx)
                print(f"| {Path(f).name} | {m} | {s} | {100 * np.mean(none):.2f} | {100 * np.mean(full):.2f} | "
                      f"{d.diff:+.2f} [{d.ci95[0]:+.1f}, {d.ci95[1]:+.1f}] |")


if __name__ == "__main__":
    main()
