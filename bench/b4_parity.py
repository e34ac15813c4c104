"""Check ``b4`` against the released B4 code (ZJU-CTAG/B4) on the same execution results.

The released code is read from a checkout given by ``--b4-repo`` (``strategy.B4`` and ``src/evaluation.py`` are
imported from there, never copied). Both sides get the same passing matrices — ours, built as B4's main.py builds
its own: one row per distinct program that produced results, one column per distinct assert — and the same
ground truth (our judge's verdicts). Printed: pass@1 of the released scoring + evaluation and of our ``b4`` ranker
+ our metric, (a) on the released code's own subset (problems where some but not all ranked programs are correct,
chosen with the ground truth, as main.py does with ``--max_px 1.0``) and (b) on every problem (the released
``get_result_of_sorted_solutions_old``, which gives a problem with nothing ranked its random pass@k).

    python bench/b4_parity.py --b4-repo /work/ref/B4 --data-dir ../shared/data --cache-dir /work/shared_cache
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

import numpy as np

from coderank_evalplus import metrics
from coderank_evalplus.rankers import RankContext, get_ranker
from coderank_evalplus.rankers.codet import packs_into_one_function
from coderank_evalplus.types import PASS

from codet_setting import execute_and_judge  # bench/codet_setting.py (run as python bench/…)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--b4-repo", required=True, help="checkout of ZJU-CTAG/B4")
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--cache-dir", default="b4_parity_cache")
    ap.add_argument("--dataset", default="humaneval-original", help="ground truth: humaneval-original | humaneval")
    ap.add_argument("--solutions", default=None, help="default: CodeT's CodeGen-16B solutions in --data-dir")
    ap.add_argument("--tests", default=None, help="default: CodeT's CodeGen-16B test samples in --data-dir")
    ap.add_argument("--alpha", type=float, default=1e3)
    ap.add_argument("--beta0", type=float, default=1e4)
    args = ap.parse_args()

    sys.path.insert(0, str(Path(args.b4_repo).resolve()))
    strategy = importlib.import_module("strategy")
    evaluation = importlib.import_module("src.evaluation")

    problems, works, exs, verdicts = execute_and_judge(args)

    gt_list = []  # the released code's ground_truth_exec_result: one record per sample
    ranked = {}   # task -> (E, distinct program texts of E's rows, their correctness)
    ours = {}     # task -> (ranking, correct per candidate)
    for w in works:
        tid = w.problem.task_id
        ex = exs[tid]
        correct = np.array([v.base for v in verdicts[tid]], dtype=bool)
        gt_list += [{"task_id": tid, "completion": p, "passed": bool(c)} for p, c in zip(w.programs, correct)]
        ctx = RankContext(w.problem, ex, options={"b4_alpha": args.alpha, "b4_beta0": args.beta0})
        ours[tid] = (get_ranker("b4")(ctx), correct)
        if ex.pass_matrix.shape[1] == 0 or not packs_into_one_function(ex.suite.asserts):
            continue  # B4's execution yields no result list for any program of this task
        rows = np.flatnonzero(ex.compiled)
        if len(rows) == 0:
            continue
        first = {}
        for c, r in enumerate(ex.program_of_candidate.tolist()):
            first.setdefault(r, c)
        E = (ex.pass_matrix[rows] == PASS).astype(np.int8)
        ranked[tid] = (E, [ex.programs[r] for r in rows], [bool(correct[first[r]]) for r in rows])

    def released(tasks, k: int) -> float:
        """main.py's scoring; its evaluation on the subset, the ``_old`` one (random fallback) on every task."""
        result = {}
        for tid in tasks:
            if tid in ranked:
                E, codes, _ = ranked[tid]
                result[tid] = [([codes[i] for i in ids], s) for ids, s in strategy.B4(E, args.beta0, args.alpha)]
        gts = [g for g in gt_list if g["task_id"] in set(tasks)]
        if all(t in ranked for t in tasks):
            return 100 * evaluation.get_result_of_sorted_solutions(gts, result, topks=[k])[f"pass@{k}"]
        return 100 * evaluation.get_result_of_sorted_solutions_old(gts, result, topks=[k])[f"pass@{k}"]

    def our(tasks, k: int, rule: str = "codet") -> float:
        """Our pass@k; CodeT's rule, the one the released evaluation code applies."""
        return 100 * float(np.mean([metrics.ranked_pass_at_k(ours[t][0], ours[t][1], k, rule) for t in tasks]))

    subset = [t for t, (_, _, c) in ranked.items() if 0 < np.mean(c) < 1.0]
    every = [w.problem.task_id for w in works]
    missing = [t for t in every if t not in ranked]
    print(f"dataset {args.dataset}; alpha={args.alpha:g} beta0={args.beta0:g}; {len(every)} problems, "
          f"{len(missing)} with nothing ranked ({', '.join(missing)}), subset of {len(subset)}")
    print("| problems | k | released B4 code | ours (b4, CodeT's pass@k rule) | difference | ours (b4, ranked rule) |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, tasks in (("subset (some but not all correct)", subset), ("all", every)):
        for k in (1, 2, 10):
            ref, mine = released(tasks, k), our(tasks, k)
            print(f"| {label} | {k} | {ref:.2f} | {mine:.2f} | {mine - ref:+.2f} | {our(tasks, k, 'ranked'):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
