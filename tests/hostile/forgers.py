"""Wrong candidates that try to forge their verdict instead of computing ``add(a, b)`` (data for test_forgery.py).

Each returns a wrong value (``len(args) + 1000``) on its normal path, so whatever it forges must not make it pass.
``OLD_PASS`` is what the judge's child wrote into its pipe for a passing check before the referee (issue 25).
"""

from __future__ import annotations

OLD_PASS = r"b'\x01\x00\x00\x00' + b'1'"

FD_WRITER_CALL = f"""
import os
def add(*args):
    for fd in range(3, 256):
        try:
            os.write(fd, {OLD_PASS})
        except OSError:
            pass
    os._exit(0)
"""

FD_WRITER_IMPORT = f"""
import os
for fd in range(3, 256):
    try:
        os.write(fd, {OLD_PASS})
    except OSError:
        pass
os._exit(0)
def add(*args):
    return len(args) + 1000
"""

# claims, in the referee's own format, that every input returned 0 (it does not know the right outputs)
PROTOCOL_CLAIMS = """
import os
from coderank_evalplus.engine.sandbox.report import VALUE, encode_value, frame
def add(*args):
    data = b"".join(frame(VALUE, i, encode_value(0)) for i in range(2000))
    for fd in range(3, 256):
        try:
            os.write(fd, data)
        except OSError:
            pass
    os._exit(0)
"""

EARLY_EXIT = """
import sys
def add(*args):
    sys.exit(0)
"""

OS_EXIT_AT_IMPORT = """
import os
os._exit(0)
def add(*args):
    return a + b
"""

# rewrites the expected outputs wherever the frames above it hold them (evalplus's unsafe_execute had them there)
FRAME_WALKER = """
import sys
def add(*args):
    f = sys._getframe(1)
    while f is not None:
        for name in ("expected", "exp"):
            v = f.f_locals.get(name)
            if isinstance(v, list):
                v[:] = [len(args) + 1000] * len(v)
        f = f.f_back
    return len(args) + 1000
"""

# rewrites every list of ints it can find through the collector (the expected outputs, in the old judge)
GC_WALKER = """
import gc
def add(*args):
    for obj in gc.get_objects():
        if type(obj) is list and obj and all(type(x) is int for x in obj):
            obj[:] = [len(args) + 1000] * len(obj)
    return len(args) + 1000
"""

# ctypes: turns the interpreter's one-byte b"0" singleton into b"1" (the old child wrote b"1" or b"0")
CTYPES_WRITER = """
import ctypes, sys
def add(*args):
    zero = bytes([48])
    off = sys.getsizeof(zero) - 2  # the byte itself, before the trailing NUL
    ctypes.memmove(id(zero) + off, b"1", 1)
    return len(args) + 1000
"""

# speaks the referee's protocol for unusual outputs: "input i returned something else, and it compared equal"
OPAQUE_CLAIMS = """
import fcntl, os, stat
from coderank_evalplus.engine.sandbox.report import COMPARED, NEED, frame
def add(*args):
    ends = {}
    for fd in range(3, 256):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):  # its two pipes: the write end and the read end
                ends[fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE] = fd
        except OSError:
            pass
    out, back = ends[os.O_WRONLY], ends[os.O_RDONLY]
    for i in range(2000):
        try:
            os.write(out, frame(NEED, i, b"Forged"))
            n = int.from_bytes(os.read(back, 4), "little")
            while n > 0:
                n -= len(os.read(back, n))
            os.write(out, frame(COMPARED, i, b"\\x01"))
        except OSError:
            break
    os._exit(0)
"""

ALWAYS_EQUAL = """
class Anything:
    def __eq__(self, other):
        return True
    __hash__ = object.__hash__
def add(*args):
    return Anything()
"""

FORGERS = {
    "fd_writer_call": FD_WRITER_CALL,
    "fd_writer_import": FD_WRITER_IMPORT,
    "protocol_claims": PROTOCOL_CLAIMS,
    "early_exit": EARLY_EXIT,
    "os_exit_at_import": OS_EXIT_AT_IMPORT,
    "frame_walker": FRAME_WALKER,
    "gc_walker": GC_WALKER,
    "ctypes_writer": CTYPES_WRITER,
}
HONEST_WRONG = "def add(*args):\n    return a - b\n"
GOOD = "def add(a, b):\n    return a + b\n"


