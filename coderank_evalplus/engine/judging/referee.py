"""The referee: the only process that holds a task's expected outputs and decides a check's verdict.

A judge worker forks its referee once, before it reads any task's data, and from then on reads only the inputs
(``<task file>``), never the expected outputs (``<task file>.expected``). The children that run candidates are
forked from the worker, so no expected output is ever in their address space, and the verdict is not decided there.
Per check the worker forks the child (``runner.run_reported``) and hands the parent ends of its two pipes to the
referee (``SCM_RIGHTS``); the referee reads the child's reports (``sandbox/report.py``), compares each reported
output with the expected one (``oracle.evalplus_compare``), stops at the first failure, and answers the worker
``(passed, why_suspicious)``. A child that writes anything else, out of order, or stops early fails.

The referee is non-dumpable and outside the child's Landlock domain, so the child cannot read its memory through
``/proc/<pid>/mem`` or ``process_vm_readv`` (also refused by seccomp) -- see docs/engine.md.
"""

from __future__ import annotations

import os
import pickle
import select
import socket
import struct
import time
from typing import Any, Optional

from coderank_evalplus.engine.sandbox import confine
from coderank_evalplus.engine.sandbox.report import claim_matches, decode_value, read_reports

_PR_SET_DUMPABLE = 4
_LEN = struct.Struct("<I")
_REFEREE: list = []  # [socket, pid] of this worker's referee


def _send_msg(sock: socket.socket, obj, fds: tuple = ()) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    socket.send_fds(sock, [_LEN.pack(len(data)) + data], list(fds)) if fds else sock.sendall(
        _LEN.pack(len(data)) + data)


def _recv_msg(sock: socket.socket, nfds: int = 0) -> tuple[Any, list[int]]:
    fds: list[int] = []
    if nfds:
        data, fds, _, _ = socket.recv_fds(sock, 1 << 16, nfds)
    else:
        data = sock.recv(1 << 16)
    if not data:
        raise EOFError
    while len(data) < _LEN.size or len(data) < _LEN.size + _LEN.unpack_from(data)[0]:
        more = sock.recv(1 << 20)
        if not more:
            raise EOFError
        data += more
    return pickle.loads(data[_LEN.size:_LEN.size + _LEN.unpack_from(data)[0]]), fds


def referee() -> socket.socket:
    """This worker's referee (forked when missing: before the worker has read any expected output)."""
    if _REFEREE:
        return _REFEREE[0]
    from coderank_evalplus.engine.sandbox.guard import os_fork

    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    parent = os.getpid()
    pid = os_fork()
    if pid == 0:  # pragma: no cover - the referee
        code = 0
        try:
            mine.close()
            confine.die_with_parent(parent)
            confine.silence_fds()
            confine.close_inherited_fds(theirs.fileno())
            confine.libc()[1].prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
            _serve(theirs)
        except BaseException:  # noqa: BLE001
            code = 1
        finally:
            os._exit(code)
    theirs.close()
    from coderank_evalplus.engine.execution.workers import KEPT

    KEPT.add(pid)  # the worker's sweep of leftover processes after each job spares it
    _REFEREE[:] = [mine, pid]
    return mine


# Memory: MBPP+'s Mbpp/255 keeps 780 MB of pickled expected outputs (HumanEval/15 147 MB); decoded, and once more
# encoded, one referee grew past 10 GB judging it with the old count-only caches. So the decoded files are kept
# within a budget of their on-disk size (the one in use always stays), and a file above ENCODE_MAX_BYTES gets no
# encoded copy: its outputs are compared decoded, as evalplus compares them.
EXPECTED_CACHE_BYTES = 256 << 20  # on-disk bytes of expected-output files one referee keeps loaded
ENCODE_MAX_BYTES = 32 << 20  # above this file size a split's outputs are not kept a second time, encoded
_EXPECTED: dict[str, dict] = {}
_FILE_BYTES: dict[str, int] = {}


def _expected(path: str) -> dict:
    if path not in _EXPECTED:
        size = os.path.getsize(path)
        while _EXPECTED and sum(_FILE_BYTES[p] for p in _EXPECTED) + size > EXPECTED_CACHE_BYTES:
            _forget(next(iter(_EXPECTED)))
        with open(path, "rb") as fh:
            _EXPECTED[path] = pickle.load(fh)
        _FILE_BYTES[path] = size
    return _EXPECTED[path]


def _forget(path: str) -> None:
    """Drop one file's decoded and encoded expected outputs."""
    _EXPECTED.pop(path, None)
    for key in [k for k in _ENCODED if k[0] == path]:
        del _ENCODED[key]


_ENCODED: dict[tuple[str, str], tuple[list, list]] = {}


