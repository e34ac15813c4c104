"""What a judge child may tell its referee: framed records of plain values, parsed strictly.

The child that runs candidate code is not trusted to say whether a check passed: everything in its address space
(our code, its pipe, the shared memory it writes) is the candidate's to change. It only *reports what it observed*
-- the value a call returned -- and a referee outside it, which alone holds the expected outputs, compares.
A report is therefore a claim; forging one gains nothing unless the forger already knows the right outputs.

Values travel in a small tagged format of exact builtin types (``type(x) is int``, never a subclass, whose ``==``
would be the candidate's). It is written here by hand because none of the standard serialisers fits: ``pickle``
runs code when loaded, ``marshal`` is documented as unsafe on hostile data and keeps shared references (a value
of linear size whose hash takes exponential time), JSON loses tuples, sets, bytes and big floats. Decoding builds
fresh trees only, checks every length against what is left, and raises ``ReportError`` on anything else.

A frame: kind (1 byte), input index (u32), payload length (u32), payload. Kinds: ``V`` (the value returned for
input i), ``N`` (input i returned something not encodable -- payload: its type's name -- so the referee sends the
expected output and the comparison happens in the child: evalplus's semantics, the candidate's ``==`` decides),
``C`` (the verdict of that comparison: 1 byte).

A value whose report would be large (MBPP+'s Mbpp/255 returns 128 million strings: over 1 GB tagged, minutes of
Python to encode or decode) goes as a *claim* instead: the child writes its pickle (``ClaimPickler``: protocol 5,
no memo, exact builtin types only, so one tree has one byte string in any process) in ``L`` frames of at most
``CLAIM_PART_BYTES`` as it walks the value, then ``E``. The referee never unpickles it: it pickles the expected
output itself and compares the two byte streams as they come (``claim_matches``), stopping at the first difference,
and answers the child True (equal bytes: equal trees) or False. After False the child sends the value as usual
(``V``, or ``N`` for a value the format cannot carry), so evalplus's rules (1 == 1.0, sets in any order, atol)
decide as before. Neither side holds more than a part of the stream.
"""

from __future__ import annotations

import os
import pickle
import re
import struct
from typing import Any, Callable, Iterator, Optional

FRAME = struct.Struct("<cII")
VALUE, NEED, COMPARED = b"V", b"N", b"C"
PART, END = b"L", b"E"  # a claim: its pickle's bytes, then its end
LARGE_VALUE_BYTES = 8 << 20  # a value whose pickle is longer goes as a claim
CLAIM_PART_BYTES = 1 << 20  # the longest part of a claim (one frame)
MAX_FRAME = 1 << 28  # 256 MiB: a larger record is refused (the check fails)
MAX_DEPTH = 200  # deeper values are not encoded (they go the way of other unusual objects: compared in the child)
_D, _Q, _U = struct.Struct("<d"), struct.Struct("<dd"), struct.Struct("<I")
_SEQ_TAGS: dict[type, bytes] = {list: b"l", tuple: b"u", set: b"S", frozenset: b"F"}


class ReportError(ValueError):
    """A report that is not what an honest child writes (the check fails)."""


class Opaque(Exception):
    """A value this format does not carry (a class of the candidate's, a subclass of a builtin, numpy...)."""


