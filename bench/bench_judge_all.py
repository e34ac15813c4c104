"""Benchmark: judge all 16,400 CodeGen-16B HumanEval samples on HumanEval+ base and plus tests.

Ground truth is computed (or loaded) first and not timed; the verdict cache starts empty. Compare the wall time
with ``evalplus.evaluate --dataset humaneval --samples <the same samples>`` on the same machine. With
``--eval-results`` (evalplus's ``*_eval_results.json`` for these samples, e.g. the plain run of
``bench_evalplus_rerank.py``), counts the samples whose base or base+plus verdict differs from evalplus's.

    python bench/bench_judge_all.py --data-dir ../shared/data \\
        [--eval-results RUN/plain1/samples_eval_results.json --problems-file RUN/HumanEvalPlus.jsonl]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from coderank_evalplus.engine.execution.execute import ResultCache
from coderank_evalplus.engine.judging.judge import Judge, expected_outputs
from coderank_evalplus.io.eval_results import read_verdicts
from coderank_evalplus.io.problems import load_problems
from coderank_evalplus.io.samples import read_solutions

SOL = "microsoft_CodeT/generated_data/HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_code_solution.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=os.environ.get("CODERANK_DATA", "../shared/data"))
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--eval-results", default=None, help="evalplus's *_eval_results.json for the same samples")
    ap.add_argument("--problems-file", default=None,
                    help="the HumanEval+ jsonl evalplus judged with (its HUMANEVAL_OVERRIDE_PATH; the dataset hash "
                         "in --eval-results is this file's), instead of the release under --data-dir")
    ap.add_argument("--problems", type=int, default=None, help="only the first N tasks (a speed comparison)")
    ap.add_argument("--dump", default=None, help="write every sample's (base, plus) verdict to this JSON file")
    ap.add_argument("--compare", default=None, help="count the samples whose verdict differs from a --dump file")
    args = ap.parse_args()
    if args.problems_file:
        os.environ.pop("CODERANK_DATA", None)
        os.environ["HUMANEVAL_OVERRIDE_PATH"] = args.problems_file
    problems = load_problems("humaneval", None if args.problems_file else args.data_dir)
    sols = read_solutions(Path(args.data_dir) / SOL, problems, args.data_dir)
    if args.problems:
        sols = {t: sols[t] for t in list(sols)[:args.problems]}
    for prob in problems.values():
        expected_outputs(prob)
    before = _load()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.monotonic()
        judge = Judge(ResultCache(Path(tmp) / "c.sqlite"), workers=args.workers, progress=True)
        verdicts = judge.judge_programs(sols, problems, plus=True)
        wall = time.monotonic() - t0
    n = sum(len(v) for v in verdicts.values())
    unique = sum(len(set(s)) for s in sols.values())
    base = sum(v.base for vs in verdicts.values() for v in vs)
    plus = sum(bool(v.plus) for vs in verdicts.values() for v in vs)
    print(f"judged {n} samples ({unique} unique programs) on base + plus tests in {wall:.1f} s wall "
          f"({before} before, {_load()} after)")
    print(f"base passes {base} ({100 * base / n:.2f} %), base+plus passes {plus} ({100 * plus / n:.2f} %)")
    odd = getattr(judge, "suspicious", {})  # the judge of issue 25 lists passes its own == decided
    print(f"suspicious (unique programs): {len(odd)}")
    for (t, _), why in list(odd.items())[:10]:
        print(f"    {t}: {why[:160]}")
    mine = {t: [[v.base, bool(v.plus)] for v in vs] for t, vs in verdicts.items()}
    if args.dump:
        Path(args.dump).write_text(json.dumps(mine))
    if args.compare:
        ref = json.loads(Path(args.compare).read_text())
        diff = [(t, i) for t in mine for i, v in enumerate(mine[t]) if ref[t][i] != v]
        print(f"verdicts differing from {args.compare}: {len(diff)} of {n}")
        for t, i in diff[:20]:
            print(f"    {t} sample {i}: here {mine[t][i]}, there {ref[t][i]}")
    if args.eval_results:
        theirs, why_not = read_verdicts(args.eval_results, problems, sols, plus=True)
        if theirs is None:
            raise SystemExit(f"cannot compare: {why_not}")
        diff = [(t, i, v, theirs[t][i]) for t, vs in verdicts.items() for i, v in enumerate(vs)
                if (v.base, bool(v.plus)) != (theirs[t][i].base, bool(theirs[t][i].plus))]
        print(f"verdicts differing from evalplus's ({args.eval_results}): {len(diff)} of {n}")
        for t, i, v, e in diff[:20]:
            print(f"    {t} sample {i}: ours base={v.base} plus={bool(v.plus)}, "
                  f"evalplus base={e.base} plus={bool(e.plus)}")


def _load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
