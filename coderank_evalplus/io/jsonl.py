"""JSON lines, read strictly: every malformed line is a ``SampleFileError`` naming the file and the line; the
field checks every format's reader shares."""

from __future__ import annotations

import codecs
import gzip
import json
import os
import re
import sys
import zlib
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Optional

from coderank_evalplus.types import CoderankError


class SampleFileError(CoderankError):
    """A samples or tests file is malformed; the message names the file and line."""


_SHOW = 80  # characters of an offending line or value quoted in a message


def quote(text: str) -> str:
    return repr(text[:_SHOW]) + (f" … ({len(text)} characters)" if len(text) > _SHOW else "")


def file_head(path: Path, size: int) -> bytes:
    """The file's first ``size`` bytes (gunzipped for .gz) without a UTF-8 byte-order mark and leading white space,
    to tell formats apart; b"" when it cannot be read (the reader then chosen reports why)."""
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as fh:
            head = fh.read(size)
    except (EOFError, OSError, gzip.BadGzipFile, zlib.error):
        return b""
    return head.removeprefix(codecs.BOM_UTF8).lstrip()


def loads(text: str, path: Path, lineno: Optional[int] = None) -> Any:
    """``json.loads``, or a one-line SampleFileError naming the file and line and saying what is wrong: for line
    ``lineno`` of JSON lines, the line quoted; for a whole document, the line the error is on and the text near it."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        cut = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
        what = "truncated JSON" if cut else "not valid JSON"
        reason = exc.msg[:-3] if exc.msg.endswith(" at") else exc.msg
        if lineno is None:
            near = text[max(0, exc.pos - 40):exc.pos + 40]
            raise SampleFileError(f"{path}:{exc.lineno}: {what} ({reason}, column {exc.colno}) near "
                                  f"{quote(near)}") from None
        raise SampleFileError(f"{path}:{lineno}: {what} ({reason}, column {exc.colno}): "
                              f"{quote(text.rstrip())}") from None
    except RecursionError:
        raise SampleFileError(f"{path}{'' if lineno is None else f':{lineno}'}: JSON nested too deeply") from None
    except ValueError as exc:  # e.g. an integer literal with too many digits
        raise SampleFileError(f"{path}{'' if lineno is None else f':{lineno}'}: unreadable JSON value "
                              f"({str(exc)[:_SHOW]})") from None


def read_jsonl(path: str | os.PathLike) -> Iterator[tuple[int, dict]]:
    """Yield (line number, record) of a .jsonl or .jsonl.gz file; malformed lines raise SampleFileError.

    Every message is one line and names the file and the line: invalid UTF-8, invalid or truncated JSON,
    nesting too deep, numbers out of range, a value that is not an object. A UTF-8 byte-order mark is allowed."""
    path = Path(path)
    if path.is_dir():
        raise SampleFileError(f"{path}: is a folder, expected a .jsonl file")
    if not path.is_file():
        raise SampleFileError(f"{path}: no such file")
    opener = gzip.open if path.suffix == ".gz" else open
    lineno = 0
    try:
        with opener(path, "rb") as fh:
            for lineno, raw in enumerate(fh, 1):
                try:
                    line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
                except UnicodeDecodeError as exc:
                    raise SampleFileError(f"{path}:{lineno}: not valid UTF-8 (byte {exc.start}: "
                                          f"{raw[exc.start:exc.start + 4]!r})") from None
                if not line.strip():
                    continue
                rec = loads(line, path, lineno)
                if not isinstance(rec, dict):
                    raise SampleFileError(f"{path}:{lineno}: expected a JSON object, got {type(rec).__name__}")
                yield lineno, rec
    except (EOFError, OSError, gzip.BadGzipFile, zlib.error) as exc:
        where = f"{path}:{lineno + 1}" if lineno else str(path)
        raise SampleFileError(f"{where}: cannot be read ({type(exc).__name__}: {str(exc)[:_SHOW]})") from None


def read_records(path: str | os.PathLike) -> Iterator[tuple[int, dict]]:
    """(position, record) of a JSON-lines file or, for a ``.json`` file, of a JSON list (position: line number, or
    index + 1); SampleFileError naming the file and the position for anything else."""
    path = Path(path)
    if path.suffix != ".json":
        yield from read_jsonl(path)
        return
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise SampleFileError(f"{path}: not a JSON document ({str(exc)[:120]})") from None
    if not isinstance(data, list):
        raise SampleFileError(f"{path}: expected a JSON list of problems, got {type(data).__name__}")
    for i, rec in enumerate(data, 1):
        if not isinstance(rec, dict):
            raise SampleFileError(f"{path}: item {i}: expected a JSON object, got {type(rec).__name__}")
        yield i, rec


def write_jsonl(path: str | os.PathLike, records: Iterable[Mapping[str, Any]], append: bool = False) -> None:
    """Write records as one JSON object per line: atomically (``storage.atomic_write_jsonl``), or appended and
    flushed with ``append=True`` (a killed run keeps what was written)."""
    if not append:
        from coderank_evalplus.storage import atomic_write_jsonl

        atomic_write_jsonl(path, records)
        return
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec) + "\n")
        fh.flush()


def str_field(rec: dict, key: str, path: Path, lineno: int) -> str:
    value = rec.get(key)
    if not isinstance(value, str):
        got = "missing" if key not in rec else f"got {type(value).__name__}"
        raise SampleFileError(f"{path}:{lineno}: field {key!r} must be a string ({got})")
    return value


def str_list(rec: dict, key: str, path: Path, lineno: int) -> list[str]:
    value = rec.get(key)
    if not isinstance(value, list):
        got = "missing" if key not in rec else f"got {type(value).__name__}"
        raise SampleFileError(f"{path}:{lineno}: field {key!r} must be a list of strings ({got})")
    for i, v in enumerate(value):
        if not isinstance(v, str):
            raise SampleFileError(f"{path}:{lineno}: field {key!r} must be a list of strings "
                                  f"(item {i} is {type(v).__name__})")
    return value


def once(seen: dict[str, int], tid: str, path: Path, lineno: int, what: str) -> None:
    """A task may have one record of this kind per file (a second one would double its samples)."""
    first = seen.setdefault(tid, lineno)
    if first != lineno:
        raise SampleFileError(f"{path}:{lineno}: duplicate {what} for {tid} (first at line {first})")


def check_unmatched(unmatched: list[str], what: str, drop: bool = False, path: Optional[Path] = None) -> None:
    """Records that name no problem of the dataset: a clear error, or (``drop``: the file covers more problems than
    the dataset, e.g. sanitized MBPP's 427 against MBPP+'s 378) one warning on stderr that counts them."""
    if not unmatched:
        return
    shown = "; ".join(unmatched[:3])
    more = f"; … and {len(unmatched) - 3} more" if len(unmatched) > 3 else ""
    if not drop:
        raise SampleFileError(f"{len(unmatched)} {what} match no problem of the dataset: {shown}{more}")
    tasks = list(dict.fromkeys(m.group(1).strip("'\"") for m in map(_TASK_IN_ENTRY.search, unmatched) if m))
    of = f" of {len(tasks)} problem(s)" if tasks else ""
    example = ", ".join(tasks[:4]) + (" …" if len(tasks) > 4 else "") if tasks else shown + more
    print(f"warning: {path or 'input'}: dropped {len(unmatched)} {what}{of} that the dataset does not have "
          f"({example})", file=sys.stderr, flush=True)


_TASK_IN_ENTRY = re.compile(r"\(task_id (.+)\)$")
