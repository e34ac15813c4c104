"""Run one untrusted program on many tests in a forked child process.

The child is guarded with EvalPlus's primitives (``reliability_guard``, ``create_tempdir``, ``swallow_io``, the
memory cap from ``EVALPLUS_MAX_MEMORY_BYTES``). What we add by hand, because evalplus has no such piece:

* per-test limits on *CPU* time, so verdicts do not flip when the machine is busy: a wall-clock timer
  (``ITIMER_REAL``) set to the limit, checked against the process CPU clock when it fires (``ITIMER_PROF``
  would fire on the first scheduler tick after the limit, 4 ms late here); the worker's looser wall-clock
  watchdog only catches programs that sleep or block;
* results streamed back one fixed-size record per test, so a child that dies (segfault, ``os._exit``, memory)
  loses only the test it was running; the parent restarts a fresh child for the remaining tests;
* a canonical digest of each returned value, so outputs of different programs can be compared (SRank, MBR);
* confinement of the child with kernel features that need no privileges and no cgroups (``_confine``):
  a seccomp filter (x86-64) that lets the child neither fork, exec, signal any process but itself, open
  sockets, nor raise its limits or replace the timer handlers; a Landlock ruleset (Linux ≥ 5.13) that lets it
  write only below its own temp dir (and, where the kernel has it, neither connect TCP nor signal outside);
  ``PR_SET_PDEATHSIG`` so that it dies with its worker. ``reliability_guard`` only patches Python names, which
  ``posix``, ``ctypes`` and ``_posixsubprocess`` walk around — and the process may run as root, where
  ``RLIMIT_NPROC`` means nothing. Each piece is best effort: where the kernel lacks it, the rest still holds.

A test item is one of:
  ``("call", expr)``            evaluate a call expression; result = (RETURNED|RAISED|TIMED_OUT, digest)
  ``("check", i, exp, cmp)``    compare the value of call item ``i`` with expression ``exp``; result = outcome
  ``("assert", src)``           execute ``assert <src>``; result = outcome (PASS/FAIL/ERROR/TIMEOUT)
"""

from __future__ import annotations

import atexit
import builtins
import importlib.util
import mmap
import os
import resource
import select
import shutil
import signal
import struct
import sys
import tempfile
import time
import types
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

from coderank_evalplus.canonical import digest_text, digest_value
from coderank_evalplus.outcomes import ERROR, FAIL, PASS, RAISED, RETURNED, TIMED_OUT, TIMEOUT

# Shared-memory layout: a header (unused, import status (255 = not yet), import digest), then one slot per
# test item in run order: (written flag, status, digest). Writing costs no system call.
_HEADER = struct.Struct("<iBq")
_SLOT = struct.Struct("<BBq")
_TIMEOUT_DIGEST = digest_text("timeout")


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
        return f"cpu={self.cpu:g},import={self.import_cpu:g},wall={self.wall:g},{_SEMANTICS}"


# Part of every cache key: bumped whenever the same program and test can get a different result from the engine
# (2: candidates compiled as plain modules, no longer inheriting this module's ``from __future__`` flags).
_SEMANTICS = "sem=2"
_PRECOMPILE_MAX_CHARS = 100_000  # longer programs are compiled in the child, under its limits


def compile_program(program: str) -> Any:
    """A candidate compiled as its own module would be (``exec`` of its text, as evalplus does): no
    ``from __future__`` flag of ours leaks in (``annotations`` would make ``def f(x: Undefined)`` pass)."""
    return compile(program, "<candidate>", "exec", dont_inherit=True)


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


def _fail_every_item(results: dict, items: Sequence[tuple], todo: Sequence[int], status: int, digest: int) -> None:
    """The program never got past its own top level: each test without a result fails the same way."""
    for idx in todo:
        if idx not in results:
            if items[idx][0] == "call":
                results[idx] = (TIMED_OUT if status == TIMEOUT else RAISED, digest)
            else:
                results[idx] = (status, 0)


class _TimeLimitExceeded(BaseException):
    """Raised by the timer signals inside the child; a BaseException so ``except Exception`` misses it."""


def max_memory_bytes() -> Optional[int]:
    """The memory cap evalplus uses (``EVALPLUS_MAX_MEMORY_BYTES``, default 4 GiB)."""
    from evalplus.eval import query_maximum_memory_bytes

    return query_maximum_memory_bytes()


