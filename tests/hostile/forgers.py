"""Wrong candidates that try to forge their verdict instead of computing ``add(a, b)`` (data for test_forgery.py).

Each returns a wrong value (``a + b + 1``) on its normal path, so whatever it forges must not make it pass.
``OLD_PASS`` is what the judge's child wrote into its pipe for a passing check before the referee (issue 25).
"""

from __future__ import annotations

OLD_PASS = r"b'\x01\x00\x00\x00' + b'1'"

FD_WRITER_CALL = f"""
import os
def add(a, b):
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
def add(a, b):
    return a + b + 1
"""

# claims, in the referee's own format, that every input returned 0 (it does not know the right outputs)
PROTOCOL_CLAIMS = """
import os
from coderank_evalplus.engine.sandbox.report import VALUE, encode_value, frame
def add(a, b):
    data = b"".join(frame(VALUE, i, encode_value(a + b)) for i in range(2000))
    for fd in range(3, 256):
        try:
            os.write(fd, data)
        except OSError:
            pass
    os._exit(0)
"""

EARLY_EXIT = """
import sys
def add(a, b):
    sys.exit(0)
"""

OS_EXIT_AT_IMPORT = """
import os
os._exit(0)
def add(a, b):
    return a + b
"""

# rewrites the expected outputs wherever the frames above it hold them (evalplus's unsafe_execute had them there)
FRAME_WALKER = """
import sys
def add(a, b):
    f = sys._getframe(1)
    while f is not None:
        for name in ("expected", "exp"):
            v = f.f_locals.get(name)
            if isinstance(v, list):
                v[:] = [a + b + 1] * len(v)
        f = f.f_back
    return a + b + 1
"""

# rewrites every list of ints it can find through the collector (the expected outputs, in the old judge)
GC_WALKER = """
import gc
def add(a, b):
    for obj in gc.get_objects():
        if type(obj) is list and obj and all(type(x) is int for x in obj):
            obj[:] = [a + b + 1] * len(obj)
    return a + b + 1
"""

# ctypes: turns the interpreter's one-byte b"0" singleton into b"1" (the old child wrote b"1" or b"0")
CTYPES_WRITER = """
import ctypes, sys
def add(a, b):
    zero = bytes([48])
    off = sys.getsizeof(zero) - 2  # the byte itself, before the trailing NUL
    ctypes.memmove(id(zero) + off, b"1", 1)
    return a + b + 1
"""

# speaks the referee's protocol for unusual outputs: "input i returned something else, and it compared equal"
OPAQUE_CLAIMS = """
import fcntl, os
from coderank_evalplus.engine.sandbox.report import COMPARED, NEED, frame
def add(a, b):
    ends = {}
    for fd in range(3, 256):
        try:
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
def add(a, b):
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
HONEST_WRONG = "def add(a, b):\n    return a - b\n"
GOOD = "def add(a, b):\n    return a + b\n"
