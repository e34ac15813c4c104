"""``coderank-evalplus budget RESULTS_DIR [--methods M,…] [--adaptive] [--json OUT]``: pass@1 against the number of
samples per problem on a stored ``rerank`` folder — the fixed-N curve (the budget curves' seeded draws), the pick's
confidence (calibration, selective pass@1) and, with ``--adaptive``, the stopping rule's τ sweep. Nothing is
generated or executed."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

DEFAULT_METHOD = "recommended"


def add_budget_parser(sub) -> None:
    p = sub.add_parser("budget", help="pass@1 against samples per problem on a results folder: the fixed-N curve, "
                                      "the pick's confidence and (--adaptive) the adaptive stopping rule")
    p.add_argument("results", help="a results folder written by rerank / run / a leaderboard entry")
    p.add_argument("--methods", default=DEFAULT_METHOD, help=f"comma-separated methods (default: {DEFAULT_METHOD})")
    p.add_argument("--adaptive", action="store_true",
                   help="simulate the adaptive rule (stop a problem once the pick's confidence reaches τ) for a "
                        "sweep of τ, beside the fixed-N curve")
    p.add_argument("--json", default=None, help="write {\"methods\": {M: {fixed, adaptive, tau, at_tau, calibration, "
                                                "selective}}} here")
    p.add_argument("--draws", type=int, default=None, help="seeded draws per budget (default: the curves' 20)")
    p.add_argument("--seed", type=int, default=0, help="sub-sampling seed (default 0, as the curves')")
    p.add_argument("--confidence-model", default=None,
                   help="a confidence model JSON (default: the shipped rankers/confidence_model.json)")
    p.add_argument("--tau", type=float, default=None, help="τ to report at (default: the model's recorded τ)")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples for the intervals (default 1000)")
    p.add_argument("--workers", type=int, default=None, help="parallel workers (default: all cores)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def budget_report(args: argparse.Namespace) -> dict:
    """The ``--json`` object of ``args``."""
    import numpy as np

    from coderank_evalplus.io.results_folder import load_folder
    from coderank_evalplus.rankers import validate_methods
    from coderank_evalplus.rankers.confidence import load_model, predict
    from coderank_evalplus.report.adaptive import method_report, round_tables
    from coderank_evalplus.report.calibration import final_picks
    from coderank_evalplus.report.curves import DEFAULT_DRAWS
    from coderank_evalplus.report.scores import splits_of

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    validate_methods(methods)
    model = load_model(args.confidence_model)
    tau = float(args.tau if args.tau is not None else model.get("tau", 1.0))
    if not 0.0 <= tau <= 1.0:
        raise ValueError(f"--tau {tau}: must lie in [0, 1]")
    run = load_folder(args.results)
    if not run.problems:
        raise ValueError(f"{args.results}: no problem in this results folder")
    splits = splits_of(run)
    tables = round_tables(run, methods, args.draws or DEFAULT_DRAWS, args.seed, workers=args.workers,
                          progress=not args.quiet, label=Path(args.results).name)
    out: dict = {"folder": str(args.results), "draws": args.draws or DEFAULT_DRAWS, "seed": args.seed,
                 "confidence_model": model.get("digest", "")[:12], "methods": {}}
    for m in methods:
        X, y = final_picks(run, m)
        conf = {s: predict(model, X, s) for s in splits}
        rep = method_report(tables[m], model, tau, conf, {s: y[s] for s in splits}, n_resamples=args.resamples)
        if not args.adaptive:
            rep["adaptive"], rep["at_tau"] = [], None
        rep["mean_confidence"] = {s: round(float(np.mean(conf[s])), 4) for s in splits}
        out["methods"][m] = rep
    return out


def print_report(rep: dict) -> None:
    for m, r in rep["methods"].items():
        splits = [s for s in ("base", "plus") if s in r["fixed"][0]]
        print(f"\n{m}: fixed N (pass@1 %, mean of {rep['draws']} seeded draws per N)")
        print("| N | " + " | ".join(splits) + " |\n|---:|" + "---:|" * len(splits))
        for f in r["fixed"]:
            print(f"| {f['n']} | " + " | ".join(f"{f[s]:.2f}" for s in splits) + " |")
        if r["adaptive"]:
            print(f"\n{m}: adaptive (stop once the pick's confidence ≥ τ; recorded τ = {r['tau']})")
            print("| τ | mean samples | " + " | ".join(f"{s} [95 %]" for s in splits) + " |\n|---:|---:|"
                  + "---:|" * len(splits))
            for a in r["adaptive"]:
                print(f"| {a['tau']} | {a['mean_samples']:.2f} | " + " | ".join(
                    f"{a[s]:.2f} [{a[s + '_ci95'][0]:.2f}, {a[s + '_ci95'][1]:.2f}]" for s in splits) + " |")
            t = r["at_tau"]
            print(f"at τ = {r['tau']}: {t['mean_samples']:.2f} samples per problem, "
                  + ", ".join(f"{s} {t[s]:.2f}" for s in splits))
        print(f"\n{m}: confidence of the pick (full folder)")
        for s in splits:
            c = r["calibration"][s]
            print(f"  {s}: ECE {c['ece']}, Brier {c['brier']}, AUROC {c['auroc']}; pass@1 {r['no_abstention'][s]} "
                  "with no abstention, " + ", ".join(f"{x[s]} at {int(100 * x['coverage'])} %" for x in r["selective"]))


def run_budget(args: argparse.Namespace) -> int:
    rep = budget_report(args)
    print_report(rep)
    if args.json:
        Path(args.json).write_text(json.dumps(rep, indent=1) + "\n")
        print(f"\nwrote {args.json}", file=sys.stderr)
    return 0
