"""Benchmark: the execution engine against its floor, side by side in one run, and the engine's overhead over it.

The floor runs the same programs on the same probes (the candidate's calls of each test item, as the engine's
``plan_items`` splits them) in the same way -- one job per distinct program on a pool of fresh worker
interpreters, one forked process per program, values digested with ``canonical.digest_value`` -- but without the
engine's per-program and per-item machinery: no confinement, no guard, no CPU-time timers, no shared-memory
records, no value log, no verdicts, no cache. The engine runs first, cold, on every item; then both sides leave
out what the floor cannot do alike (programs that failed their import under the engine's guard, items that timed
out: the floor has no timer to stop them), the engine by starting from a cache that holds those results. The
floor's digests are checked against the engine's output matrix (``values hashed the same way``).

Both sides also run once with no test items at all (each program's import only), so the cost splits into a part
per program and a part per item:

    per program = import-only CPU / programs         per item = (full CPU - import-only CPU) / items

CPU is this process's and its children's (the workers, reaped at the end of each side, and their children), so
it does not depend on how busy the machine is; wall times are printed too. ``--rounds 2`` runs the sides as
engine, floor, floor, engine (and so on) and reports medians.

    PYTHONPATH=$PWD python bench/floor.py --data-dir ../shared/data --limit 30 --workers 1 --rounds 2

The floor runs candidate code unconfined (in a temp dir, with evalplus's memory cap as an rlimit): use it on the
released sample sets it was written for, not on untrusted uploads.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import os
import resource
import select
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

_FLOOR_WAIT_S = 60.0  # a floor child silent this long is killed (its items are counted as lost)


def _cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


# --- the floor's worker job (runs in a worker interpreter: ``floor:floor_job``) -----------------------------

_COMPILED: dict[str, list] = {}
_DIR: list = []


def _workdir() -> str:
    if not _DIR:
        _DIR.append(tempfile.mkdtemp(prefix="floor_"))
    return _DIR[0]


def floor_job(job: tuple) -> tuple[int, Optional[list]]:
    """Run one program on its probes in one forked, unconfined child; return (row id, digests in run order:
    None for a probe the floor skipped or lost), or (row id, None) when the program failed its import."""
    from coderank_evalplus.engine.sandbox.canonical import digest_text, digest_value
    from coderank_evalplus.engine.sandbox.child import compile_program
    from coderank_evalplus.engine.sandbox.verdicts import compile_probes

    rid, program, probes_key, probes, order, skip, mem = job
    if not _DIR:  # first job: as the engine's workers do, keep the collector off the worker's pages in children
        import gc

        gc.collect()
        gc.freeze()
    if probes_key not in _COMPILED:
        if len(_COMPILED) >= 2:
            _COMPILED.clear()
        _COMPILED[probes_key] = compile_probes(probes)
    codes = _COMPILED[probes_key]
    _workdir()
    try:
        code = compile_program(program)
    except BaseException:  # noqa: BLE001 - the engine needs no child for these either
        return rid, None
    skip = set(skip)
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        try:
            os.close(rfd)
            if mem:
                resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
            os.chdir(_workdir())
            sys.stdout = sys.stderr = io.StringIO()
            sys.stdin = io.StringIO()
            env: dict[str, Any] = {"__name__": "__floor__"}
            try:
                exec(code, env)
            except BaseException:  # noqa: BLE001
                os.write(wfd, b"I")
                os._exit(0)
            out = []
            for idx in order:
                if idx in skip:
                    out.append("-")
                    continue
                try:
                    out.append(str(digest_value(eval(codes[idx], env))))
                except BaseException as exc:  # noqa: BLE001
                    out.append("x" + str(digest_text("exc:" + exc.__class__.__name__)))
            data = (" ".join(out)).encode()
            view = memoryview(data)
            while view:
                view = view[os.write(wfd, view):]
        finally:
            os._exit(0)
    os.close(wfd)
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([rfd], [], [], _FLOOR_WAIT_S)
            if not ready:
                os.kill(pid, signal.SIGKILL)
                break
            chunk = os.read(rfd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(rfd)
        os.waitpid(pid, 0)
    data = b"".join(chunks)
    if data == b"I":
        return rid, None
    words = data.decode().split() if data else []
    got: list = [None if w == "-" else w for w in words]
    return rid, got + [None] * (len(order) - len(got))


# --- the driver ------------------------------------------------------------------------------------------------

def _works(args) -> list:
    from coderank_evalplus.engine.execution.execute import ProblemWork
    from coderank_evalplus.io.problems import load_problems
    from coderank_evalplus.io.samples import read_solutions, read_test_samples
    from coderank_evalplus.testgen.extract import build_suite

    problems = load_problems(args.dataset, args.data_dir)
    sols = read_solutions(Path(args.solutions), problems, args.data_dir)
    tests = read_test_samples(Path(args.tests), problems, args.data_dir)
    tids = [t for t in problems if t in sols][: args.limit or None]  # 0: every problem of the solutions
    return [ProblemWork(problems[t], sols[t], build_suite(tests.get(t, []), problems[t].entry_point)) for t in tids]


def _import_only(works: list, books: list) -> list:
    """The programs the floor runs (``books``), each with no test item: their imports alone."""
    from coderank_evalplus.engine.execution.execute import ProblemWork
    from coderank_evalplus.types import TestSuite

    kept: dict[str, list[str]] = {}
    for tid, r, plan, _, _ in books:
        kept.setdefault(tid, []).append(plan.rows[r])
    return [ProblemWork(dataclasses.replace(w.problem, trial_tests=[]), kept[w.problem.task_id], TestSuite())
            for w in works if w.problem.task_id in kept]


def run_engine(works: list, workers: int, cpu_limit: float, prefill: Optional[Path] = None
               ) -> tuple[float, float, dict, Any, Path]:
    """(wall s, CPU s, executions, stats, cache file) of ``execute`` with a fresh cache (a copy of ``prefill``)."""
    import shutil

    from coderank_evalplus.engine.execution.execute import ExecutionStats, ResultCache, execute
    from coderank_evalplus.engine.sandbox import Limits

    tmp = Path(tempfile.mkdtemp(prefix="floor_engine_"))
    path = tmp / "cache.sqlite"
    if prefill is not None:
        shutil.copy(prefill, path)
    cache = ResultCache(path)
    stats = ExecutionStats()
    t0, c0 = time.monotonic(), _cpu()
    ex = execute(works, cache, Limits(cpu=cpu_limit), workers=workers, progress=False, stats=stats)
    wall, cpu = time.monotonic() - t0, _cpu() - c0
    cache.close()
    return wall, cpu, ex, stats, path


def left_out(works: list, full_cache: Path, cpu_limit: float) -> tuple[Path, dict, int, int]:
    """What both sides leave out, as a cache holding its results from ``full_cache``: programs that did not get
    past their import (the engine's guard makes some imports fail at once that the floor would run: ``import
    torch``), and in the others the items timed out and every item sharing a probe with one (the floor has no
    timer). An engine run on that cache executes exactly what the floor does. Also returns {(task, row): items
    left out, or None for the whole program}, the programs left out and the items left out."""
    from coderank_evalplus.engine.execution.execute import _IMPORT_ITEM, ResultCache, _plan
    from coderank_evalplus.engine.sandbox import Limits
    from coderank_evalplus.engine.sandbox.verdicts import plan_items
    from coderank_evalplus.types import PASS, TIMED_OUT, TIMEOUT

    lkey = Limits(cpu=cpu_limit).key()
    src = ResultCache(full_cache)
    path = full_cache.parent / "left_out.sqlite"
    dst = ResultCache(path)
    out: dict = {}
    programs = n_items = 0
    for w in works:
        plan = _plan(w)
        probes = plan_items(plan.items)

        def uses(it: int, probes=probes) -> tuple[int, ...]:
            return (probes.call_probe[it],) if it in probes.call_probe else probes.tests[it][1]

        for r in range(len(plan.rows)):
            got = src.lookup(plan.prog_keys[r], lkey)
            imp = got.get(_IMPORT_ITEM)
            if imp is not None and imp[0] != PASS:
                rows = [(key, *got[key]) for key in plan.keys if key in got] + [(_IMPORT_ITEM, *imp)]
                out[(w.problem.task_id, r)] = None
                programs += 1
                n_items += len(plan.items)
            else:
                hung = {p for it, key in enumerate(plan.keys) if key in got and got[key][0] == (
                    TIMED_OUT if plan.items[it][0] == "call" else TIMEOUT) for p in uses(it)}
                skip = [it for it in range(len(plan.items)) if hung.intersection(uses(it))]
                rows = [(plan.keys[it], *got[plan.keys[it]]) for it in skip if plan.keys[it] in got]
                out[(w.problem.task_id, r)] = skip
                n_items += len(skip)
            if rows:
                dst.store(plan.prog_keys[r], lkey, rows)
    dst.commit()
    dst.close()
    src.close()
    return path, out, programs, n_items


def floor_jobs(works: list, timed: dict) -> tuple[list, list]:
    """The floor's jobs (the engine's distinct programs and probes, less the probes of timed-out items) and
    their bookkeeping; a program whose import timed out is left out."""
    from coderank_evalplus.engine.execution.execute import _plan, content_key
    from coderank_evalplus.engine.sandbox.limits import max_memory_bytes
    from coderank_evalplus.engine.sandbox.verdicts import plan_items

    mem = max_memory_bytes()
    jobs, books = [], []
    for w in works:
        plan = _plan(w)
        probes = plan_items(plan.items)
        key = content_key(*probes.probes).hex()
        for r, prog in enumerate(plan.rows):
            skip = timed.get((w.problem.task_id, r), ())
            if skip is None:
                continue
            skip = set(skip)
            order = probes.probes_for([it for it in range(len(plan.items)) if it not in skip])
            jobs.append((len(jobs), prog, key, probes.probes, order, [], mem))
            books.append((w.problem.task_id, r, plan, probes, order))
    return jobs, books


def run_floor(jobs: list, workers: int) -> tuple[float, float, dict]:
    """(wall s, CPU s, {job id: digests}) of the floor's jobs on a fresh worker pool."""
    from coderank_evalplus.engine.execution.executors import LocalExecutor

    here = str(Path(__file__).resolve().parent)
    old = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = os.pathsep.join([here] + [p for p in old.split(os.pathsep) if p])
    try:
        t0, c0 = time.monotonic(), _cpu()
        out = dict(LocalExecutor(workers).run("floor:floor_job", jobs))
        out = {rid: got for rid, got in out.values()}
        wall, cpu = time.monotonic() - t0, _cpu() - c0
    finally:
        os.environ["PYTHONPATH"] = old
    return wall, cpu, out


