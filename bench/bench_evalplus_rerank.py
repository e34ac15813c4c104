"""Benchmark: plain ``evalplus.evaluate`` vs ``evalplus.evaluate --rerank codet`` on the same samples, side by side.

Writes the CodeGen-16B HumanEval samples (CodeT's release) as evalplus ``{task_id, solution}`` jsonl, computes the
ground truth first (not timed; both runs share evalplus's cache), then runs the real console entry point twice per
round, each in a fresh folder (so evalplus judges and our execution cache starts empty): plain, then with
``--rerank METHODS --tests <CodeT's test samples>``. ``--rounds 2`` runs plain, rerank, rerank, plain. Prints each
wall time with the machine's load, the median ratio, where the rerank run's time went (its ``timing`` block), and
checks that it judged nothing itself (verdicts from evalplus's results file) and that its random pass@1 is
evalplus's. evalplus reads the first N problems through ``HUMANEVAL_OVERRIDE_PATH`` while ``CODERANK_DATA`` stays
set to ``--data-dir`` (a user of our CLI has both; issue 27: the rerank must read evalplus's file, not ours).
``--compare-cli CACHE_DIR`` then reranks the same files with ``coderank-evalplus rerank`` (our judge, not evalplus's
verdicts; not timed) and checks that every method's pass@1 is the same.

    python bench/bench_evalplus_rerank.py --data-dir ../shared/data --parallel 2
    python bench/bench_evalplus_rerank.py --data-dir ../shared/data --parallel 2 --rounds 2 --samples-per-problem 5 \
        --compare-cli ../cache_shared
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from codet_setting import CODET  # bench/codet_setting.py (run as python bench/…)

REPO = Path(__file__).resolve().parents[1]


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=os.environ.get("CODERANK_DATA", "../shared/data"))
    ap.add_argument("--problems", type=int, default=164, help="first N HumanEval+ problems (default: all)")
    ap.add_argument("--samples-per-problem", type=int, default=None, help="first N samples of each (default: all)")
    ap.add_argument("--parallel", type=int, default=os.cpu_count(), help="evalplus's --parallel (and our workers)")
    ap.add_argument("--methods", default="codet")
    ap.add_argument("--rounds", type=int, default=1, help="rounds of (plain, rerank), alternating their order")
    ap.add_argument("--work-dir", default=None, help="where the runs go (default: a new temp dir, kept)")
    ap.add_argument("--compare-cli", default=None, metavar="CACHE_DIR",
                    help="afterwards, rerank the same files with `coderank-evalplus rerank --cache-dir CACHE_DIR`")
    args = ap.parse_args()

    sys.path.insert(0, str(REPO))
    from coderank_evalplus.io.problems import humaneval_plus_path, load_problems
    from coderank_evalplus.io.samples import read_solutions, read_test_samples
    from coderank_evalplus.report import timing_line

    full = load_problems("humaneval", args.data_dir)
    sols = read_solutions(Path(args.data_dir) / CODET.format("code_solution"), full, args.data_dir)
    tests = read_test_samples(Path(args.data_dir) / CODET.format("test_case"), full, args.data_dir)
    tmp = Path(args.work_dir or tempfile.mkdtemp(prefix="bench_evalplus_rerank_"))
    tmp.mkdir(parents=True, exist_ok=True)
    with gzip.open(humaneval_plus_path(args.data_dir), "rt") as fh:
        records = [json.loads(line) for line in fh if line.strip()][: args.problems]
    dataset = tmp / "HumanEvalPlus.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in records))
    env = {k: v for k, v in os.environ.items() if k != "MBPP_OVERRIDE_PATH"}
    env.update(CODERANK_DATA=str(Path(args.data_dir).resolve()), HUMANEVAL_OVERRIDE_PATH=str(dataset),
               XDG_CACHE_HOME=str(tmp / "xdg"), CODERANK_CACHE=str(tmp / "cr"),
               HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", PYTHONPATH=os.pathsep.join(
                   [str(REPO)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))

    problems = [r["task_id"] for r in records]
    sols = {t: sols[t][: args.samples_per_problem] for t in problems}
    samples = "".join(json.dumps({"task_id": t, "solution": p}) + "\n" for t in problems for p in sols[t])
    tests_path = tmp / "tests.jsonl"
    tests_path.write_text("".join(json.dumps({"task_id": t, "samples": tests[t]}) + "\n" for t in problems))
    n = sum(len(sols[t]) for t in problems)
    print(f"{len(problems)} problems, {n} samples, parallel {args.parallel}, methods {args.methods}; runs in {tmp}")

    gt = ("from evalplus.data import get_human_eval_plus, get_human_eval_plus_hash\n"
          "from evalplus.evaluate import get_groundtruth\n"
          "get_groundtruth(get_human_eval_plus(), get_human_eval_plus_hash(), [])\n")
    subprocess.run([sys.executable, "-c", gt], env=env, check=True, capture_output=True)

    base_cmd = [sys.executable, "-m", "evalplus.evaluate", "--dataset", "humaneval", "--samples", "samples.jsonl",
                "--parallel", str(args.parallel)]
    kinds = {"plain": base_cmd, "rerank": base_cmd + ["--rerank", args.methods, "--tests", str(tests_path)]}
    walls: dict[str, list[float]] = {"plain": [], "rerank": []}
    rerank_dir = None
    for r in range(args.rounds):
        for kind in (("plain", "rerank") if r % 2 == 0 else ("rerank", "plain")):
            run_dir = tmp / f"{kind}{r + 1}"
            run_dir.mkdir()
            (run_dir / "samples.jsonl").write_text(samples)
            before = load()
            t0 = time.monotonic()
            proc = subprocess.run(kinds[kind], env=env, cwd=run_dir, capture_output=True, text=True)
            wall = time.monotonic() - t0
            (run_dir / "stdout.txt").write_text(proc.stdout)
            (run_dir / "stderr.txt").write_text(proc.stderr)
            if proc.returncode != 0:
                sys.exit(f"{kind} run failed (exit {proc.returncode}); see {run_dir}/stderr.txt:\n"
                         f"{proc.stderr[-2000:]}")
            walls[kind].append(wall)
            print(f"round {r + 1} {kind:6s} wall {wall:7.1f} s   ({before} before, {load()} after)", flush=True)
            if kind == "rerank":
                rerank_dir = run_dir
                res = json.loads((run_dir / "samples_rerank_results.json").read_text())
                ev = json.loads((run_dir / "samples_eval_results.json").read_text())["eval"]
                base = 100 * sum(sum(x["base_status"] == "pass" for x in rs) / len(rs) for rs in ev.values()) / len(ev)
                print(f"    {timing_line(res['timing'])}")
                print(f"    judged by us: {res['timing']['judged_samples']} samples; random pass@1 (base) "
                      f"{res['methods']['random']['base']['pass@1']:.2f} vs evalplus {base:.2f}")
    plain, rerank = statistics.median(walls["plain"]), statistics.median(walls["rerank"])
    print(f"median wall: plain {plain:.1f} s, --rerank {args.methods} {rerank:.1f} s; "
          f"ratio {rerank / plain:.3f} (rerank adds {rerank - plain:.1f} s)")
    if args.compare_cli and rerank_dir is not None:
        compare_cli(rerank_dir, tests_path, args, env)


def compare_cli(run_dir: Path, tests_path: Path, args, env: dict) -> None:
    """``coderank-evalplus rerank`` on the same files, judging with our own judge: same pass@1 for every method?"""
    out = run_dir.parent / "cli"
    cmd = [sys.executable, "-m", "coderank_evalplus.cli.console", "rerank", "--dataset", "humaneval", "--solutions",
           str(run_dir / "samples.jsonl"), "--tests", str(tests_path), "--methods", args.methods, "--output", str(out),
           "--workers", str(args.parallel), "--cache-dir", str(Path(args.compare_cli).resolve()), "--quiet"]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"coderank-evalplus rerank failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    cli = json.loads((out / "rerank_results.json").read_text())
    ours = json.loads((run_dir / "samples_rerank_results.json").read_text())
    print(f"coderank-evalplus rerank (judged {cli['timing']['judged_samples']} samples itself): "
          + ", ".join(f"{m} {v['base']['pass@1']:.2f}/{v['plus']['pass@1']:.2f}" for m, v in cli["methods"].items())
          + f"; same as --rerank: {cli['methods'] == ours['methods']}")


if __name__ == "__main__":
    main()
