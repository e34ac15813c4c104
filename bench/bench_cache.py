"""Benchmark: the execution cache's own cost (store, open, lookup, verdicts) on the shape of the full HumanEval run.

``bench/bench_execution.py`` stores 12,408 unique programs × ~92 item results (1,136,838 items) and the judge
16,400 verdicts; this script stores and reads back records of that shape (synthetic keys and values), so that it
measures the cache alone, without the sandbox. With ``--baseline REV`` it also runs the ``ResultCache`` of that git
revision (e.g. ``main``) on the same records, side by side, alternating, and prints medians and ratios:

    python bench/bench_cache.py --repeats 5 --baseline main

Each repeat uses fresh files in a temporary folder (``--tmp`` to choose where).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def load_baseline(rev: str) -> type:
    """ResultCache as it was at git revision ``rev`` (execution.py then held it)."""
    for name in ("coderank_evalplus/engine/execution/cache.py", "coderank_evalplus/engine/execution/execute.py"):
        r = subprocess.run(["git", "show", f"{rev}:{name}"], cwd=REPO, capture_output=True, text=True)
        if r.returncode == 0 and "class ResultCache" in r.stdout:
            module = types.ModuleType(f"baseline_{name.replace('/', '_')}")
            module.__file__ = name
            sys.modules[module.__name__] = module  # dataclasses look their module up there
            exec(compile(r.stdout, f"{rev}:{name}", "exec"), module.__dict__)
            return module.ResultCache
    raise SystemExit(f"no ResultCache at {rev}")


def workload(n_programs: int, items_per_program: int) -> list[tuple[bytes, list[tuple[bytes, int, int]]]]:
    import hashlib

    items = [hashlib.blake2b(f"item{i}".encode(), digest_size=16).digest() for i in range(items_per_program)]
    return [(hashlib.blake2b(f"prog{p}".encode(), digest_size=16).digest(),
             [(it, (p + i) % 5, p * 7919 + i) for i, it in enumerate(items)]) for p in range(n_programs)]


def run_once(cls: type, folder: Path, work, n_verdicts: int) -> dict[str, float]:
    path = folder / "executions.sqlite"
    out = {}
    t0 = time.perf_counter()
    cache = cls(path)
    for prog, rows in work:
        cache.store(prog, "cpu=0.1", rows)
    cache.commit()
    out["store"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    for k in range(n_verdicts):
        prog = work[k % len(work)][0]
        cache.put_verdict(prog, f"HumanEval/{k // 100}", "base", k % 3 == 0)
    cache.close()
    out["put_verdicts"] = time.perf_counter() - t0
    out["file_MiB"] = path.stat().st_size / 2**20
    t0 = time.perf_counter()
    cache = cls(path)
    out["open"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    n = 0
    for prog, _rows in work:
        n += len(cache.lookup(prog, "cpu=0.1"))
    out["lookup"] = time.perf_counter() - t0
    assert n == sum(len(rows) for _, rows in work), n
    t0 = time.perf_counter()
    for k in range(n_verdicts):
        prog = work[k % len(work)][0]
        assert cache.get_verdict(prog, f"HumanEval/{k // 100}", "base") is not None
    out["get_verdicts"] = time.perf_counter() - t0
    cache.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--programs", type=int, default=12408)
    ap.add_argument("--items", type=int, default=92, help="item results per program")
    ap.add_argument("--verdicts", type=int, default=16400)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--baseline", default=None, help="git revision whose ResultCache to compare with (e.g. main)")
    ap.add_argument("--tmp", default=None, help="folder for the temporary cache files")
    args = ap.parse_args()

    sys.path.insert(0, str(REPO))
    from coderank_evalplus.engine.execution.cache import ResultCache

    impls = {"new": ResultCache}
    if args.baseline:
        impls = {"old": load_baseline(args.baseline), **impls}
    work = workload(args.programs, args.items)
    print(f"{args.programs} programs × {args.items} items = {args.programs * args.items:,} item results, "
          f"{args.verdicts} verdicts; load {os.getloadavg()[0]:.1f}")
    times: dict[str, dict[str, list[float]]] = {name: {} for name in impls}
    for _rep in range(args.repeats):
        for name, cls in impls.items():  # alternating, so that the machine's load hits both alike
            with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
                for key, val in run_once(cls, Path(tmp), work, args.verdicts).items():
                    times[name].setdefault(key, []).append(val)
    keys = list(next(iter(times.values())))
    print(f"{'median over ' + str(args.repeats):22s}" + "".join(f"{name:>12s}" for name in impls)
          + ("       new/old" if len(impls) == 2 else ""))
    for key in keys:
        meds = [statistics.median(times[name][key]) for name in impls]
        unit = "MiB" if key == "file_MiB" else "s"
        line = f"{key + ' (' + unit + ')':22s}" + "".join(f"{m:12.3f}" for m in meds)
        if len(meds) == 2 and meds[0] > 0:
            line += f"{meds[1] / meds[0]:14.2f}"
        print(line)
    total = {name: sum(statistics.median(times[name][k]) for k in keys if k != "file_MiB") for name in impls}
    print(f"{'total (s)':22s}" + "".join(f"{total[name]:12.3f}" for name in impls)
          + (f"{total['new'] / total['old']:14.2f}" if len(impls) == 2 else ""))


if __name__ == "__main__":
    main()
