"""Benchmark: the judge against its floor, and where the rest of its time goes.

The floor of a judge on a set of samples is what the programs themselves must cost: each DISTINCT program's own CPU
time (its module executed, then its calls) on the inputs it must run to get its verdict -- its base inputs up to the
first failing one, then, when all passed, its plus inputs up to the first failing one (or all of them) -- summed,
and divided by the workers. Inputs that ran into their time limit count in full: no judge that keeps evalplus's
limits avoids them.

The floor is measured with a bare check per program and split: one fork from this process, the program executed
and called on each input under the judge's own per-input CPU limits (read from the task files the judge writes,
so the rule is the judge's), each output compared at once with the same rules (``oracle.evalplus_compare``;
LiveCodeBench's ``lcb.values_match`` / ``stdout_matches``), no guard, confinement, report or referee. Each bare
child's CPU comes from ``wait4`` and is split into the program's own (``process_time`` around the exec and each
call), the comparisons', and the rest (its start: the fork's copied pages, the timers). Then the judge itself runs
cold (a fresh verdict cache) on ``--workers`` workers; its wall time, its CPU (this process and every child), the
checks it forked and its jobs (each loads its task's inputs; its referee the expected outputs) are printed beside
the floor, and the verdicts of both are compared.

    python bench/judge_floor.py --data-dir ../shared/data --dataset humaneval \\
        --samples ../shared/data/extra_humaneval/samples/gpt-4_n10_t0.2.jsonl.gz --workers 2
    python bench/judge_floor.py --dataset tests/data/lcb/problems.jsonl --samples tests/data/lcb/samples.jsonl

``--rounds`` runs the judge that many times, cold each time, and prints the median. ``--before DIR`` (a checkout of
another revision, e.g. ``git worktree add /tmp/judge_base main``) times that checkout's judge and this one's
alternately, each run in a fresh process with a fresh cache, ``--rounds`` times each, and prints both medians (the
floor is left out).

The bare check runs candidate code unconfined (in a temp dir, with evalplus's memory cap as an rlimit): use it on the
released sample sets, not on untrusted uploads.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import resource
import signal
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Optional

from coderank_evalplus.engine import lcb, shapes
from coderank_evalplus.engine.execution.execute import ResultCache
from coderank_evalplus.engine.judging import judge as judge_mod
from coderank_evalplus.engine.judging.oracle import evalplus_compare
from coderank_evalplus.io.problems import load_problems
from coderank_evalplus.io.samples import read_solutions
from coderank_evalplus.types import STDIN_CALLEE, Problem


def _cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


class _Limit(BaseException):
    """Raised by the CPU timer in a bare child: the input ran to its limit."""


def _raise_limit(signum, frame):  # pragma: no cover - the bare child
    raise _Limit


# --- one bare check -----------------------------------------------------------------------------------------

def _bare_child(code, calls: list[tuple[Callable[[dict], Any], float, Callable[[int, Any], bool]]],
                wfd: int) -> None:  # pragma: no cover - the bare child
    """Exec ``code``, then each call under its CPU limit until one fails; write (split results, CPU parts)."""
    clock = time.process_time
    own = cmp = limited = 0.0
    passed = ran = 0
    try:
        t = clock()
        env: dict = {"__name__": "__main__"}
        try:
            exec(code, env)
            ok = True
        except BaseException:  # noqa: BLE001 - a program that fails to load fails its first input
            ok = False
        own += clock() - t
        for i, (call, limit, compare) in enumerate(calls):
            if not ok:
                break
            t = clock()
            signal.setitimer(signal.ITIMER_PROF, limit)
            signal.setitimer(signal.ITIMER_REAL, 3 * limit + 1)  # the judge's wall watchdog: a program that sleeps
            try:
                out = call(env)
            except _Limit:
                limited += clock() - t
                ok = False
            except BaseException:  # noqa: BLE001 - the program failed this input
                ok = False
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
                signal.setitimer(signal.ITIMER_REAL, 0)
            own += clock() - t
            ran = i + 1
            if ok:
                t = clock()
                ok = compare(i, out)
                cmp += clock() - t
            passed += ok
    finally:
        os.write(wfd, pickle.dumps((passed, ran, own, limited, cmp)))
        os._exit(0)


def bare_check(code, calls: list, mem: Optional[int],
               budget: Optional[float] = None) -> tuple[int, int, float, float, float, float]:
    """One program on its calls in a bare fork: (passed, ran, own CPU, of which at a limit, compare CPU, child CPU).
    ``budget``: the judge's CPU seconds for the whole check (a program that loops in its module's code, where no
    per-input limit runs, is stopped there too; all its CPU counts as its own, at a limit)."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the bare child
        os.setpgid(0, 0)  # a program that signals its process group reaches only itself
        os.close(rfd)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.chdir(tempfile.mkdtemp(prefix="judge_floor_"))
        if mem:
            resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        if budget:
            cap = int(math.ceil(budget))
            resource.setrlimit(resource.RLIMIT_CPU, (cap, cap + 1))
        signal.signal(signal.SIGPROF, _raise_limit)
        signal.signal(signal.SIGALRM, _raise_limit)
        _bare_child(code, calls, wfd)
    os.close(wfd)
    raw = b""
    while chunk := os.read(rfd, 1 << 16):
        raw += chunk
    os.close(rfd)
    _, _, ru = os.wait4(pid, 0)
    passed, ran, own, limited, cmp = pickle.loads(raw) if raw else (0, 0, 0.0, 0.0, 0.0)
    if not raw and budget:  # stopped by the budget before it could report: its CPU was the program's
        own = limited = ru.ru_utime + ru.ru_stime
    return passed, ran, own, limited, cmp, ru.ru_utime + ru.ru_stime