# What the timer handler needs to know in the child: [position of the running item (-1: import), times the timer
# fired during it, status and digest to record if the program keeps swallowing the timeout, the mmap, the
# process CPU time at which the running test's limit ends (0: none), the timer's re-firing interval].
_TIMER: list = [-1, 0, TIMEOUT, 0, None, 0.0, 0.0]
_MAX_FIRES = 4  # after this many firings in one item the child records the timeout itself and leaves
_LEFT_ON_PURPOSE = 1  # header flag: the child recorded its running item and exited; resume after it
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
            _HEADER.pack_into(mm, 0, 0, TIMEOUT, _TIMEOUT_DIGEST)
        else:
            _SLOT.pack_into(mm, _HEADER.size + pos * _SLOT.size, 1, st[2], st[3])
            struct.pack_into("<i", mm, 0, _LEFT_ON_PURPOSE)
        os._exit(0)
    raise _TimeLimitExceeded()


def _silence_fds() -> None:
    """Point the child's stdin/stdout/stderr at /dev/null at the OS level (C-level prints, os.write(1, …))."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)


# --- confinement (seccomp + Landlock), installed in the child just before untrusted code runs ---------------

_EPERM, _EACCES, _ENOSYS = 1, 13, 38
_SECCOMP_ALLOW = 0x7FFF0000
_SECCOMP_ERRNO = 0x00050000
_AUDIT_ARCH_X86_64 = 0xC000003E
_CLONE_THREAD = 0x00010000
_SIG_TIMERS = (14, 24, 26, 27)  # SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF: the child's time limits
_PR_SET_PDEATHSIG, _PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 1, 38, 22, 2

# x86-64 system call numbers (asm/unistd_64.h)
_NR = dict(read=0, write=1, open=2, mmap=9, munmap=11, brk=12, rt_sigaction=13, rt_sigreturn=15, setitimer=38,
           socket=41, clone=56, fork=57, vfork=58, execve=59, kill=62, truncate=76, rename=82, mkdir=83, rmdir=84,
           creat=85, link=86, unlink=87, symlink=88, chmod=90, chown=92, lchown=94, ptrace=101, syslog=103,
           setpgid=109, setsid=112, rt_sigqueueinfo=129, utime=132, mknod=133, setpriority=141, pivot_root=155,
           adjtimex=159, setrlimit=160, chroot=161, acct=163, settimeofday=164, mount=165, umount2=166,
           swapon=167, swapoff=168, reboot=169, sethostname=170, setdomainname=171, iopl=172, ioperm=173,
           init_module=175, delete_module=176, quotactl=179, setxattr=188, lsetxattr=189, removexattr=197,
           lremovexattr=198, tkill=200, clock_settime=227, tgkill=234, utimes=235, kexec_load=246, add_key=248,
           request_key=249, keyctl=250, openat=257, mkdirat=258, mknodat=259, fchownat=260, futimesat=261,
           unlinkat=263, renameat=264, linkat=265, symlinkat=266, fchmodat=268, unshare=272, utimensat=280,
           rt_tgsigqueueinfo=297, perf_event_open=298, fanotify_init=300, prlimit64=302, name_to_handle_at=303,
           open_by_handle_at=304, clock_adjtime=305, setns=308, process_vm_readv=310, process_vm_writev=311,
           kcmp=312, finit_module=313, renameat2=316, kexec_file_load=320, bpf=321, execveat=322,
           userfaultfd=323, process_madvise=440, pidfd_send_signal=424, io_uring_setup=425, io_uring_enter=426,
           io_uring_register=427, open_tree=428, move_mount=429, fsopen=430, fsconfig=431, fsmount=432,
           fspick=433, pidfd_open=434, clone3=435, openat2=437, pidfd_getfd=438, mount_setattr=442,
           fchmodat2=452)
_FAST_ALLOW = ("setitimer", "read", "write", "rt_sigreturn", "brk", "mmap", "munmap")
_ALWAYS_DENY = ("fork", "vfork", "execve", "execveat", "ptrace", "process_vm_readv", "process_vm_writev",
                "setsid", "setpgid", "pidfd_send_signal", "pidfd_open", "pidfd_getfd", "socket", "mount",
                "umount2", "pivot_root", "chroot", "reboot", "swapon", "swapoff", "sethostname", "setdomainname",
                "init_module", "delete_module", "finit_module", "kexec_load", "kexec_file_load", "unshare",
                "setns", "bpf", "perf_event_open", "io_uring_setup", "io_uring_enter", "io_uring_register",
                "keyctl", "add_key", "request_key", "open_by_handle_at", "name_to_handle_at", "userfaultfd",
                "settimeofday", "clock_settime", "adjtimex", "clock_adjtime", "iopl", "ioperm", "syslog", "acct",
                "quotactl", "setpriority", "kcmp", "fanotify_init", "open_tree", "move_mount", "fsopen",
                "fsconfig", "fsmount", "fspick", "mount_setattr", "process_madvise")
# without Landlock: no call that changes the file system by path (writes inside the temp dir fail too)
_FS_DENY = ("truncate", "rename", "mkdir", "rmdir", "creat", "link", "unlink", "symlink", "chmod", "chown",
            "lchown", "utime", "mknod", "setxattr", "lsetxattr", "removexattr", "lremovexattr", "utimes",
            "mkdirat", "mknodat", "fchownat", "futimesat", "unlinkat", "renameat", "linkat", "symlinkat",
            "fchmodat", "utimensat", "renameat2", "fchmodat2")
_O_WRITE = 0o1 | 0o2 | 0o100 | 0o1000 | 0o2000  # O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND

_LIBC: Any = None


def _libc() -> Any:
    """libc through ctypes, loaded once in the parent (so that each child needs no import)."""
    global _LIBC
    if _LIBC is None:
        import ctypes

        lib = ctypes.CDLL(None, use_errno=True)
        lib.syscall.restype = ctypes.c_long
        lib.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
        _LIBC = (ctypes, lib)
    return _LIBC


def _seccomp_program(pid: int, strict: bool, fs_deny: bool) -> bytes:
    """Classic BPF for SECCOMP_MODE_FILTER (struct sock_filter = <HBBI>)."""
    ins: list[tuple[int, int, int, int]] = []
    ld = lambda off: ins.append((0x20, 0, 0, off))  # noqa: E731 - BPF_LD|BPF_W|BPF_ABS
    ret = lambda k: ins.append((0x06, 0, 0, k))  # noqa: E731 - BPF_RET|BPF_K

    def jeq(k: int, jt: int, jf: int) -> None:
        ins.append((0x15, jt, jf, k & 0xFFFFFFFF))

    deny, eacces = _SECCOMP_ERRNO | _EPERM, _SECCOMP_ERRNO | _EACCES
    ld(4)  # arch
    jeq(_AUDIT_ARCH_X86_64, 1, 0)
    ret(deny)
    ld(0)  # syscall number
    ins.append((0x35, 0, 1, 0x40000000))  # BPF_JGE: the x32 ABI
    ret(deny)
    for name in _FAST_ALLOW:
        jeq(_NR[name], 0, 1)
        ret(_SECCOMP_ALLOW)
    for name in _ALWAYS_DENY + (_FS_DENY if fs_deny else ()):
        jeq(_NR[name], 0, 1)
        ret(eacces if name == "socket" else deny)
    jeq(_NR["clone3"], 0, 1)
    ret(_SECCOMP_ERRNO | _ENOSYS)  # its flags sit behind a pointer; libc falls back to clone
    # clone: threads only
    jeq(_NR["clone"], 0, 4)
    ld(16)
    ins.append((0x45, 1, 0, _CLONE_THREAD))  # BPF_JSET
    ret(deny)
    ret(_SECCOMP_ALLOW)
    # signals: only to itself (pid, its own group 0 / -pid); kill(-1, …) would reach every process
    jeq(_NR["kill"], 0, 6)
    ld(16)
    jeq(pid, 3, 0)
    jeq(0, 2, 0)
    jeq(-pid, 1, 0)
    ret(deny)
    ret(_SECCOMP_ALLOW)
    for name in ("tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
        jeq(_NR[name], 0, 4)
        ld(16)
        jeq(pid, 1, 0)
        ret(deny)
        ret(_SECCOMP_ALLOW)
    if strict:
        jeq(_NR["setrlimit"], 0, 1)
        ret(deny)
        # prlimit64(pid, resource, new, old): reading is fine, setting is not
        jeq(_NR["prlimit64"], 0, 6)
        ld(32)
        jeq(0, 0, 2)
        ld(36)
        jeq(0, 1, 0)
        ret(deny)
        ret(_SECCOMP_ALLOW)
        # the handlers of the time-limit signals stay ours
        jeq(_NR["rt_sigaction"], 0, 3 + len(_SIG_TIMERS))
        ld(16)
        for k, sig in enumerate(_SIG_TIMERS):
            jeq(sig, len(_SIG_TIMERS) - k, 0)
        ret(_SECCOMP_ALLOW)
        ret(deny)
    if fs_deny:
        jeq(_NR["creat"], 0, 1)
        ret(eacces)
        for name, off in (("open", 24), ("openat", 32)):
            jeq(_NR[name], 0, 4)
            ld(off)
            ins.append((0x45, 0, 1, _O_WRITE))
            ret(eacces)
            ret(_SECCOMP_ALLOW)
        jeq(_NR["openat2"], 0, 1)
        ret(_SECCOMP_ERRNO | _ENOSYS)
    ret(_SECCOMP_ALLOW)
    return b"".join(struct.pack("<HBBI", *i) for i in ins)


_LANDLOCK_CREATE_RULESET, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT_SELF = 444, 445, 446
_PID_MARK = 0x7A7A7A7A  # placeholder for the child's pid in the prepared filters

# Prepared once per process (the worker), so that the forked child only patches its pid in and makes two
# prctl calls: everything the child touches first costs a copy-on-write page fault, and there are ~12,000
# children per benchmark. Key (strict, fs_deny) → (buffer, sock_fprog, offsets of pid, offsets of -pid).
_FILTERS: dict[tuple[bool, bool], tuple] = {}
_LANDLOCK_ABI: list = []  # [abi] once probed


_X86_64 = os.uname().machine == "x86_64"


def _filter(strict: bool, fs_deny: bool) -> Optional[tuple]:
    if not _X86_64:
        return None
    key = (strict, fs_deny)
    if key not in _FILTERS:
        ctypes, _ = _libc()
        prog = _seccomp_program(_PID_MARK, strict, fs_deny)
        pos = [i * 8 + 4 for i in range(len(prog) // 8) if struct.unpack_from("<I", prog, i * 8 + 4)[0] == _PID_MARK]
        neg = [i * 8 + 4 for i in range(len(prog) // 8)
               if struct.unpack_from("<I", prog, i * 8 + 4)[0] == (-_PID_MARK) & 0xFFFFFFFF]
        buf = ctypes.create_string_buffer(prog, len(prog))

        class _SockFprog(ctypes.Structure):
            _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

        _FILTERS[key] = (buf, _SockFprog(len(prog) // 8, ctypes.addressof(buf)), pos, neg)
    return _FILTERS[key]


def _landlock_abi() -> int:
    if not _LANDLOCK_ABI:
        try:
            ctypes, lib = _libc()
            _LANDLOCK_ABI.append(int(lib.syscall(_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                                                 ctypes.c_uint32(1))))
        except Exception:  # noqa: BLE001
            _LANDLOCK_ABI.append(-1)
    return _LANDLOCK_ABI[0]


def _landlock_ruleset(writable_dir: str) -> int:
    """A Landlock ruleset (fd; -1 where unsupported): writes only below ``writable_dir``; no TCP; no signals
    or abstract sockets outside the sandbox (as far as the kernel's ABI goes). Made in the parent."""
    abi = _landlock_abi()
    if abi < 1:
        return -1
    ctypes, lib = _libc()
    fs = (1 << 1) | (1 << 4) | (1 << 5) | sum(1 << b for b in range(6, 13))  # write, remove, make_*
    if abi >= 2:
        fs |= 1 << 13  # refer
    if abi >= 3:
        fs |= 1 << 14  # truncate
    net = 0b11 if abi >= 4 else 0  # bind/connect TCP
    scoped = 0b11 if abi >= 6 else 0  # abstract unix sockets, signals
    attr = struct.pack("<QQQ", fs, net, scoped)[: 8 if abi < 4 else 16 if abi < 6 else 24]
    rs = int(lib.syscall(_LANDLOCK_CREATE_RULESET, ctypes.c_char_p(attr), ctypes.c_size_t(len(attr)),
                         ctypes.c_uint32(0)))
    if rs < 0:
        return -1
    try:
        dfd = os.open(writable_dir, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            rule = struct.pack("<Qi", fs, dfd)
            if lib.syscall(_LANDLOCK_ADD_RULE, ctypes.c_int(rs), ctypes.c_int(1), ctypes.c_char_p(rule),
                           ctypes.c_uint32(0)) != 0:
                os.close(rs)
                return -1
        finally:
            os.close(dfd)
    except OSError:
        os.close(rs)
        return -1
    return rs


def _apply_confinement(ruleset: int, strict: bool, fs_deny_if_no_landlock: bool) -> dict[str, bool]:
    """In the child: enforce the prepared Landlock ruleset and seccomp filter; which pieces took effect."""
    done = {"landlock": False, "seccomp": False}
    try:
        ctypes, lib = _libc()
        lib.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        if ruleset >= 0:
            done["landlock"] = lib.syscall(_LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) == 0
        prepared = _filter(strict, fs_deny_if_no_landlock and not done["landlock"])
        if prepared is not None:
            buf, fprog, pos, neg = prepared
            pid = os.getpid()
            for off in pos:
                struct.pack_into("<I", buf, off, pid)
            for off in neg:
                struct.pack_into("<I", buf, off, (-pid) & 0xFFFFFFFF)
            done["seccomp"] = lib.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0) == 0
    except Exception:  # noqa: BLE001 - no ctypes / not Linux: the Python-level guard is all there is
        pass
    return done


def _prepare_confinement(writable_dir: Optional[str], strict: bool) -> int:
    """In the parent, before the fork: load libc, build the filters, make the Landlock ruleset (fd or -1)."""
    try:
        _libc()
        _filter(strict, False)
        if writable_dir is None:
            return -1
        rs = _landlock_ruleset(writable_dir)
        if rs < 0:
            _filter(strict, True)
        return rs
    except Exception:  # noqa: BLE001
        return -1


def _confine(writable_dir: Optional[str], strict: bool = True) -> dict[str, bool]:
    """Confine the calling process for good (prepare + apply in one go); returns which pieces took effect."""
    rs = _prepare_confinement(writable_dir, strict)
    try:
        return _apply_confinement(rs, strict, writable_dir is not None)
    finally:
        if rs >= 0:
            os.close(rs)


def _die_with_parent(parent: int) -> None:
    """SIGKILL this child when the worker that forked it dies (a killed run leaves no child behind)."""
    try:
        _, lib = _libc()
        lib.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except Exception:  # noqa: BLE001
        pass
    if os.getppid() != parent:  # the parent died before prctl
        os._exit(0)


def _close_inherited_fds(*keep: int) -> None:
    """Close every descriptor but 0-2 and ``keep``: the worker's protocol pipes must be out of reach."""
    lo = 3
    for fd in sorted(k for k in keep if k >= 3):
        os.closerange(lo, fd)
        lo = fd + 1
    os.closerange(lo, 1 << 20)


_EVALPLUS_UTILS: list = []

# Our own references to what ``reliability_guard`` sets to None, taken at import: a worker that forks test
# children applies the guard to itself once (``_guard_worker``) and must still fork, signal and chdir.
_fork, _kill, _killpg, _chdir = os.fork, os.kill, os.killpg, os.chdir


def evalplus_utils() -> types.ModuleType:
    """evalplus's ``evalplus/eval/utils.py`` (``reliability_guard``, ``swallow_io``, ``create_tempdir``).

    Imported normally when the ``evalplus.eval`` package is loaded already. Otherwise the file is loaded on its
    own: it needs only the standard library, whereas the package's ``__init__`` pulls in numpy and psutil.
    A worker that forks a child per program pays for every page of its own memory in each fork and exit
    (about 1.4 ms per program here, ~17 CPU-seconds over the CodeGen-16B benchmark), so it stays small."""
    loaded = sys.modules.get("evalplus.eval.utils")
    if loaded is not None:
        return loaded
    if not _EVALPLUS_UTILS:
        spec = importlib.util.find_spec("evalplus")
        path = os.path.join(os.path.dirname(spec.origin), "eval", "utils.py") if spec and spec.origin else ""
        if not os.path.isfile(path):
            import evalplus.eval.utils as mod  # an unusual layout: take the package route

            _EVALPLUS_UTILS.append(mod)
        else:
            file_spec = importlib.util.spec_from_file_location("coderank_evalplus._evalplus_eval_utils", path)
            mod = importlib.util.module_from_spec(file_spec)
            file_spec.loader.exec_module(mod)
            _EVALPLUS_UTILS.append(mod)
    return _EVALPLUS_UTILS[0]


_GUARDED_BUILTINS = ("open", "exit", "quit", "help")  # what reliability_guard sets to None in builtins
_BUILTINS_COPY: list = []


def _candidate_builtins() -> types.ModuleType:
    """A private ``builtins`` module for the candidates of this process, made once (each child has its own
    copy-on-write view of it, so what one candidate changes no other sees)."""
    if not _BUILTINS_COPY:
        mod = types.ModuleType("builtins")
        mod.__dict__.update(builtins.__dict__)
        _BUILTINS_COPY.append(mod)
    return _BUILTINS_COPY[0]


def _child_main(mm: mmap.mmap, program: str, code: Optional[Any], items: Sequence[tuple], order: Sequence[int],
                start: int, limits: Limits, mem_bytes: Optional[int], workdir: str, wfd: int, parent: int,
                known: dict, ruleset: int) -> None:  # pragma: no cover - child
    """Body of the child: guard, import the program, run items[order[start:]], record each result in ``mm``.

    ``code``: the program compiled by the worker (None: compile it here). ``known`` holds the results that
    earlier children of this program recorded (a check whose call timed out or crashed there is not run again)."""
    utils = evalplus_utils()
    swallow_io = utils.swallow_io

    pack_into, exit_ = _SLOT.pack_into, os._exit
    _die_with_parent(parent)
    os.setpgid(0, 0)
    _silence_fds()
    _close_inherited_fds(wfd, ruleset)
    _chdir(workdir)  # the worker made this temp dir and removes it after the child is gone (os._exit skips cleanup)
    n_items = len(order) - start
    budget = int(limits.import_cpu + n_items * limits.cpu * 1.5 + 2)
    resource.setrlimit(resource.RLIMIT_CPU, (budget, budget + 1))
    timer = _TIMER
    timer[4] = mm
    _install_timer_handlers()
    # own references: candidates may patch the modules (the import's limit is ITIMER_PROF: once per child)
    setitimer, prof, real_timer = signal.setitimer, signal.ITIMER_PROF, signal.ITIMER_REAL
    values: dict[int, tuple[int, Any]] = {}
    if not (_LIFT and _LIFT[2] == mem_bytes):  # else the worker applied this very guard to itself before forking
        utils.reliability_guard(maximum_memory_bytes=mem_bytes)
    _apply_confinement(ruleset, True, True)
    if ruleset >= 0:
        os.close(ruleset)
    # The candidate gets its own copy of the builtins (``import builtins`` included): replacing ``print``,
    # ``isinstance`` or ``__import__`` there changes nothing for the harness code that runs between its calls.
    # The copy was made in the parent (``_candidate_builtins``); the names the guard disabled are copied over.
    own_builtins = _candidate_builtins()
    own = own_builtins.__dict__
    real = builtins.__dict__
    for name in _GUARDED_BUILTINS:
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
        _HEADER.pack_into(mm, 0, 0, TIMEOUT, _TIMEOUT_DIGEST)
        exit_(0)
    except BaseException as exc:  # noqa: BLE001 - any failure of untrusted code is a result
        _HEADER.pack_into(mm, 0, 0, ERROR, digest_text("import:" + exc.__class__.__name__))
        exit_(0)
    _HEADER.pack_into(mm, 0, 0, PASS, 0)

    def call_value(i: int) -> tuple[int, Any]:
        if i not in values:
            prev = known.get(i)
            if prev is not None and prev[0] != RETURNED:
                values[i] = (prev[0], None)  # timed out or crashed in an earlier child: do not run it again
                return values[i]
            try:
                values[i] = (RETURNED, eval(items[i][1], env))
            except _TimeLimitExceeded:
                values[i] = (TIMED_OUT, None)  # a check on this call must not re-run the loop
                raise
            except BaseException as exc:  # noqa: BLE001
                values[i] = (RAISED, exc)
        return values[i]

    # All tests run inside one evalplus ``swallow_io`` (entering it per test cost ~12 µs, ~13 CPU-seconds over
    # the CodeGen-16B matrix). Each test still starts as it would in a fresh one: the swallowed streams back in
    # place (the candidate may have replaced or closed them) and empty.
    held = [swallow_io()]  # held: a context manager that is collected would put the old streams back
    held[-1].__enter__()
    stream = sys.stdout
    cpu = limits.cpu
    refire = timer[6] = max(cpu / 2, 0.01)
    for pos in range(start, len(order)):
        idx = order[pos]
        item = items[idx]
        kind = item[0]
        status, dig = ERROR, 0
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
        timer[2], timer[3] = (TIMED_OUT, _TIMEOUT_DIGEST) if kind == "call" else (TIMEOUT, 0)
        try:
            # two system calls per test: the timer is re-armed here by the next test, stopped only if it fired
            timer[5] = _cpu_now() + cpu
            setitimer(real_timer, cpu, refire)
            try:
                if kind == "call":
                    rk, val = call_value(idx)
                    if rk == RETURNED:
                        status, dig = RETURNED, digest_value(val)
                    else:
                        status, dig = RAISED, digest_text("exc:" + val.__class__.__name__)
                elif kind == "check":
                    rk, val = call_value(item[1])
                    if rk == TIMED_OUT:
                        raise _TimeLimitExceeded()
                    if rk != RETURNED:
                        status = ERROR
                    else:
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
                    exec(item[1], env)
                    status = PASS
            finally:
                timer[5] = 0.0
                if timer[1]:
                    setitimer(real_timer, 0)
        except _TimeLimitExceeded:
            status = TIMED_OUT if kind == "call" else TIMEOUT
            dig = _TIMEOUT_DIGEST if kind == "call" else 0
        except AssertionError:
            status = FAIL
        except BaseException as exc:  # noqa: BLE001
            status = ERROR
            if kind == "call":
                status, dig = RAISED, digest_text("exc:" + exc.__class__.__name__)
        pack_into(mm, _HEADER.size + pos * _SLOT.size, 1, status, dig)
    exit_(0)


def _install_timer_handlers() -> None:
    """SIGPROF / SIGALRM raise the timeout; set in the worker once (its children inherit the handlers, so
    that each child saves ~0.15 ms), and in a child forked from anywhere else."""
    if signal.getsignal(signal.SIGPROF) is not _raise_timeout or signal.getsignal(signal.SIGALRM) is not _raise_timeout:
        signal.signal(signal.SIGPROF, _raise_timeout)
        signal.signal(signal.SIGALRM, _raise_timeout)


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
    for sig_target in (lambda: _killpg(pid, signal.SIGKILL), lambda: _kill(pid, signal.SIGKILL)):
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
    pid = _fork()
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


def _workdir() -> tuple[str, int]:
    """This process's children's working dir and its ruleset (fd, -1 without Landlock); made when missing."""
    if not _WORKDIR:
        with _guard_lifted():
            path = tempfile.mkdtemp(prefix="coderank_")
            st = os.lstat(path)
            _WORKDIR[:] = [path, _prepare_confinement(path, strict=True), (st.st_dev, st.st_ino, st.st_mode)]
    return _WORKDIR[0], _WORKDIR[1]


def _drop_workdir() -> None:
    if _WORKDIR:
        path, ruleset, _ = _WORKDIR
        _WORKDIR.clear()
        if ruleset >= 0:
            os.close(ruleset)
        with _guard_lifted():
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
    code, syntax_error = _precompile(program)
    if syntax_error is not None:  # what the child's import would record, without the child
        _fail_every_item(results, items, order, ERROR, digest_text("import:" + syntax_error))
        return False, results
    mm = mmap.mmap(-1, _HEADER.size + max(n, 1) * _SLOT.size)
    _candidate_builtins()
    start = 0
    imported = True

    try:
        while True:
            _HEADER.pack_into(mm, 0, 0, 255, 0)
            workdir, ruleset = _workdir()
            pid, rfd = _fork_child(lambda wfd, parent: _child_main(
                mm, program, code, citems, order, start, limits, mem_bytes, workdir, wfd, parent, results, ruleset),
                ruleset, keep_ruleset=True)
            try:
                finished = _watch(rfd, pid, lambda: _progress(mm, start, n), limits.import_wall + 0.5,
                                  limits.wall + 0.5)
            finally:
                _end_child(pid, rfd)
                _reset_workdir()
            flag, imp_status, imp_digest = _HEADER.unpack_from(mm, 0)
            for p in range(start, n):
                written, st, dg = _SLOT.unpack_from(mm, _HEADER.size + p * _SLOT.size)
                if written == 1:
                    results[order[p]] = (st, dg)
            if imp_status != PASS:
                # the program never got past its own top level: every remaining test fails the same way
                if imp_status == 255:
                    imp_status, imp_digest = (ERROR, digest_text("crash")) if finished else (TIMEOUT, digest_text("timeout"))
                _fail_every_item(results, items, order[start:], imp_status, imp_digest)
                imported = False
                break
            # the first item without a result is the one the child died in
            nxt = next((p for p in range(start, n) if order[p] not in results), n)
            if nxt >= n:
                break
            if finished and flag == _LEFT_ON_PURPOSE:  # it recorded the item it gave up on; go on after it
                start = nxt
                continue
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


def run_function_in_child(target: Callable[[], bytes], wall_timeout: float, cpu_budget: Optional[int] = None,
                          writable_dir: Optional[str] = None) -> Optional[bytes]:
    """Fork, run ``target()`` in a guarded child and return the bytes it produced (None if it died or hung).

    The child is confined like a test child (no fork, exec, signals to others, sockets), except that
    ``target`` may still set its own limits and timer handlers (evalplus's ``unsafe_execute`` does); file
    writes are limited to ``writable_dir`` when it is given."""
    ruleset = _prepare_confinement(writable_dir, strict=False)

    def body(wfd: int, parent: int) -> None:  # pragma: no cover - child
        _die_with_parent(parent)
        os.setpgid(0, 0)
        _silence_fds()
        _close_inherited_fds(wfd, ruleset)
        if cpu_budget is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_budget, cpu_budget + 1))
        _apply_confinement(ruleset, False, writable_dir is not None)
        data = target()
        os.write(wfd, struct.pack("<I", len(data)) + data)

    pid, rfd = _fork_child(body, ruleset)
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


