"""Does the default pick gain from the selection step, held out? ``recommended`` (``learned_examples`` followed by the
step) against ``learned_examples`` alone — the default before the step joined it — leave one family out on results
folders, with the step's parts ordered by size (the rule it shipped with) and by a part model trained on the other
families (``selection/parts.py``).

For every model family, ``learned_examples`` is trained on the folders of every OTHER family
(``study/learned_loso.heldout_models``) and ranks that family's folders; the package's step (``selection
.differential.decide_all``: the same code ``recommended`` runs, batched over a folder's problems) then looks at
each problem, running the leading programs of the problems in doubt on inputs grown for them (the sandboxed
engine, through the execution cache ``--cache-dir``); what it found is kept as JSON beside the cache. The parts
are then ordered by size, and by the part model of the other families (``study/select_loso.heldout_parts``). No
verdict, hidden input or expected output is used to grow, keep or pick; the step's constants were fixed before
any folder was scored, and nothing is fitted on the folder it scores.

Printed per folder × split: pass@1 before, with the step (size rule, part model), the differences (95 % paired
bootstrap intervals), problems in doubt / split / picks changed, cost; then per split the means over model
families, the share of the random → oracle gap each closes on those means, and the folders helped / hurt beyond
their interval. ``--write-model`` trains the shipped part model (selection/part_model.json) on the permissively
licensed folders among those given (study/learned_loso.PERMISSIVE_SOURCES).

Also printed: the ceilings of an ideal decision, reading the verdicts (the step's part with the most right candidates;
any right contender), which say whether a better decision alone could close the gap, or only other inputs.
``--edges`` adds inputs at the edges of the examples' types to the search's first round (``testgen/edges.py``) under
one of ``search.EDGE_RULES``; ``--against`` compares every rule, folder by folder, with the step under another edge
rule and the size rule (the step as it ships); a part model with edge features (``parts.EDGE_SPEC``) is scored beside
the part model. ``--shipped`` puts the shipped part model in the part model's column. ``--step`` and ``--unbounded``
give the search more inputs than the step ships with (per round; past the execution phase's items), to measure what
a larger search would reach and cost; ``bench/part_learners.py`` tries other decisions on the same findings.

    python bench/select_loso.py 'runs/recommended/*/runs/*' --cache-dir C --json select_loso.json
    python bench/select_loso.py 'runs/recommended/*/runs/*' --cache-dir C --edges returned --against off
    python bench/select_loso.py 'runs/recommended/*/runs/*' --cache-dir C --edges returned --edge-inputs 20 \
        --step 40 --unbounded --against off
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from coderank_evalplus.selection.parts import EDGE_SPEC, MODEL_FILE, part_model
from coderank_evalplus.selection.search import EDGE_INPUTS, EDGE_RULES, EDGES, STEP
from coderank_evalplus.study.select_loso import (
    STEPPED,
    family_summary,
    folder_decisions,
    heldout_parts,
    parse_folders,
    rows,
    train_shipped_parts,
)


def _ci(d: dict) -> str:
    lo, hi = d["ci95"] or (float("nan"), float("nan"))
    return f"{d['diff']:+.2f} [{lo:+.2f}, {hi:+.2f}]"


def print_rows(out: list[dict]) -> None:
    print("| folder | split | learned_examples | recommended (size rule) | recommended (part model) | part model + "
          "edge features | size − before | model − before | model − size | edge model − size | in doubt / split / "
          "changed (size, model, edge model) | programs × inputs per problem |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in out:
        p, c, n = r["pass@1"], r["cost"], max(r["undecided"], 1)
        ch = r["changed"]
        print(f"| {r['set']} | {r['split']} | {p['before']['pass@1']:.2f} | {p['size']['pass@1']:.2f} | "
              f"{p['model']['pass@1']:.2f} | {p['model_edges']['pass@1']:.2f} | {_ci(r['minus_before']['size'])} | "
              f"{_ci(r['minus_before']['model'])} | {_ci(r['model_minus_size'])} | {_ci(r['model_edges_minus_size'])}"
              f" | {r['undecided']} / {r['split_problems']} / {ch['size']}, {ch['model']}, {ch['model_edges']} | "
              f"{c['programs'] / n:.1f} × {c['inputs'] / n:.1f} |")


def print_summary(out: list[dict], today: str) -> None:
    for split in ("base", "plus"):
        if not any(r["split"] == split for r in out):
            continue
        s = family_summary(out, split)
        m, g = s["means"], s["gap_closed"]
        print(f"\n{split}: mean over {s['families']} families ({s['folders']} folders): random {m['random']:.2f}, "
              f"learned_examples {m['before']:.2f}, recommended with parts by size {m['size']:.2f} "
              f"({m['size'] - m['before']:+.2f}), by the part model {m['model']:.2f} ({m['model'] - m['before']:+.2f})"
              f", by the part model with edge features {m['model_edges']:.2f} ({m['model_edges'] - m['before']:+.2f})"
              f", edge first {m['edge_first']:.2f} ({m['edge_first'] - m['before']:+.2f})"
              f", oracle {m['oracle']:.2f}")
        print(f"  share of the random → oracle gap closed on those means: learned_examples {g['before']:.3f}, "
              f"size rule {g['size']:.3f}, part model {g['model']:.3f}, part model + edge features "
              f"{g['model_edges']:.3f}, edge first {g['edge_first']:.3f}")
        print(f"  ceiling, reading the verdicts: an ideal choice among the step's parts {m['ideal_part']:.2f} (share "
              f"{g['ideal_part']:.3f}), among all its contenders {m['ideal_contender']:.2f} "
              f"(share {g['ideal_contender']:.3f})")
        if "today" in m:
            print(f"  the step as it ships (edge rule {today}, size rule) {m['today']:.2f}, share {g['today']:.3f}")
        for rule in STEPPED:
            hurt = s[rule]["hurt"]
            print(f"  {rule}: folders helped / hurt beyond the interval: {s[rule]['helped']} / {len(hurt)}"
                  + (f" ({'; '.join(hurt)})" if hurt else ""))
            if "below_today" in s[rule]:
                below = s[rule]["below_today"]
                print(f"    against the step as it ships: better / below beyond the interval on "
                      f"{s[rule]['better_than_today']} / {len(below)} folders"
                      + (f" ({'; '.join(below)})" if below else ""))
        for rule in ("model", "model_edges"):
            worse = s[f"{rule}_vs_size"]["worse"]
            print(f"  {rule} against the size rule: better / worse beyond the interval on "
                  f"{s[f'{rule}_vs_size']['better']} / {len(worse)} folders"
                  + (f" ({'; '.join(worse)})" if worse else ""))
        print("  per family, pass@1 − learned_examples's: " + "; ".join(
            f"{fam} " + ", ".join(f"{k} {v:+.2f}" for k, v in d.items() if k in (*STEPPED, "today"))
            for fam, d in s["per_family"].items()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--cache-dir", required=True, help="the execution cache (executions.sqlite inside)")
    ap.add_argument("--decisions-dir", help="keep the step's findings per folder here (default: CACHE_DIR/select_loso)")
    ap.add_argument("--only", action="append", default=None,
                    help="run the step only on the folders whose tests label (or name) is this (repeatable); every "
                         "folder still trains the rankers, and the part models train on the folders the step ran on")
    ap.add_argument("--edges", choices=EDGE_RULES, default=EDGES,
                    help="the search's edge inputs (testgen/edges.py) and their validity rule: off, share (valid as "
                         "any grown input), returned (valid when any contender returned on it)")
    ap.add_argument("--edge-inputs", type=int, default=EDGE_INPUTS,
                    help="edge inputs per problem at most (with --edges share or returned)")
    ap.add_argument("--against", choices=EDGE_RULES, default=EDGES,
                    help="compare every rule with the step under this edge rule, its other settings as it ships, and "
                         "the size rule (its findings are kept as --edges's are), when the search differs from that")
    ap.add_argument("--step", type=int, default=STEP,
                    help="inputs the search grows per round (more than the step ships with: a larger search)")
    ap.add_argument("--unbounded", action="store_true",
                    help="let the search run more items than the execution phase did (the step ships bounded)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--json")
    ap.add_argument("--shipped", action="store_true",
                    help=f"order the parts by the shipped {MODEL_FILE.name} in the part model's column (held out only "
                         f"for the families it was not trained on)")
    ap.add_argument("--write-model", action="store_true", help=f"train {MODEL_FILE.name} on the permissive folders")
    t0 = time.perf_counter()
    args, sets, rankers = parse_folders(ap, argv)
    print(f"{len(sets)} folders, held-out rankers in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    chosen = [sf for sf in sets if not args.only or any(o in (sf.tests_label, sf.name, sf.label) for o in args.only)]
    search = {"edge_inputs": args.edge_inputs, "step": args.step, "bounded": not args.unbounded}
    records = folder_decisions(chosen, rankers, Path(args.cache_dir), args.decisions_dir, args.workers,
                               edges=args.edges, **search)
    shipped = (args.edges, args.edge_inputs, args.step, args.unbounded) == (args.against, EDGE_INPUTS, STEP, False)
    today = {} if shipped else folder_decisions(chosen, rankers, Path(args.cache_dir), args.decisions_dir,
                                                args.workers, edges=args.against)
    part_models = {sf.model: part_model() for sf in chosen} if args.shipped else heldout_parts(chosen, records)
    edge_models = heldout_parts(chosen, records, EDGE_SPEC)
    out = rows(chosen, records, part_models, args.resamples, edge_models=edge_models, today=today or None)
    print_rows(out)
    print_summary(out, args.against)
    if args.json:
        Path(args.json).write_text(json.dumps({"edges": args.edges, "rows": out, "part_models": part_models,
                                               "edge_models": edge_models}, indent=1) + "\n")
    if args.write_model:
        model = train_shipped_parts(chosen, records)
        MODEL_FILE.write_text(json.dumps(model, indent=1, sort_keys=True) + "\n")
        print(f"\nwrote {MODEL_FILE} (digest {model['digest'][:12]}), trained on "
              + ", ".join(f"{t['name']} × {t['tests']}" for t in model["training_sets"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