def check_digests(books: list, got: dict, executions: dict) -> tuple[int, int, int]:
    """(call items compared, equal, lost) between the floor's digests and the engine's output matrix."""
    from coderank_evalplus.types import RAISED, RETURNED

    compared = equal = lost = 0
    for rid, (tid, r, plan, probes, order) in enumerate(books):
        digests = got.get(rid)
        if digests is None:
            continue
        pos = {p: k for k, p in enumerate(order)}
        ex = executions[tid]
        for i, it in enumerate(plan.input_items):
            kind = ex.output_kind[r, i]
            if kind not in (RETURNED, RAISED):
                continue
            d = digests[pos[probes.call_probe[it]]]
            if d is None:
                lost += 1
                continue
            compared += 1
            mine = (RAISED, int(d[1:])) if d.startswith("x") else (RETURNED, int(d))
            equal += mine == (int(kind), int(ex.output_matrix[r, i]))
    return compared, equal, lost


def main() -> None:
    data = os.environ.get("CODERANK_DATA", "../shared/data")
    codet = "microsoft_CodeT/generated_data/HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_{}.jsonl"
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=data)
    ap.add_argument("--dataset", default="humaneval")
    ap.add_argument("--solutions", default=None, help="default: CodeT's CodeGen-16B HumanEval solutions")
    ap.add_argument("--tests", default=None, help="default: CodeT's CodeGen-16B HumanEval test samples")
    ap.add_argument("--limit", type=int, default=30, help="first N problems (0: all)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--cpu-limit", type=float, default=0.1)
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    args.solutions = args.solutions or str(Path(args.data_dir) / codet.format("code_solution"))
    args.tests = args.tests or str(Path(args.data_dir) / codet.format("test_case"))

    works = _works(args)
    print(f"load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    cold_wall, cold_cpu, ex, stats, full_cache = run_engine(works, args.workers, args.cpu_limit)
    prefill, timed, dropped, n_timed = left_out(works, full_cache, args.cpu_limit)
    print(f"engine cold, every item: {cold_wall:.1f} s wall, {cold_cpu:.1f} s CPU; left out below: {dropped} "
          f"programs that did not get past their import, {n_timed:,} items in all (with those timed out)", flush=True)
    jobs, books = floor_jobs(works, timed)
    bare = _import_only(works, books)
    jobs0 = [(rid, prog, "-", [], [], [], mem) for rid, prog, _, _, _, _, mem in jobs]
    items = sum(len(j[4]) for j in jobs)  # probes the floor (and the engine) evaluate
    res: dict[str, list[tuple[float, float]]] = {k: [] for k in ("engine", "engine0", "floor", "floor0")}
    got: dict = {}

    def engine() -> None:
        wall, cpu, _, st, _ = run_engine(works, args.workers, args.cpu_limit, prefill)
        res["engine"].append((wall, cpu))
        wall, cpu, _, _, _ = run_engine(bare, args.workers, args.cpu_limit)
        res["engine0"].append((wall, cpu))
        got["engine_items"] = st.executed_pairs

    def floor() -> None:
        wall, cpu, out = run_floor(jobs, args.workers)
        res["floor"].append((wall, cpu))
        got.update(out)
        wall, cpu, _ = run_floor(jobs0, args.workers)
        res["floor0"].append((wall, cpu))

    for r in range(args.rounds):
        for side in ((engine, floor) if r % 2 == 0 else (floor, engine)):
            side()
            name = "engine" if side is engine else "floor"
            print(f"round {r + 1} {name:6s}: items {res[name][-1][0]:6.1f} s wall {res[name][-1][1]:6.1f} s CPU; "
                  f"import only {res[name + '0'][-1][0]:6.1f} s wall {res[name + '0'][-1][1]:6.1f} s CPU   "
                  f"(load {os.getloadavg()[0]:.2f})", flush=True)

    programs = stats.unique_programs
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in res.items()}
    e_prog, f_prog = med["engine0"][1] / len(jobs0), med["floor0"][1] / len(jobs0)
    e_item = (med["engine"][1] - med["engine0"][1]) / items
    f_item = (med["floor"][1] - med["floor0"][1]) / items
    compared, equal, lost = check_digests(books, got, ex)
    print(f"\n{len(works)} problems, {programs:,} distinct programs, {stats.pairs:,} test items, of which "
          f"{n_timed:,} left out; {len(jobs):,} programs run on {items:,} probes by both sides "
          f"({got['engine_items']:,} items decided by the engine); {args.workers} worker(s), {args.rounds} round(s); "
          f"medians:")
    print(f"  engine: {med['engine'][0]:.1f} s wall, {med['engine'][1]:.1f} s CPU "
          f"(import only {med['engine0'][0]:.1f} s wall, {med['engine0'][1]:.1f} s CPU)")
    print(f"  floor:  {med['floor'][0]:.1f} s wall, {med['floor'][1]:.1f} s CPU "
          f"(import only {med['floor0'][0]:.1f} s wall, {med['floor0'][1]:.1f} s CPU)")
    print(f"  per program: engine {1e3 * e_prog:.2f} ms, floor {1e3 * f_prog:.2f} ms "
          f"(overhead {1e3 * (e_prog - f_prog):.2f} ms, {e_prog / f_prog:.2f}x)")
    print(f"  per probe:   engine {1e6 * e_item:.1f} us, floor {1e6 * f_item:.1f} us "
          f"(overhead {1e6 * (e_item - f_item):.1f} us, {e_item / f_item:.2f}x)")
    print(f"  end to end (no timeouts): engine / floor CPU {med['engine'][1] / med['floor'][1]:.2f}x, "
          f"wall {med['engine'][0] / med['floor'][0]:.2f}x")
    print(f"  digests: {equal:,} of {compared:,} call outputs equal to the engine's ({lost:,} lost by the floor)")
    peak_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    peak_kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"  peak RSS: this process {peak_self:.0f} MiB, largest worker/child {peak_kids:.0f} MiB")


if __name__ == "__main__":
    main()
