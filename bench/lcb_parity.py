"""Do our verdicts on LiveCodeBench problems equal lcb_runner's? Runs both on a problem file and its samples.

    python bench/lcb_parity.py --lcb /tmp/ref/LiveCodeBench [--problems tests/data/lcb/problems.jsonl]
        [--samples tests/data/lcb/samples.jsonl] [--write-expected tests/data/lcb/lcb_verdicts.json]

``--lcb``: a checkout of LiveCodeBench/LiveCodeBench (outside this repository; nothing of it is imported here). Its
grader runs in a subprocess of its own: each problem record goes through ``CodeGenerationProblem(**record)`` and
``get_evaluation_sample()``, the samples through ``codegen_metrics`` (timeout 6, as ``lcb_runner --timeout``), and a
sample passes where every test result is positive (``compute_metrics_from_results``). Ours:
``engine.judging.judge.Judge``.
Samples of kind ``hostile`` are left out (they attack the machine; LiveCodeBench's grader is no sandbox).
Prints a table per problem and the disagreements; ``--write-expected`` stores lcb_runner's verdicts for the tests.
``--floor`` also measures our judge's floor on the samples (``bench/judge_floor.py``) and prints whether the 3x target
is reachable at all: lcb_runner's wall / 3 against the floor's wall (its CPU over the workers).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

_DRIVER = r"""
import json, sys
import numpy as np
from lcb_runner.benchmarks.code_generation import CodeGenerationProblem
from lcb_runner.evaluation.compute_code_generation_metrics import codegen_metrics

problems_path, samples_path, out_path, workers = sys.argv[1:5]
problems = [CodeGenerationProblem(**json.loads(line)) for line in open(problems_path) if line.strip()]
by_id = {p.question_id: p for p in problems}
gens = {}
for line in open(samples_path):
    rec = json.loads(line)
    gens.setdefault(rec["task_id"], []).append(rec["solution"])
ids = [q for q in by_id if q in gens]
width = max(len(gens[q]) for q in ids)
# codegen_metrics wants as many generations per problem: pad with a copy of the last, dropped afterwards
lists = [gens[q] + [gens[q][-1]] * (width - len(gens[q])) for q in ids]
metrics, results, _ = codegen_metrics([by_id[q].get_evaluation_sample() for q in ids], lists, k_list=[1],
                                      num_process_evaluate=int(workers), timeout=6)
out = {q: [bool(np.all(np.array(r) > 0)) for r in results[i][:len(gens[q])]] for i, q in enumerate(ids)}
json.dump(out, open(out_path, "w"))
"""


def lcb_verdicts(lcb_root: Path, problems: Path, samples: Path, workers: int) -> dict[str, list[bool]]:
    """lcb_runner's verdict of every sample in ``samples`` (a JSON-lines file without hostile samples)."""
    with tempfile.TemporaryDirectory(prefix="lcb_parity_") as tmp:
        driver, out = Path(tmp) / "driver.py", Path(tmp) / "verdicts.json"
        driver.write_text(_DRIVER)
        env = dict(os.environ, PYTHONPATH=str(lcb_root), TOKENIZERS_PARALLELISM="false")
        subprocess.run([sys.executable, str(driver), str(problems), str(samples), str(out), str(workers)],
                       env=env, cwd=tmp, check=True, stdout=subprocess.DEVNULL)
        return json.loads(out.read_text())


def our_verdicts(problems_path: Path, samples: list[dict], workers: int) -> dict[str, list[bool]]:
    from coderank_evalplus.engine.judging.judge import Judge
    from coderank_evalplus.io.problems import load_problems

    problems = load_problems(str(problems_path))
    programs: dict[str, list[str]] = {}
    for rec in samples:
        programs.setdefault(rec["task_id"], []).append(rec["solution"])
    got = Judge(None, workers=workers, progress=False).judge_programs(programs, problems)
    return {t: [v.base for v in vs] for t, vs in got.items()}


def parity_arguments(doc: str, folder: str) -> argparse.ArgumentParser:
    """The flags of a parity script: the LiveCodeBench checkout, the problems and samples (``folder``'s), workers."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--lcb", required=True, type=Path, help="a checkout of LiveCodeBench/LiveCodeBench")
    ap.add_argument("--problems", type=Path, default=REPO / folder / "problems.jsonl")
    ap.add_argument("--samples", type=Path, default=REPO / folder / "samples.jsonl")
    ap.add_argument("--workers", type=int, default=2)
    return ap


def main() -> None:
    ap = parity_arguments(__doc__, "tests/data/lcb")
    ap.add_argument("--write-expected", type=Path, help="store lcb_runner's verdicts here (JSON)")
    ap.add_argument("--floor", action="store_true", help="also measure our judge's floor; is 3x reachable at all?")
    args = ap.parse_args()
    samples = [json.loads(line) for line in args.samples.read_text().splitlines() if line.strip()]
    graded = [s for s in samples if s.get("kind") != "hostile"]
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
        fh.write("".join(json.dumps(s) + "\n" for s in graded))
        graded_path = Path(fh.name)
    try:
        t0 = time.monotonic()
        theirs = lcb_verdicts(args.lcb.resolve(), args.problems.resolve(), graded_path, args.workers)
        t1 = time.monotonic()
        ours = our_verdicts(args.problems, graded, args.workers)
        t2 = time.monotonic()
    finally:
        graded_path.unlink()
    kinds: dict[str, list[str]] = {}
    for s in graded:
        kinds.setdefault(s["task_id"], []).append(s.get("kind", ""))
    print(f"{'problem':24} {'samples':>7} {'lcb pass':>8} {'ours pass':>9} {'agree':>5}")
    total = agree = 0
    disagreements = []
    for tid in theirs:
        a, b = theirs[tid], ours[tid]
        same = sum(x == y for x, y in zip(a, b))
        total += len(a)
        agree += same
        print(f"{tid:24} {len(a):7d} {sum(a):8d} {sum(b):9d} {same:5d}")
        disagreements += [(tid, i, kinds[tid][i], a[i], b[i]) for i in range(len(a)) if a[i] != b[i]]
    print(f"{'all':24} {total:7d} {sum(map(sum, theirs.values())):8d} {sum(map(sum, ours.values())):9d} {agree:5d}")
    print(f"lcb_runner {t1 - t0:.1f} s, ours {t2 - t1:.1f} s (load {os.getloadavg()[0]:.1f})")
    if args.floor:
        sys.path.insert(0, str(REPO / "bench"))
        from judge_floor import floor, target_line

        from coderank_evalplus.engine.sandbox.limits import max_memory_bytes
        from coderank_evalplus.io.problems import load_problems

        programs: dict[str, list[str]] = {}
        for s in graded:
            programs.setdefault(s["task_id"], []).append(s["solution"])
        fl = floor(programs, load_problems(str(args.problems)), max_memory_bytes())
        print(f"floor: the programs' own CPU {fl['own']:.1f} s (at a limit {fl['limited']:.1f} s), comparisons "
              f"{fl['cmp']:.1f} s (load {os.getloadavg()[0]:.1f})")
        print(target_line("lcb_runner", t1 - t0, 3, fl["own"], args.workers))
    for tid, i, kind, a, b in disagreements:
        print(f"DISAGREE {tid} sample {i} ({kind}): lcb_runner {a}, ours {b}")
    if args.write_expected:
        args.write_expected.write_text(json.dumps(theirs, indent=1, sort_keys=True) + "\n")
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()