def _int_bytes(x: int) -> bytes:
    raw = x.to_bytes((x.bit_length() + 8) // 8, "little", signed=True)
    return b"i" + _U.pack(len(raw)) + raw


_SMALL_MIN, _SMALL_MAX = -256, 1024
_SMALL_INTS = [_int_bytes(i) for i in range(_SMALL_MIN, _SMALL_MAX)]  # the encodings of the ints met most


def encode_value(value: Any) -> bytes:
    """The value as tagged bytes; raises ``Opaque`` for anything but exact builtin value types."""
    t = type(value)
    if t is bool:  # the common results, written directly (the same bytes as ``_enc``)
        return b"t" if value else b"f"
    if t is int:
        return _SMALL_INTS[value - _SMALL_MIN] if _SMALL_MIN <= value < _SMALL_MAX else _int_bytes(value)
    if t is str:
        raw = value.encode("utf-8", "surrogatepass")
        return b"s" + _U.pack(len(raw)) + raw
    if value is None:
        return b"n"
    out: list[bytes] = []
    _enc(value, out, 0)
    return b"".join(out)


def _enc(x: Any, out: list, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise Opaque("too deep")
    t = type(x)
    if x is None:
        out.append(b"n")
    elif t is bool:
        out.append(b"t" if x else b"f")
    elif t is int:
        out.append(_SMALL_INTS[x - _SMALL_MIN] if _SMALL_MIN <= x < _SMALL_MAX else _int_bytes(x))
    elif t is float:
        out += (b"d", _D.pack(x))
    elif t is complex:
        out += (b"c", _Q.pack(x.real, x.imag))
    elif t is str:
        raw = x.encode("utf-8", "surrogatepass")
        out += (b"s", _U.pack(len(raw)), raw)
    elif t is bytes:
        out += (b"b", _U.pack(len(x)), x)
    elif t is list or t is tuple or t is set or t is frozenset:
        out += (_SEQ_TAGS[t], _U.pack(len(x)))
        if depth >= MAX_DEPTH:  # its items are too deep: _enc says so
            for item in x:
                _enc(item, out, depth + 1)
            return
        append = out.append
        for item in x:  # the common items written here, the rest by _enc (the same bytes)
            ti = type(item)
            if ti is int:
                append(_SMALL_INTS[item - _SMALL_MIN] if _SMALL_MIN <= item < _SMALL_MAX else _int_bytes(item))
            elif ti is bool:
                append(b"t" if item else b"f")
            else:
                _enc(item, out, depth + 1)
    elif t is dict:
        out += (b"D", _U.pack(len(x)))
        for k, v in x.items():
            _enc(k, out, depth + 1)
            _enc(v, out, depth + 1)
    else:
        raise Opaque(t.__name__)


def decode_value(data: bytes) -> Any:
    """The value ``encode_value`` wrote; ``ReportError`` for anything malformed or left over."""
    try:
        value, pos = _dec(memoryview(data), 0, 0)
    except ReportError:
        raise
    except (struct.error, TypeError, ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise ReportError(f"malformed value: {exc}") from None
    if pos != len(data):
        raise ReportError("bytes after the value")
    return value


def _dec(m: memoryview, pos: int, depth: int) -> tuple[Any, int]:
    if depth > MAX_DEPTH or pos >= len(m):
        raise ReportError("truncated or too deep")
    tag = m[pos]
    pos += 1
    if tag == 0x6E:  # n
        return None, pos
    if tag == 0x74:  # t
        return True, pos
    if tag == 0x66:  # f
        return False, pos
    if tag == 0x64:  # d
        return _D.unpack_from(m, pos)[0], pos + 8
    if tag == 0x63:  # c
        re, im = _Q.unpack_from(m, pos)
        return complex(re, im), pos + 16
    (n,) = _U.unpack_from(m, pos)
    pos += 4
    if tag in (0x69, 0x73, 0x62):  # i s b: n raw bytes
        if n > len(m) - pos:
            raise ReportError("length past the end")
        raw = bytes(m[pos:pos + n])
        pos += n
        if tag == 0x69:
            return int.from_bytes(raw, "little", signed=True), pos
        return (raw.decode("utf-8", "surrogatepass") if tag == 0x73 else raw), pos
    if n > len(m) - pos:  # every item takes at least one byte
        raise ReportError("count past the end")
    if tag == 0x44:  # D
        d = {}
        for _ in range(n):
            k, pos = _dec(m, pos, depth + 1)
            v, pos = _dec(m, pos, depth + 1)
            d[k] = v
        return d, pos
    if tag not in (0x6C, 0x75, 0x53, 0x46):  # l u S F
        raise ReportError(f"unknown tag {tag}")
    items = []
    for _ in range(n):
        v, pos = _dec(m, pos, depth + 1)
        items.append(v)
    return {0x6C: list, 0x75: tuple, 0x53: set, 0x46: frozenset}[tag](items) if tag != 0x6C else items, pos


class ClaimPickler(pickle.Pickler):
    """pickle of exact builtin values, the same bytes in the child and in the referee: protocol 5, no memo (shared
    objects do not change the bytes), anything but the exact types of ``encode_value`` raises ``Opaque``
    (``reducer_override`` is called for every object pickle does not write natively; a complex is written as
    ``complex(real, imag)``)."""

    def __init__(self, file: Any) -> None:
        super().__init__(file, protocol=5)
        self.fast = True

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is complex:
            return complex, (obj.real, obj.imag)
        if obj is complex:
            return NotImplemented
        raise Opaque(type(obj).__name__)


class _Differs(Exception):
    pass


# a pickled float (BINFLOAT: "G", 8 bytes big-endian) whose exponent is all ones: NaN or infinity
_NAN_OR_INF = re.compile(rb"G[\x7f\xff][\xf0-\xff]")


class _Matcher:
    """The referee's pickler writes the expected output here; each write is compared with the next bytes of the
    claim (``parts``), and the first difference stops the pickler."""

    def __init__(self, parts: Iterator[bytes]) -> None:
        self.parts, self.part, self.at, self.maybe_nan = parts, b"", 0, False

    def write(self, data: Any) -> None:
        data = bytes(data)
        if not self.maybe_nan and _NAN_OR_INF.search(data):  # (the pickler writes whole opcodes at a time)
            self.maybe_nan = True
        pos = 0
        while pos < len(data):
            if self.at == len(self.part):
                part = next(self.parts, None)
                if part is None:
                    raise _Differs  # the claim is shorter
                self.part, self.at = part, 0
                continue
            n = min(len(data) - pos, len(self.part) - self.at)
            if data[pos:pos + n] != self.part[self.at:self.at + n]:
                raise _Differs
            pos += n
            self.at += n


def claim_matches(expected: Any, parts: Iterator[bytes]) -> tuple[bool, bool]:
    """(whether the claimed bytes ``parts`` are ``ClaimPickler``'s bytes of ``expected``, whether ``expected`` may
    hold a NaN). Reads ``parts`` only up to the first difference; an expected output of other types never matches.
    Equal bytes mean the child's value is the same tree of exact builtin types, so ``==`` holds unless a NaN is in
    it (the caller decides that, and which outputs may pass on equal bytes at all)."""
    matcher = _Matcher(parts)
    try:
        ClaimPickler(matcher).dump(expected)
    except ReportError:
        raise
    except (_Differs, Opaque, ValueError, RecursionError, pickle.PicklingError):
        return False, matcher.maybe_nan
    return matcher.at == len(matcher.part) and not any(parts), matcher.maybe_nan


def frame(kind: bytes, index: int, payload: bytes = b"") -> bytes:
    return FRAME.pack(kind, index, len(payload)) + payload


class FrameReader:
    """Splits the bytes read from a child's report pipe into (kind, index, payload) frames, strictly."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, chunk: bytes) -> Iterator[tuple[bytes, int, bytes]]:
        buf = self._buf
        buf += chunk
        pos = 0
        while len(buf) - pos >= FRAME.size:
            kind, index, length = FRAME.unpack_from(buf, pos)
            if kind not in (VALUE, NEED, COMPARED, PART, END) or length > MAX_FRAME:
                raise ReportError(f"not a report frame (kind {kind!r}, length {length})")
            if len(buf) - pos - FRAME.size < length:
                break
            start = pos + FRAME.size
            yield kind, index, bytes(buf[start:start + length])
            pos = start + length
        del buf[:pos]


def _frames(rfd: int) -> Iterator[tuple[bytes, int, bytes]]:
    """The frames a child writes to ``rfd``, until it closes it; ``ReportError`` for bytes that are not frames."""
    reader = FrameReader()
    while True:
        chunk = os.read(rfd, 1 << 16)
        if not chunk:
            return
        yield from reader.feed(chunk)


def _claim_parts(first: bytes, index: int, frames: Iterator[tuple[bytes, int, bytes]],
                 end: list) -> Iterator[bytes]:
    """A claim's parts, read as its comparison asks for them; the frame that ends it (``END``, or ``NEED``: the
    child met a type the claim cannot carry) goes into ``end`` (left empty: the child stopped)."""
    yield first
    for kind, i, payload in frames:
        if i != index:
            raise ReportError("report out of order")
        if kind == PART:
            yield payload
        elif kind in (END, NEED):
            end.append((kind, payload))
            return
        else:
            raise ReportError("report out of protocol")


def read_reports(rfd: int, n: int, value_ok: Callable[[int, bytes], bool], need: Optional[Callable[[int], bool]],
                 odd_note: Callable[[int, str], str],
                 claim: Optional[Callable[[int, Iterator[bytes]], bool]] = None,
                 reply: Optional[Callable[[bool], None]] = None) -> tuple[bool, Optional[str]]:
    """A referee's reading of a check child that reports one result per test, in order (evalplus's inputs,
    LiveCodeBench's tests), until all ``n`` passed, one did not, or the child stopped. ``value_ok(i, payload)``
    decides a reported value. A value the format cannot carry comes as its type's name: ``need(i)`` sends the child
    the expected output (False: the test fails; no ``need``: such a frame breaks the protocol), and the child's own
    comparison, reported next, decides; ``odd_note(i, type name)`` says so (three at most). A large value may come
    as a claim (one per test): ``claim(i, parts)`` says whether its bytes are the expected output's, ``reply`` tells
    the child (True: the test passed; False: the value comes again, as a value). Without ``claim`` a claim breaks
    the protocol. Returns (passed, why a pass is suspicious, or what was malformed)."""
    if n == 0:
        return True, None
    frames = _frames(rfd)
    nxt = 0
    pending: Optional[str] = None  # type name of the result whose expected output went to the child
    claimed = -1  # the test whose claim did not match: its value comes as a value now
    odd: list[str] = []
    try:
        for kind, index, payload in frames:
            if index != nxt:
                return False, "report out of order"
            if kind == PART and pending is None and claim is not None and reply is not None and claimed != index:
                end: list = []
                parts = _claim_parts(payload, index, frames, end)
                matched = claim(index, parts)
                for _ in parts:  # the rest of a claim that differed
                    pass
                if not end:
                    return False, None  # the child stopped inside its claim
                kind, payload = end[0]
                claimed = index
                if kind == END:
                    reply(matched)
                    if matched:
                        nxt += 1
                    continue
            if kind == VALUE and pending is None:
                if not value_ok(index, payload):
                    return False, None
                nxt += 1
            elif kind == NEED and pending is None and need is not None:
                pending = payload.decode("utf-8", "replace")[:200]
                if not need(index):
                    return False, None
            elif kind == COMPARED and pending is not None:
                if payload != b"\x01":
                    return False, None
                if len(odd) < 3:
                    odd.append(odd_note(index, pending))
                pending = None
                nxt += 1
            else:
                return False, "report out of protocol"
            if nxt == n:
                break
    except ReportError as exc:
        return False, str(exc)
    if nxt < n:
        return False, None  # the child stopped (exception, exit, time limit, kill) before every test passed
    return True, ("; ".join(odd) if odd else None)
