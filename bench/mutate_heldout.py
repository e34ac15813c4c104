"""Paired comparisons of results folders of the same samples on a held-out set of problems (issue 24).

The default N of ``examples+mutate`` was chosen on CodeGen-16B's first 40 HumanEval problems
(bench/mutate_budget.py); this script scores the folders on the others only (``--skip-first 40``), from their
stored matrices (nothing executed or judged): each method's pass@1 with a 95 % bootstrap interval, its gain over
random, and ``--against``: a method on the first folder against methods on the other folders, paired per problem.

    python bench/mutate_heldout.py /work/runs/mutate/runs/codegen-16B--examples+mutate \\
        /work/runs/mutate/runs/codegen-16B--codegen-16B_tests_own /work/runs/mutate/runs/codegen-16B--gpt-4_tests \\
        --skip-first 40 --against srank
"""

from __future__ import annotations

import argparse
from pathlib import Path

METHODS = ("codet", "mbr_exec", "srank", "overlap_agreement", "filter+mbr_exec", "filter+srank",
           "filter+overlap_agreement")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", help="results folders of the same samples (first: the one compared)")
    ap.add_argument("--skip-first", type=int, default=40, help="leave out the folder's first N problems")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--against", default=None, help="method of the first folder compared with the others' methods")
    ap.add_argument("--same-method", action="store_true", help="with --against: only the same method on the others")
    ap.add_argument("--resamples", type=int, default=2000)
    args = ap.parse_args()

    from coderank_evalplus.io.results_folder import load_folder, read_summary
    from coderank_evalplus.report.scores import leaderboard_methods, problem_scores, splits_of
    from coderank_evalplus.stats import mean_estimate, paired_difference, resample_indices

    methods = leaderboard_methods(args.methods.split(","))
    scores, runs = {}, {}
    for f in args.folders:
        ids = read_summary(Path(f))["task_ids"][args.skip_first:]
        runs[f] = load_folder(f, ids)
        scores[f] = problem_scores(runs[f], methods)
    first = args.folders[0]
    n = len(runs[first].problems)
    idx = resample_indices(n, args.resamples)
    for f in args.folders:
        assert [p.problem.task_id for p in runs[f].problems] == [p.problem.task_id for p in runs[first].problems]
    splits = splits_of(runs[first])
    print(f"{n} problems (the first {args.skip_first} left out); pass@1 % [95 % interval]; gain over random")
    for f in args.folders:
        print(f"\n{Path(f).name}")
        print("| method | " + " | ".join(f"{s} | gain ({s})" for s in splits) + " |")
        print("|---|" + "---:|---:|" * len(splits))
        for m in methods:
            cells = []
            for s in splits:
                e = mean_estimate(scores[f][m][s], idx)
                d = paired_difference(scores[f][m][s], scores[f]["random"][s], idx)
                cells.append(f"{e.value:.2f} [{e.ci95[0]:.1f}, {e.ci95[1]:.1f}]")
                cells.append("" if m == "random" else f"{d.diff:+.2f} [{d.ci95[0]:+.1f}, {d.ci95[1]:+.1f}]")
            print(f"| {m} | " + " | ".join(cells) + " |")
    if args.against:
        print(f"\n{args.against} on {Path(first).name} minus each method on the other folders (points)")
        for f in args.folders[1:]:
            for m in methods:
                if m in ("random", "oracle") or (args.same_method and m != args.against):
                    continue
                cells = []
                for s in splits:
                    d = paired_difference(scores[first][args.against][s], scores[f][m][s], idx)
                    cells.append(f"{s} {d.diff:+.2f} [{d.ci95[0]:+.1f}, {d.ci95[1]:+.1f}] p={d.p_value:.3f}")
                print(f"- vs {m} on {Path(f).name}: " + "; ".join(cells))


if __name__ == "__main__":
    main()
