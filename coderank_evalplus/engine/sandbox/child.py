"""The forked child that runs one program on its probes, and what it shares with the worker that forks it.

The child confines itself (``confine.isolate``, evalplus's ``reliability_guard`` unless its worker already holds it,
``confine.apply_confinement``), imports the program under a CPU-time limit, then evaluates each *probe* -- a call
such as ``f(1, 2)``, or the candidate's part of an assert (``split.py``) -- and writes what it observed into a
shared memory page: one fixed-size record per probe (``HEADER`` / ``SLOT``: returned, raised or timed out, and a
digest of the value), and, for probes an assert needs, the value itself in the report format (``report.py``),
appended to a log after the slots. A child that dies (segfault, ``os._exit``, memory) loses only the probe it was
running. The child decides no verdict: everything in it is the candidate's to change, so what it writes is only a
claim about its outputs, and the worker compares the claims with the expected values, which never enter it.

Per-probe limits are on *CPU* time, so results do not flip when the machine is busy: each probe's deadline is its
start on the process CPU clock plus the limit, and a wall-clock timer (``ITIMER_REAL``), armed once for a run of
probes, fires at least once per limit of wall time; each firing checks the running probe's deadline and re-arms the
timer for what is left of it (wall time never runs slower than the CPU clock), so a probe is stopped when its own
CPU time reaches the limit (``ITIMER_PROF`` would fire on the first scheduler tick after the limit, 4 ms late here).
A candidate that disarms the process's timer itself loses its CPU limits for the rest of that child: the worker's
looser wall-clock watchdog, which otherwise only catches programs that sleep or block, then times its probes out.
Returned values are kept as canonical digests, so outputs of different programs can be compared (SRank, MBR).
"""

from __future__ import annotations

import builtins
import mmap
import os
import signal
import struct
import sys
import time
from typing import Any, Optional, Sequence

from coderank_evalplus.engine.sandbox import confine
from coderank_evalplus.engine.sandbox.canonical import digest_text, digest_value
from coderank_evalplus.engine.sandbox.guard import (
    GUARDED_BUILTINS,
    candidate_builtins,
    evalplus_utils,
    os_chdir,
    worker_guarded_with,
)
from coderank_evalplus.engine.sandbox.limits import Limits
from coderank_evalplus.engine.sandbox.report import FRAME, NEED, VALUE, encode_value
from coderank_evalplus.types import ERROR, PASS, RAISED, RETURNED, TIMED_OUT, TIMEOUT

# Shared-memory layout: a header (flag, import status (255 = not yet), import digest), then one slot per probe
# in run order: (written flag, status, digest), then the value log: its length (u32) and report frames
# (``report.frame``: V = a value, N = a value the format cannot carry). Writing costs no system call.
HEADER = struct.Struct("<iBq")
SLOT = struct.Struct("<BBq")
LOG_LEN = struct.Struct("<I")
LOG_BYTES = 32 << 20  # room for the values of one program's probes (pages are touched only when written)
_TIMEOUT_DIGEST = digest_text("timeout")
LEFT_ON_PURPOSE = 1  # header flag: the child recorded its running item and exited; resume after it


def compile_program(program: str) -> Any:
    """A candidate compiled as its own module would be (``exec`` of its text, as evalplus does): no
    ``from __future__`` flag of ours leaks in (``annotations`` would make ``def f(x: Undefined)`` pass)."""
    return compile(program, "<candidate>", "exec", dont_inherit=True)


class _TimeLimitExceeded(BaseException):
    """Raised by the timer signals inside the child; a BaseException so ``except Exception`` misses it."""


# What the timer handler needs to know in the child: [position of the running item (-1: import), times the timer
# fired during it, status and digest to record if the program keeps swallowing the timeout, the mmap, the
# process CPU time at which the running test's limit ends (0: none), the timer's re-firing interval].
_TIMER: list = [-1, 0, TIMEOUT, 0, None, 0.0, 0.0]
_MAX_FIRES = 4  # after this many firings in one item the child records the timeout itself and leaves
_EARLY_S = 5e-5  # a test this close to its CPU limit when the precise timer fires has reached it
_cpu_now = time.process_time  # CLOCK_PROCESS_CPUTIME_ID: the clock ITIMER_PROF counts, read to the nanosecond
_setitimer, _ITIMER_REAL = signal.setitimer, signal.ITIMER_REAL


