"""The "No test model?" table of docs/results.md from a leaderboard.json (bench/mutate_suite.toml's run):
per row, random and each method's pass@1 with its gain over random and that gain's 95 % interval, base and plus.

    python bench/mutate_table.py /work/runs/mutate/leaderboard.json
"""

from __future__ import annotations

import json
import sys

METHODS = ("codet", "mbr_exec", "srank", "overlap_agreement", "filter+mbr_exec", "filter+srank",
           "filter+overlap_agreement")


def main() -> None:
    board = json.load(open(sys.argv[1]))
    print("| model | dataset | tests | problems × samples | split | random | "
          + " | ".join(METHODS) + " | best gain over random [95 %] |")
    print("|---|---|---|---|---|---:|" + "---:|" * len(METHODS) + "---:|")
    for row in board["rows"]:
        for split in row["splits"]:
            rnd = row["methods"]["random"][split]["pass@1"]
            cells = [f"{row['methods'][m][split]['pass@1']:.2f}" for m in METHODS]
            best = max(METHODS, key=lambda m: row["methods"][m][split]["pass@1"])
            d = row["comparisons"]["random"][best][split]
            print(f"| {row['name']} | {row['dataset']} | {row['tests_label']} | {row['n_problems']} × "
                  f"{row['samples_per_problem']} | {split} | {rnd:.2f} | " + " | ".join(cells)
                  + f" | {best} {d['diff']:+.2f} [{d['ci95'][0]:+.1f}, {d['ci95'][1]:+.1f}] |")


if __name__ == "__main__":
    main()
