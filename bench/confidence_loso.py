"""How well is the reranked pick's confidence calibrated, and how many samples does the adaptive budget save?
Leave-one-set-out over results folders (nothing is executed; study/confidence_loso.py).

For every model family, a confidence model is trained (and its τ chosen) on the folders of every OTHER family, and
that family's folders are scored: expected calibration error (10 bins), Brier, AUROC of "the pick is right",
selective pass@1 at 50 / 80 / 90 % coverage against no abstention (full-folder picks of ``recommended``), and the
adaptive rule over the budget curves' seeded draws: pass@1 and mean samples at the chosen τ, the fewest mean
samples within 1 point of the cap's pass@1, and (sets with more than 10 samples) pass@1 at a mean of 10 samples
against fixed N = 10, with the folder's samples as the cap and with caps of 15, 20, 30 and 50.

``recommended`` runs the selection step after its ranker, so every round's pick is the step's on that round's
sub-sample (``selection.stored.StoredSteps``: programs run through the execution cache ``--exec-cache``, the
candidates' texts read from the samples file each folder records), its parts ordered by the part model of the
folder's family (``--part-models``: bench/select_loso.py's JSON, each family's model trained without it; else the
shipped one).

Build the folders first (they share one execution cache), then run this script:

    coderank-evalplus leaderboard bench/recommended_humaneval.toml --output runs/recommended/humaneval --cache-dir C
    python bench/select_loso.py 'runs/recommended/*/runs/*' --cache-dir C --json select_loso.json
    python bench/confidence_loso.py 'runs/recommended/*/runs/*' --cache-dir R --exec-cache C --heldout-ranker \
        --part-models select_loso.json --json confidence_loso.json

``--write-model`` also retrains the shipped model (rankers/confidence_model.json) on the permissively licensed
folders among those given (study/learned_loso.PERMISSIVE_SOURCES).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from coderank_evalplus.rankers.calibration import ece_if_calibrated
from coderank_evalplus.rankers.confidence import MODEL_FILE
from coderank_evalplus.study.confidence_loso import loso, read_sets, train_shipped


def _f(x, fmt: str = "{:.2f}") -> str:
    return "-" if x is None else fmt.format(x)


def print_table(rows: list[dict]) -> None:
    print("| set × pool | τ | ECE base / plus | ECE base if calibrated (mean, 95 %) | Brier base "
          "| AUROC base / plus | pass@1 base (all) "
          "| selective 50 / 80 / 90 % | fixed N=cap | adaptive at τ (samples) | samples within 1 pt of cap "
          "| N=10 vs adaptive at 10 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    floors = {}
    for r in rows:
        floors[r["set"]] = ece_if_calibrated(np.asarray(r["per_problem"]["base"]["confidence"]))
    for r in rows:
        c, sel, d = r["calibration"], r["selective"], r["derived"]
        fl = floors[r["set"]]
        plus = c.get("plus") or {}
        cap = r["fixed"][-1]
        sel_s = " / ".join(_f(s["base"]) for s in sel)
        ten = f"{_f(d['fixed_at_10'])} vs {_f(d['adaptive_at_10'])}" if d["fixed_at_10"] is not None else "-"
        print(f"| {r['set']} | {r['tau']} | {_f(c['base']['ece'], '{:.3f}')} / {_f(plus.get('ece'), '{:.3f}')} | "
              f"{fl[0]:.3f}, {fl[1]:.3f} | {_f(c['base']['brier'], '{:.3f}')} | {_f(c['base']['auroc'], '{:.3f}')} / "
              f"{_f(plus.get('auroc'), '{:.3f}')} | {_f(r['no_abstention']['base'])} | {sel_s} | "
              f"{cap['base']:.2f} (N={cap['n']}) | {r['at_tau']['base']:.2f} ({r['at_tau']['mean_samples']:.2f}) | "
              f"{_f(d['samples_within_1pt_of_cap'])} | {ten} |")
    eces = [r["calibration"]["base"]["ece"] for r in rows]
    print(f"\nECE base: mean {np.mean(eces):.3f}, max {np.max(eces):.3f} over {len(rows)} folders")
    fl_mean = [floors[r["set"]][0] for r in rows]
    within = sum(r["calibration"]["base"]["ece"] <= floors[r["set"]][1] for r in rows)
    print(f"ECE base a perfectly calibrated model would show on the same problems (outcomes drawn from the "
          f"confidences): mean {np.mean(fl_mean):.3f}, max {np.max(fl_mean):.3f}; observed ECE within that model's "
          f"95th percentile on {within}/{len(rows)} folders")
    above = sum(r["selective"][1]["base"] > r["no_abstention"]["base"] for r in rows)
    print(f"selective pass@1 at 80 % above no abstention (base): {above}/{len(rows)} folders")
    small = [r for r in rows if r["fixed"][-1]["n"] <= 10]
    for name, key in (("at τ", None), ("within 1 pt", "samples_within_1pt_of_cap")):
        fr = [(r["at_tau"]["mean_samples"] if key is None else r["derived"][key] or np.nan) / r["fixed"][-1]["n"]
              for r in small]
        loss = [r["fixed"][-1]["base"] - r["at_tau"]["base"] for r in small] if key is None else None
        print(f"samples / cap on the {len(small)} folders with ≤ 10 samples ({name}): mean {np.nanmean(fr):.3f}, "
              f"max {np.nanmax(fr):.3f}" + (f"; base loss at τ: mean {np.mean(loss):.2f}, max {np.max(loss):.2f}"
                                             if loss else ""))
    for r in rows:
        d = r["derived"]
        if d["fixed_at_10"] is not None and d["adaptive_at_10"] is not None:
            by_cap = "".join(f", cap {c}: {v - d['fixed_at_10']:+.2f}" for c, v in d["adaptive_at_10_by_cap"].items()
                             if v is not None)
            print(f"{r['set']}: adaptive at a mean of 10 samples − fixed N=10 (base), cap {d['cap']}: "
                  f"{d['adaptive_at_10'] - d['fixed_at_10']:+.2f}{by_cap}; with the cap chosen on the training "
                  f"folders ({d.get('heldout_cap') or 'all samples'}): "
                  + ("-" if d.get("gain_at_10_heldout_cap") is None else f"{d['gain_at_10_heldout_cap']:+.2f}"))


def figure(rows: list[dict], path: str) -> None:
    """Left: reliability diagram of every scored folder's picks pooled (base). Right: the adaptive rule on each
    folder: base pass@1 minus the cap's against the share of the cap's samples, the chosen τ marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from coderank_evalplus.rankers.calibration import ece, reliability_bins

    conf = np.concatenate([r["per_problem"]["base"]["confidence"] for r in rows])
    y = np.concatenate([r["per_problem"]["base"]["passed"] for r in rows])
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    bins = reliability_bins(conf, y)
    left.plot([0, 1], [0, 1], ls="--", color="#888888", lw=1)
    left.plot([b["confidence"] for b in bins], [b["accuracy"] for b in bins], color="#1f77b4")
    left.scatter([b["confidence"] for b in bins], [b["accuracy"] for b in bins],
                 s=[10 + 300 * b["count"] / len(conf) for b in bins], color="#1f77b4")
    left.set(xlim=(0, 1), ylim=(0, 1), xlabel="confidence of the pick (bin mean)", ylabel="share of picks passing",
             title=f"{len(rows)} folders, each scored by a model that never saw its family (ECE {ece(conf, y):.3f})")
    left.title.set_fontsize(8)
    for r in rows:
        cap = r["fixed"][-1]
        pts = sorted((a["mean_samples"] / cap["n"], a["base"] - cap["base"]) for a in r["adaptive"])
        right.plot([p[0] for p in pts], [p[1] for p in pts], lw=1, alpha=0.6)
        right.plot([r["at_tau"]["mean_samples"] / cap["n"]], [r["at_tau"]["base"] - cap["base"]], "k*", ms=6)
    right.set_ylim(-12, 3)  # the τ = 0 end (one sample) lies far below; the interesting part is near 0
    right.axhline(0, color="#888888", lw=1)
    right.axhline(-1, color="#d62728", lw=1, ls=":")
    right.set(xlabel="mean samples per problem / the folder's samples", ylabel="base pass@1 − pass@1 with every sample",
              title="adaptive rule, τ sweep per folder (★: τ chosen on the training folders)")
    right.title.set_fontsize(8)
    for ax in (left, right):
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def step_settings(exec_cache: str | None, part_models: str | None, workers: int):
    """A folder → (the step recommended runs on its rounds, a key naming it): the part model of the folder's family
    from ``part_models`` (bench/select_loso.py's JSON), else the shipped one; programs through ``exec_cache``."""
    from coderank_evalplus.engine.execution.execute import ResultCache
    from coderank_evalplus.selection.parts import part_model
    from coderank_evalplus.selection.stored import StoredSteps

    cache = ResultCache(Path(exec_cache) / "executions.sqlite") if exec_cache else None
    models = json.loads(Path(part_models).read_text())["part_models"] if part_models else None

    def steps(sf):
        model = models.get(sf.model) if models is not None else part_model()
        key = (model or {}).get("digest", "size")
        return StoredSteps(cache, workers, model_of=lambda run: model), f"select:{key}"

    return steps


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", help="results folders or glob patterns")
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--cache-dir", help="keep each folder's round table here (.npz)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--figure", help="write the reliability / adaptive-budget figure here (PNG)")
    ap.add_argument("--write-model", action="store_true", help=f"retrain {MODEL_FILE.name} on the permissive folders")
    ap.add_argument("--exec-cache", help="the execution cache (executions.sqlite inside) the selection step of "
                                         "recommended runs through on every round")
    ap.add_argument("--part-models", help="bench/select_loso.py --json output: each family's held-out part model")
    ap.add_argument("--heldout-ranker", action="store_true",
                    help="rank each family's folders with learned_examples weights trained without that family (as "
                         "bench/recommended_loso.py scores them), not with the shipped weights")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    ranker_models = None
    if args.heldout_ranker:
        from coderank_evalplus.rankers import learned_examples
        from coderank_evalplus.study.learned_loso import heldout_models, read_folders

        ranker_models = heldout_models(read_folders(args.folders, ranker="learned_examples"), learned_examples.SPEC)
        print(f"held-out learned_examples weights for {len(ranker_models)} families in "
              f"{time.perf_counter() - t0:.1f} s", file=sys.stderr)
    steps = step_settings(args.exec_cache, args.part_models, args.workers)
    sets, tables = read_sets(args.folders, args.cache_dir, workers=args.workers, log=True, ranker_models=ranker_models,
                             steps=steps)
    print(f"{len(sets)} folders in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    rows = loso(sets, tables, n_resamples=args.resamples)
    print_table(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    if args.figure:
        figure(rows, args.figure)
    if args.write_model:
        model = train_shipped(sets, tables)
        MODEL_FILE.write_text(json.dumps(model, indent=1, sort_keys=True) + "\n")
        print(f"\nwrote {MODEL_FILE} (digest {model['digest'][:12]}, τ = {model['tau']}), trained on "
              + ", ".join(f"{t['name']} × {t['tests']}" for t in model["training_sets"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