# --- worker side: jobs that a coderank_evalplus.workers interpreter runs ---------------------------------

_WORKER_STATE: dict = {}


def _freeze_heap() -> None:
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
        _libc()[1].malloc_trim(0)
    except Exception:  # noqa: BLE001 - not glibc: nothing to trim
        pass


def _guard_worker(mem: Optional[int]) -> None:
    """Apply evalplus's ``reliability_guard`` to this worker itself, once, so that its children inherit it.

    Guarding each child cost ~1 ms of copy-on-write page faults (~12 CPU-seconds over the CodeGen-16B matrix);
    the guard is the same for every child, so it is applied where they are forked from. What the guard
    replaces is remembered, so that the worker's own chores can lift it for a moment (``_guard_lifted``); the
    worker's own fork/kill/chdir use references taken at import."""
    import subprocess

    utils = evalplus_utils()
    watched = (os, shutil, subprocess, builtins)
    before = [dict(vars(mod)) for mod in watched]
    modules_before = dict(sys.modules)
    utils.reliability_guard(maximum_memory_bytes=mem)
    changed = []
    for mod, old in zip(watched, before):
        for name, value in old.items():
            if vars(mod).get(name, value) is not value:
                changed.append((mod, name, value))
    dropped = {k: modules_before[k] for k, v in sys.modules.items()
               if v is None and modules_before.get(k) is not None}
    _LIFT[:] = [changed, dropped, mem]
    own = _candidate_builtins().__dict__  # the candidates' builtins lose what the guard took away, as in a child
    for name in _GUARDED_BUILTINS:
        own[name] = builtins.__dict__.get(name)