# --- a task's calls, from the judge's own task files -------------------------------------------------------

def _load(path: str) -> dict:
    with open(path, "rb") as fh:
        return pickle.load(fh)


def evalplus_splits(judge: judge_mod.Judge, prob: Problem) -> list[list]:
    """Per split (base, plus): the calls with their CPU limits and comparisons, as the judge's files give them."""
    path = judge._task_file(prob, prob.has_plus_tests)
    data, secret = _load(path), _load(path + ".expected")
    splits = []
    for split in ("base", "plus") if prob.has_plus_tests else ("base",):
        inputs, limits = data[split]
        expected = secret[split][1]
        atol = [data["atol"]]  # evalplus carries atol from input to input within a split

        def compare(i: int, out, inputs=inputs, expected=expected, atol=atol) -> bool:
            ok, atol[0] = evalplus_compare(data["dataset"], data["entry_point"], inputs[i], out, expected[i], atol[0])
            return ok

        def call(env: dict, inp=None) -> Any:
            return env[data["entry_point"]](*inp)

        splits.append([(lambda env, inp=inp: call(env, inp), lim, compare) for inp, lim in zip(inputs, limits)])
    return splits


def lcb_splits(judge: judge_mod.Judge, prob: Problem) -> list[list]:
    """LiveCodeBench's one split: each test's call and the grader's comparison."""
    job = judge._job(prob, [], False)
    data, secret = _load(job["data"]), _load(job["expected"])
    functional = shapes.shape_of(data["shape"]).json_io
    limit = float(data["time_limit"])
    outputs = secret["outputs"]

    def compare(i: int, out) -> bool:
        if not functional:
            return type(out) is str and lcb.stdout_matches(out, outputs[i])
        try:
            return lcb.values_match(out, json.loads(outputs[i]))
        except ValueError:
            return False

    def call(env: dict, text: str) -> Any:
        if not functional:
            return env[STDIN_CALLEE](text)
        if "Solution" in env:
            if "__solution" not in env:
                env["__solution"] = env["Solution"]()
            fn = getattr(env["__solution"], data["func_name"])
        else:
            fn = env[data["func_name"]]
        return fn(*[json.loads(line) for line in text.split("\n")])

    return [[(lambda env, text=text: call(env, text), limit, compare) for text in data["inputs"]]]


def program_code(prob: Problem, program: str):
    """What the bare child executes: the program as the judge's child executes it (compiled; None: a syntax error)."""
    text = shapes.runnable(prob.shape, program) if prob.io_tests else program
    code, broken = judge_mod._compile_candidate(text, "<string>")
    return None if broken else code


# --- the floor and the judge ------------------------------------------------------------------------------

def floor(sols: dict[str, list[str]], problems: dict[str, Problem], mem: Optional[int]) -> dict:
    """The bare checks of every distinct program; totals and per-program verdicts."""
    judge = judge_mod.Judge(None, workers=1, progress=False)
    tot = dict(programs=0, checks=0, own=0.0, limited=0.0, cmp=0.0, start=0.0, inputs=0, fork=0.0)
    verdicts: dict[tuple[str, str], tuple[bool, Optional[bool]]] = {}
    for tid, progs in sols.items():
        prob = problems[tid]
        splits = lcb_splits(judge, prob) if prob.io_tests else evalplus_splits(judge, prob)
        for prog in dict.fromkeys(progs):
            tot["programs"] += 1
            code = program_code(prob, prog)
            got: list[bool] = []
            for calls in splits:
                if code is None or (got and not got[0]):
                    got.append(False)
                    continue
                c0 = _cpu()
                budget = None if prob.io_tests else judge_mod.evalplus_budget([lim for _, lim, _ in calls])
                passed, ran, own, limited, cmp, child = bare_check(code, calls, mem, budget)
                tot["fork"] += _cpu() - c0 - child
                tot["checks"] += 1
                tot["inputs"] += ran
                tot["own"] += own
                tot["limited"] += limited
                tot["cmp"] += cmp
                tot["start"] += max(0.0, child - own - cmp)
                got.append(passed == len(calls))
            verdicts[(tid, prog)] = (got[0], got[1] if len(got) > 1 else None)
    tot["verdicts"] = verdicts
    return tot


