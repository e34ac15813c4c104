"""Benchmark: our judge vs ``evalplus.evaluate`` on the same CodeGen-16B HumanEval+ samples.

Builds a HumanEval+ file with the first N problems (evalplus requires samples for every problem of its dataset),
writes their CodeGen-16B samples as evalplus ``{task_id, solution}`` jsonl, runs the real ``evalplus.evaluate``
(ground truth computed beforehand, so both sides are timed on judging alone), then our ``Judge`` with a fresh
verdict cache. Prints both wall times, the ratio, and every verdict that differs (base and plus).

    python bench/bench_judge.py --data-dir ../shared/data --problems 20

``--per-task 20`` keeps each problem's first 20 samples; ``--rerank`` also times ``coderank-evalplus rerank
--methods random`` on the same file (a fresh output folder and cache: what a user waits for, the judge included)
and prints its pass@1 beside evalplus's. Each figure is printed with the load average at its end. ``--floor`` then
measures the judge's floor on the same samples (``bench/judge_floor.py``: each distinct program's own CPU, over
``--parallel`` workers) and prints whether the 8x target is reachable at all: evalplus's wall / 8 against the floor's
wall.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from coderank_evalplus.engine.execution.execute import ResultCache
from coderank_evalplus.engine.judging.judge import Judge
from coderank_evalplus.io.problems import humaneval_plus_path, load_problems
from coderank_evalplus.io.samples import read_solutions

SOL = "microsoft_CodeT/generated_data/HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_code_solution.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=os.environ.get("CODERANK_DATA", "../shared/data"))
    ap.add_argument("--problems", type=int, default=20)
    ap.add_argument("--parallel", type=int, default=os.cpu_count())
    ap.add_argument("--per-task", type=int, default=0, help="each problem's first N samples (0: all)")
    ap.add_argument("--rerank", action="store_true", help="also time `coderank-evalplus rerank --methods random`")
    ap.add_argument("--before", default=None, help="with --rerank: time this checkout's rerank first, then ours")
    ap.add_argument("--floor", action="store_true", help="also measure the judge's floor; is 8x reachable at all?")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench_judge_"))
    src = humaneval_plus_path(args.data_dir)
    with gzip.open(src, "rt") as fh:
        records = [json.loads(line) for line in fh if line.strip()][: args.problems]
    subset = tmp / "HumanEvalPlus-subset.jsonl"
    subset.write_text("".join(json.dumps(r) + "\n" for r in records))
    env = dict(os.environ, HUMANEVAL_OVERRIDE_PATH=str(subset), XDG_CACHE_HOME=str(tmp / "xdg"),
               CODERANK_CACHE=str(tmp / "coderank"))
    env.pop("CODERANK_DATA", None)  # (it would take precedence over the override)
    os.environ.pop("CODERANK_DATA", None)
    os.environ.update(env)  # our loaders/judge read the same override and caches

    problems = load_problems("humaneval")  # the subset, through evalplus's loader
    sols = read_solutions(Path(args.data_dir) / SOL, problems, args.data_dir, allow_unknown=True)
    if args.per_task:
        sols = {t: progs[: args.per_task] for t, progs in sols.items()}
    samples = tmp / "samples.jsonl"
    with open(samples, "w") as fh:
        for tid in problems:
            for prog in sols[tid]:
                fh.write(json.dumps({"task_id": tid, "solution": prog}) + "\n")
    n_samples = sum(len(sols[t]) for t in problems)

    # ground truth first (evalplus caches it by dataset hash; ours reads evalplus's cache when present)
    gt = ("from evalplus.data import get_human_eval_plus, get_human_eval_plus_hash\n"
          "from evalplus.evaluate import get_groundtruth\n"
          "get_groundtruth(get_human_eval_plus(), get_human_eval_plus_hash(), [])\n")
    subprocess.run([sys.executable, "-c", gt], env=env, check=True, capture_output=True)

    t0 = time.monotonic()
    subprocess.run([sys.executable, "-m", "evalplus.evaluate", "--dataset", "humaneval", "--samples", str(samples),
                    "--parallel", str(args.parallel)], env=env, check=True, capture_output=True)
    evalplus_wall = time.monotonic() - t0
    evalplus_load = _load()
    ref = json.loads((tmp / "samples_eval_results.json").read_text())["eval"]

    t0 = time.monotonic()
    cache = ResultCache(tmp / "judge.sqlite")
    ours = Judge(cache, workers=args.parallel, progress=False).judge_programs(
        {t: sols[t] for t in problems}, problems, plus=True)
    ours_wall = time.monotonic() - t0
    ours_load = _load()
    reranks = {}
    for side, code in (("before", args.before), ("this", None)) if args.rerank else ():
        if side == "before" and not code:
            continue
        t0 = time.monotonic()
        subprocess.run([sys.executable, "-m", "coderank_evalplus.cli", "rerank", "--dataset", "humaneval",
                        "--solutions", str(samples), "--methods", "random", "--workers", str(args.parallel),
                        "--output", str(tmp / f"rerank_{side}"), "--cache-dir", str(tmp / f"rerank_cache_{side}")],
                       env=dict(env, PYTHONPATH=code) if code else env, check=True, capture_output=True)
        reranks[side] = (time.monotonic() - t0, _load(),
                         json.loads((tmp / f"rerank_{side}" / "rerank_results.json").read_text()))

    diffs = []
    for tid in problems:
        for i, (r, v) in enumerate(zip(ref[tid], ours[tid])):
            rb = r["base_status"] == "pass"
            rp = rb and r["plus_status"] == "pass"
            if (rb, rp) != (v.base, v.plus):
                diffs.append((tid, i, (rb, rp), (v.base, v.plus)))
    print(f"problems {len(problems)}, samples {n_samples}, unique programs "
          f"{sum(len(set(sols[t])) for t in problems)}")
    print(f"evalplus.evaluate wall   {evalplus_wall:.1f} s (includes its fixed ~20 s watchdog wait; {evalplus_load})")
    print(f"coderank judge wall      {ours_wall:.1f} s ({ours_load})")
    print(f"speed-up                 {evalplus_wall / ours_wall:.1f}x")
    for side, (wall, load, res) in reranks.items():
        rnd, timing = res["methods"]["random"], res["timing"]
        print(f"rerank --methods random, {side} checkout{f' ({args.before})' if side == 'before' else ''}: {wall:.1f} "
              f"s ({load}); evalplus.evaluate / rerank {evalplus_wall / wall:.1f}x")
        print(f"    its timing: judge {timing.get('judge_s')} s of {timing.get('total_s')} s "
              f"({timing.get('judged_programs')} programs judged for {timing.get('judged_samples')} samples)")
        print(f"    pass@1 base / plus: evalplus {_pass1(ref, 'base'):.2f} / {_pass1(ref, 'plus'):.2f}, rerank's "
              f"random {rnd['base']['pass@1']:.2f} / {rnd['plus']['pass@1']:.2f}")
    print(f"verdicts differing       {len(diffs)} of {n_samples} (base, plus)")
    for d in diffs[:20]:
        print("   ", d)
    if args.floor:
        from judge_floor import floor, target_line  # bench/judge_floor.py (run as python bench/…)

        from coderank_evalplus.engine.sandbox.limits import max_memory_bytes

        fl = floor({t: sols[t] for t in problems}, problems, max_memory_bytes())
        print(f"floor: the programs' own CPU {fl['own']:.1f} s (at a limit {fl['limited']:.1f} s; {fl['inputs']:,} "
              f"inputs, {fl['checks']:,} checks), comparisons {fl['cmp']:.1f} s; {_load()}")
        print(target_line("evalplus.evaluate", evalplus_wall, 8, fl["own"], args.parallel))


def _load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def _pass1(ref: dict, split: str) -> float:
    """evalplus's pass@1 (%) from its results, the mean over problems: plus means base and plus passed."""
    per_task = [sum(r["base_status"] == "pass" and (split == "base" or r["plus_status"] == "pass") for r in rs)
                / len(rs) for rs in ref.values()]
    return 100 * sum(per_task) / len(per_task)


if __name__ == "__main__":
    main()
