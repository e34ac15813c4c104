"""Run one untrusted program on many tests in a forked child process.

The child is guarded with EvalPlus's primitives (``reliability_guard``, ``create_tempdir``, ``swallow_io``, the
memory cap from ``EVALPLUS_MAX_MEMORY_BYTES``). What we add by hand, because evalplus has no such piece:

* per-test limits on *CPU* time (``ITIMER_PROF``), so verdicts do not flip when the machine is busy, with a
  looser wall-clock limit (``ITIMER_REAL``) that only catches programs that sleep or block;
* results streamed back one fixed-size record per test, so a child that dies (segfault, ``os._exit``, memory)
  loses only the test it was running; the parent restarts a fresh child for the remaining tests;
* a canonical digest of each returned value, so outputs of different programs can be compared (SRank, MBR).

A test item is one of:
  ``("call", expr)``            evaluate a call expression; result = (RETURNED|RAISED|TIMED_OUT, digest)
  ``("check", i, exp, cmp)``    compare the value of call item ``i`` with expression ``exp``; result = outcome
  ``("assert", src)``           execute ``assert <src>``; result = outcome (PASS/FAIL/ERROR/TIMEOUT)
"""

from __future__ import annotations

import mmap
import os
import resource
import select
import shutil
import signal
import struct
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

from coderank_evalplus.canonical import digest_value, digest_text
from coderank_evalplus.types import ERROR, FAIL, PASS, RAISED, RETURNED, TIMED_OUT, TIMEOUT

# Shared-memory layout: a header (unused, import status (255 = not yet), import digest), then one slot per
# test item in run order: (written flag, status, digest). Writing costs no system call.
_HEADER = struct.Struct("<iBq")
_SLOT = struct.Struct("<BBq")


@dataclass(frozen=True)
class Limits:
    """Time limits of one execution, in seconds. ``cpu`` is per test; ``wall`` only catches sleepers."""

    cpu: float = 0.1
    import_cpu: float = 1.0
    wall_factor: float = 10.0
    wall_min: float = 1.0

    @property
    def wall(self) -> float:
        return max(self.wall_min, self.wall_factor * self.cpu)

    @property
    def import_wall(self) -> float:
        return max(self.wall_min, self.wall_factor * self.import_cpu)

    def key(self) -> str:
        return f"cpu={self.cpu:g},import={self.import_cpu:g},wall={self.wall:g}"


class _TimeLimitExceeded(BaseException):
    """Raised by the timer signals inside the child; a BaseException so ``except Exception`` misses it."""


def max_memory_bytes() -> Optional[int]:
    """The memory cap evalplus uses (``EVALPLUS_MAX_MEMORY_BYTES``, default 4 GiB)."""
    from evalplus.eval import query_maximum_memory_bytes

    return query_maximum_memory_bytes()


def _raise_timeout(signum, frame):  # pragma: no cover - runs in the child
    raise _TimeLimitExceeded()


