"""A small pool of fresh worker interpreters, fed jobs over pipes.

Why not ``multiprocessing.Pool``: with "fork" every worker inherits the parent's memory (datasets, a loaded
model inside lm-eval), which makes each per-program fork in the worker slow; with "spawn" the user's
``__main__`` is re-imported, which breaks scripts and notebooks without a main guard. Workers here are clean
``python -c`` processes that import only what the job function needs.

Jobs name their function as ``"module:function"``; arguments and results are pickled. A worker that dies
(which only untrusted code in its grandchildren could cause) is replaced and its job is retried once.
"""

from __future__ import annotations

import importlib
import os
import pickle
import selectors
import struct
import subprocess
import sys
from collections import deque
from pathlib import Path
from typing import Any, Generator, Iterable, Optional

_LEN = struct.Struct("<Q")
_kill = os.kill  # taken at import: a worker may later apply evalplus's reliability_guard to itself


class WorkerError(RuntimeError):
    """A job raised inside a worker; the message carries the worker's traceback."""


def _read_exact(fh, n: int) -> Optional[bytes]:
    """Exactly n bytes from a raw stream (None at EOF); linear time for messages of any size."""
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = fh.readinto(view[got:])
        if not k:
            return None
        got += k
    return bytes(buf)


def _send(fh, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    fh.write(_LEN.pack(len(data)) + data)
    fh.flush()


_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36


def _prctl(option: int, arg: int) -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(ctypes.c_int(option), ctypes.c_ulong(arg), ctypes.c_ulong(0), ctypes.c_ulong(0),
                          ctypes.c_ulong(0)) == 0
    except Exception:  # noqa: BLE001 - not Linux / no ctypes: fewer guarantees, same behaviour
        return False


def _children(pid: int) -> Optional[list[int]]:
    """Direct children of a (single-threaded) process, from /proc; None where /proc cannot tell."""
    try:  # os-level calls: a worker may have evalplus's reliability_guard applied (builtins.open is None)
        fd = os.open(f"/proc/{pid}/task/{pid}/children", os.O_RDONLY)
        try:
            data = b""
            while chunk := os.read(fd, 65536):
                data += chunk
        finally:
            os.close(fd)
        return [int(x) for x in data.split()]
    except (OSError, ValueError):
        return None


KEPT: set[int] = set()  # children of this worker that stay between jobs (its judge referee, ``referee.py``)


def kill_descendants(max_rounds: int = 10_000) -> int:
    """SIGKILL and reap every process left below this one; returns how many there were.

    Needs ``PR_SET_CHILD_SUBREAPER`` (set by ``main``): then a process that untrusted code left behind — a
    double fork, a ``setsid`` that escaped the process-group kill — is re-parented to this worker instead of
    init, and shows up here. Each round kills the current children; their own children come back to us and
    are killed in the next round, so even a fork bomb ends. One small /proc read when nothing is left. The
    worker's own long-lived children (``KEPT``) are spared."""
    me = os.getpid()
    total = 0
    for _ in range(max_rounds):
        kids = [k for k in _children(me) or () if k not in KEPT]
        if not kids:
            break
        for pid in kids:
            try:
                _kill(pid, 9)  # still our child (alive or zombie), so the pid cannot have been reused
            except (ProcessLookupError, PermissionError):
                pass
        for pid in kids:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        total += len(kids)
    return total


def main() -> None:  # pragma: no cover - runs in the worker interpreter
    """Worker loop: read (job id, function name, argument), write (job id, ok, result)."""
    import traceback

    parent = os.getppid()
    _prctl(_PR_SET_PDEATHSIG, 9)  # the run was killed (even with SIGKILL): go too, with the job's child
    if os.getppid() != parent:
        return
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)  # orphans of untrusted code come back to us (see kill_descendants)
    proto_in = os.fdopen(os.dup(0), "rb", buffering=0)
    proto_out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)  # stray prints go to stderr (a log file or nowhere, see _Worker), never into the protocol
    funcs: dict[str, Any] = {}
    while True:
        head = _read_exact(proto_in, _LEN.size)
        if head is None:
            return
        body = _read_exact(proto_in, _LEN.unpack(head)[0])
        if body is None:
            return
        job_id, name, arg = pickle.loads(body)
        try:
            if name not in funcs:
                module, func = name.split(":")
                funcs[name] = getattr(importlib.import_module(module), func)
            result = funcs[name](arg)
            kill_descendants()
            _send(proto_out, (job_id, True, result))
        except BaseException:  # noqa: BLE001 - reported to the parent
            kill_descendants()
            _send(proto_out, (job_id, False, traceback.format_exc()))


CANDIDATE_LOG_ENV = "CODERANK_CANDIDATE_LOG"
CANDIDATE_LOG = "candidates.log"  # its name in a results folder