def for_entry(source: str, entry_point: str) -> str:
    """The forger for another task: its function renamed to the task's entry point."""
    return source.replace("def add(", f"def {entry_point}(")


# the execution engine's child (CodeT's pass matrix): marks every test's shared-memory slot "passed", then leaves
SLOT_WRITER = """
import os, sys
def add(*args):
    child = sys.modules["coderank_evalplus.engine.sandbox.child"]
    mm = child._TIMER[4]
    for p in range((len(mm) - child.HEADER.size) // child.SLOT.size):
        child.SLOT.pack_into(mm, child.HEADER.size + p * child.SLOT.size, 1, 0, 0)
    os._exit(0)
"""

# the engine's value log after the slots: claims the value True for every probe (what a "my check passed" flag
# would be), marks every slot "returned", then leaves so that nothing overwrites its claims
LOG_FORGER = """
import os, sys
def add(*args):
    child = sys.modules["coderank_evalplus.engine.sandbox.child"]
    from coderank_evalplus.engine.sandbox.report import VALUE, encode_value, frame
    mm = child._TIMER[4]
    n = 0
    while (child.HEADER.size + (n + 1) * child.SLOT.size <= len(mm)
           and mm[child.HEADER.size + n * child.SLOT.size] in (0, 1)):
        n += 1
        if n > 64:
            break
    at = child.HEADER.size + n * child.SLOT.size
    log = b"".join(frame(VALUE, i, encode_value(True)) for i in range(n))
    mm[at + child.LOG_LEN.size:at + child.LOG_LEN.size + len(log)] = log
    child.LOG_LEN.pack_into(mm, at, len(log))
    for p in range(n):
        child.SLOT.pack_into(mm, child.HEADER.size + p * child.SLOT.size, 1, 0, 0)
    os._exit(0)
"""

# looks for the tests' expected values wherever the harness might keep them in its process (the split tests,
# ``engine/sandbox/split.py``), and returns the one its call expects: it passes wherever they are in its address space
EXPECTATION_HUNTER = """
import gc
def _expected():
    found = {}
    for obj in gc.get_objects():
        if type(obj).__name__ == "ProbePlan":
            for split, indices, code, raw in obj.tests.values():
                if split.fast is not None and split.fast[0] == "==":
                    found[split.probes[split.fast[1]]] = split.fast[2]
    return found
def add(*args):
    return _expected().get("add(" + ", ".join(map(repr, args)) + ")", len(args) + 1000)
"""

ENGINE_FORGERS = {**FORGERS, "slot_writer": SLOT_WRITER, "log_forger": LOG_FORGER,
                  "expectation_hunter": EXPECTATION_HUNTER, "always_equal": ALWAYS_EQUAL}


# the same attacks as function bodies, as a model completes a prompt (lm-eval tasks, `run`)
PASS_BYTES = r"b'\x01\x00\x00\x00' + b'1'"
BODIES = [
    f"    import os\n    for fd in range(3, 256):\n        try:\n            os.write(fd, {PASS_BYTES})\n"
    "        except OSError:\n            pass\n    os._exit(0)\n",
    "    import gc\n    for obj in gc.get_objects():\n        if type(obj) is list and obj and all(type(x) is bool "
    "for x in obj):\n            obj[:] = [False] * len(obj)\n    return False\n",
    "    import sys\n    f = sys._getframe(1)\n    while f is not None:\n        v = f.f_locals.get('expected')\n"
    "        if isinstance(v, list):\n            v[:] = [False] * len(v)\n        f = f.f_back\n    return False\n",
    "    import ctypes, sys\n    zero = bytes([48])\n    ctypes.memmove(id(zero) + sys.getsizeof(zero) - 2, b'1', 1)\n"
    "    return False\n",
]


ALWAYS_EQUAL_BODY = ("    class Anything:\n        def __eq__(self, other):\n            return True\n"
                     "    return Anything()\n")
