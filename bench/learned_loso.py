"""Leave-one-set-out table of the ``learned`` ranker, recomputed from results folders (nothing is executed).

For every model, a model is trained on the folders of every OTHER model (study/learned_loso.py asserts it) and
that model's folders (one per test pool) are scored; printed: pass@1 of learned and of the baselines per folder ×
split, learned − baseline paired bootstrap differences with 95 % intervals, means over rows and win/tie/loss counts
(a win or loss needs its interval to exclude 0), and each method's worst shortfall against srank.

From a cold cache, first build the folders (they use the shared execution cache), then run this script:

    coderank-evalplus leaderboard examples/humaneval_suite.toml --output /work/runs/humaneval --cache-dir C
    coderank-evalplus rerank --dataset mbpp --solutions …/extra_mbpp/samples/<model>.jsonl.gz \\
        --tests …/extra_mbpp/tests/<pool>.jsonl --cache-dir C --output runs/mbpp/<model>--<pool>   (each set × pool)
    python bench/learned_loso.py '/work/runs/humaneval/runs/*' 'runs/mbpp/*' --json loso.json

``--write-model`` also retrains the shipped model (rankers/learned_model.json) on the permissively licensed folders
among those given (SOURCES.md; study/learned_loso.PERMISSIVE_SOURCES).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from coderank_evalplus.rankers.learned import MODEL_FILE
from coderank_evalplus.study.learned_loso import loso_rows, read_folders, train_shipped

BASELINES = ("srank_reference", "srank", "codet", "b4", "overlap_agreement")


def _ci(d: dict) -> str:
    return f"{d['diff']:+.2f} [{d['ci95'][0]:+.2f}, {d['ci95'][1]:+.2f}]"


def _verdict(d: dict) -> str:
    return "win" if d["ci95"][0] > 0 else "loss" if d["ci95"][1] < 0 else "tie"


def print_table(rows: list[dict], baselines: tuple[str, ...]) -> None:
    cols = ["learned", *baselines]
    print("| set × pool | split | " + " | ".join(cols) + " | learned − srank_reference | learned − srank |")
    print("|---|---|" + "---:|" * (len(cols) + 2))
    for r in rows:
        vals = " | ".join(f"{r['pass@1'][m]['pass@1']:.2f}" for m in cols)
        print(f"| {r['set']} | {r['split']} | {vals} | {_ci(r['learned_minus']['srank_reference'])} | "
              f"{_ci(r['learned_minus']['srank'])} |")
    for split in ("base", "plus"):
        sub = [r for r in rows if r["split"] == split]
        if not sub:
            continue
        means = {m: np.mean([r["pass@1"][m]["pass@1"] for r in sub]) for m in ["random", *cols]}
        print(f"\n{split}: mean pass@1 over {len(sub)} rows: " + ", ".join(f"{m} {v:.2f}" for m, v in means.items()))
        models = list(dict.fromkeys(r["model"] for r in sub))
        per_set = {m: np.mean([np.mean([r["pass@1"][m]["pass@1"] for r in sub if r["model"] == k]) for k in models])
                   for m in ["random", *cols]}
        print(f"{split}: mean pass@1 over {len(models)} sets (a set's rows averaged first): "
              + ", ".join(f"{m} {v:.2f}" for m, v in per_set.items()))
        for b in ("srank_reference", "srank"):
            ahead = [k for k in models if np.mean([r["learned_minus"][b]["diff"] for r in sub if r["model"] == k]) > 0]
            print(f"  learned ahead of {b} on {len(ahead)}/{len(models)} sets: {', '.join(ahead) or '-'}")
        for b in ("srank_reference", "srank", "codet", "b4"):
            diffs = [r["learned_minus"][b] for r in sub]
            counts = {k: sum(_verdict(d) == k for d in diffs) for k in ("win", "tie", "loss")}
            ahead = sum(d["diff"] > 0 for d in diffs)
            print(f"  learned vs {b}: ahead on {ahead}/{len(sub)} rows; by interval {counts['win']} wins / "
                  f"{counts['tie']} ties / {counts['loss']} losses")
        print("  worst (method − srank) per method, and rows where it is below srank beyond its interval:")
        for m in ["learned", *[b for b in baselines if b != "srank"]]:
            ds = [r["minus_srank"][m] for r in sub]
            worst = min(ds, key=lambda d: d["diff"])
            below = sum(d["ci95"][1] < 0 for d in ds)
            print(f"    {m}: worst {_ci(worst)}, {below} row(s) below srank beyond the interval")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", help="results folders or glob patterns")
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--write-model", action="store_true", help=f"retrain {MODEL_FILE.name} on the permissive folders")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    sets = read_folders(args.folders)
    print(f"{len(sets)} folders read in {time.perf_counter() - t0:.1f} s: " +
          ", ".join(f"{s.label} [{s.model}]" for s in sets), file=sys.stderr)
    rows = loso_rows(sets, BASELINES, n_resamples=args.resamples)
    print_table(rows, BASELINES)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    if args.write_model:
        model = train_shipped(sets)
        MODEL_FILE.write_text(json.dumps(model, indent=1, sort_keys=True) + "\n")
        print(f"\nwrote {MODEL_FILE} (digest {model['digest'][:12]}), trained on "
              + ", ".join(f"{t['name']} × {t['tests']}" for t in model["training_sets"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