# Set once the worker guarded itself: [(module, name, original value) the guard replaced, {module name: original}
# the guard set to None in sys.modules, memory cap of the guard]; its children skip a guard with the same cap.
_LIFT: list = []


class _guard_lifted:
    """``with _guard_lifted():`` the worker's guard is off inside (importing numpy needs ``os.putenv``, cleaning
    the temp dir ``os.unlink``); a no-op where the worker is not guarded. Never around a fork."""

    def __enter__(self) -> None:
        if _LIFT:
            changed, dropped, _ = _LIFT
            for mod, name, value in changed:
                setattr(mod, name, value)
            for name, module in dropped.items():
                sys.modules[name] = module

    def __exit__(self, *exc) -> None:
        if _LIFT:
            evalplus_utils().reliability_guard(maximum_memory_bytes=_LIFT[2])


def _warm_worker(mem: Optional[int]) -> None:
    """First job in a worker: load what every child needs, so that no child loads it again; guard the worker."""
    import multiprocessing  # noqa: F401 - cannot be imported under the guard; evalplus's own judge has it loaded
    import platform
    import subprocess  # noqa: F401 - reliability_guard imports it

    evalplus_utils()
    platform.uname()  # cached: reliability_guard calls it
    _candidate_builtins()
    _workdir()
    _filter(True, True)
    _install_timer_handlers()  # never fire here: the worker arms no timer
    _guard_worker(mem)
    _freeze_heap()
    _WORKER_STATE["compiled"] = {}


def worker_run(job: tuple) -> tuple:
    """Run one program on its test items (a worker job from ``coderank_evalplus.execution``).

    ``preload_numpy``: the program imports numpy or a library on top of it; the worker imports numpy once
    (before forking), so that such children do not each spend ~0.2 CPU-seconds on it."""
    p_idx, row, program, items_key, items, todo, limits, mem, preload_numpy = job
    if not _WORKER_STATE:
        _warm_worker(mem)
    if preload_numpy and "numpy" not in sys.modules:
        with _guard_lifted():
            import numpy  # noqa: F401
        _freeze_heap()
    compiled = _WORKER_STATE["compiled"]
    if items_key not in compiled:
        # Few tasks' tests at a time: jobs come grouped by task, and every page kept here is paid per fork.
        if len(compiled) >= 2:
            compiled.clear()
            _trim_heap()
        compiled[items_key] = compile_items(items)
    imported, results = run_program(program, items, limits, mem, compiled_items=compiled[items_key], todo=todo)
    return p_idx, row, imported, results
