"""Benchmark: peak memory and wall time of judging a few tasks' samples (base + plus) in a fresh verdict cache.

Meant for the tasks with the largest expected outputs (MBPP+'s Mbpp/255, HumanEval/15, /130): a thread polls the
RSS of this process and all its descendants (judge workers, their referees, check children) every 0.1 s and
prints the peak of the largest process and of the whole tree, with a digest of the verdicts to compare runs of two
checkouts (run each with its own ``PYTHONPATH``).

    python bench/judge_memory.py --dataset mbpp --tasks Mbpp/255 \\
        --samples ../shared/data/extra_mbpp/samples/codellama-7b-instruct-q5_mbpp+_n10_t0.6.jsonl.gz
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import tempfile
import threading
import time
from pathlib import Path

from coderank_evalplus.engine.execution.execute import ResultCache
from coderank_evalplus.engine.judging.judge import Judge, expected_outputs
from coderank_evalplus.io.problems import load_problems
from coderank_evalplus.io.samples import read_solutions


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


def _rss_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class PeakRSS(threading.Thread):
    """Polls the process tree's RSS until stopped; ``largest`` and ``tree`` are the peaks (MiB)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.largest = self.tree = 0.0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            rss = [_rss_mib(p) for p in _descendants(os.getpid())]
            self.largest, self.tree = max(self.largest, max(rss)), max(self.tree, sum(rss))
            time.sleep(0.1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="mbpp", choices=("humaneval", "mbpp"))
    ap.add_argument("--data-dir", default=os.environ.get("CODERANK_DATA", "../shared/data"))
    ap.add_argument("--samples", required=True, help="a samples file with the tasks' samples")
    ap.add_argument("--tasks", required=True, help="comma-separated task ids")
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    problems = load_problems(args.dataset, args.data_dir)
    tasks = args.tasks.split(",")
    missing = [t for t in tasks if t not in problems]
    if missing:
        raise SystemExit(f"{args.dataset} has no task {', '.join(missing)}")
    # only these tasks: every other record of the file is dropped (as --drop-extra-problems)
    sols = read_solutions(Path(args.samples), {t: problems[t] for t in tasks}, args.data_dir, drop_extra=True)
    for t in tasks:
        expected_outputs(problems[t])  # evalplus's ground truth, computed or loaded before the clock starts
    peak = PeakRSS()
    peak.start()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.monotonic()
        verdicts = Judge(ResultCache(Path(tmp) / "c.sqlite"), workers=args.workers).judge_programs(
            sols, problems, plus=True)
        wall = time.monotonic() - t0
    peak.done.set()
    peak.join()
    mine = {t: [[v.base, bool(v.plus)] for v in vs] for t, vs in verdicts.items()}
    digest = hashlib.sha256(json.dumps(mine, sort_keys=True).encode()).hexdigest()[:12]
    n = sum(len(v) for v in mine.values())
    print(f"judged {n} samples of {len(tasks)} task(s) in {wall:.1f} s wall; base passes "
          f"{sum(v[0] for vs in mine.values() for v in vs)}, plus {sum(v[1] for vs in mine.values() for v in vs)}; "
          f"verdicts digest {digest}")
    print(f"peak RSS: largest process {peak.largest:.0f} MiB, process tree {peak.tree:.0f} MiB")


if __name__ == "__main__":
    main()