def _raise_timeout(signum, frame):  # pragma: no cover - runs in the child
    st = _TIMER
    if signum == signal.SIGALRM and st[0] >= 0:
        # A test's CPU limit. ITIMER_PROF fires only on a scheduler tick after the limit (4 ms ticks here: a
        # 0.02 s limit gave tests 24 ms); a wall-clock timer set to the limit fires no earlier than the CPU
        # time could reach it, and then the CPU clock decides: re-armed for what is left, or the test is out.
        # Between tests (no deadline) a late firing of the previous test's timer is ignored.
        if not st[5]:
            return
        left = st[5] - _cpu_now()
        if left > _EARLY_S:
            _setitimer(_ITIMER_REAL, left, st[6])
            return
    st[1] += 1
    if st[1] >= _MAX_FIRES:
        # ``except BaseException`` in a loop: the timeout never gets out of the candidate's code. Measured in
        # CPU time like the limit itself, so the verdict (TIMEOUT) does not depend on the machine's load.
        mm, pos = st[4], st[0]
        if pos < 0:
            HEADER.pack_into(mm, 0, 0, TIMEOUT, _TIMEOUT_DIGEST)
        else:
            SLOT.pack_into(mm, HEADER.size + pos * SLOT.size, 1, st[2], st[3])
            struct.pack_into("<i", mm, 0, LEFT_ON_PURPOSE)
        os._exit(0)
    raise _TimeLimitExceeded()


def install_timer_handlers() -> None:
    """SIGPROF / SIGALRM raise the timeout; set in the worker once (its children inherit the handlers, so
    that each child saves ~0.15 ms), and in a child forked from anywhere else."""
    if signal.getsignal(signal.SIGPROF) is not _raise_timeout or signal.getsignal(signal.SIGALRM) is not _raise_timeout:
        signal.signal(signal.SIGPROF, _raise_timeout)
        signal.signal(signal.SIGALRM, _raise_timeout)