def _silence_fds() -> None:
    """Point the child's stdin/stdout/stderr at /dev/null at the OS level (C-level prints, os.write(1, …))."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)


def _child_main(mm: mmap.mmap, program: str, items: Sequence[tuple], order: Sequence[int], start: int,
                limits: Limits, mem_bytes: Optional[int], workdir: str) -> None:  # pragma: no cover - child
    """Body of the child: guard, import the program, run items[order[start:]], record each result in ``mm``."""
    from evalplus.eval.utils import reliability_guard, swallow_io

    pack_into, exit_ = _SLOT.pack_into, os._exit
    os.setpgid(0, 0)
    _silence_fds()
    os.chdir(workdir)  # the worker made this temp dir and removes it after the child is gone (os._exit skips cleanup)
    n_items = len(order) - start
    budget = int(limits.import_cpu + n_items * limits.cpu * 1.5 + 2)
    resource.setrlimit(resource.RLIMIT_CPU, (budget, budget + 1))
    signal.signal(signal.SIGPROF, _raise_timeout)
    signal.signal(signal.SIGALRM, _raise_timeout)
    setitimer, prof = signal.setitimer, signal.ITIMER_PROF  # own references: candidates may patch the modules
    values: dict[int, tuple[int, Any]] = {}
    reliability_guard(maximum_memory_bytes=mem_bytes)
    env: dict[str, Any] = {"__name__": "__coderank_candidate__"}
    try:
        setitimer(prof, limits.import_cpu, 0.05)
        try:
            with swallow_io():
                exec(compile(program, "<candidate>", "exec"), env)
        finally:
            setitimer(prof, 0)
    except _TimeLimitExceeded:
        _HEADER.pack_into(mm, 0, 0, TIMEOUT, digest_text("timeout"))
        exit_(0)
    except BaseException as exc:  # noqa: BLE001 - any failure of untrusted code is a result
        _HEADER.pack_into(mm, 0, 0, ERROR, digest_text("import:" + type(exc).__name__))
        exit_(0)
    _HEADER.pack_into(mm, 0, 0, PASS, 0)

    def call_value(i: int) -> tuple[int, Any]:
        if i not in values:
            try:
                with swallow_io():
                    values[i] = (RETURNED, eval(items[i][1], env))
            except _TimeLimitExceeded:
                values[i] = (TIMED_OUT, None)  # a check on this call must not re-run the loop
                raise
            except BaseException as exc:  # noqa: BLE001
                values[i] = (RAISED, exc)
        return values[i]

    cpu = limits.cpu
    refire = max(cpu / 2, 0.01)
    for pos in range(start, len(order)):
        idx = order[pos]
        item = items[idx]
        kind = item[0]
        status, dig = ERROR, 0
        try:
            setitimer(prof, cpu, refire)
            try:
                if kind == "call":
                    rk, val = call_value(idx)
                    if rk == RETURNED:
                        status, dig = RETURNED, digest_value(val)
                    else:
                        status, dig = RAISED, digest_text("exc:" + type(val).__name__)
                elif kind == "check":
                    rk, val = call_value(item[1])
                    if rk == TIMED_OUT:
                        raise _TimeLimitExceeded()
                    if rk != RETURNED:
                        status = ERROR
                    else:
                        with swallow_io():
                            cmp = item[3]
                            if cmp == "truthy":
                                ok = bool(val)
                            elif cmp == "falsy":
                                ok = not val
                            else:
                                exp = eval(item[2], env)
                                if cmp == "==":
                                    ok = bool(val == exp)
                                elif cmp == "r==":
                                    ok = bool(exp == val)
                                elif cmp == "is":
                                    ok = val is exp
                                else:
                                    raise ValueError(cmp)
                        status = PASS if ok else FAIL
                else:  # raw assert statement
                    with swallow_io():
                        exec(item[1], env)
                    status = PASS
            finally:
                setitimer(prof, 0)
        except _TimeLimitExceeded:
            status = TIMED_OUT if kind == "call" else TIMEOUT
            dig = digest_text("timeout") if kind == "call" else 0
        except AssertionError:
            status = FAIL
        except BaseException as exc:  # noqa: BLE001
            status = ERROR
            if kind == "call":
                status, dig = RAISED, digest_text("exc:" + type(exc).__name__)
        pack_into(mm, _HEADER.size + pos * _SLOT.size, 1, status, dig)
    exit_(0)


def compile_items(items: Sequence[tuple]) -> list[tuple]:
    """Compile the expressions of test items once (in the worker, before forking)."""
    out = []
    for item in items:
        kind = item[0]
        if kind == "call":
            out.append(("call", compile(item[1], "<test>", "eval")))
        elif kind == "check":
            exp = compile(item[2], "<test>", "eval") if item[2] is not None else None
            out.append(("check", item[1], exp, item[3]))
        else:
            out.append(("assert", compile("assert " + item[1], "<test>", "exec")))
    return out


def _kill_group(pid: int) -> None:
    for sig_target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            sig_target()
        except (ProcessLookupError, PermissionError):
            pass


def _reap(pid: int) -> int:
    try:
        _, status = os.waitpid(pid, 0)
        return status
    except ChildProcessError:
        return 0


_POLL_S = 0.2


def _watch(rfd: int, pid: int, progress: Callable[[], int], import_wait: float, item_wait: float) -> bool:
    """Wait for the child to exit (EOF on its pipe); kill it when it makes no progress for too long.

    Before the import is done the allowance is ``import_wait``, afterwards ``item_wait`` per test.
    Returns False when the child had to be killed (a test exceeded its wall-clock limit)."""
    last = progress()
    last_change = time.monotonic()
    while True:
        ready, _, _ = select.select([rfd], [], [], _POLL_S)
        if ready:
            return True
        now_progress = progress()
        now = time.monotonic()
        if now_progress != last:
            last, last_change = now_progress, now
        elif now - last_change > (import_wait if last == 0 else item_wait):
            _kill_group(pid)
            return False


def run_program(program: str, items: Sequence[tuple], limits: Limits, mem_bytes: Optional[int] = None,
                compiled_items: Optional[list[tuple]] = None, todo: Optional[Sequence[int]] = None
                ) -> tuple[bool, dict[int, tuple[int, int]]]:
    """Run ``program`` on the test items ``todo`` (default all); return (imported, {item: (status, digest)}).

    Results travel through a shared memory page, so a crash or hang inside one item loses only that item:
    it is marked (ERROR / TIMEOUT) and a fresh child runs the rest.
    """
    order = list(range(len(items))) if todo is None else list(todo)
    n = len(order)
    results: dict[int, tuple[int, int]] = {}
    citems = compiled_items if compiled_items is not None else compile_items(items)
    mm = mmap.mmap(-1, _HEADER.size + max(n, 1) * _SLOT.size)
    start = 0
    imported = True

    try:
        while True:
            _HEADER.pack_into(mm, 0, 0, 255, 0)
            workdir = tempfile.mkdtemp(prefix="coderank_")
            rfd, wfd = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - child
                try:
                    os.close(rfd)
                    _child_main(mm, program, citems, order, start, limits, mem_bytes, workdir)
                finally:
                    os._exit(0)
            os.close(wfd)
            try:
                finished = _watch(rfd, pid, lambda: _progress(mm, start, n), limits.import_wall + 0.5,
                                  limits.wall + 0.5)
            finally:
                os.close(rfd)
                _kill_group(pid)
                _reap(pid)
                shutil.rmtree(workdir, ignore_errors=True)
            _, imp_status, imp_digest = _HEADER.unpack_from(mm, 0)
            for p in range(start, n):
                written, st, dg = _SLOT.unpack_from(mm, _HEADER.size + p * _SLOT.size)
                if written == 1:
                    results[order[p]] = (st, dg)
            if imp_status != PASS:
                # the program never got past its own top level: every remaining test fails the same way
                if imp_status == 255:
                    imp_status, imp_digest = (ERROR, digest_text("crash")) if finished else (TIMEOUT, digest_text("timeout"))
                for idx in order[start:]:
                    if idx not in results:
                        if items[idx][0] == "call":
                            results[idx] = (TIMED_OUT if imp_status == TIMEOUT else RAISED, imp_digest)
                        else:
                            results[idx] = (imp_status, 0)
                imported = False
                break
            # the first item without a result is the one the child died in
            nxt = next((p for p in range(start, n) if order[p] not in results), n)
            if nxt >= n:
                break
            idx = order[nxt]
            kind = items[idx][0]
            if finished:  # the child exited by itself (os._exit, segfault, memory) in the middle of a test
                results[idx] = (RAISED, digest_text("crash")) if kind == "call" else (ERROR, 0)
            else:
                results[idx] = (TIMED_OUT, digest_text("timeout")) if kind == "call" else (TIMEOUT, 0)
            start = nxt + 1
            if start >= n:
                break
    finally:
        mm.close()
    return imported, results


def _progress(mm: mmap.mmap, start: int, n: int) -> int:
    """How many results the child has written so far (plus 1 once it got past the import)."""
    done = 1 if mm[4] != 255 else 0
    base = _HEADER.size
    step = _SLOT.size
    return done + sum(1 for p in range(start, n) if mm[base + p * step] == 1)


def run_function_in_child(target: Callable[[], bytes], wall_timeout: float, cpu_budget: Optional[int] = None) -> Optional[bytes]:
    """Fork, run ``target()`` in a guarded child and return the bytes it produced (None if it died or hung)."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        try:
            os.close(rfd)
            os.setpgid(0, 0)
            _silence_fds()
            if cpu_budget is not None:
                resource.setrlimit(resource.RLIMIT_CPU, (cpu_budget, cpu_budget + 1))
            data = target()
            os.write(wfd, struct.pack("<I", len(data)) + data)
        finally:
            os._exit(0)
    os.close(wfd)
    out = b""
    deadline = time.monotonic() + wall_timeout
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([rfd], [], [], left)
            if not ready:
                return None
            chunk = os.read(rfd, 65536)
            if not chunk:
                break
            out += chunk
    finally:
        os.close(rfd)
        _kill_group(pid)
        _reap(pid)
    if len(out) < 4:
        return None
    (length,) = struct.unpack_from("<I", out)
    return out[4:4 + length] if len(out) >= 4 + length else None
