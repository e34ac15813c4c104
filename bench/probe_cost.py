"""Benchmark: what one fast probe costs the engine, beside its floor, in one process (no pool, no cache).

One program's N fast probes (two test items each: a call and an ``==`` check) go through ``runner.run_probes`` (the
forked, confined child) and ``verdicts.decide`` (the caller's side: the watchdog, reading the results, deciding the
checks); the floor evaluates the same probes in a bare fork and digests each value. Prints CPU microseconds per
probe -- the child's, the caller's, the floor's -- the median of ``--repeats`` runs. CPU time, so the machine's load
matters less than for wall times; to compare two versions of the package, run this with each on ``PYTHONPATH``,
alternating a few times.

    PYTHONPATH=$PWD python bench/probe_cost.py --probes 20000
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics


def _cpu() -> tuple[float, float]:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def main() -> None:
    from coderank_evalplus.engine.sandbox import Limits
    from coderank_evalplus.engine.sandbox.canonical import digest_value
    from coderank_evalplus.engine.sandbox.runner import run_probes
    from coderank_evalplus.engine.sandbox.verdicts import decide, plan_items

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--probes", type=int, default=20000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    program = "def g(x):\n    return [x, x + 1]\ndef h(x):\n    return x % 7 == 0\n"
    items: list[tuple] = []
    for i in range(args.probes // 2):
        items += [("call", f"g({i})"), ("check", len(items), f"[{i}, {i + 1}]", "==")]
        items += [("call", f"h({i})"), ("check", len(items), "True", "==")]
    plan = plan_items(items)
    codes, order, todo = plan.codes, plan.probes_for(range(len(items))), list(range(len(items)))

    def floor() -> None:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            env: dict = {}
            exec(compile(program, "<candidate>", "exec"), env)
            [digest_value(eval(codes[i], env)) for i in order]
            os._exit(0)
        os.waitpid(pid, 0)

    runs: dict[str, list[float]] = {"child": [], "caller": [], "floor": []}
    for _ in range(args.repeats):
        s0, c0 = _cpu()
        _, failure, results, values = run_probes(program, codes, plan.want, order, Limits(cpu=0.1))
        s1, c1 = _cpu()
        decide(plan, items, todo, failure, results, values, 0.1, 1.0)
        s2, c2 = _cpu()
        floor()
        s3, c3 = _cpu()
        runs["child"].append((c1 - c0) / len(order))
        runs["caller"].append((s2 - s0) / len(order))
        runs["floor"].append((c3 - c2 + s3 - s2) / len(order))
    print(f"{len(order):,} probes, {len(items):,} items; load average {os.getloadavg()[0]:.2f}; CPU per probe "
          + ", ".join(f"{k} {1e6 * statistics.median(v):.2f} us" for k, v in runs.items()))


if __name__ == "__main__":
    main()
