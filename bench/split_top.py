"""Do targeted inputs that split the top cluster help the default pick? Measured leave one set out on results
folders, beside the held-out ``learned_examples`` pick it would refine.

The top group of the held-out ``learned_examples`` ranking (each family scored by weights trained on the others,
as bench/recommended_loso.py) often holds programs that behave alike on every test of the pool but not on the
benchmark's hidden tests. For each problem whose top group has two or more distinct programs, this script grows
inputs from the prompt's examples (evalplus's type-aware mutation, ``testgen.mutate``; its own seed, so other
inputs than the pool's), in rounds of ``--step`` up to ``--max`` inputs, stopping once the top group's programs
no longer all agree ("grown until the two leading behaviours differ"); it runs only those programs on them (the
sandboxed engine, through the execution cache), keeps the inputs on which more than half of them returned, splits
the group by outputs and picks the largest part (samples counted; a tie stays a tie). No verdict, hidden input or
expected output is used to grow, keep or pick. Printed per folder × split: pass@1 before and after, the paired
difference (95 % bootstrap interval), how many problems were split; then means over model families.

    python bench/split_top.py 'runs/recommended/*/runs/*' --cache-dir C --json split_top.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

from coderank_evalplus import metrics
from coderank_evalplus.engine.execution import ProblemWork, ResultCache, execute
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.io.problems import load_problems
from coderank_evalplus.io.samples import read_solutions
from coderank_evalplus.rankers import learned_examples
from coderank_evalplus.rankers.learned import model_vector, table_ranking
from coderank_evalplus.report.scores import splits_of
from coderank_evalplus.report.stats import paired_difference, resample_indices
from coderank_evalplus.study.learned_loso import heldout_models, read_folders
from coderank_evalplus.testgen.extract import suite_from_asserts
from coderank_evalplus.testgen.mutate import VALID_SHARE, call_text, mutate_inputs, seeds_of
from coderank_evalplus.types import RETURNED


def grown_calls(problem, n: int, seed: int) -> list[str]:
    """The first ``n`` inputs grown for splitting (a seed of their own: not the pool's inputs)."""
    args = mutate_inputs(seeds_of(problem), n, problem.entry_point, f"split:{seed}:{problem.task_id}")
    return [c for c in (call_text(problem.entry_point, a) for a in args) if c is not None]


def split_pick(top: list[int], programs: list[str], problem, step: int, most: int, cache, workers: int,
               seed: int) -> tuple[list[int], int]:
    """The part of ``top`` (candidate indices) to pick after splitting it on grown inputs, and the inputs used."""
    distinct = list(dict.fromkeys(programs[c] for c in top))
    if len(distinct) < 2:
        return top, 0
    calls = grown_calls(problem, most, seed)
    if not calls:
        return top, 0
    for n in range(step, len(calls) + step, step):
        use = calls[:n]
        suite = suite_from_asserts({c: 1 for c in use}, problem.entry_point)
        ex = execute([ProblemWork(problem, distinct, suite)], cache, Limits(cpu=0.1), workers, progress=False)
        ex = ex[problem.task_id]
        kinds = np.asarray(ex.output_kind)
        returned = (kinds == RETURNED).mean(axis=0) if kinds.size else np.zeros(0)
        cols = np.flatnonzero(returned > VALID_SHARE)
        keys = [tuple(zip(kinds[r, cols].tolist(), ex.output_matrix[r, cols].tolist())) for r in range(len(distinct))]
        if len(set(keys)) > 1 or n >= len(calls):
            break
    if len(set(keys)) < 2:
        return top, len(use)
    key_of = {p: keys[i] for i, p in enumerate(distinct)}
    mass = Counter(key_of[programs[c]] for c in top)
    best = max(mass.values())
    keep = {k for k, v in mass.items() if v == best}
    return [c for c in top if key_of[programs[c]] in keep], len(use)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--cache-dir", required=True, help="the execution cache (executions.sqlite inside)")
    ap.add_argument("--step", type=int, default=10)
    ap.add_argument("--max", type=int, default=50)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--json")
    ap.add_argument("--only", default=None, help="score only the folders whose label contains this (all train)")
    args = ap.parse_args(argv)
    sets = read_folders(args.folders, ranker="learned_examples")
    models = heldout_models(sets, learned_examples.SPEC)
    cache = ResultCache(Path(args.cache_dir) / "executions.sqlite")
    rows = []
    problems_of: dict = {}
    for sf in sets:
        if args.only and args.only not in sf.label:
            continue
        t0 = time.perf_counter()
        inputs = sf.run.summary.get("inputs") or {}
        dataset = sf.run.dataset
        if dataset not in problems_of:
            problems_of[dataset] = load_problems(dataset)
        problems = problems_of[dataset]
        solutions = read_solutions(inputs["solutions"], problems, drop_extra=True)  # the folder's problems only
        vector = model_vector(models[sf.model])
        before = {s: [] for s in splits_of(sf.run)}
        after = {s: [] for s in splits_of(sf.run)}
        split_n, grown = 0, []
        for table, sp in zip(sf.tables, sf.run.problems):
            ranking = table_ranking(table, vector, "learned_examples")
            groups = metrics.merged_groups(ranking)
            top = [int(c) for c in groups[0].candidates] if groups else []
            programs = list(solutions[sp.problem.task_id])
            new_top, used = split_pick(top, programs, problems[sp.problem.task_id], args.step, args.max, cache,
                                       args.workers, sf.run.seed) if top else (top, 0)
            if used:
                grown.append(used)
            split_n += len(new_top) < len(top)
            for s in before:  # pass@1: a uniform pick in the top group (the part kept, after the split)
                before[s].append(metrics.ranked_pass_at_k(ranking, sp.correct(s), 1))
                after[s].append(float(sp.correct(s)[new_top].mean()) if new_top else before[s][-1])
        idx = resample_indices(len(sf.run.problems), args.resamples, 0)
        for s in before:
            b, a = np.asarray(before[s]), np.asarray(after[s])
            d = paired_difference(a, b, idx).to_json()
            rows.append({"set": sf.label, "model": sf.model, "split": s, "before": round(100 * b.mean(), 2),
                         "after": round(100 * a.mean(), 2), "diff": d, "split_problems": split_n,
                         "grown_inputs_mean": round(float(np.mean(grown)), 1) if grown else 0})
            print(f"| {sf.label} | {s} | {100 * b.mean():.2f} | {100 * a.mean():.2f} | {d['diff']:+.2f} "
                  f"[{d['ci95'][0]:+.2f}, {d['ci95'][1]:+.2f}] | {split_n} |", flush=True)
        print(f"  ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    cache.close()
    for s in ("base", "plus"):
        sub = [r for r in rows if r["split"] == s]
        fams = list(dict.fromkeys(r["model"] for r in sub))
        fm = {k: np.mean([np.mean([r[k] for r in sub if r["model"] == f]) for f in fams]) for k in ("before", "after")}
        print(f"{s}: mean over {len(fams)} families: before {fm['before']:.2f}, after {fm['after']:.2f} "
              f"({fm['after'] - fm['before']:+.2f}); folders where the split helps / hurts beyond the interval: "
              f"{sum(r['diff']['ci95'][0] > 0 for r in sub)} / {sum(r['diff']['ci95'][1] < 0 for r in sub)} "
              f"of {len(sub)}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