def run_judge(sols: dict[str, list[str]], problems: dict[str, Problem], workers: int) -> dict:
    """The judge, cold: wall, CPU of every process, checks forked, jobs, verdicts per distinct program."""
    with tempfile.TemporaryDirectory(prefix="judge_floor_cache_") as tmp:
        judge = judge_mod.Judge(ResultCache(Path(tmp) / "c.sqlite"), workers=workers, progress=False)
        jobs = []
        run_checks = judge._run_checks

        def counting(js, *a, **kw):  # the jobs the judge made, counted
            jobs.extend(js)
            return run_checks(js, *a, **kw)

        judge._run_checks = counting  # type: ignore[method-assign]  # a count, the judge unchanged
        t0, c0 = time.monotonic(), _cpu()
        got = judge.judge_programs(sols, problems, plus=True)
        wall, cpu = time.monotonic() - t0, _cpu() - c0
    verdicts = {(t, p): (v.base, v.plus) for t, progs in sols.items() for p, v in zip(progs, got[t])}
    return dict(wall=wall, cpu=cpu, jobs=len(jobs), verdicts=verdicts)


def transfer_cpu(sols: dict[str, list[str]], problems: dict[str, Problem]) -> float:
    """CPU s to load each task's two files once (inputs for the worker, expected outputs for its referee)."""
    judge = judge_mod.Judge(None, workers=1, progress=False)
    t = time.process_time()
    for tid in sols:
        prob = problems[tid]
        path = judge._job(prob, [], False)["data"] if prob.io_tests else judge._task_file(prob, prob.has_plus_tests)
        _load(path)
        _load(path + ".expected")
    return time.process_time() - t


