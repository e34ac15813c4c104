"""Does the selection step (``recommended+select``, issue 54) help the default pick, held out? Measured leave one
family out on results folders, beside the held-out ``learned_examples`` pick it refines and the best fixed
composition.

For every model family, ``learned_examples`` is trained on the folders of every OTHER family
(``study/learned_loso.heldout_models``, as bench/recommended_loso.py) and ranks that family's folders; the
package's selection step (``selection.differential.refine``: the same code ``<method>+select`` runs) then refines
each problem's ranking, running the leading programs of the problems in doubt on inputs grown for them (the
sandboxed engine, through the execution cache ``--cache-dir``). No verdict, hidden input or expected output is
used to grow, keep or pick; the step's constants (``selection.doubt``, ``selection.search``) were fixed before any
folder was scored, none is fitted here. ``--top-only``: the prototype's rule (bench/split_top.py): only a top group
of several programs is in doubt, never two close groups.

Printed per folder × split: pass@1 of the held-out pick before and after the step, the paired difference (95 %
bootstrap interval), problems in doubt / changed, cost per problem (distinct programs run, inputs, items executed,
seconds); then per split the means over model families of before, after and the best fixed composition
(filter+srank / filter+overlap_agreement / filter+mbr_exec: the best on that mean), and the folders where the step
helps / hurts beyond its interval.

    python bench/select_loso.py 'runs/recommended/*/runs/*' --cache-dir C --only examples+mutate --json sel.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from coderank_evalplus import metrics
from coderank_evalplus.engine.execution.execute import ProblemWork, ResultCache
from coderank_evalplus.engine.execution.executors import WarmExecutor
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.io.problems import load_problems
from coderank_evalplus.io.samples import read_solutions
from coderank_evalplus.rankers import learned_examples
from coderank_evalplus.rankers.learned import model_vector, table_ranking
from coderank_evalplus.report.scores import problem_scores, splits_of
from coderank_evalplus.selection import SelectEnv
from coderank_evalplus.selection.differential import refine
from coderank_evalplus.selection.doubt import CLOSE_CONFIDENCE
from coderank_evalplus.stats import paired_difference, resample_indices
from coderank_evalplus.study.learned_loso import COMPOSITIONS, heldout_models, read_folders


def folder_rows(sf, model: dict, problems: dict, env: SelectEnv, close: float, idx_seed: int,
                resamples: int) -> list[dict]:
    """One row per split of one folder: before / after / compositions per problem, the paired difference, cost."""
    inputs = sf.run.summary.get("inputs") or {}
    solutions = read_solutions(inputs["solutions"], problems, drop_extra=True)  # the folder's problems only
    vector = model_vector(model)
    splits = splits_of(sf.run)
    before = {s: [] for s in splits}
    after = {s: [] for s in splits}
    cost = {"doubt": 0, "changed": 0, "programs": 0, "inputs": 0, "executed_items": 0, "seconds": 0.0}
    env.seed = sf.run.seed
    for table, sp in zip(sf.tables, sf.run.problems):
        tid = sp.problem.task_id
        ranking = table_ranking(table, vector, "learned_examples")
        work = ProblemWork(problems[tid], list(solutions[tid]))
        sel = refine(work, sp.executions, ranking, env, close=close)
        cost["doubt"] += bool(sel.doubt)
        cost["changed"] += sel.changed
        for k in ("programs", "inputs", "executed_items", "seconds"):
            cost[k] += getattr(sel.cost, k)
        for s in splits:
            before[s].append(metrics.ranked_pass_at_k(ranking, sp.correct(s), 1))
            after[s].append(metrics.ranked_pass_at_k(sel.ranking, sp.correct(s), 1))
    comps = problem_scores(sf.run, list(COMPOSITIONS))
    n = len(sf.run.problems)
    idx = resample_indices(n, resamples, idx_seed)
    rows = []
    for s in splits:
        b, a = np.asarray(before[s]), np.asarray(after[s])
        rows.append({"set": sf.label, "model": sf.model, "dataset": sf.run.dataset, "split": s, "n_problems": n,
                     "before": 100 * b.mean(), "after": 100 * a.mean(),
                     **{c: 100 * float(np.mean(comps[c][s])) for c in COMPOSITIONS},
                     "diff": paired_difference(a, b, idx).to_json(),
                     "per_problem": {k: round(v / n, 3) for k, v in cost.items()}, "totals": cost})
    return rows


def family_mean(rows: list[dict], families: list[str], key: str) -> float:
    """Mean of ``key`` over model families (each family's folders averaged first)."""
    return float(np.mean([np.mean([r[key] for r in rows if r["model"] == f]) for f in families]))


def summary(rows: list[dict]) -> list[str]:
    out = []
    for s in ("base", "plus"):
        sub = [r for r in rows if r["split"] == s]
        if not sub:
            continue
        fams = list(dict.fromkeys(r["model"] for r in sub))

        fm = {k: family_mean(sub, fams, k) for k in ("before", "after", *COMPOSITIONS)}
        best = max(COMPOSITIONS, key=lambda c: fm[c])
        helps = sum(r["diff"]["ci95"][0] > 0 for r in sub if r["diff"]["ci95"])
        hurts = [r["set"] for r in sub if r["diff"]["ci95"] and r["diff"]["ci95"][1] < 0]
        out.append(f"{s}: mean over {len(fams)} families ({len(sub)} folders): before {fm['before']:.2f}, after "
                   f"{fm['after']:.2f} ({fm['after'] - fm['before']:+.2f}); best fixed composition {best} "
                   f"{fm[best]:.2f}: after − it {fm['after'] - fm[best]:+.2f}; folders helped / hurt beyond the "
                   f"interval: {helps} / {len(hurts)}" + (f" ({'; '.join(hurts)})" if hurts else ""))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--cache-dir", required=True, help="the execution cache (executions.sqlite inside)")
    ap.add_argument("--only", action="append", default=None,
                    help="score only the folders whose tests label (or name) is this (repeatable; every folder still "
                         "trains)")
    ap.add_argument("--top-only", action="store_true", help="the prototype's rule: never two close groups")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--time-limit", type=float, default=0.1, help="CPU seconds per input (rerank's default)")
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    sets = read_folders(args.folders, ranker="learned_examples")
    models = heldout_models(sets, learned_examples.SPEC)
    cache = ResultCache(Path(args.cache_dir) / "executions.sqlite")
    executor = WarmExecutor(args.workers)  # workers kept from one problem to the next (as Picker's)
    executor.start()
    env = SelectEnv(cache, Limits(cpu=args.time_limit), args.workers, executor)
    close = 0.0 if args.top_only else CLOSE_CONFIDENCE
    rows: list[dict] = []
    problems_of: dict = {}
    print("| folder | split | before | after | after − before [95 %] | in doubt | changed | programs/problem | "
          "inputs/problem | s/problem |")
    try:
        for sf in sets:
            if args.only and not any(o in (sf.tests_label, sf.name, sf.label) for o in args.only):
                continue
            t0 = time.perf_counter()
            if sf.run.dataset not in problems_of:
                problems_of[sf.run.dataset] = load_problems(sf.run.dataset)
            new = folder_rows(sf, models[sf.model], problems_of[sf.run.dataset], env, close, 0, args.resamples)
            for r in new:
                d, c = r["diff"], r["per_problem"]
                ci = d["ci95"] or [float("nan")] * 2
                print(f"| {r['set']} | {r['split']} | {r['before']:.2f} | {r['after']:.2f} | {d['diff']:+.2f} "
                      f"[{ci[0]:+.2f}, {ci[1]:+.2f}] | {r['totals']['doubt']} | {r['totals']['changed']} | "
                      f"{c['programs']:.1f} | {c['inputs']:.1f} | {c['seconds']:.2f} |", flush=True)
            rows += new
            print(f"  ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
            if args.json:
                Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    finally:
        executor.__exit__(None, None, None)
        cache.close()
    for line in summary(rows):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