def log_candidates_to(path: str | os.PathLike) -> None:
    """Workers started from now on in this process write their stderr (candidates' prints and warnings) to ``path``
    (appended), instead of discarding it."""
    os.environ[CANDIDATE_LOG_ENV] = str(path)


class _Worker:
    def __init__(self) -> None:
        # The folder that holds this package, so a worker imports the same copy as its parent (not one in its cwd)
        root = str(Path(__file__).resolve().parents[3])
        code = (f"import sys; sys.path.insert(0, {root!r}); "
                "from coderank_evalplus.engine.execution.workers import main; main()")
        # A fixed hash seed: set iteration order (and so the behaviour of candidates that zip two sets, say)
        # must not change from one run, or one worker, to the next.
        # One BLAS/OpenMP thread: idle BLAS threads spin in the worker, and every fork copies them in vain.
        env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        # What candidates print (and their compile warnings) never reaches the user's terminal: the worker's stderr
        # goes to CANDIDATE_LOG_ENV's file when a run names one (the CLI: its results folder), else nowhere.
        log = os.environ.get(CANDIDATE_LOG_ENV)
        with open(log, "ab") if log else open(os.devnull, "wb") as err:
            self.proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=err, bufsize=0, close_fds=True, env=env)
        assert self.proc.stdin is not None and self.proc.stdout is not None  # both are pipes
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        self.inflight: deque[int] = deque()
        self.buf = bytearray()

    def send(self, job_id: int, name: str, arg: Any) -> None:
        _send(self.proc.stdin, (job_id, name, arg))
        self.inflight.append(job_id)

    def read_available(self) -> tuple[list[tuple], bool]:
        """Messages that arrived, and False if the worker is gone."""
        chunk = os.read(self.stdout.fileno(), 1 << 20)
        if not chunk:
            return [], False
        self.buf += chunk
        out = []
        while len(self.buf) >= _LEN.size:
            (n,) = _LEN.unpack_from(self.buf)
            if len(self.buf) < _LEN.size + n:
                break
            out.append(pickle.loads(bytes(self.buf[_LEN.size:_LEN.size + n])))
            del self.buf[:_LEN.size + n]
        for job_id, _, _ in out:
            self.inflight.remove(job_id)
        return out, True

    def hang_up(self) -> None:
        """Close the job pipe: the worker finishes and exits (``close`` waits for it)."""
        try:
            self.stdin.close()
        except OSError:
            pass

    def close(self) -> None:
        self.hang_up()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class WorkerPool:
    """``with WorkerPool(n) as pool: for job_index, result in pool.run("mod:fn", args): …`` (unordered)."""

    def __init__(self, n_workers: int, prefetch: int = 2) -> None:
        self.n = max(1, n_workers)
        self.prefetch = max(1, prefetch)
        self.workers: list[_Worker] = []

    def __enter__(self) -> "WorkerPool":
        self.workers = [_Worker() for _ in range(self.n)]
        return self

    def __exit__(self, *exc) -> None:
        for w in self.workers:  # every worker told first, then waited for: they exit together
            if exc[0] is not None:
                w.proc.kill()
            w.hang_up()
        for w in self.workers:
            w.close()

    def run(self, name: str, args: Iterable[Any], on_lost: Any = None) -> Generator[tuple[int, Any], None, None]:
        """Yield (index of the argument, result) as jobs finish.

        A job whose worker died twice yields ``on_lost`` (or raises WorkerError when it is None)."""
        pending = deque(enumerate(args))
        arg_of: dict[int, Any] = {}
        retries: dict[int, int] = {}
        sel = selectors.DefaultSelector()
        for w in self.workers:
            sel.register(w.stdout, selectors.EVENT_READ, w)

        def feed(w: _Worker) -> None:
            while pending and len(w.inflight) < self.prefetch:
                idx, arg = pending.popleft()
                arg_of[idx] = arg
                w.send(idx, name, arg)

        try:
            for w in self.workers:
                feed(w)
            while arg_of:
                for key, _ in sel.select():
                    w = key.data
                    messages, alive = w.read_available()
                    for job_id, ok, result in messages:
                        arg_of.pop(job_id)
                        if not ok:
                            raise WorkerError(f"job {job_id} failed in a worker:\n{result}")
                        yield job_id, result
                    if not alive:
                        sel.unregister(w.stdout)
                        lost = list(w.inflight)
                        w.close()
                        replacement = _Worker()
                        self.workers[self.workers.index(w)] = replacement
                        sel.register(replacement.stdout, selectors.EVENT_READ, replacement)
                        for job_id in reversed(lost):
                            retries[job_id] = retries.get(job_id, 0) + 1
                            if retries[job_id] > 1:
                                arg_of.pop(job_id)
                                if on_lost is None:
                                    raise WorkerError(f"job {job_id} killed its worker twice")
                                yield job_id, on_lost
                            else:
                                pending.appendleft((job_id, arg_of[job_id]))
                        w = replacement
                    feed(w)
        finally:
            sel.close()
