"""Benchmark: the released CodeT code vs ``coderank-evalplus rerank --methods codet``, cold, side by side.

Both get the same input: the first N problems of CodeT's CodeGen-16B HumanEval release (solutions and test samples,
CodeT's own ``{prompt, samples}`` files), and both judge on the original HumanEval tests. CodeT's ``main.py`` runs
from a checkout of github.com/microsoft/CodeT (``--codet-dir`` = its ``CodeT`` folder; never copied here); ours
runs ``rerank --dataset humaneval-original --methods codet`` with a fresh results folder and caches. ``--rounds 2``
runs CodeT, ours, ours, CodeT. Prints each wall time with the machine's load, the median ratio, and our timing
block. ``--before DIR`` adds a third side: the same rerank from another checkout of this package (before a change).

    python bench/bench_codet_side_by_side.py --codet-dir /work/ref/CodeT/CodeT --data-dir ../shared/data --problems 30
"""

from __future__ import annotations

import argparse
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
DATASET = "microsoft_CodeT/dataset/HumanEval_for_{}_generation.jsonl"


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def _jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--codet-dir", required=True, help="the CodeT folder of a microsoft/CodeT checkout (main.py)")
    ap.add_argument("--data-dir", default=os.environ.get("CODERANK_DATA", "../shared/data"))
    ap.add_argument("--problems", type=int, default=30, help="first N problems of CodeT's solution file")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--work-dir", default=None, help="where the runs go (default: a new temp dir, kept)")
    ap.add_argument("--before", default=None, help="another checkout of this package (e.g. before a change): its "
                    "rerank runs too, as a third side")
    args = ap.parse_args()

    data = Path(args.data_dir).resolve()
    tmp = Path(args.work_dir or tempfile.mkdtemp(prefix="bench_codet_")).resolve()
    tmp.mkdir(parents=True, exist_ok=True)
    sols = _jsonl(data / CODET.format("code_solution"))[: args.problems]
    code_src = {r["prompt"]: r["task_id"] for r in _jsonl(data / DATASET.format("code"))}
    tasks = {code_src[r["prompt"]] for r in sols}
    test_src = {r["prompt"]: r["task_id"] for r in _jsonl(data / DATASET.format("test_case"))}
    tests = [r for r in _jsonl(data / CODET.format("test_case")) if test_src.get(r["prompt"]) in tasks]
    # CodeT's main.py loads every task of its source files; give it the same N tasks as the predictions
    for kind, _src in (("code", code_src), ("test_case", test_src)):
        (tmp / f"source_{kind}.jsonl").write_text("".join(
            json.dumps(r) + "\n" for r in _jsonl(data / DATASET.format(kind)) if r["task_id"] in tasks))
    (tmp / "solutions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in sols))
    (tmp / "tests.jsonl").write_text("".join(json.dumps(r) + "\n" for r in tests))
    print(f"{len(tasks)} problems, {sum(len(r['samples']) for r in sols)} solutions, "
          f"{sum(len(r['samples']) for r in tests)} test samples; runs in {tmp}")

    env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", PYTHONPATH=os.pathsep.join(
        [str(REPO)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    env.pop("CODERANK_DATA", None)

    def codet(run_dir: Path) -> list[str]:
        return [sys.executable, "main.py", "--source_path_for_solution", str(tmp / "source_code.jsonl"),
                "--predict_path_for_solution", str(tmp / "solutions.jsonl"),
                "--source_path_for_test", str(tmp / "source_test_case.jsonl"),
                "--predict_path_for_test", str(tmp / "tests.jsonl"), "--cache_dir", str(run_dir)]

    def ours(run_dir: Path) -> list[str]:
        return [sys.executable, "-m", "coderank_evalplus.cli", "rerank", "--dataset", "humaneval-original",
                "--methods", "codet", "--solutions", str(tmp / "solutions.jsonl"), "--tests", str(tmp / "tests.jsonl"),
                "--data-dir", str(data), "--output", str(run_dir), "--quiet"]

    sides = {"codet": (codet, args.codet_dir, env), "ours": (ours, str(REPO), env)}
    if args.before:
        before_repo = Path(args.before).resolve()
        sides["before"] = (ours, str(before_repo), dict(env, PYTHONPATH=os.pathsep.join(
            [str(before_repo)] + env["PYTHONPATH"].split(os.pathsep)[1:])))
    walls: dict[str, list[float]] = {name: [] for name in sides}
    for r in range(args.rounds):
        for side in (list(sides) if r % 2 == 0 else list(sides)[::-1]):
            run_dir = tmp / f"{side}{r + 1}"
            run_dir.mkdir()
            cmd, cwd, side_env = sides[side]
            run_env = dict(side_env, CODERANK_CACHE=str(run_dir / "user_cache"))  # cold: nothing cached from before
            before = load()
            t0 = time.monotonic()
            proc = subprocess.run(cmd(run_dir), env=run_env, cwd=cwd, capture_output=True, text=True)
            wall = time.monotonic() - t0
            (run_dir / "stdout.txt").write_text(proc.stdout)
            (run_dir / "stderr.txt").write_text(proc.stderr)
            if proc.returncode != 0:
                sys.exit(f"{side} failed (exit {proc.returncode}); see {run_dir}/stderr.txt:\n{proc.stderr[-2000:]}")
            walls[side].append(wall)
            print(f"round {r + 1} {side:5s} wall {wall:7.1f} s   ({before} before, {load()} after)", flush=True)
            if side != "codet":
                print("    " + proc.stdout.strip().splitlines()[-1])
            else:
                print("    " + " | ".join(line.split(" - ")[-1] for line in proc.stderr.splitlines()
                                          if "pass@" in line or "pass rates" in line)[:400])
    c, o = statistics.median(walls["codet"]), statistics.median(walls["ours"])
    print(f"median wall: CodeT {c:.1f} s, ours {o:.1f} s; ours is {c / o:.2f}x faster")
    if "before" in walls:
        b = statistics.median(walls["before"])
        print(f"median wall before: {b:.1f} s; CodeT / before {c / b:.2f}x, before / ours {b / o:.2f}x")


if __name__ == "__main__":
    main()
