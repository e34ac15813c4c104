"""Rankers side by side on every real sample set in the shared data, with paired bootstrap intervals against a baseline.

Rows: CodeGen-16B with its own tests (CodeT's release; judged on HumanEval+ base/plus and on the original HumanEval
tests); code-davinci-002 (200 samples/problem) with the CodeGen-16B, gpt-4 and CodeLlama-34B/7B test pools; the
gpt-4, gpt-3.5-turbo and CodeLlama-34B 10-sample sets with the gpt-4 and CodeLlama pools. For each row: execution
through the cache (``--cache-dir``), every method's ranking, the judge run only on the candidates pass@1 needs,
pass@1 per problem, and the 95 % paired bootstrap interval (problems resampled, 10,000 draws, seed 0) of each
method's difference to ``--baseline``. Until the leaderboard (``coderank-evalplus leaderboard``) lands this is the
way to get these figures; numbers are printed as a markdown table.

    python bench/ranker_table.py --data-dir ../shared/data --cache-dir /work/shared_cache
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from coderank_evalplus import metrics
from coderank_evalplus.artifacts import read_solutions, read_test_samples
from coderank_evalplus.execution import ResultCache, execute
from coderank_evalplus.judge import Judge
from coderank_evalplus.pipeline import build_works
from coderank_evalplus.problems import load_problems
from coderank_evalplus.rankers import RankContext, get_ranker
from coderank_evalplus.sandbox import Limits

CODET = "microsoft_CodeT/generated_data/HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_{}.jsonl"
SAMPLES = {"CodeGen-16B": CODET.format("code_solution"),
           "code-davinci-002": "extra_humaneval/samples/codex-davinci-002_n200_t0.8.jsonl.gz",
           "gpt-4": "extra_humaneval/samples/gpt-4_n10_t0.2.jsonl.gz",
           "gpt-3.5-turbo": "extra_humaneval/samples/gpt-3.5-turbo_n10_t0.2.jsonl.gz",
           "CodeLlama-34B-Instruct": "extra_humaneval/samples/codellama-34b-instruct_n10_t0.2.jsonl.gz"}
POOLS = {"CodeGen-16B": CODET.format("test_case"),
         "gpt-4": "extra_humaneval/tests/gpt-4_reflexion.jsonl",
         "CodeLlama-34B": "extra_humaneval/tests/codellama-34b-instruct_io100.jsonl",
         "CodeLlama-7B": "extra_humaneval/tests/codellama-7b-instruct_io100.jsonl"}
ROWS = [("CodeGen-16B", "CodeGen-16B")] + [("code-davinci-002", p) for p in POOLS] + [
    (m, p) for m in ("gpt-4", "gpt-3.5-turbo", "CodeLlama-34B-Instruct") for p in ("gpt-4", "CodeLlama-34B", "CodeLlama-7B")]
DEFAULT_METHODS = "srank,srank_reference,codet,b4,overlap_agreement"


def bootstrap(diff: np.ndarray, draws: int = 10_000, seed: int = 0) -> tuple[float, float]:
    """95 % percentile interval of the mean of ``diff`` over problems resampled with replacement (in points)."""
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), (draws, len(diff)))].mean(axis=1)
    return 100 * float(np.percentile(means, 2.5)), 100 * float(np.percentile(means, 97.5))


def run_row(model: str, pool: str, methods: list[str], args, cache: ResultCache) -> dict:
    problems = load_problems("humaneval", args.data_dir)
    sols = read_solutions(Path(args.data_dir) / SAMPLES[model], problems, args.data_dir)
    tests = read_test_samples(Path(args.data_dir) / POOLS[pool], problems, args.data_dir)
    works = build_works(problems, sols, tests, 5)
    exs = execute(works, cache, Limits(cpu=0.1), args.workers, not args.quiet)
    rankings = {m: {} for m in methods}
    need: dict[str, list[int]] = {}
    for w in works:
        tid = w.problem.task_id
        idx: set[int] = set()
        for m in methods:
            r = get_ranker(m)(RankContext(w.problem, exs[tid]))
            rankings[m][tid] = r
            idx |= set(metrics.needed_candidates(r, 1, len(w.programs)))
        need[tid] = sorted(idx)
    todo = {w.problem.task_id: [w.programs[c] for c in need[w.problem.task_id]] for w in works}
    judge = Judge(cache, args.workers, progress=not args.quiet)
    judged = {"base": (judge.judge_programs(todo, problems, plus=True), lambda v: v.base)}
    judged["plus"] = (judged["base"][0], lambda v: bool(v.plus))
    if model == "CodeGen-16B" and args.original:
        judged["original"] = (judge.judge_programs(todo, load_problems("humaneval-original", args.data_dir),
                                                   plus=False), lambda v: v.base)
    correct: dict[str, dict[str, np.ndarray]] = {}
    for split, (verdicts, pick) in judged.items():
        for w in works:
            tid = w.problem.task_id
            arr = np.zeros(len(w.programs), dtype=bool)  # only the candidates pass@1 needs are ever read
            for c, v in zip(need[tid], verdicts[tid]):
                arr[c] = pick(v)
            correct.setdefault(split, {})[tid] = arr
    out = {}
    for s in correct:
        per = {m: np.array([metrics.ranked_pass_at_k(rankings[m][w.problem.task_id], correct[s][w.problem.task_id], 1)
                            for w in works]) for m in methods}
        out[s] = per
    return {"n": len(works), "splits": out}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--cache-dir", default="ranker_table_cache")
    ap.add_argument("--methods", default=DEFAULT_METHODS)
    ap.add_argument("--baseline", default="srank")
    ap.add_argument("--rows", default="all", help="comma-separated row numbers (1-based) or 'all'")
    ap.add_argument("--no-original", dest="original", action="store_false",
                    help="skip the original-HumanEval-test judging of the CodeGen-16B row")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    methods = [m for m in args.methods.split(",") if m]
    if args.baseline not in methods:
        methods.insert(0, args.baseline)
    rows = ROWS if args.rows == "all" else [ROWS[int(i) - 1] for i in args.rows.split(",")]
    others = [m for m in methods if m != args.baseline]
    head = "| samples | test pool | tests | problems | " + " | ".join(methods) + " | " + " | ".join(
        f"{m} − {args.baseline} [95 % CI]" for m in others) + " |"
    lines = [head, "|" + "---|" * (4 + len(methods) + len(others))]
    cache = ResultCache(Path(args.cache_dir) / "executions.sqlite")
    try:
        for model, pool in rows:
            res = run_row(model, pool, methods, args, cache)
            for split, per in res["splits"].items():
                cells = [f"{100 * per[m].mean():.2f}" for m in methods]
                for m in others:
                    lo, hi = bootstrap(per[m] - per[args.baseline])
                    cells.append(f"{100 * (per[m] - per[args.baseline]).mean():+.2f} [{lo:+.2f}, {hi:+.2f}]")
                lines.append(f"| {model} | {pool} | {split} | {res['n']} | " + " | ".join(cells) + " |")
                print(lines[-1], flush=True)
    finally:
        cache.close()
    print("\npass@1 (%), ranked; intervals: paired bootstrap over problems\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