def _encoded(path: str, split: str, data: dict) -> tuple[list, list]:
    """Per expected output of a split: its encoded report bytes where a report equal to them can only pass
    (None: compare the decoded value), and whether evalplus would set ``atol`` at it (``is_floats``).

    Equal bytes mean equal exact-builtin trees, so ``out == exp`` holds unless a NaN is in it; tasks with a
    special oracle (MBPP's set / not-None / tolerance tasks, HumanEval/32) always take the full comparison.
    Measured need: decoding and comparing each input in Python made judging ~20 % slower (issue 25, item 5).
    A file above ``ENCODE_MAX_BYTES`` gets no encoded copy (every entry None)."""
    key = (path, split)
    if key not in _ENCODED:
        from evalplus.eval import is_floats

        from coderank_evalplus.engine.judging.oracle import has_special_oracle
        from coderank_evalplus.engine.sandbox.report import Opaque, encode_value

        expected = data[split][1]
        special = has_special_oracle(data["dataset"], data["entry_point"])
        too_big = _FILE_BYTES.get(path, 0) > ENCODE_MAX_BYTES
        enc: list = []
        for exp in expected:
            try:
                enc.append(None if special or too_big or _has_nan(exp) else encode_value(exp))
            except (Opaque, RecursionError, ValueError):
                enc.append(None)
        if len(_ENCODED) >= 8:
            _ENCODED.pop(next(iter(_ENCODED)))
        _ENCODED[key] = (enc, [bool(is_floats(exp)) for exp in expected])
    return _ENCODED[key]


def _has_nan(x, depth: int = 0) -> bool:
    t = type(x)
    if t is float:
        return x != x
    if t is complex:
        return x.real != x.real or x.imag != x.imag
    if depth > 200:
        return True
    if t in (list, tuple, set, frozenset):
        return any(_has_nan(v, depth + 1) for v in x)
    if t is dict:
        return any(_has_nan(k, depth + 1) or _has_nan(v, depth + 1) for k, v in x.items())
    return False


def _serve(sock: socket.socket) -> None:  # pragma: no cover - the referee
    while True:
        try:
            request, fds = _recv_msg(sock, 2)
        except EOFError:
            return
        rfd, wfd = fds
        try:
            answer = _referee_check(request, rfd, wfd)
        except Exception as exc:  # noqa: BLE001 - our own failure: the check fails, the reason says why
            answer = (False, f"referee error: {exc.__class__.__name__}: {exc}")
        finally:
            os.close(rfd)
            os.close(wfd)
        _send_msg(sock, answer)


def _referee_check(request: dict, rfd: int, wfd: int) -> tuple[bool, Optional[str]]:
    """Read one child's reports until every input passed (True) or one did not, or it stopped (False)."""
    from coderank_evalplus.engine.judging.oracle import evalplus_compare, has_special_oracle

    def answer(value) -> None:  # what the child reads with ``Channel.receive``
        msg = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        _write_all(wfd, _LEN.pack(len(msg)) + msg)

    if request.get("mode") == "lcb":  # LiveCodeBench's tests and rules (engine/judging/lcb_judge.py)
        from coderank_evalplus.engine.judging.lcb_judge import referee_check

        return referee_check(_expected(request["expected"]), rfd, answer)
    if request.get("mode") == "original":  # the original tests' asserts, split (engine/judging/original.py)
        from coderank_evalplus.engine.judging.original import referee_original

        return referee_original(request, rfd, wfd)
    data = _expected(request["expected"])
    inputs, expected = data[request["split"]]
    dataset, entry_point = data["dataset"], data["entry_point"]
    encoded, floats = _encoded(request["expected"], request["split"], data)
    special = has_special_oracle(dataset, entry_point)
    atols = _atols(data["atol"], floats)

    def value_ok(index: int, payload: bytes) -> bool:
        if payload == encoded[index]:  # the very output: passes
            return True
        return evalplus_compare(dataset, entry_point, inputs[index], decode_value(payload), expected[index],
                                atols[index])[0]

    def need(index: int) -> bool:
        # what the child needs to compare with evalplus's rules itself: this input's expected output and the atol
        # evalplus holds when it reaches it
        answer((expected[index], atols[index]))
        return True

    def claim(index: int, parts) -> bool:
        # a large output's pickle: equal bytes pass where equal encoded bytes would (the rule of ``_encoded``)
        if special:
            return False
        same, maybe_nan = claim_matches(expected[index], parts)
        return same and not (maybe_nan and _has_nan(expected[index]))

    return read_reports(rfd, len(expected), value_ok, need, lambda index, got: (
        f"input {index} returned {got} where {type(expected[index]).__name__} was expected; its own == decided"),
        claim, answer)


def _atols(atol: float, floats: list) -> list[float]:
    """Per input, the ``atol`` evalplus holds when it reaches it in its own order: the task's, or 1e-6 from the
    first float expected output before it on (``oracle.evalplus_compare`` sets it at that input itself). It
    depends on the expected outputs alone, so it is computed once per check, before any output arrives, and both
    ways of comparing (here, or in the child for a value the format cannot carry) read the same value."""
    out = []
    for is_float in floats:
        out.append(atol)
        if atol == 0 and is_float:
            atol = 1e-6
    return out


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def ask(request: dict, rfd: int, wfd: int, pid: int, deadline: float, kill) -> tuple[bool, Optional[str]]:
    """Worker side: hand the child's pipes to the referee, wait for its answer; kill the child at the deadline
    (the referee then reads EOF and answers). The worker's copies of ``rfd`` / ``wfd`` are closed here."""
    sock = referee()
    try:
        _send_msg(sock, request, (rfd, wfd))
    finally:
        os.close(rfd)
        os.close(wfd)
    left = deadline - time.monotonic()
    ready, _, _ = select.select([sock], [], [], max(0.0, left))
    if not ready:
        kill(pid)
    answer, _ = _recv_msg(sock)
    return answer
