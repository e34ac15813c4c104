"""Benchmark: execute all CodeGen-16B HumanEval solutions (164 × 100) on their extracted tests and inputs.

Prints unique programs, executed pairs, timeouts, wall and CPU seconds and peak RSS; optionally also the
base-test judge for every unique solution. Usage:

    python bench/bench_execution.py --data-dir ../shared/data --cpu-limit 0.1 [--judge] [--limit N]

Each run uses a fresh cache (a temporary directory), so nothing is reused between runs.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from coderank_evalplus.engine.execution.execute import ExecutionStats, ProblemWork, ResultCache, execute
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.io.problems import load_problems
from coderank_evalplus.io.samples import read_solutions, read_test_samples
from coderank_evalplus.testgen.extract import build_suite
from coderank_evalplus.types import TIMED_OUT, TIMEOUT

SOL = "microsoft_CodeT/generated_data/HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_code_solution.jsonl"
TST = "microsoft_CodeT/generated_data/HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_test_case.jsonl"
MATRICES = ("pass_matrix", "output_matrix", "output_kind", "trial_matrix", "compiled", "program_of_candidate")


def cpu_seconds() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def own_cpu_seconds() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_utime + me.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=os.environ.get("CODERANK_DATA", "../shared/data"))
    ap.add_argument("--dataset", default="humaneval", help="with --solutions/--tests: another dataset (mbpp...)")
    ap.add_argument("--cpu-limit", type=float, default=0.1)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--limit", type=int, default=None, help="first N problems only")
    ap.add_argument("--judge", action="store_true", help="also judge every unique solution on the base tests")
    ap.add_argument("--save-matrix", default=None, help="write every matrix (pass, output, output kind, trial, "
                    "compiled, candidate → row) to this .npz, as '<task>|<name>' (to diff runs: compare_matrices.py)")
    ap.add_argument("--solutions", default=None, help="another sample file (default: CodeT's CodeGen-16B solutions)")
    ap.add_argument("--tests", default=None, help="another test pool (default: CodeT's CodeGen-16B test samples)")
    args = ap.parse_args()

    problems = load_problems(args.dataset, args.data_dir)
    sols = read_solutions(Path(args.solutions or Path(args.data_dir) / SOL), problems, args.data_dir)
    tests = read_test_samples(Path(args.tests or Path(args.data_dir) / TST), problems, args.data_dir)
    tids = [t for t in problems if t in sols][: args.limit]
    works = [ProblemWork(problems[t], sols[t], build_suite(tests.get(t, []), problems[t].entry_point)) for t in tids]
    with tempfile.TemporaryDirectory() as tmp:
        cache = ResultCache(Path(tmp) / "cache.sqlite")
        stats = ExecutionStats()
        t0, c0, m0 = time.monotonic(), cpu_seconds(), own_cpu_seconds()
        ex = execute(works, cache, Limits(cpu=args.cpu_limit), workers=args.workers, progress=True, stats=stats)
        wall, cpu, main_cpu = time.monotonic() - t0, cpu_seconds() - c0, own_cpu_seconds() - m0
        n_assert_pairs = sum(e.pass_matrix.size for e in ex.values())
        n_input_pairs = sum(e.output_matrix.size for e in ex.values())
        timeouts = sum(int((e.pass_matrix == TIMEOUT).sum()) for e in ex.values())
        call_timeouts = sum(int((e.output_kind == TIMED_OUT).sum()) for e in ex.values())
        print(f"problems                 {len(works)}")
        print(f"unique programs          {stats.unique_programs}")
        print(f"program × distinct assert pairs   {n_assert_pairs}")
        print(f"program × distinct input pairs    {n_input_pairs}")
        print(f"executed items (calls+checks+asserts+trials) {stats.executed_pairs}")
        print(f"assert timeouts          {timeouts}  (call timeouts {call_timeouts})")
        print(f"per-test CPU limit       {args.cpu_limit} s")
        print(f"wall                     {wall:.1f} s")
        print(f"CPU (this + children)    {cpu:.1f} s (this process {main_cpu:.1f} s)")
        if args.save_matrix:
            np.savez_compressed(args.save_matrix, **{f"{t}|{name}": getattr(e, name) for t, e in ex.items()
                                                     for name in MATRICES})
        if args.judge:
            from coderank_evalplus.engine.judging.judge import Judge

            judge = Judge(cache, workers=args.workers)
            t0, c0 = time.monotonic(), cpu_seconds()
            n = 0
            for t in tids:
                programs = list(dict.fromkeys(sols[t]))
                n += len(programs)
            verdicts = judge.judge_programs({t: list(dict.fromkeys(sols[t])) for t in tids},
                                            {t: problems[t] for t in tids}, plus=False)
            wall_j, cpu_j = time.monotonic() - t0, cpu_seconds() - c0
            passed = sum(sum(v.base for v in vs) for vs in verdicts.values())
            print(f"judged unique programs   {n} (base tests), passed {passed}")
            print(f"judge wall               {wall_j:.1f} s, CPU {cpu_j:.1f} s")
        cache.close()
    peak_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    peak_kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak RSS                 main {peak_self:.0f} MiB, largest worker/child {peak_kids:.0f} MiB")


if __name__ == "__main__":
    main()
