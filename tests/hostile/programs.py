"""Hostile candidate programs (data): each defines ``add(a, b)`` for the suite in ``test_hostile.py``.

Every entry: name, source, the outcomes its three ``add(...) == …`` asserts may get, what it attacks.
Tokens replaced before the run: ``@CANARY_DIR@`` / ``@CANARY_FILE@`` (a folder outside the sandbox's temp
dir that must stay untouched), ``@TMP_TARGET@`` (a path in the shared /tmp that must not appear),
``@PORT@`` (a loopback TCP port and ``@UDP_PORT@`` a UDP one, where the test listens for connections that
must not arrive). The normal path of each program returns a wrong value, so a failed attack still fails.
"""

from __future__ import annotations

from dataclasses import dataclass

from coderank_evalplus.types import ERROR, FAIL, TIMEOUT


@dataclass(frozen=True)
class Hostile:
    name: str
    source: str
    expected: frozenset  # outcome codes allowed for every assert
    attack: str


def H(name: str, source: str, *expected: int, attack: str = "") -> Hostile:
    return Hostile(name, source.strip("\n") + "\n", frozenset(expected), attack)


PROGRAMS = [
    # --- time -------------------------------------------------------------------------------------------------
    H("infinite_loop", """
def add(a, b):
    while True:
        pass
""", TIMEOUT, attack="CPU loop in the call"),
    H("infinite_loop_at_import", """
while True:
    pass
def add(a, b):
    return a + b
""", TIMEOUT, attack="CPU loop at top level"),
    H("sleep_forever", """
import time
def add(a, b):
    time.sleep(10 ** 6)
""", TIMEOUT, attack="blocks without using CPU (wall-clock stall limit)"),
    H("swallow_timeout", """
def add(a, b):
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass
""", TIMEOUT, attack="except BaseException around the loop, forever"),
    H("patch_signal_and_time", """
import signal, time
signal.setitimer = lambda *a, **k: None
signal.signal = lambda *a, **k: None
signal.alarm = lambda *a: None
time.time = lambda: 0.0
time.monotonic = lambda: 0.0
def add(a, b):
    while True:
        pass
""", TIMEOUT, attack="replaces the timer functions in the modules"),
    H("ignore_sigprof", """
import signal
def add(a, b):
    signal.signal(signal.SIGPROF, signal.SIG_IGN)
    while True:
        pass
""", ERROR, TIMEOUT, attack="ignores the CPU-timer signal (refused by seccomp; else the stall limit)"),
    H("disarm_itimer", """
import signal
def add(a, b):
    signal.setitimer(signal.ITIMER_PROF, 0)
    while True:
        pass
""", TIMEOUT, attack="switches the CPU timer off, then loops"),
    H("disarm_wall_timer", """
import signal
def add(a, b):
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.alarm(0)
    while True:
        pass
""", TIMEOUT, attack="switches the per-test timer (ITIMER_REAL) off, then loops: the worker's stall limit"),
    H("stop_self", """
import posix
def add(a, b):
    posix.kill(posix.getpid(), 19)
    return None
""", TIMEOUT, attack="SIGSTOP to itself"),
    # --- stack and memory -------------------------------------------------------------------------------
    H("deep_recursion", """
def add(a, b):
    return add(a, b) + 1
""", ERROR, attack="unbounded recursion (RecursionError)"),
    H("deep_recursion_no_limit", """
import sys
sys.setrecursionlimit(10 ** 8)
def add(a, b):
    return add(a, b) + 1
""", ERROR, TIMEOUT, attack="recursion limit lifted: C stack overflow or memory cap"),
    H("memory_one_big", """
def add(a, b):
    block = bytearray(1 << 40)
    return None
""", ERROR, attack="one 1 TiB allocation"),
    H("memory_slow_growth", """
def add(a, b):
    hoard = []
    while True:
        hoard.append(bytearray(1 << 20))
""", ERROR, TIMEOUT, attack="grows 1 MiB at a time until the cap"),
    H("thread_bomb", """
import threading, time
def add(a, b):
    for _ in range(100000):
        threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()
    return None
""", ERROR, TIMEOUT, attack="thousands of sleeping threads"),
    H("segfault", """
import ctypes
def add(a, b):
    ctypes.memset(0, 1, 16)
    return None
""", ERROR, attack="writes through a NULL pointer (SIGSEGV)"),
    # --- processes ----------------------------------------------------------------------------------------
    H("fork_bomb_posix", """
import posix
def add(a, b):
    while True:
        posix.fork()
""", ERROR, attack="posix.fork in a loop (os.fork is None)"),
    H("fork_bomb_ctypes", """
import ctypes
libc = ctypes.CDLL(None)
def add(a, b):
    for _ in range(2000):
        libc.fork()
    return None
""", FAIL, attack="fork(2) through ctypes, return value ignored"),
    H("os_system", """
import os
def add(a, b):
    os.system("touch @TMP_TARGET@")
    return None
""", ERROR, attack="os.system (None after reliability_guard)"),
    H("posix_system", """
import posix
def add(a, b):
    if posix.system("touch @TMP_TARGET@; rm -rf @CANARY_DIR@") != 0:
        raise OSError("no shell")
    return None
""", ERROR, attack="posix.system, which the guard leaves in place"),
    H("subprocess_run", """
import subprocess
def add(a, b):
    subprocess.run(["rm", "-rf", "@CANARY_DIR@"])
    return None
""", ERROR, attack="subprocess (Popen is None)"),
    H("posix_spawn", """
import posix
def add(a, b):
    posix.posix_spawn("/bin/sh", ["sh", "-c", "touch @TMP_TARGET@"], {})
    return None
""", ERROR, attack="posix_spawn"),
    H("execv", """
import posix
def add(a, b):
    posix.execv("/bin/sh", ["sh", "-c", "touch @TMP_TARGET@"])
""", ERROR, attack="replaces the child with a shell"),
    H("setsid_daemon", """
import posix
def add(a, b):
    posix.setsid()
    if posix.fork() == 0:
        import time
        time.sleep(1000)
    return None
""", ERROR, attack="new session + fork: would escape the process-group kill"),
    # --- signals to others ------------------------------------------------------------------------------
    H("kill_parent", """
import os, posix
def add(a, b):
    posix.kill(os.getppid(), 9)
    return None
""", ERROR, attack="SIGKILL to its worker"),
    H("kill_parent_group", """
import os, posix
def add(a, b):
    posix.killpg(os.getpgid(os.getppid()), 9)
    return None
""", ERROR, attack="SIGKILL to the worker's process group (the test run)"),
    H("kill_everyone_probe", """
import posix
def add(a, b):
    posix.kill(-1, 0)
    return None
""", ERROR, attack="kill(-1, …) permission probe (signal 0: harmless even if allowed)"),
    H("kill_own_group", """
import posix
def add(a, b):
    posix.kill(0, 9)
""", ERROR, attack="SIGKILL to its own group (only itself)"),
    H("exit_at_import", """
import os
os._exit(0)
def add(a, b):
    return a + b
""", ERROR, attack="os._exit at top level"),
    # --- exits and control-flow exceptions --------------------------------------------------------------
    H("sys_exit", """
import sys
def add(a, b):
    sys.exit(0)
""", ERROR, attack="sys.exit in the call"),
    H("os_exit", """
import os
def add(a, b):
    os._exit(3)
""", ERROR, attack="os._exit in the call"),
    H("raise_systemexit", """
def add(a, b):
    raise SystemExit(0)
""", ERROR, attack="SystemExit"),
    H("raise_keyboardinterrupt", """
def add(a, b):
    raise KeyboardInterrupt
""", ERROR, attack="KeyboardInterrupt"),
    # --- files --------------------------------------------------------------------------------------------
    H("delete_outside", """
import posix
def add(a, b):
    posix.unlink("@CANARY_FILE@")
    return None
""", ERROR, attack="unlink outside the temp dir"),
    H("rmtree_outside", """
import shutil, posix
def add(a, b):
    for name in posix.listdir("@CANARY_DIR@"):
        posix.unlink("@CANARY_DIR@/" + name)
    posix.rmdir("@CANARY_DIR@")
    return None
""", ERROR, attack="empties and removes a folder"),
    H("write_outside", """
import io
def add(a, b):
    with io.open("@CANARY_FILE@", "w") as fh:
        fh.write("pwned")
    return None
""", ERROR, attack="overwrites a file outside"),
    H("write_shared_tmp", """
import io
def add(a, b):
    with io.open("@TMP_TARGET@", "w") as fh:
        fh.write("pwned")
    return None
""", ERROR, attack="creates a file in the shared /tmp"),
    H("chdir_up_and_write", """
import posix, io
def add(a, b):
    posix.chdir("@CANARY_DIR@")
    io.open("new_file", "w").close()
    return None
""", ERROR, attack="chdir out of the temp dir, then write"),
    H("rename_outside", """
import posix
def add(a, b):
    posix.rename("@CANARY_FILE@", "@CANARY_FILE@.moved")
    return None
""", ERROR, attack="rename outside"),
    # --- standard streams ---------------------------------------------------------------------------------
    H("close_std_fds", """
import os, sys
def add(a, b):
    os.close(0); os.close(1); os.close(2)
    sys.stdout.close()
    return None
""", FAIL, ERROR, attack="closes fds 0-2 and sys.stdout"),
    H("redirect_stdout", """
import io, sys
sys.stdout = io.StringIO()
sys.stderr = None
def add(a, b):
    print("hello")
    return None
""", FAIL, attack="replaces sys.stdout / sys.stderr"),
    H("print_megabytes", """
import os
def add(a, b):
    print("x" * 10 ** 7)
    os.write(1, b"y" * 10 ** 7)
    os.write(2, b"z" * 10 ** 6)
    return None
""", FAIL, attack="prints 20 MB"),
    H("read_stdin", """
import sys
def add(a, b):
    return int(sys.stdin.read())
""", ERROR, attack="reads stdin"),
    H("read_stdin_fd", """
import os
def add(a, b):
    return os.read(0, 100)
""", FAIL, attack="reads fd 0 (/dev/null)"),
    H("write_inherited_fds", """
import os
def add(a, b):
    for fd in range(3, 256):
        try:
            os.write(fd, b"\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x10garbage")
        except OSError:
            pass
    return None
""", FAIL, attack="writes garbage into every fd it may have inherited (the worker protocol)"),
    # --- the interpreter ----------------------------------------------------------------------------------
    H("replace_builtins", """
import builtins
builtins.print = None
builtins.open = None
builtins.isinstance = None
builtins.repr = None
builtins.len = None
builtins.str = None
builtins.type = None
def add(a, b):
    builtins.__import__ = None
    return a + b + 1
""", FAIL, attack="replaces print/open/__import__ and the builtins the harness uses"),
    H("patch_hashlib", """
import hashlib, struct, math
hashlib.blake2b = None
math.isfinite = None
def add(a, b):
    return [a + b]
""", FAIL, attack="patches modules the harness uses to digest results"),
    # --- returned values ----------------------------------------------------------------------------------
    # (issue 25: a check compares plain values only, outside the child; anything else is not compared: ERROR)
    H("unpicklable_value", """
import threading
def add(a, b):
    return threading.Lock()
""", ERROR, attack="returns a lock (not a plain value: not compared)"),
    H("self_referential", """
def add(a, b):
    x = [a + b]
    x.append(x)
    d = {}
    d["d"] = d
    x.append(d)
    return x
""", ERROR, attack="returns cyclic containers (not a plain value: not compared)"),
    H("enormous_value", """
def add(a, b):
    return "x" * (300 * 10 ** 6)
""", FAIL, ERROR, TIMEOUT, attack="returns a 300 MB string"),
    H("huge_int", """
def add(a, b):
    return 7 ** 200000
""", FAIL, attack="returns an int too long for str()"),
    H("generator", """
def add(a, b):
    yield a + b
""", ERROR, attack="returns a generator (not a plain value: not compared)"),
    H("hostile_eq_loops", """
class E:
    def __eq__(self, other):
        while True:
            pass
def add(a, b):
    return E()
""", ERROR, attack="__eq__ never returns (never called: not a plain value)"),
    H("hostile_eq_raises", """
class E:
    def __eq__(self, other):
        raise SystemExit(1)
def add(a, b):
    return E()
""", ERROR, attack="__eq__ raises SystemExit"),
    H("hostile_hash", """
class E:
    def __hash__(self):
        while True:
            pass
    def __eq__(self, other):
        return {self: 1} == other
def add(a, b):
    return E()
""", ERROR, attack="__hash__ never returns (called from __eq__, which is never called)"),
    H("hostile_repr", """
class E:
    def __repr__(self):
        raise KeyboardInterrupt
    def __eq__(self, other):
        return False
def add(a, b):
    return E()
""", ERROR, attack="__repr__ raises KeyboardInterrupt (the digest uses repr)"),
    H("hostile_repr_loops", """
class E:
    def __repr__(self):
        while True:
            pass
def add(a, b):
    return E()
""", TIMEOUT, attack="__repr__ never returns (the digest, taken within the call's limit)"),
    H("hostile_bool", """
class E:
    def __bool__(self):
        raise SystemExit
    def __eq__(self, other):
        return self
def add(a, b):
    return E()
""", ERROR, attack="__eq__ returns an object whose __bool__ raises"),
    # --- network ------------------------------------------------------------------------------------------
    H("network_tcp", """
import socket
def add(a, b):
    s = socket.create_connection(("127.0.0.1", @PORT@), timeout=2)
    s.sendall(b"pwned")
    return None
""", ERROR, attack="TCP connect to a loopback listener"),
    H("network_udp", """
import socket
def add(a, b):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"pwned", ("127.0.0.1", @UDP_PORT@))
    return None
""", ERROR, attack="UDP datagram to loopback"),
    H("network_raw_syscall", """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
def add(a, b):
    fd = libc.socket(2, 1, 0)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "socket refused")
    return None
""", ERROR, attack="socket(2) through ctypes"),
]

GOOD = "def add(a, b):\n    return a + b\n"
# writes only inside its own temp dir: allowed, and the answer is right
WRITES_OWN_TEMP = """
import io, posix
def add(a, b):
    with io.open("scratch.txt", "w") as fh:
        fh.write(str(a + b))
    posix.mkdir("sub") if not posix.access("sub", 0) else None
    with io.open("scratch.txt") as fh:
        return int(fh.read())
"""
