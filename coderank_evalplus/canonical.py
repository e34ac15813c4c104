"""Canonical, hashable digests of returned values, so outputs of different programs can be compared.

Python's own hash is salted per process and undefined for lists/dicts, and pickling may fail or be huge;
no library gives a stable structural digest of arbitrary values, so this is written by hand. Equal values
under ``==`` get equal digests for the usual types (1 and 1.0 alike, set order and dict order ignored);
unknown objects fall back to their repr with memory addresses removed.
"""

from __future__ import annotations

import hashlib
import math
import re

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_MAX_DEPTH = 64


def digest_text(text: str) -> int:
    """63-bit digest of a string."""
    h = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8)
    return int.from_bytes(h.digest(), "little") >> 1


def digest_value(value: object) -> int:
    """63-bit digest of the canonical form of ``value``."""
    h = hashlib.blake2b(digest_size=8)
    _feed(h.update, value, set(), 0)
    return int.from_bytes(h.digest(), "little") >> 1


def _sub_digest(value: object, active: set, depth: int) -> bytes:
    h = hashlib.blake2b(digest_size=8)
    _feed(h.update, value, active, depth)
    return h.digest()


def _feed(update, value: object, active: set, depth: int) -> None:  # noqa: C901 - one branch per type
    t = type(value)
    if value is None:
        update(b"N")
    elif t is bool:
        update(b"B1" if value else b"B0")
    elif t is int:
        update(b"I" + str(value).encode())
    elif t is float:
        if math.isfinite(value) and value.is_integer() and abs(value) < 2**63:
            update(b"I" + str(int(value)).encode())  # 2.0 == 2
        else:
            update(b"F" + repr(value).encode())
    elif t is str:
        update(b"S" + str(len(value)).encode() + b":" + value.encode("utf-8", "surrogatepass"))
    elif t is bytes:
        update(b"Y" + str(len(value)).encode() + b":" + value)
    elif depth >= _MAX_DEPTH:
        update(b"<deep>")
    elif id(value) in active:
        update(b"<cycle>")
    elif t in (list, tuple):
        active.add(id(value))
        update((b"L" if t is list else b"T") + str(len(value)).encode() + b"[")
        for item in value:
            _feed(update, item, active, depth + 1)
            update(b",")
        update(b"]")
        active.discard(id(value))
    elif t in (set, frozenset):
        active.add(id(value))
        parts = sorted(_sub_digest(v, active, depth + 1) for v in value)
        update(b"E" + str(len(parts)).encode() + b"{" + b"".join(parts) + b"}")
        active.discard(id(value))
    elif t is dict:
        active.add(id(value))
        parts = sorted(_sub_digest(k, active, depth + 1) + _sub_digest(v, active, depth + 1)
                       for k, v in value.items())
        update(b"D" + str(len(parts)).encode() + b"{" + b"".join(parts) + b"}")
        active.discard(id(value))
    elif t is complex:
        update(b"C" + repr(value).encode())
    else:
        _feed_other(update, value, active, depth)


def _feed_other(update, value: object, active: set, depth: int) -> None:
    t = type(value)
    name = f"{t.__module__}.{t.__qualname__}"
    tolist = getattr(value, "tolist", None) if t.__module__.startswith("numpy") else None
    if tolist is not None:
        update(b"A" + name.encode())
        _feed(update, tolist(), active, depth + 1)
        return
    if isinstance(value, (list, tuple, set, frozenset, dict, int, float, str)):
        # subclasses (namedtuple, OrderedDict, IntEnum…): compare as their base type
        for base in (bool, int, float, str, tuple, list, dict, frozenset, set):
            if isinstance(value, base):
                _feed(update, base(value), active, depth)
                return
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - hostile __repr__
        text = "<unrepresentable>"
    update(b"O" + name.encode() + b":" + _ADDRESS.sub("", text).encode("utf-8", "surrogatepass"))
