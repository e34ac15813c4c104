"""The worker side: jobs that a ``coderank_evalplus.engine.execution.workers`` interpreter runs, and the state it keeps
between them.

A worker loads once what every child needs, guards itself (``guard.guard_worker``), freezes and trims its heap (each
page it holds is paid at every fork and exit), then evaluates one program's probes per job with ``runner.run_probes``.
"""

from __future__ import annotations

import sys
from typing import Optional

from coderank_evalplus.engine.sandbox import confine
from coderank_evalplus.engine.sandbox.child import install_timer_handlers
from coderank_evalplus.engine.sandbox.guard import candidate_builtins, evalplus_utils, guard_lifted, guard_worker
from coderank_evalplus.engine.sandbox.runner import child_workdir, run_probes
from coderank_evalplus.engine.sandbox.verdicts import compile_probes

_WORKER_STATE: dict = {}


def freeze_heap() -> None:
    """Keep the collector from touching (and so copying) the worker's objects in each child."""
    import gc

    gc.collect()
    gc.freeze()
    _trim_heap()


def _trim_heap() -> None:
    """Give the worker's free heap pages back to the kernel (glibc ``malloc_trim``).

    Every page the worker has is shared with each child at fork and given up again at its exit (measured here: a
    bare fork + exit + wait took 0.84 ms from a 10 MiB process, 2.3 ms from a 28 MiB one), so free pages go back."""
    try:
        confine.libc()[1].malloc_trim(0)
    except Exception:  # noqa: BLE001 - not glibc: nothing to trim
        pass


def _warm_worker(mem: Optional[int]) -> None:
    """First job in a worker: load what every child needs, so that no child loads it again; guard the worker."""
    import multiprocessing  # noqa: F401 - cannot be imported under the guard; evalplus's own judge has it loaded
    import platform
    import subprocess  # noqa: F401 - reliability_guard imports it

    evalplus_utils()
    platform.uname()  # cached: reliability_guard calls it
    candidate_builtins()
    child_workdir()
    confine.seccomp_filter(True, True)
    install_timer_handlers()  # never fire here: the worker arms no timer
    guard_worker(mem)
    freeze_heap()
    _WORKER_STATE["compiled"] = {}


def worker_run(job: tuple) -> tuple:
    """Evaluate one program's probes (a worker job from ``coderank_evalplus.engine.execution.execute``).

    The job carries the probes only -- the candidate's parts of the tests (``engine/sandbox/split.py``) -- never the
    expected values, so nothing a child of this worker can read tells it what its tests expect; the verdicts are
    decided by the process that sent the job. ``preload``: modules the worker imports once (before forking), so that
    its children do not each import them: numpy when the program imports it or a library on top of it (~0.2
    CPU-seconds a child), ``unittest.mock`` for a stdin program's harness (``engine/shapes.py``)."""
    p_idx, row, program, probes_key, probes, want, order, limits, mem, preload = job
    if not _WORKER_STATE:
        _warm_worker(mem)
    missing = [m for m in preload if m not in sys.modules]
    if missing:
        import importlib

        with guard_lifted():
            for name in missing:
                importlib.import_module(name)
        freeze_heap()
    compiled = _WORKER_STATE["compiled"]
    if probes_key not in compiled:
        # Few tasks' probes at a time: jobs come grouped by task, and every page kept here is paid per fork.
        if len(compiled) >= 2:
            compiled.clear()
            _trim_heap()
        compiled[probes_key] = compile_probes(probes)
    imported, failure, results, values = run_probes(program, compiled[probes_key], want, order, limits, mem)
    return p_idx, row, imported, failure, results, values