def child_main(mm: mmap.mmap, program: str, code: Optional[Any], probes: Sequence[Any], want: Sequence[bool],
               order: Sequence[int], start: int, limits: Limits, mem_bytes: Optional[int], workdir: str, wfd: int,
               parent: int, ruleset: int) -> None:  # pragma: no cover - child
    """Body of the child: guard, import the program, evaluate probes[order[start:]], record each in ``mm``.

    ``code``: the program compiled by the worker (None: compile it here). ``probes``: compiled expressions;
    ``want[i]``: probe i's value goes into the log too (an assert needs it)."""
    utils = evalplus_utils()
    swallow_io = utils.swallow_io

    pack_into, exit_ = SLOT.pack_into, os._exit
    n_items = len(order) - start
    confine.isolate(parent, (wfd, ruleset), int(limits.import_cpu + n_items * limits.cpu * 1.5 + 2))
    os_chdir(workdir)  # the worker made this temp dir and removes it after the child is gone (os._exit skips cleanup)
    timer = _TIMER
    timer[4] = mm
    install_timer_handlers()
    # own references: candidates may patch the modules (the import's limit is ITIMER_PROF: once per child)
    setitimer, prof, real_timer = signal.setitimer, signal.ITIMER_PROF, signal.ITIMER_REAL
    if not worker_guarded_with(mem_bytes):  # else the worker applied this very guard to itself before forking
        utils.reliability_guard(maximum_memory_bytes=mem_bytes)
    confine.apply_confinement(ruleset, True, True)
    if ruleset >= 0:
        os.close(ruleset)
    # The candidate gets its own copy of the builtins (``import builtins`` included): replacing ``print``,
    # ``isinstance`` or ``__import__`` there changes nothing for the harness code that runs between its calls.
    # The copy was made in the parent (``candidate_builtins``); the names the guard disabled are copied over.
    own_builtins = candidate_builtins()
    own = own_builtins.__dict__
    real = builtins.__dict__
    for name in GUARDED_BUILTINS:
        own[name] = real.get(name)
    sys.modules["builtins"] = own_builtins
    env: dict[str, Any] = {"__name__": "__coderank_candidate__", "__builtins__": own}
    try:
        timer[0], timer[1], timer[2], timer[3], timer[5] = -1, 0, TIMEOUT, _TIMEOUT_DIGEST, 0.0
        setitimer(prof, limits.import_cpu, 0.05)
        try:
            with swallow_io():
                exec(code if code is not None else compile_program(program), env)
        finally:
            setitimer(prof, 0)
    except _TimeLimitExceeded:
        HEADER.pack_into(mm, 0, 0, TIMEOUT, _TIMEOUT_DIGEST)
        exit_(0)
    except BaseException as exc:  # noqa: BLE001 - any failure of untrusted code is a result
        HEADER.pack_into(mm, 0, 0, ERROR, digest_text("import:" + exc.__class__.__name__))
        exit_(0)
    HEADER.pack_into(mm, 0, 0, PASS, 0)

    log_at = HEADER.size + len(order) * SLOT.size
    log_room = len(mm) - log_at - LOG_LEN.size
    log_len, log_pack = LOG_LEN.size, LOG_LEN.pack_into

    # All probes run inside one evalplus ``swallow_io`` (entering it per probe cost ~12 µs, ~13 CPU-seconds over
    # the CodeGen-16B matrix). Each probe still starts as it would in a fresh one: the swallowed streams back in
    # place (the candidate may have replaced or closed them) and empty.
    held = [swallow_io()]  # held: a context manager that is collected would put the old streams back
    held[-1].__enter__()
    stream = sys.stdout
    cpu = limits.cpu
    refire = timer[6] = min(cpu, max(cpu / 2, 0.01))
    timer[2], timer[3] = TIMED_OUT, _TIMEOUT_DIGEST
    armed = False
    used = LOG_LEN.unpack_from(mm, log_at)[0]  # bytes in the value log (earlier children's included)
    frame_size, frame_pack = FRAME.size, FRAME.pack_into
    for pos in range(start, len(order)):
        idx = order[pos]
        status, dig = RAISED, 0
        record = None
        try:
            if stream.tell():
                stream.seek(0)
                stream.truncate()
        except Exception:  # noqa: BLE001 - closed (or tampered with) by the candidate: a fresh one
            held.append(swallow_io())
            held[-1].__enter__()
            stream = sys.stdout
        sys.stdout = sys.stderr = sys.stdin = stream
        timer[0], timer[1] = pos, 0
        try:
            # Each probe's deadline is its start on the CPU clock plus the limit. The timer is armed once for a
            # run of probes and fires at least every ``refire`` s of wall time; each firing during a probe
            # re-arms it for what is left of that probe's CPU time (``_raise_timeout``), so a probe gets its
            # whole limit and no more, at one clock read per probe instead of two timer system calls.
            timer[5] = _cpu_now() + cpu
            if not armed:
                setitimer(real_timer, cpu, refire)
                armed = True
            try:
                val = eval(probes[idx], env)
                status, dig = RETURNED, digest_value(val)
                if want[idx]:
                    try:
                        record = encode_value(val)
                        kind = VALUE
                    except Exception as why:  # noqa: BLE001 - Opaque, or too deep / too big for the format
                        record, kind = str(why).encode("utf-8", "replace")[:200], NEED
                        if type(val).__module__ == "numpy" and getattr(val, "ndim", None) == 0:
                            try:  # a numpy scalar stands for its Python value (np.float64(2.5) == 2.5 held before)
                                record, kind = encode_value(val.item()), VALUE
                            except Exception:  # noqa: BLE001
                                pass
            finally:
                timer[5] = 0.0
                if timer[1]:  # it fired into this probe: armed afresh for the next
                    setitimer(real_timer, 0)
                    armed = False
        except _TimeLimitExceeded:
            status, dig, record = TIMED_OUT, _TIMEOUT_DIGEST, None
        except BaseException as exc:  # noqa: BLE001
            status, dig, record = RAISED, digest_text("exc:" + exc.__class__.__name__), None
        if record is not None:
            if used + frame_size + len(record) > log_room:
                record, kind = b"too large", NEED
            if used + frame_size + len(record) <= log_room:
                at = log_at + log_len + used
                frame_pack(mm, at, kind, idx, len(record))
                mm[at + frame_size:at + frame_size + len(record)] = record
                used += frame_size + len(record)
                log_pack(mm, log_at, used)
        pack_into(mm, HEADER.size + pos * SLOT.size, 1, status, dig)
    exit_(0)
