"""What every check child of the judge uses (evalplus's checks, the original tests' and LiveCodeBench's): the
CPU-time limit of one test, its timer handlers, the memory cap, and the child's side of its pipes to the referee."""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import time
from typing import Callable, Optional


def _install_timeout_handlers() -> None:  # pragma: no cover - runs in the child
    """Once per child: SIGPROF / SIGALRM raise evalplus's TimeoutException (signal.signal is slow per call)."""
    from evalplus.eval.utils import TimeoutException

    def handler(signum, frame):
        raise TimeoutException("Timed out!")

    signal.signal(signal.SIGPROF, handler)
    signal.signal(signal.SIGALRM, handler)


@contextlib.contextmanager
def _cpu_time_limit(seconds: float, _set=signal.setitimer, _prof=signal.ITIMER_PROF, _real=signal.ITIMER_REAL):
    """evalplus's time_limit, measured on CPU time; a looser wall timer catches programs that sleep.

    Needs ``_install_timeout_handlers()`` first."""
    _set(_prof, seconds, 0.05)
    _set(_real, 3 * seconds + 1, 0.25)
    try:
        yield
    finally:
        _set(_prof, 0)
        _set(_real, 0)


_EAGER_REPORTS = 16  # outputs a judge child reports one by one before it batches them


def _report_channel(rep: int, ans: int) -> tuple[list[bytes], list, Callable[[], None], Callable[[], tuple]]:
    """A check child's side of its pipes to the referee: the frames buffered (``buf``; ``size`` = [bytes buffered,
    when last flushed]), ``flush`` writes them to ``rep``, ``receive`` reads one length-prefixed answer from ``ans``."""
    write, read, loads, now = os.write, os.read, pickle.loads, time.perf_counter
    buf: list[bytes] = []
    size = [0, now()]

    def flush() -> None:
        data = b"".join(buf)
        buf.clear()
        view = memoryview(data)
        while view:
            view = view[write(rep, view):]
        size[0], size[1] = 0, now()

    def receive() -> tuple:
        raw = b""
        while len(raw) < 4 or len(raw) < 4 + int.from_bytes(raw[:4], "little"):
            more = read(ans, 1 << 20)
            if not more:
                raise EOFError
            raw += more
        return loads(raw[4:])

    return buf, size, flush, receive


_MEMORY_CAP: list = []


def _memory_cap() -> Optional[int]:
    """evalplus's memory cap (``query_maximum_memory_bytes``: the environment and psutil's total memory), read
    once per worker instead of once per check."""
    if not _MEMORY_CAP:
        from coderank_evalplus.engine.sandbox.limits import max_memory_bytes

        _MEMORY_CAP.append(max_memory_bytes())
    return _MEMORY_CAP[0]
