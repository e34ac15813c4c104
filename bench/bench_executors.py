"""Benchmark: programs per second with the local pool and with Ray (1 and 2 nodes on this machine), and the
overhead of one Ray batch.

Executes the CodeGen-16B HumanEval solutions of the first ``--limit`` problems on their extracted tests, into a
fresh cache (so everything runs, and the driver stores every result as in a real run), once per executor and
``--repeat`` times, interleaved (local, ray-1, ray-2, local, …):

* ``local``: this machine's worker pool, ``--slots`` workers;
* ``ray-1``: a Ray cluster of one node with ``--slots`` CPUs;
* ``ray-2``: a head node and a worker node, ``--slots`` / 2 CPUs each (the same slots in all).

The clusters are Ray's multi-node-on-one-machine set-up on 127.0.0.1 (as in the tests), started by this script
and stopped at its end. For each run it prints wall seconds, unique programs per second, the driver's own CPU
seconds per job (what bounds one driver as nodes are added) and, for Ray, the batches and their mean size. Then
the overhead of a batch: ``--echo`` empty jobs (``executors:echo``) in batches of one, on each executor: seconds
per batch (wall × slots / batches) and the driver's CPU per batch. Usage:

    flock /work/bench.lock python bench/bench_executors.py --data-dir ../shared/data --limit 40 --repeat 2
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_execution import own_cpu_seconds  # bench/bench_execution.py (run as python bench/…)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=os.environ.get("CODERANK_DATA", "../shared/data"))
    ap.add_argument("--limit", type=int, default=40, help="first N HumanEval problems")
    ap.add_argument("--cpu-limit", type=float, default=0.1)
    ap.add_argument("--slots", type=int, default=2, help="workers in all (local pool; Ray CPUs over all nodes)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--echo", type=int, default=2000, help="empty jobs for the per-batch overhead")
    ap.add_argument("--modes", default="local,ray-1,ray-2")
    args = ap.parse_args()

    # Ray's single-machine mode (every node on 127.0.0.1) and private files; set before Ray is imported
    tmp = tempfile.mkdtemp(prefix="crkb", dir="/tmp")
    os.makedirs(os.path.join(tmp, "ray"))
    repo = str(Path(__file__).resolve().parents[1])
    sys.path.insert(0, repo)  # this checkout, here and (PYTHONPATH) in Ray's workers
    os.environ.update(RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0", RAY_TMPDIR=tmp, RAY_USAGE_STATS_ENABLED="0",
                      PYTHONPATH=os.pathsep.join(p for p in (repo, os.environ.get("PYTHONPATH")) if p))

    from coderank_evalplus.engine.execution.execute import ExecutionStats, ProblemWork, ResultCache, execute
    from coderank_evalplus.engine.execution.executors import LocalExecutor
    from coderank_evalplus.engine.sandbox import Limits
    from coderank_evalplus.io.problems import load_problems
    from coderank_evalplus.io.samples import read_solutions, read_test_samples
    from coderank_evalplus.testgen.extract import build_suite

    from bench_execution import SOL, TST  # this folder is on the path when the script runs

    problems = load_problems("humaneval", args.data_dir)
    sols = read_solutions(Path(args.data_dir) / SOL, problems, args.data_dir)
    tests = read_test_samples(Path(args.data_dir) / TST, problems, args.data_dir)
    tids = list(problems)[: args.limit]
    works = [ProblemWork(problems[t], sols[t], build_suite(tests[t], problems[t].entry_point)) for t in tids]
    modes = args.modes.split(",")

    def cluster_for(mode: str):
        from ray.cluster_utils import Cluster

        if mode == "ray-1":
            return Cluster(initialize_head=True, head_node_args={"num_cpus": args.slots})
        c = Cluster(initialize_head=True, head_node_args={"num_cpus": args.slots // 2})
        c.add_node(num_cpus=args.slots - args.slots // 2)
        return c

    def executor_for(mode: str, cluster, **kw):
        if mode == "local":
            return LocalExecutor(args.slots)
        from coderank_evalplus.engine.execution.ray_executor import RayExecutor

        return RayExecutor(address=cluster.address, **kw)

    rows: dict[str, list[dict]] = {m: [] for m in modes}
    echo: dict[str, dict] = {}
    try:
        for rep in range(args.repeat):
            for m in modes:
                cluster = cluster_for(m) if m != "local" else None  # one at a time, started for each run
                try:
                    with executor_for(m, cluster) as ex:
                        stats = ExecutionStats()
                        t0, c0 = time.monotonic(), own_cpu_seconds()
                        cache = ResultCache(Path(tmp) / f"cache-{m}-{rep}.sqlite")  # fresh: all executed
                        execute(works, cache, Limits(cpu=args.cpu_limit), progress=False, stats=stats, executor=ex)
                        cache.close()
                        wall, cpu = time.monotonic() - t0, own_cpu_seconds() - c0
                        row = {"wall": wall, "progs_s": stats.unique_programs / wall, "jobs": stats.jobs,
                               "driver_ms_per_job": 1000 * cpu / stats.jobs, "programs": stats.unique_programs}
                        if m != "local":
                            row.update(batches=ex.stats.batches, mean_batch=ex.stats.jobs / ex.stats.batches,
                                       nodes=len(ex.nodes()))
                        rows[m].append(row)
                        extra = (f", {row['batches']} batches of {row['mean_batch']:.1f} jobs on {row['nodes']} "
                                 f"node(s)") if m != "local" else ""
                        print(f"[{rep}] {m:6s} {wall:6.1f} s  {row['progs_s']:6.1f} programs/s  driver "
                              f"{row['driver_ms_per_job']:.2f} CPU-ms/job{extra}   load {os.getloadavg()[0]:.1f}",
                              flush=True)
                    if rep == args.repeat - 1:  # per-batch overhead, on the last repetition's cluster
                        kw = {} if m == "local" else {"max_batch": 1}
                        with executor_for(m, cluster, **kw) as ex:
                            payload = ["x" * 100] * args.echo
                            echo = "coderank_evalplus.engine.execution.executors:echo"
                            list(ex.run(echo, payload[: args.slots * 4]))  # warm
                            t0, c0 = time.monotonic(), own_cpu_seconds()
                            n = sum(1 for _ in ex.run(echo, payload))
                            wall, cpu = time.monotonic() - t0, own_cpu_seconds() - c0
                            echo[m] = {"ms_per_batch": 1000 * wall * args.slots / n, "driver_ms": 1000 * cpu / n}
                finally:
                    if cluster is not None:
                        import ray

                        if ray.is_initialized():
                            ray.shutdown()
                        cluster.shutdown()
    finally:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)

    print(f"\n{len(works)} problems, {rows[modes[0]][0]['programs']} unique programs, {rows[modes[0]][0]['jobs']} "
          f"jobs, {args.slots} slots in all, per-test CPU limit {args.cpu_limit} s; medians of {args.repeat}:")
    base = statistics.median(r["wall"] for r in rows[modes[0]])
    for m in modes:
        wall = statistics.median(r["wall"] for r in rows[m])
        print(f"  {m:6s} wall {wall:6.1f} s ({wall / base:.2f}× {modes[0]})  "
              f"{statistics.median(r['progs_s'] for r in rows[m]):6.1f} programs/s  driver "
              f"{statistics.median(r['driver_ms_per_job'] for r in rows[m]):.2f} CPU-ms/job")
    print(f"empty jobs ({args.echo}, one per batch for Ray): time a slot spends per batch, driver CPU per batch")
    for m, e in echo.items():
        print(f"  {m:6s} {e['ms_per_batch']:.2f} ms per batch, driver {e['driver_ms']:.2f} CPU-ms per batch")


if __name__ == "__main__":
    main()
