"""Benchmark: judge all 16,400 CodeGen-16B HumanEval samples on HumanEval+ base and plus tests.

Ground truth is computed (or loaded) first and not timed; the verdict cache starts empty. Compare the wall time
with ``evalplus.evaluate --dataset humaneval --samples <the same samples>`` on the same machine.

    python bench/bench_judge_all.py --data-dir ../shared/data
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from coderank_evalplus.artifacts import read_solutions
from coderank_evalplus.execution import ResultCache
from coderank_evalplus.judge import Judge, expected_outputs
from coderank_evalplus.problems import load_problems

SOL = "microsoft_CodeT/generated_data/HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_code_solution.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=os.environ.get("CODERANK_DATA", "../shared/data"))
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args()
    problems = load_problems("humaneval", args.data_dir)
    sols = read_solutions(Path(args.data_dir) / SOL, problems, args.data_dir)
    for prob in problems.values():
        expected_outputs(prob)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.monotonic()
        verdicts = Judge(ResultCache(Path(tmp) / "c.sqlite"), workers=args.workers, progress=True).judge_programs(
            sols, problems, plus=True)
        wall = time.monotonic() - t0
    n = sum(len(v) for v in verdicts.values())
    unique = sum(len(set(s)) for s in sols.values())
    base = sum(v.base for vs in verdicts.values() for v in vs)
    plus = sum(bool(v.plus) for vs in verdicts.values() for v in vs)
    print(f"judged {n} samples ({unique} unique programs) on base + plus tests in {wall:.1f} s wall")
    print(f"base passes {base} ({100 * base / n:.2f} %), base+plus passes {plus} ({100 * plus / n:.2f} %)")


if __name__ == "__main__":
    main()
