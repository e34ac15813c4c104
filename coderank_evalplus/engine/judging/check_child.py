"""What every check child of the judge uses (evalplus's checks, the original tests' and LiveCodeBench's): the
CPU-time limit of one test, its timer handlers, the memory cap, and the child's side of its pipes to the referee."""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import tempfile
import time
from typing import Any, Callable, NamedTuple, Optional

from coderank_evalplus.engine.sandbox.report import (
    CLAIM_PART_BYTES,
    COMPARED,
    END,
    LARGE_VALUE_BYTES,
    NEED,
    PART,
    VALUE,
    ClaimPickler,
    Opaque,
    encode_value,
    frame,
)


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


class Channel(NamedTuple):
    """A check child's side of its pipes to the referee: the frames buffered (``buf``; ``size`` = [bytes buffered,
    when last flushed]), ``flush`` writes them to its report pipe, ``receive`` reads one length-prefixed answer."""

    buf: list[bytes]
    size: list
    flush: Callable[[], None]
    receive: Callable[[], Any]

    def close(self) -> None:  # pragma: no cover - runs in the child
        """What is still buffered goes to the referee (the child ends after it)."""
        if self.buf:
            self.flush()


def _report_channel(rep: int, ans: int) -> Channel:
    """The child's ``Channel``: ``flush`` writes to ``rep``, ``receive`` reads from ``ans``."""
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

    return Channel(buf, size, flush, receive)


def start_check(workdir: str, rep: int, ans: int) -> Channel:  # pragma: no cover - runs in the child
    """What every check child does first: its temp files and working folder in the worker's folder (where the
    worker cleans up, and may write), evalplus's timer handlers and ``reliability_guard`` with evalplus's memory
    cap; then its channel to the referee."""
    import evalplus.eval as ev

    tempfile.tempdir = workdir
    os.chdir(workdir)
    _install_timeout_handlers()
    ev.reliability_guard(maximum_memory_bytes=_memory_cap())
    return _report_channel(rep, ans)


class _ClaimWriter:
    """Where the child's ``ClaimPickler`` writes one value: kept while the pickle is short (the value then goes
    tagged, as any other), sent as ``PART`` frames of at most ``CLAIM_PART_BYTES`` from the moment it is longer
    than ``LARGE_VALUE_BYTES`` on, so that the child never holds more than that beside the value."""

    def __init__(self) -> None:
        self.channel: Optional[Channel] = None
        self.kept: list[bytes] = []
        self.index, self.size, self.sent = 0, 0, False

    def start(self, channel: Channel, index: int) -> None:
        self.channel, self.index, self.kept, self.size, self.sent = channel, index, [], 0, False

    def write(self, data: Any) -> None:  # pragma: no cover - runs in the child
        if not self.sent:
            self.kept.append(bytes(data))
            self.size += len(data)
            if self.size <= LARGE_VALUE_BYTES:
                return
            self.sent, data, self.kept = True, b"".join(self.kept), []
        channel, view = self.channel, memoryview(data)
        assert channel is not None
        for at in range(0, len(view), CLAIM_PART_BYTES):
            channel.buf.append(frame(PART, self.index, bytes(view[at:at + CLAIM_PART_BYTES])))
            channel.flush()


_CLAIMS: list = []  # [writer, pickler]: one of each per child
_CLAIMABLE = (list, tuple, dict, set, frozenset, str, bytes)
CUT = "cut"  # a claim cut short by a type it cannot carry: the value goes the way of such values (``NEED``)


def _claim(channel: Channel, i: int, out: Any) -> Optional[bool | str]:  # pragma: no cover - runs in the child
    """A large value of exact builtin types as a claim (``report.py``): the referee's answer (True: it passed;
    False: send the value as usual), or ``CUT``. None: no claim was sent (a short value, or one of other
    types)."""
    if type(out) not in _CLAIMABLE or (type(out) in (str, bytes) and len(out) < CLAIM_PART_BYTES):
        return None
    if not _CLAIMS:
        writer = _ClaimWriter()
        _CLAIMS[:] = [writer, ClaimPickler(writer)]
    writer, pickler = _CLAIMS
    writer.start(channel, i)
    try:
        pickler.dump(out)
    except (Opaque, ValueError, RecursionError):  # a type the claim cannot carry (no MemoryError: the check fails)
        return CUT if writer.sent else None  # (sent: a NEED frame ends the claim)
    finally:
        writer.kept = []
    if not writer.sent:
        return None
    channel.buf.append(frame(END, i))
    channel.flush()
    return channel.receive() is True


def report_result(channel: Channel, i: int, out: Any, compare: Callable[[int, Any, Any], bool],
                  opaque: type[BaseException] | tuple[type[BaseException], ...] = Exception,
                  scalars: bool = True, claims: bool = False) -> bool:  # pragma: no cover - runs in the child
    """Report what test ``i`` gave: its value, at once for the first ``_EAGER_REPORTS`` (most wrong programs fail
    early, and the referee can only answer, and the worker stop this child, once it has read the failing one),
    then in batches. With ``claims`` a large value goes as a claim first (``_claim``), and as a value only if the
    referee did not find its bytes equal. A value the format cannot carry (``encode_value`` raised ``opaque``; with
    ``scalars`` a numpy scalar stands for its value) is compared here instead, ``compare(i, out, what the referee
    sends)`` (the candidate's own ``==`` decides; the referee notes it), and that verdict reported: False when it
    failed."""
    buf = channel.buf
    claimed = _claim(channel, i, out) if claims else None
    if claimed is True:
        return True
    try:
        if claimed == CUT:
            raise Opaque
        rec = frame(VALUE, i, encode_value(out))
    except opaque:
        rec = b""
        if scalars and type(out).__module__ == "numpy" and getattr(out, "ndim", None) == 0:
            try:
                rec = frame(VALUE, i, encode_value(out.item()))
            except Exception:  # noqa: BLE001 - not even its value: compared here
                rec = b""
    if not rec:
        buf.append(frame(NEED, i, type(out).__qualname__.encode("utf-8", "replace")[:200]))
        channel.flush()
        ok = compare(i, out, channel.receive())
        buf.append(frame(COMPARED, i, b"\x01" if ok else b"\x00"))
        channel.flush()
        return ok
    buf.append(rec)
    size = channel.size
    size[0] += len(rec)
    if i < _EAGER_REPORTS or size[0] > 65536 or time.perf_counter() - size[1] > 0.002:
        channel.flush()
    return True


_MEMORY_CAP: list = []


def _memory_cap() -> Optional[int]:
    """evalplus's memory cap (``query_maximum_memory_bytes``: the environment and psutil's total memory), read
    once per worker instead of once per check."""
    if not _MEMORY_CAP:
        from coderank_evalplus.engine.sandbox.limits import max_memory_bytes

        _MEMORY_CAP.append(max_memory_bytes())
    return _MEMORY_CAP[0]
