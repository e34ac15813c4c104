"""Does the selection step cost no more than the execution phase? Runs ``rerank`` on the shared HumanEval+ and MBPP+
sets, each in a fresh execution cache, and prints the two phases' wall seconds side by side from the run's own
timing block (``rerank_results.json``), with what each ran; then the whole run's wall time.

The sets (as bench/frontend_parity.py's): HumanEval+ with GPT-4's samples (164 × 10) and GPT-4's pool (Reflexion's
asserts); MBPP+ with DeepSeek-Coder-6.7B's samples (378 × 10) and its own asserts. ``--tests examples+mutate`` runs
them with rerank's default pool instead. ``--code DIR`` runs another checkout of the package (put first on
PYTHONPATH): the same command on ``main`` gives the "before" of a change.

    python bench/select_speed.py                        # HumanEval+ and MBPP+, the default methods: ~8 min
    python bench/select_speed.py --sets humaneval --tests examples+mutate --methods recommended
    python bench/select_speed.py --code /path/to/main --sets humaneval --tests examples+mutate   # the "before"
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

SETS = {
    "humaneval": ("extra_humaneval/samples/gpt-4_n10_t0.2.jsonl.gz", "extra_humaneval/tests/gpt-4_reflexion.jsonl",
                  "humaneval"),
    "mbpp": ("extra_mbpp/samples/deepseek-coder-6.7b-instruct-q5_mbpp+_n10_t0.6.jsonl.gz",
             "extra_mbpp/tests/deepseek-coder-6.7b-instruct-q5_incidental.jsonl", "mbpp"),
}


def run_set(name: str, data: Path, code: Path, methods: str | None, tests: str | None, workers: int) -> dict:
    """One cold ``rerank`` of a set: its timing block and the wall seconds of the whole command."""
    samples, pool, dataset = SETS[name]
    with tempfile.TemporaryDirectory(prefix="select_speed_") as tmp:
        cmd = [sys.executable, "-m", "coderank_evalplus.cli", "rerank", "--dataset", dataset, "--data-dir",
               str(data), "--solutions", str(data / samples), "--tests", tests or str(data / pool), "--cache-dir",
               f"{tmp}/cache", "--output", f"{tmp}/out", "--workers", str(workers), "--quiet"]
        if methods:
            cmd += ["--methods", methods]
        env = {**os.environ, "PYTHONPATH": str(code) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        t0 = time.monotonic()  # run from the temporary folder: ``-m`` would put the working folder's package first
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL, cwd=tmp)
        wall = time.monotonic() - t0
        summary = json.loads((Path(tmp) / "out" / "rerank_results.json").read_text())
    return {"set": name, "tests": tests or "the model's pool", "wall_s": round(wall, 1), "timing": summary["timing"],
            "methods": {m: {s: (row or {}).get(s, {}).get("pass@1") for s in ("base", "plus")}
                        for m, row in summary["methods"].items()}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default="humaneval,mbpp", help=f"comma-separated among {', '.join(SETS)}")
    ap.add_argument("--data-dir", default=os.environ.get("CODERANK_DATA", "../shared/data"))
    ap.add_argument("--code", default=str(Path(__file__).resolve().parents[1]), help="the checkout to run")
    ap.add_argument("--methods", help="rerank's --methods (default: the checkout's default)")
    ap.add_argument("--tests", help="rerank's --tests instead of the set's pool (e.g. examples+mutate)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args(argv)
    rows = []
    print("| set | tests | execute s (programs, items) | select s (problems in doubt, programs × inputs, items run, "
          "picks changed) | select / execute | judge s | whole run s |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name in args.sets.split(","):
        r = run_set(name, Path(args.data_dir).resolve(), Path(args.code).resolve(), args.methods, args.tests,
                    args.workers)
        t = r["timing"]
        sel = t.get("select_s")
        sel_txt = "-" if sel is None else (f"{sel:.1f} ({t['select_problems']}, {t['select_programs']} × "
                                           f"{t['select_inputs']}, {t['select_executed_items']:,}, "
                                           f"{t['select_changed']})")
        ratio = "-" if sel is None else f"{sel / max(t['execute_s'], 1e-9):.2f}"
        print(f"| {name} | {r['tests']} | {t['execute_s']:.1f} ({t['programs']}, {t['items']:,}) | {sel_txt} | "
              f"{ratio} | {t.get('judge_s', 0):.1f} | {r['wall_s']:.1f} |", flush=True)
        rows.append(r)
    for r in rows:
        print(f"{r['set']}: pass@1 base / plus " + "; ".join(f"{m} {v['base']} / {v['plus']}"
                                                             for m, v in r["methods"].items()))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
