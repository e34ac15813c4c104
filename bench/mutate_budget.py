"""Budget curve of the ``examples+mutate`` test source: pass@1 against N, the inputs grown per problem.

One rerank with ``examples+mutate:<max N>`` executes every candidate once on all inputs; since the first k of N grown
inputs are exactly those ``examples+mutate:k`` grows (and validity is decided per input), each smaller budget is a
column subset of that one execution (``testgen.mutate.first_inputs``): nothing runs twice.

The default N is chosen here, on the problems given (by default CodeGen-16B's first 40 HumanEval problems, which the
headline table then leaves out): the smallest budget whose mean pass@1 over the methods and both splits is within
``--tolerance`` points of the best budget's.

    python bench/mutate_budget.py --data-dir ../shared/data --cache-dir /work/cache_shared --limit 40
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from codet_setting import CODET  # noqa: E402

METHODS = ("mbr_exec", "srank", "overlap_agreement", "filter+mbr_exec", "filter+srank")
BUDGETS = (0, 5, 10, 20, 50, 100, 200)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", default="../shared/data")
    ap.add_argument("--dataset", default="humaneval")
    ap.add_argument("--solutions", default=None, help="default: CodeT's CodeGen-16B HumanEval solutions")
    ap.add_argument("--cache-dir", required=True)
    ap.add_argument("--limit", type=int, default=40, help="the dataset's first N problems (the choosing set)")
    ap.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    ap.add_argument("--tolerance", type=float, default=0.5, help="points below the best that still count")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--output", default=None, help="also write the results folder of the largest budget here")
    args = ap.parse_args()

    from coderank_evalplus import metrics
    from coderank_evalplus.api.evaluate import stage_config
    from coderank_evalplus.api.options import RerankOptions
    from coderank_evalplus.engine.execution.execute import ResultCache
    from coderank_evalplus.io.problems import load_problems
    from coderank_evalplus.io.samples import read_solutions
    from coderank_evalplus.pipeline import rank_and_judge, write_results
    from coderank_evalplus.rankers import RankContext, get_ranker
    from coderank_evalplus.testgen.mutate import TestSources, first_inputs

    budgets = sorted(int(b) for b in args.budgets.split(","))
    problems = load_problems(args.dataset, args.data_dir)
    sols = read_solutions(args.solutions or Path(args.data_dir) / CODET.format("code_solution"), problems,
                          args.data_dir)
    cfg = stage_config(RerankOptions(methods=list(METHODS), workers=args.workers, limit=args.limit, progress=False),
                       TestSources(mutate=max(budgets)))
    cache = ResultCache(Path(args.cache_dir) / "executions.sqlite")
    try:
        result = rank_and_judge(args.dataset, problems, sols, {}, cfg, cache)
    finally:
        cache.close()
    if args.output:
        write_results(result, args.output)
    table: dict[int, dict[str, dict[str, float]]] = {}
    kept: dict[int, list[int]] = {}
    for k in budgets:
        vals = {m: {"base": [], "plus": []} for m in METHODS}
        kept[k] = []
        for tid, out in result.outcomes.items():
            ex = first_inputs(out.executions, out.generated or {}, k)
            kept[k].append(sum(1 for c in ex.suite.inputs if c in set((out.generated or {}).get("inputs") or [])))
            for m in METHODS:
                ranking = get_ranker(m)(RankContext(result.problems[tid], ex, seed=cfg.seed))
                for split in ("base", "plus"):
                    correct = np.zeros(out.n_candidates, dtype=bool)
                    for c, v in out.verdicts.items():
                        correct[c] = bool(v.base if split == "base" else v.plus)
                    vals[m][split].append(metrics.ranked_pass_at_k(ranking, correct, 1))
        table[k] = {m: {s: metrics.aggregate_percent(v) for s, v in d.items()} for m, d in vals.items()}
    rnd = result.methods["random"]
    print(f"{args.dataset}, first {result.n_problems} problems, {sum(o.n_candidates for o in result.outcomes.values())}"
          f" samples; random pass@1 base {rnd['base']['pass@1']:.2f}, plus {rnd['plus']['pass@1']:.2f}")
    print("| N | kept inputs/problem (median) | " + " | ".join(f"{m} base / plus" for m in METHODS) + " | mean |")
    print("|---:|---:|" + "---:|" * (len(METHODS) + 1))
    means = {}
    for k in budgets:
        cells = [f"{table[k][m]['base']:.2f} / {table[k][m]['plus']:.2f}" for m in METHODS]
        means[k] = float(np.mean([table[k][m][s] for m in METHODS for s in ("base", "plus")]))
        print(f"| {k} | {np.median(kept[k]):.0f} | " + " | ".join(cells) + f" | {means[k]:.2f} |")
    best = max(means.values())
    chosen = min(k for k in budgets if means[k] >= best - args.tolerance)
    print(f"\nchosen N = {chosen}: the smallest budget within {args.tolerance} points of the best mean ({best:.2f})")
    print(json.dumps({"chosen": chosen, "means": means, "generated": result.extra.get("generated_inputs")}))


if __name__ == "__main__":
    main()
