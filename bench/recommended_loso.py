"""Is the default pick the best pick? ``learned_examples`` (what ``recommended`` points at) judged leave one set out
against the fixed trial-test compositions, on every real results folder (nothing is executed).

For every model family, ``learned_examples`` is trained on the folders of every OTHER family (study/learned_loso.py
asserts it) and scores that family's folders. Printed per folder × split: pass@1 of random, srank and learned (CodeT's
setting), the compositions filter+srank / filter+overlap_agreement / filter+mbr_exec, the held-out learned_examples,
best_cluster (each problem's best trial-split behaviour cluster, chosen with the labels: the ceiling of any ranker of
these clusters) and the oracle; learned_examples − the folder's best composition (paired bootstrap, 95 % interval);
the share of the random → oracle gap each closes. Then, per split: means over model families, the best fixed
composition on that mean, the folders where learned_examples is below the folder's best composition beyond the
interval, and the gap closed per folder on average.

Build the folders first (one shared execution cache; 2 h 50 min cold on 2 busy cores), then run this script:

    coderank-evalplus leaderboard bench/recommended_mbpp.toml --output runs/recommended/mbpp --cache-dir C --no-curves
    coderank-evalplus leaderboard bench/recommended_humaneval.toml --output runs/recommended/humaneval \\
        --cache-dir C --no-curves
    python bench/recommended_loso.py 'runs/recommended/*/runs/*' --json recommended_loso.json

``--write-model`` also retrains the shipped model (rankers/learned_examples_model.json) on the permissively licensed
folders among those given (study/learned_loso.PERMISSIVE_SOURCES).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from coderank_evalplus.rankers import learned_examples
from coderank_evalplus.study.learned_loso import (
    COMPOSITIONS,
    family_means,
    heldout_models,
    read_folders,
    recommended_rows,
    train_shipped,
)

NAME = "learned_examples"
OTHERS = ("srank", "learned")
SHOWN = ("random", *OTHERS, *COMPOSITIONS, NAME, "best_cluster", "oracle")


def _ci(d: dict) -> str:
    return f"{d['diff']:+.2f} [{d['ci95'][0]:+.2f}, {d['ci95'][1]:+.2f}]"


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f} %"


def print_table(rows: list[dict]) -> None:
    print("| set × pool | split | " + " | ".join(SHOWN) + f" | {NAME} − best composition | gap closed: best "
          f"composition / {NAME} |")
    print("|---|---|" + "---:|" * (len(SHOWN) + 2))
    for r in rows:
        vals = " | ".join(f"{r['pass@1'][m]['pass@1']:.2f}" for m in SHOWN)
        g = r["gap_closed"]
        print(f"| {r['set']} | {r['split']} | {vals} | {_ci(r['minus_best'])} ({r['best_composition']}) | "
              f"{_pct(g[r['best_composition']])} / {_pct(g[NAME])} |")


def print_summary(rows: list[dict]) -> None:
    for split in ("base", "plus"):
        sub = [r for r in rows if r["split"] == split]
        if not sub:
            continue
        means = family_means(rows, SHOWN, split)
        fams = list(dict.fromkeys(r["model"] for r in sub))
        print(f"\n{split}: mean pass@1 over {len(fams)} model families ({len(sub)} folders, a family's averaged "
              f"first): " + ", ".join(f"{m} {v:.2f}" for m, v in means.items()))
        best = max(COMPOSITIONS, key=lambda m: means[m])
        print(f"  best fixed composition on that mean: {best} {means[best]:.2f}; {NAME} − it: "
              f"{means[NAME] - means[best]:+.2f} points (target ≥ +1.00); a perfect ranker of the same clusters "
              f"(best_cluster, labels used) − it: {means['best_cluster'] - means[best]:+.2f}")
        for f in fams:
            fr = [r for r in sub if r["model"] == f]
            d = np.mean([r["pass@1"][NAME]["pass@1"] - r["pass@1"][best]["pass@1"] for r in fr])
            print(f"    {f}: {len(fr)} folder(s), {NAME} − {best} {d:+.2f}")
        below = [r for r in sub if r["minus_best"]["ci95"][1] < 0]
        above = [r for r in sub if r["minus_best"]["ci95"][0] > 0]
        print(f"  against each folder's best composition: above beyond the interval on {len(above)}, below beyond "
              f"it on {len(below)} of {len(sub)} folders" + (": " + "; ".join(
                  f"{r['set']} {_ci(r['minus_best'])}" for r in below) if below else ""))
        worst = min(sub, key=lambda r: r["minus_best"]["diff"])
        print(f"  worst: {worst['set']} {_ci(worst['minus_best'])} ({worst['best_composition']})")
        for m in (NAME, *COMPOSITIONS, *OTHERS):
            g = [r["gap_closed"][m] for r in sub if r["gap_closed"][m] is not None]
            print(f"  {m}: share of the random → oracle gap closed, mean over folders {np.mean(g):.3f} "
                  f"(min {np.min(g):.3f})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+", help="results folders or glob patterns")
    ap.add_argument("--json", help="write the rows (and each family's held-out weights) here")
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--write-model", action="store_true",
                    help=f"retrain {learned_examples.MODEL_FILE.name} on the permissive folders")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    sets = read_folders(args.folders, ranker=NAME)
    print(f"{len(sets)} folders read in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    t0 = time.perf_counter()
    models = heldout_models(sets, learned_examples.SPEC)
    print(f"{len(models)} held-out models trained in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    rows = recommended_rows(sets, models, OTHERS, n_resamples=args.resamples)
    print_table(rows)
    print_summary(rows)
    if args.json:
        out = {"rows": rows, "heldout_weights": {f: m["weights"] for f, m in models.items()}}
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    if args.write_model:
        model = train_shipped(sets, learned_examples.SPEC)
        learned_examples.MODEL_FILE.write_text(json.dumps(model, indent=1, sort_keys=True) + "\n")
        print(f"\nwrote {learned_examples.MODEL_FILE} (digest {model['digest'][:12]}), trained on "
              + ", ".join(f"{t['name']} × {t['tests']}" for t in model["training_sets"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
