"""Run one program on its tests in forked children: fork, watch, restart after a crash, collect the results.

``run_probes`` forks a child (``child.child_main``) per program, watches its progress through the shared memory
page, kills it when a test exceeds its wall-clock limit, and forks a fresh child for the tests after one that
crashed or hung. ``run_function_in_child`` / ``run_in_workdir`` run any function in a confined child (the judge's
checks). The children of one process work in one temp dir with one Landlock ruleset, made once and emptied after each
child.
"""

from __future__ import annotations

import atexit
import mmap
import os
import select
import shutil
import signal
import struct
import tempfile
import time
import warnings
from typing import Any, Callable, Optional, Sequence

from coderank_evalplus.engine.sandbox import confine
from coderank_evalplus.engine.sandbox.canonical import digest_text
from coderank_evalplus.engine.sandbox.child import (
    HEADER,
    LEFT_ON_PURPOSE,
    LOG_BYTES,
    LOG_LEN,
    SLOT,
    child_main,
    compile_program,
)
from coderank_evalplus.engine.sandbox.guard import candidate_builtins, guard_lifted, os_fork, os_kill, os_killpg
from coderank_evalplus.engine.sandbox.limits import Limits
from coderank_evalplus.engine.sandbox.report import COMPARED, FRAME, MAX_FRAME, NEED, VALUE
from coderank_evalplus.types import ERROR, PASS, RAISED, RETURNED, TIMED_OUT, TIMEOUT

_PRECOMPILE_MAX_CHARS = 100_000  # longer programs are compiled in the child, under its limits


def _precompile(program: str) -> tuple[Optional[Any], Optional[str]]:
    """Compile a candidate in the worker, before the fork: (code, None), or (None, name of the SyntaxError
    class) when the text does not compile, or (None, None) to leave it all to the child.

    A child that compiles its program writes the parser's memory into pages it shares with the worker (copy-on-
    write faults), and a program that does not compile (6 % of the CodeGen-16B samples) needs no child at all:
    a SyntaxError depends on the text alone, so the child would fail its import with that very class.
    Compiling runs none of the candidate's code. Anything unusual (another error, a warning the child would
    print into its swallowed streams, a very long text) goes to the child, where it happens as it always did."""
    if len(program) > _PRECOMPILE_MAX_CHARS:
        return None, None
    error: Optional[str]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            code = compile_program(program)
        except SyntaxError as exc:  # IndentationError, TabError too
            code, error = None, exc.__class__.__name__
        except BaseException:  # noqa: BLE001 - RecursionError, MemoryError...: the child meets it
            return None, None
        else:
            error = None
    return (None, None) if caught else (code, error)


def _kill_group(pid: int) -> None:
    for sig_target in (lambda: os_killpg(pid, signal.SIGKILL), lambda: os_kill(pid, signal.SIGKILL)):
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
        if ready and not os.read(rfd, 65536):  # EOF: the child is gone (bytes it wrote there mean nothing)
            return True
        now_progress = progress()
        now = time.monotonic()
        if now_progress != last:
            last, last_change = now_progress, now
        elif now - last_change > (import_wait if last == 0 else item_wait):
            _kill_group(pid)
            return False


def _fork_child(body: Callable[[int, int], None], ruleset: int, keep_ruleset: bool = False) -> tuple[int, int]:
    """Fork a child that runs ``body(write end of its pipe, parent pid)`` and exits; returns (pid, read end).

    The parent's copy of the pipe's write end is closed here, and of the ruleset unless ``keep_ruleset``."""
    rfd, wfd = os.pipe()
    parent = os.getpid()
    pid = os_fork()
    if pid == 0:  # pragma: no cover - child
        try:
            os.close(rfd)
            body(wfd, parent)
        finally:
            os._exit(0)
    os.close(wfd)
    if ruleset >= 0 and not keep_ruleset:
        os.close(ruleset)
    return pid, rfd


# The temp dir that the test children of this process work in, with its Landlock ruleset: made once and emptied
# after each child (making a dir and a ruleset per program cost ~0.3 ms each time). [path, ruleset, identity]
_WORKDIR: list = []


def child_workdir() -> tuple[str, int]:
    """This process's children's working dir and its ruleset (fd, -1 without Landlock); made when missing."""
    if not _WORKDIR:
        with guard_lifted():
            path = tempfile.mkdtemp(prefix="coderank_")
            st = os.lstat(path)
            _WORKDIR[:] = [path, confine.prepare_confinement(path, strict=True), (st.st_dev, st.st_ino, st.st_mode)]
    return _WORKDIR[0], _WORKDIR[1]


def _drop_workdir() -> None:
    if _WORKDIR:
        path, ruleset, _ = _WORKDIR
        _WORKDIR.clear()
        if ruleset >= 0:
            os.close(ruleset)
        with guard_lifted():
            shutil.rmtree(path, ignore_errors=True)


