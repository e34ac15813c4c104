"""Canonical, hashable digests of returned values, so outputs of different programs can be compared.

Python's own hash is salted per process and undefined for lists/dicts, and pickling may fail or be huge;
no library gives a stable structural digest of arbitrary values, so this is written by hand. Equal values
under ``==`` get equal digests for the usual types (1 and 1.0 alike, set order and dict order ignored);
unknown objects fall back to their repr with memory addresses removed.
"""

from __future__ import annotations

import re
from hashlib import blake2b
from math import isfinite
from typing import Any

# Bound here, not looked up at call time: digests are taken in the child after untrusted code ran, and that
# code may have patched ``hashlib`` or ``math`` (or ``builtins``: the names below are captured too).
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_MAX_DEPTH = 64
_INT_STR_BITS = 12_000  # str(int) is refused beyond 4300 digits (sys.int_info); larger ints go as hex
_type, _str, _len, _repr, _sorted, _id, _isinstance, _getattr, _abs, _int = (
    type, str, len, repr, sorted, id, isinstance, getattr, abs, int)
_blake2b, _join, _from_bytes = blake2b, b"".join, int.from_bytes


def digest_text(text: str) -> int:
    """63-bit digest of a string."""
    h = blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8)
    return int.from_bytes(h.digest(), "little") >> 1


def digest_value(value: Any) -> int:
    """63-bit digest of the canonical form of ``value``.

    The canonical text is hashed in one call (the same bytes as fed piece by piece: the same digest); the
    common scalars are written directly, without the generic walk."""
    t = _type(value)
    if t is int and value.bit_length() < _INT_STR_BITS:
        data = b"I" + _str(value).encode()
    elif t is bool:
        data = b"B1" if value else b"B0"
    elif value is None:
        data = b"N"
    elif t is str:
        data = b"S" + _str(_len(value)).encode() + b":" + value.encode("utf-8", "surrogatepass")
    else:
        parts: list = []
        _feed(parts.append, value, set(), 0)
        data = _join(parts)
    return _from_bytes(_blake2b(data, digest_size=8).digest(), "little") >> 1


def _sub_digest(value: object, active: set, depth: int) -> bytes:
    parts: list = []
    _feed(parts.append, value, active, depth)
    return _blake2b(_join(parts), digest_size=8).digest()


def _feed(update, value: Any, active: set, depth: int) -> None:  # noqa: C901 - one branch per type
    t = _type(value)
    if value is None:
        update(b"N")
    elif t is bool:
        update(b"B1" if value else b"B0")
    elif t is int:
        if value.bit_length() < _INT_STR_BITS:
            update(b"I" + _str(value).encode())
        else:
            update(b"X" + b"%x" % value)
    elif t is float:
        if isfinite(value) and value.is_integer() and _abs(value) < 2**63:
            update(b"I" + _str(_int(value)).encode())  # 2.0 == 2
        else:
            update(b"F" + _repr(value).encode())
    elif t is str:
        update(b"S" + _str(_len(value)).encode() + b":" + value.encode("utf-8", "surrogatepass"))
    elif t is bytes:
        update(b"Y" + _str(_len(value)).encode() + b":" + value)
    elif depth >= _MAX_DEPTH:
        update(b"<deep>")
    elif _id(value) in active:
        update(b"<cycle>")
    elif t is list or t is tuple:
        active.add(_id(value))
        update((b"L" if t is list else b"T") + _str(_len(value)).encode() + b"[")
        for item in value:
            _feed(update, item, active, depth + 1)
            update(b",")
        update(b"]")
        active.discard(_id(value))
    elif t is set or t is frozenset:
        active.add(_id(value))
        parts = _sorted([_sub_digest(v, active, depth + 1) for v in value])
        update(b"E" + _str(_len(parts)).encode() + b"{" + b"".join(parts) + b"}")
        active.discard(_id(value))
    elif t is dict:
        active.add(_id(value))
        parts = _sorted([_sub_digest(k, active, depth + 1) + _sub_digest(v, active, depth + 1)
                         for k, v in value.items()])
        update(b"D" + _str(_len(parts)).encode() + b"{" + b"".join(parts) + b"}")
        active.discard(_id(value))
    elif t is complex:
        update(b"C" + _repr(value).encode())
    else:
        try:
            _feed_other(update, value, active, depth)
        except (Exception, SystemExit, KeyboardInterrupt, GeneratorExit):  # noqa: BLE001 - hostile objects
            # (a time-limit exception of the sandbox is neither, and goes through)
            update(b"O<hostile " + _type_name(t).encode("utf-8", "surrogatepass") + b">")


def _type_name(t: type) -> str:
    try:
        return f"{t.__module__}.{t.__qualname__}"
    except (Exception, SystemExit, KeyboardInterrupt, GeneratorExit):  # noqa: BLE001 - hostile metaclass
        return "<type>"


def _feed_other(update, value: Any, active: set, depth: int) -> None:
    t = _type(value)
    name = _type_name(t)
    tolist = _getattr(value, "tolist", None) if name.startswith("numpy") else None
    if tolist is not None:
        update(b"A" + name.encode())
        _feed(update, tolist(), active, depth + 1)
        return
    if _isinstance(value, (list, tuple, set, frozenset, dict, int, float, str)):
        # subclasses (namedtuple, OrderedDict, IntEnum…): compare as their base type
        for base in (bool, int, float, str, tuple, list, dict, frozenset, set):
            if _isinstance(value, base):
                _feed(update, base(value), active, depth)
                return
    try:
        text = _repr(value)
    except (Exception, SystemExit, KeyboardInterrupt, GeneratorExit):  # noqa: BLE001 - hostile __repr__
        text = "<unrepresentable>"
    update(b"O" + name.encode("utf-8", "surrogatepass") + b":" +
           _ADDRESS.sub("", text).encode("utf-8", "surrogatepass"))