def target_line(peer: str, peer_wall: float, target: float, floor_cpu: float, workers: int) -> str:
    """Whether a speed-up target over a peer is reachable at all: the peer's wall / the target against the floor's
    wall (its CPU over the workers). A floor above it rules the target out whatever the judge does."""
    need, floor_wall = peer_wall / target, floor_cpu / workers
    verdict = (f"the floor alone exceeds it: {target:g}x is impossible on {workers} workers whatever the judge does"
               if floor_wall > need else f"the floor is {floor_wall / need:.0%} of it: not ruled out by the floor")
    return (f"target {target:g}x: {peer} {peer_wall:.1f} s / {target:g} = {need:.1f} s; floor {floor_cpu:.1f} CPU-s "
            f"/ {workers} workers = {floor_wall:.1f} s; {verdict}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=os.environ.get("CODERANK_DATA", "../shared/data"))
    ap.add_argument("--dataset", required=True, help="humaneval, mbpp, or a problem file (LiveCodeBench's records)")
    ap.add_argument("--samples", required=True, help="a sample file (LiveCodeBench: hostile samples left out)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="the first N tasks of the samples (0: all)")
    ap.add_argument("--rounds", type=int, default=1, help="judge runs, each cold (median wall printed)")
    ap.add_argument("--no-floor", action="store_true", help="time the judge only")
    ap.add_argument("--before", default=None, help="another checkout: its judge and this one's, alternately")
    args = ap.parse_args()
    if args.before:
        return side_by_side(args)

    problems = load_problems(args.dataset, args.data_dir)
    if Path(args.samples).suffix == ".jsonl" and Path(args.dataset).is_file():
        sols: dict[str, list[str]] = {}
        for line in Path(args.samples).read_text().splitlines():
            rec = json.loads(line) if line.strip() else {}
            if rec and rec.get("kind") != "hostile":
                sols.setdefault(rec["task_id"], []).append(rec["solution"])
    else:
        sols = read_solutions(args.samples, problems, data_dir=args.data_dir, allow_unknown=True)
    sols = {t: p for t, p in list(sols.items())[: args.limit or None] if t in problems}
    for tid in sols:  # ground truth first, untimed on both sides (evalplus.evaluate does the same)
        if problems[tid].has_evalplus_inputs:
            judge_mod.expected_outputs(problems[tid])
    n_samples = sum(map(len, sols.values()))
    from coderank_evalplus.engine.sandbox.limits import max_memory_bytes

    name = Path(args.samples).name
    print(f"{name}: {len(sols)} tasks, {n_samples} samples, {sum(len(set(p)) for p in sols.values())} distinct "
          f"programs, {args.workers} workers; {_uptime()}")
    fl = None if args.no_floor else floor(sols, problems, max_memory_bytes())
    runs = [run_judge(sols, problems, args.workers) for _ in range(args.rounds)]
    wall = statistics.median(r["wall"] for r in runs)
    cpu = statistics.median(r["cpu"] for r in runs)
    print(f"judge: wall {wall:.1f} s (runs: {', '.join(format(r['wall'], '.1f') for r in runs)}), CPU {cpu:.1f} s "
          f"(all its processes), {runs[0]['jobs']} jobs; {_uptime()}")
    if fl is None:
        return
    floor_cpu = fl["own"]
    floor_wall = floor_cpu / args.workers
    # (a problem without plus tests: the judge's plus is its base, evalplus's definition)
    diff = sum(runs[0]["verdicts"][k] != (b, b if p is None else p) for k, (b, p) in fl["verdicts"].items())
    tr = transfer_cpu(sols, problems)
    rows = [
        ("floor: the programs' own CPU", floor_cpu, f"{fl['inputs']:,} inputs run, {fl['checks']:,} checks"),
        ("  of which inputs at their limit", fl["limited"], "no judge keeping the limits avoids it"),
        ("comparisons (bare)", fl["cmp"], "evalplus's / the grader's rules on each output"),
        ("start of a bare check (child)", fl["start"], "copied pages, timers, exit"),
        ("fork of a bare check (parent)", fl["fork"], f"from this process ({_rss_mb():.0f} MB)"),
        ("transfer: each task's files once", tr, f"the judge loads them once per job ({runs[0]['jobs']} jobs)"),
        ("the judge, all processes", cpu, f"{cpu - floor_cpu - fl['cmp']:+.1f} s beyond floor + comparisons"),
    ]
    print(f"{'CPU s':>9}  what")
    for what, s, note in rows:
        print(f"{s:9.1f}  {what:36} {note}")
    print(f"floor wall = {floor_cpu:.1f} / {args.workers} = {floor_wall:.1f} s; judge wall {wall:.1f} s = "
          f"{wall / max(floor_wall, 1e-9):.2f}x the floor; waiting (workers x wall - CPU): "
          f"{args.workers * wall - cpu:.1f} s; verdicts differing from the bare check's: {diff} of "
          f"{len(fl['verdicts'])} distinct programs")
    for (tid, prog), (b, p) in fl["verdicts"].items():
        if runs[0]["verdicts"][(tid, prog)] != (b, b if p is None else p):
            print(f"    differs: {tid} program #{sols[tid].index(prog)}: bare (base, plus) {(b, p)}, judge "
                  f"{runs[0]['verdicts'][(tid, prog)]}")
    print(f"TABLE | {name} | {len(sols)} | {n_samples} | {len(fl['verdicts'])} | {floor_cpu:.1f} | "
          f"{fl['limited']:.1f} | {floor_wall:.1f} | {wall:.1f} | {wall / max(floor_wall, 1e-9):.2f}x | {diff} |")


def side_by_side(args: argparse.Namespace) -> None:
    """This script with ``--no-floor`` in a fresh process per run, on the other checkout and on this one in turn."""
    import re
    import subprocess
    import sys

    here = str(Path(__file__).resolve().parents[1])
    argv = [sys.executable, __file__, "--data-dir", args.data_dir, "--dataset", args.dataset, "--samples",
            args.samples, "--workers", str(args.workers), "--limit", str(args.limit), "--no-floor"]
    times: dict[str, list[tuple[float, float]]] = {"before": [], "after": []}
    for r in range(args.rounds):
        for side, code in (("before", args.before), ("after", here))[:: 1 if r % 2 == 0 else -1]:
            env = dict(os.environ, PYTHONPATH=code)
            out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True).stdout
            m = re.search(r"judge: wall ([\d.]+) s .*?CPU ([\d.]+) s", out)
            assert m, out
            times[side].append((float(m[1]), float(m[2])))
            print(f"round {r + 1} {side:6} ({code}): wall {m[1]} s, CPU {m[2]} s; {_uptime()}", flush=True)
    (bw, bc), (aw, ac) = ((statistics.median(t[0] for t in times[s]), statistics.median(t[1] for t in times[s]))
                          for s in ("before", "after"))
    print(f"median of {args.rounds}: before wall {bw:.1f} s CPU {bc:.1f} s | after wall {aw:.1f} s CPU {ac:.1f} s | "
          f"after/before wall {aw / bw:.2f}, CPU {ac / bc:.2f}")


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _uptime() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