atexit.register(_drop_workdir)  # children leave with os._exit, which skips this


def _reset_workdir() -> None:
    """After a child: keep the dir if it is still the same, empty, unchanged dir; else drop it (a new one comes)."""
    if not _WORKDIR:
        return
    path, _, ident = _WORKDIR
    try:
        st = os.lstat(path)
        if (st.st_dev, st.st_ino, st.st_mode) == ident:
            with os.scandir(path) as entries:
                if next(entries, None) is None:
                    return
    except OSError:
        pass
    _drop_workdir()


def _end_child(pid: int, rfd: int) -> None:
    """Close the child's pipe, kill its process group and reap it."""
    os.close(rfd)
    _kill_group(pid)
    _reap(pid)


def run_probes(program: str, codes: Sequence[Any], want: Sequence[bool], order: Sequence[int], limits: Limits,
               mem_bytes: Optional[int] = None
               ) -> tuple[bool, Optional[tuple[int, int]], dict[int, tuple[int, int]], dict[int, Optional[bytes]]]:
    """Evaluate the probes ``order`` (indices into ``codes``) of ``program`` in forked children.

    Returns (imported, the import's failure (status, digest) when the program never got past its top level,
    {probe: (RETURNED | RAISED | TIMED_OUT, digest)}, {probe: encoded value, or None when not encodable}) for the
    probes with ``want`` set. What the child observed travels through a shared memory page, so a crash or hang
    inside one probe loses only that probe: it is marked (raised / timed out) and a fresh child runs the rest.
    All of it is what the child *claims*; no verdict is decided here."""
    probe_results: dict[int, tuple[int, int]] = {}
    code, syntax_error = _precompile(program)
    if syntax_error is not None:  # what the child's import would record, without the child
        return False, (ERROR, digest_text("import:" + syntax_error)), probe_results, {}
    order = list(order)
    n = len(order)
    log_at = HEADER.size + max(n, 1) * SLOT.size
    mm = mmap.mmap(-1, log_at + LOG_LEN.size + LOG_BYTES)
    candidate_builtins()
    start = 0
    imported = True
    try:
        while True:
            HEADER.pack_into(mm, 0, 0, 255, 0)
            workdir, ruleset = child_workdir()
            pid, rfd = _fork_child(lambda wfd, parent: child_main(  # both lambdas run within this iteration
                mm, program, code, codes, want, order,
                start, limits, mem_bytes, workdir, wfd, parent, ruleset),  # noqa: B023
                ruleset, keep_ruleset=True)
            try:
                finished = _watch(rfd, pid, _Progress(mm, start, n), limits.import_wall + 0.5, limits.wall + 0.5)
            finally:
                _end_child(pid, rfd)
                _reset_workdir()
            flag, imp_status, imp_digest = HEADER.unpack_from(mm, 0)
            for p in range(start, n):
                written, st, dg = SLOT.unpack_from(mm, HEADER.size + p * SLOT.size)
                if written == 1:
                    probe_results[order[p]] = (st if st in (RETURNED, RAISED, TIMED_OUT) else RAISED, dg)
            if imp_status != PASS:
                # the program never got past its own top level: every remaining probe fails the same way
                if imp_status == 255:
                    imp_status, imp_digest = ((ERROR, digest_text("crash")) if finished
                                              else (TIMEOUT, digest_text("timeout")))
                if imp_status not in (ERROR, TIMEOUT):
                    imp_status = ERROR
                if start == 0:
                    return False, (imp_status, imp_digest), {}, {}
                for p in range(start, n):  # a later child did not get past it: the probes left fail with it
                    probe_results[order[p]] = (TIMED_OUT if imp_status == TIMEOUT else RAISED, imp_digest)
                imported = False
                break
            # the first probe without a result is the one the child died in
            nxt = next((p for p in range(start, n) if order[p] not in probe_results), n)
            if nxt >= n:
                break
            if finished and flag == LEFT_ON_PURPOSE:  # it recorded the probe it gave up on; go on after it
                start = nxt
                continue
            if finished:  # the child exited by itself (os._exit, segfault, memory) in the middle of a probe
                probe_results[order[nxt]] = (RAISED, digest_text("crash"))
            else:
                probe_results[order[nxt]] = (TIMED_OUT, digest_text("timeout"))
            start = nxt + 1
            if start >= n:
                break
        (used,) = LOG_LEN.unpack_from(mm, log_at)
        values = read_values(bytes(mm[log_at + LOG_LEN.size:log_at + LOG_LEN.size + min(used, LOG_BYTES)]))
    finally:
        mm.close()
    return imported, None, probe_results, values


