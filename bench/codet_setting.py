"""Shared by the parity benchmarks: CodeT's CodeGen-16B HumanEval samples and tests, executed (CodeT's 0.1 s limit
per test) and judged on the chosen dataset's base tests, through an execution cache. Importing it loads nothing
heavy: the package is imported when ``execute_and_judge`` runs."""

from __future__ import annotations

import argparse
from pathlib import Path

CODET = "microsoft_CodeT/generated_data/HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_{}.jsonl"


def execute_and_judge(args: argparse.Namespace):
    """``(problems, works, executions, verdicts)`` for ``args.dataset``, ``args.data_dir``, ``args.solutions``,
    ``args.tests`` (default: CodeT's files) and ``args.cache_dir``."""
    from coderank_evalplus.engine.execution.execute import ResultCache, execute
    from coderank_evalplus.engine.judging.judge import Judge
    from coderank_evalplus.engine.sandbox import Limits
    from coderank_evalplus.io.problems import load_problems
    from coderank_evalplus.io.samples import read_solutions, read_test_samples
    from coderank_evalplus.pipeline import build_works

    problems = load_problems(args.dataset, args.data_dir)
    sols = read_solutions(args.solutions or Path(args.data_dir) / CODET.format("code_solution"), problems,
                          args.data_dir)
    tests = read_test_samples(args.tests or Path(args.data_dir) / CODET.format("test_case"), problems, args.data_dir)
    works = build_works(problems, sols, tests, 5)
    cache = ResultCache(Path(args.cache_dir) / "executions.sqlite")
    try:
        exs = execute(works, cache, Limits(cpu=0.1), None, False)
        verdicts = Judge(cache, progress=False).judge_programs({w.problem.task_id: w.programs for w in works},
                                                               problems, plus=False)
    finally:
        cache.close()
    return problems, works, exs, verdicts
