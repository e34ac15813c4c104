"""``coderank-evalplus budget RESULTS_DIR [--methods M,…] [--adaptive] [--json OUT]``: pass@1 against the number of
samples per problem on a stored ``rerank`` folder — the fixed-N curve (the budget curves' seeded draws), the pick's
confidence (calibration, selective pass@1) and, with ``--adaptive``, the stopping rule's τ sweep. Nothing is
generated; a method with a step after ranking (``recommended``) runs its step again on each sub-sample
(``selection.stored``, through ``--cache-dir``'s execution cache when given), every other method is ranked from
the stored matrices."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_budget_parser(sub) -> None:
    from coderank_evalplus.cli.options import add_options

    p = sub.add_parser("budget", help="pass@1 against samples per problem on a results folder: the fixed-N curve, "
                                      "the pick's confidence and (--adaptive) the adaptive stopping rule")
    p.add_argument("results", help="a results folder written by rerank / run / a leaderboard entry")
    add_options(p, "budget")


def budget_report(args: argparse.Namespace) -> dict:
    """The ``--json`` object of ``args``."""
    import numpy as np

    from coderank_evalplus.io.results_folder import load_folder
    from coderank_evalplus.rankers.confidence import load_model, predict
    from coderank_evalplus.report.adaptive import method_report, round_tables
    from coderank_evalplus.report.calibration import final_picks
    from coderank_evalplus.report.scores import splits_of

    methods = [m for m in args.methods if m not in ("random", "oracle")]
    model = load_model(args.confidence_model)
    tau = float(args.tau if args.tau is not None else model.get("tau", 1.0))
    run = load_folder(args.results)
    if not run.problems:
        raise ValueError(f"{args.results}: no problem in this results folder")
    splits = splits_of(run)
    from coderank_evalplus.selection.stored import stored_steps

    with stored_steps(args.cache_dir, args.workers) as subset_steps:
        tables = round_tables(run, methods, args.draws, args.seed, workers=args.workers,
                              progress=args.progress, label=Path(args.results).name, subset_steps=subset_steps)
    out: dict = {"header": header(run), "folder": str(args.results), "draws": args.draws,
                 "seed": args.seed,
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
    from coderank_evalplus.report.text import (
        CONFIDENCE_LEGEND,
        CONFIDENCE_STATS,
        TOO_FEW_TO_MEAN,
        confidence_shown,
        fmt_estimate,
        too_few,
    )

    head = rep.get("header") or {}
    if head:
        print(f"{head['folder']}: {head['dataset']}, {head['problems']} problems, {head['samples']} samples per "
              f"problem; random pick (all samples): " + ", ".join(f"{s} {v:.2f}" for s, v in head["random"].items()))
    for m, r in rep["methods"].items():
        splits = [s for s in ("base", "plus") if s in r["fixed"][0]]
        print(f"\n{m}: fixed N (pass@1 %, mean of {rep['draws']} seeded draws per N)")
        print("| N | " + " | ".join(splits) + " |\n|---:|" + "---:|" * len(splits))
        for f in r["fixed"]:
            print(f"| {f['n']} | " + " | ".join(f"{f[s]:.2f}" for s in splits) + " |")
        if r["adaptive"]:
            print(f"\n{m}: adaptive (stop once the pick's confidence ≥ τ; recorded τ = {r['tau']})")
            print("| τ | mean samples | " + " | ".join(f"{s} [95 %, n = {r['n_problems']}]" for s in splits)
                  + " |\n|---:|---:|" + "---:|" * len(splits))
            for a in r["adaptive"]:  # the interval cell: report.text.fmt_estimate (none under MIN_PROBLEMS)
                print(f"| {a['tau']} | {a['mean_samples']:.2f} | " + " | ".join(fmt_estimate(
                    {"pass@1": a[s], "ci95": a[s + "_ci95"], "n_problems": r["n_problems"]}) for s in splits) + " |")
            t = r["at_tau"]
            print(f"at τ = {r['tau']}: {t['mean_samples']:.2f} samples per problem, "
                  + ", ".join(f"{s} {t[s]:.2f}" for s in splits))
        print(f"\n{m}: confidence of the pick (full folder)")
        if not confidence_shown(r):
            print(f"  {too_few(r['n_problems'], CONFIDENCE_STATS)} ({TOO_FEW_TO_MEAN})")
            continue
        for s in splits:
            c = r["calibration"][s]
            print(f"  {s}: ECE {_shown(c['ece'])}, Brier {_shown(c['brier'])}, AUROC {_shown(c['auroc'])}; pass@1 "
                  f"{r['no_abstention'][s]} with no abstention, "
                  + ", ".join(f"{x[s]} at {int(100 * x['coverage'])} %" for x in r["selective"]))
    if any(confidence_shown(r) for r in rep["methods"].values()):
        print(f"\n{CONFIDENCE_LEGEND}")


def _shown(value) -> str:
    """A metric, or "–" where it is not defined (AUROC when every pick is right, or every one wrong)."""
    return "–" if value is None else str(value)


def header(run) -> dict:
    """What the report is about: the folder, its dataset, problems, samples per problem and the random baseline
    (pass@1 of a uniform pick among all samples, from the folder's verdicts)."""
    from coderank_evalplus.metrics import aggregate_percent, pass_at_k
    from coderank_evalplus.report.scores import splits_of

    counts = [p.executions.n_candidates for p in run.problems]
    random = {s: aggregate_percent(pass_at_k(len(p.correct(s)), int(p.correct(s).sum()), 1) for p in run.problems)
              for s in splits_of(run)}
    return {"folder": str(run.path), "dataset": run.dataset or "?", "problems": len(run.problems),
            "samples": (min(counts) if min(counts) == max(counts) else f"{min(counts)}–{max(counts)}"),
            "random": random}


def run_budget(args: argparse.Namespace) -> int:
    rep = budget_report(args)
    if args.json == "-":
        print(json.dumps(rep, indent=1))
        return 0
    print_report(rep)
    if args.json:
        from coderank_evalplus.storage import atomic_write_text

        atomic_write_text(args.json, json.dumps(rep, indent=1) + "\n")
        print(f"\nwrote {args.json}", file=sys.stderr)
    return 0