def read_values(log: bytes) -> dict[int, Optional[bytes]]:
    """Probe -> its encoded value (None: not encodable) from the child's value log, read strictly; a log that is
    not made of well-formed frames ends where it stops being one (the probes after it have no value). The frames
    of ``report.FrameReader``, parsed in place (one pass, no buffer kept)."""
    values: dict[int, Optional[bytes]] = {}
    unpack, size, total = FRAME.unpack_from, FRAME.size, len(log)
    pos = 0
    while total - pos >= size:
        kind, index, length = unpack(log, pos)
        if kind not in _KINDS or length > MAX_FRAME:
            break
        start = pos + size
        if total - start < length:
            break
        values[index] = log[start:start + length] if kind == VALUE else None
        pos = start + length
    return values


_KINDS = (VALUE, NEED, COMPARED)


class _Progress:
    """How many results the child has written so far (plus 1 once it got past the import).

    The child writes its slots in run order, so each look starts where the last one stopped: all the looks of
    one child scan its slots once (scanning them all at every look cost O(probes) per 0.2 s of a long child)."""

    def __init__(self, mm: mmap.mmap, start: int, n: int) -> None:
        self.mm, self.start, self.next, self.n = mm, start, start, n

    def __call__(self) -> int:
        mm, base, step, p = self.mm, HEADER.size, SLOT.size, self.next
        while p < self.n and mm[base + p * step] == 1:
            p += 1
        self.next = p
        return (1 if mm[4] != 255 else 0) + p - self.start


def run_function_in_child(target: Callable[[], bytes], wall_timeout: float, cpu_budget: Optional[int] = None,
                          writable_dir: Optional[str] = None) -> Optional[bytes]:
    """Fork, run ``target()`` in a guarded child and return the bytes it produced (None if it died or hung).

    The child is confined like a test child (no fork, exec, signals to others, sockets), except that
    ``target`` may still set its own limits and timer handlers (evalplus's ``unsafe_execute`` does); file
    writes are limited to ``writable_dir`` when it is given."""
    ruleset = confine.prepare_confinement(writable_dir, strict=False)
    return _run_bytes_child(target, wall_timeout, cpu_budget, ruleset, writable_dir is not None)


def run_in_workdir(target: Callable[[str], bytes], wall_timeout: float, cpu_budget: Optional[int] = None
                   ) -> Optional[bytes]:
    """``run_function_in_child`` with writes allowed only below this process's children's working dir, which
    ``target`` gets as its argument: made once with its Landlock ruleset, checked empty after each child and
    made again when it is not (making and removing a dir per child cost milliseconds here, in both processes)."""
    workdir, ruleset = child_workdir()
    try:
        return _run_bytes_child(lambda: target(workdir), wall_timeout, cpu_budget, ruleset, True, keep_ruleset=True)
    finally:
        _reset_workdir()


def _run_bytes_child(target: Callable[[], bytes], wall_timeout: float, cpu_budget: Optional[int], ruleset: int,
                     fs_deny_if_no_landlock: bool, keep_ruleset: bool = False) -> Optional[bytes]:
    def body(wfd: int, parent: int) -> None:  # pragma: no cover - child
        confine.isolate(parent, (wfd, ruleset), cpu_budget)
        confine.apply_confinement(ruleset, False, fs_deny_if_no_landlock)
        data = target()
        os.write(wfd, struct.pack("<I", len(data)) + data)

    pid, rfd = _fork_child(body, ruleset, keep_ruleset)
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
        _end_child(pid, rfd)
    if len(out) < 4:
        return None
    (length,) = struct.unpack_from("<I", out)
    return out[4:4 + length] if len(out) >= 4 + length else None


def run_reported(target: Callable[[str, int, int], None], decide: Callable[[int, int, int, float], Any],
                 wall_timeout: float, cpu_budget: Optional[int] = None) -> Any:
    """Fork a confined child that runs ``target(workdir, report_fd, answer_fd)``; ``decide(pid, report_rfd,
    answer_wfd, deadline)`` gets the parent ends of its two pipes (and must close them), and its answer is
    returned. The child writes only into this process's children's working dir, is killed after ``decide``
    and reaped. Nothing the child writes is taken as a result here: what it reports is for ``decide`` to judge."""
    workdir, ruleset = child_workdir()
    ans_r, ans_w = os.pipe()

    def body(rep_w: int, parent: int) -> None:  # pragma: no cover - child
        os.close(ans_w)
        confine.isolate(parent, (rep_w, ans_r, ruleset), cpu_budget)
        confine.apply_confinement(ruleset, False, True)
        target(workdir, rep_w, ans_r)

    pid, rep_r = _fork_child(body, ruleset, keep_ruleset=True)  # (the workdir's ruleset serves every child)
    os.close(ans_r)
    try:
        return decide(pid, rep_r, ans_w, time.monotonic() + wall_timeout)
    finally:
        _kill_group(pid)
        _reap(pid)
        _reset_workdir()
