"""Writing files safely: atomic replacement, and one-line errors when the disk is full or a folder read-only.

Every result file (``rerank_results.json``, ``verdicts.jsonl``, ``rankings.jsonl``, the samples of ``run``, …) is
written with :func:`atomic_write_text` / :func:`atomic_write_bytes` / :func:`atomic_write_json`: the content
goes to a temporary file in the same folder, is flushed to disk, then renamed over the target. A crash at any
moment leaves either the old complete file or the new complete one, never half a file that a later report
reads. (The standard library has the pieces — ``tempfile``, ``os.replace`` — but no function that combines them.)

Out of space, over a file-size limit or in a read-only folder, these helpers raise :class:`StorageError`, whose
message is one line naming the folder and how much was needed; the CLIs print it and exit with status 2.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import IO, Any, Iterator, Optional

# errors that mean "this folder cannot take the write": no space, quota, file-size limit, read-only, no permission
NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
NO_WRITE = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})
_UMASK = os.umask(0o022)
os.umask(_UMASK)


class StorageError(RuntimeError):
    """A file could not be written (disk full, read-only folder, …); the message is one line naming the folder."""


def human_bytes(n: float) -> str:
    """``1536`` → ``1.5 KiB``."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def free_bytes(folder: str | os.PathLike) -> Optional[int]:
    """Free space for an unprivileged user in the file system holding ``folder`` (None if unknown)."""
    path = Path(folder)
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return None


def storage_error(folder: str | os.PathLike, reason: str, what: str = "files", needed: Optional[int] = None,
                  no_room: bool = True) -> StorageError:
    """The one-line error for a write that ``folder`` could not take."""
    msg = f"cannot write {what} in {folder}: {reason}"
    if no_room:
        free = free_bytes(folder)
        parts = []
        if needed is not None:
            parts.append(f"about {human_bytes(needed)} to write")
        if free is not None:
            parts.append(f"{human_bytes(free)} free")
        if parts:
            msg += f" ({', '.join(parts)})"
        msg += "; free some space and rerun the same command (finished work is kept)"
    else:
        msg += "; make the folder writable or choose another (--output / --cache-dir) and rerun"
    return StorageError(msg)


def os_storage_error(exc: OSError, folder: str | os.PathLike, what: str = "files",
                     needed: Optional[int] = None) -> Optional[StorageError]:
    """A StorageError for an OSError that means "no room" or "not writable" (None for any other error)."""
    if exc.errno in NO_ROOM:
        reason = "file size limit reached" if exc.errno == errno.EFBIG else "no space left on the device"
        return storage_error(folder, reason, what, needed, no_room=True)
    if exc.errno in NO_WRITE:
        reason = "read-only file system" if exc.errno == errno.EROFS else "permission denied"
        return storage_error(folder, reason, what, no_room=False)
    return None


def ensure_writable_dir(folder: str | os.PathLike, what: str = "results") -> Path:
    """Create ``folder`` if needed and check that a file can be created in it (before any work is done)."""
    folder = Path(folder)
    clash = next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), None)
    if clash is not None:  # mkdir would raise FileExistsError (or NotADirectoryError) with a traceback
        raise ValueError(f"{what} folder {folder}: {clash} is a file, not a folder; give another --output")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".coderank-write-check-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        err = os_storage_error(exc, folder, what)
        if err is None:
            raise
        raise err from None
    return folder


OUTPUT_MARK = ".coderank_evalplus"  # left in every folder this tool opens for output: a later run knows it for its own


def open_output_dir(folder: str | os.PathLike, what: str = "results", ours: tuple[str, ...] = ()) -> Path:
    """The folder a command writes its output into. A new or empty folder, or one this tool wrote (its mark, or
    one of ``ours``: a file only such a folder holds, for folders written before the mark), is opened and marked;
    any other folder is refused before any work is done, so a user's own files are never replaced."""
    folder = Path(folder)
    if folder.is_dir() and not (folder / OUTPUT_MARK).is_file() and not any((folder / n).exists() for n in ours):
        held = sorted(p.name for p in folder.iterdir())
        if held:
            shown = ", ".join(held[:3]) + (f" and {len(held) - 3} more" if len(held) > 3 else "")
            raise ValueError(f"{what} folder {folder}: holds files this tool did not write ({shown}); give a new or "
                             f"empty folder")
    ensure_writable_dir(folder, what)
    if not (folder / OUTPUT_MARK).is_file():
        atomic_write_text(folder / OUTPUT_MARK, "written by coderank-evalplus; a later run may replace what is here\n")
    return folder


def _tmp_prefix(path: Path) -> str:
    return f".{path.name}.tmp-"


def _remove_stale_temps(path: Path) -> None:
    """Temporary files of this target left by processes that died between writing and renaming."""
    prefix = _tmp_prefix(path)
    try:
        names = [n for n in os.listdir(path.parent) if n.startswith(prefix)]
    except OSError:
        return
    for name in names:
        pid = name[len(prefix):].split("-", 1)[0]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        try:
            os.unlink(path.parent / name)
        except OSError:
            pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", what: Optional[str] = None,
                size: Optional[int] = None) -> Iterator[IO]:
    """An open file (mode ``"w"``, text in UTF-8, or ``"wb"``) that becomes ``path`` only when the block ends
    without an exception: written under a temporary name in the same folder, flushed to disk, then renamed.
    ``size`` (bytes, when known in advance) is what an out-of-space error reports as needed."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes a new file: mode 'w' or 'wb', not {mode!r}")
    path = Path(path)
    folder = path.parent
    tmp: Optional[str] = None
    written = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _remove_stale_temps(path)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f"{_tmp_prefix(path)}{os.getpid()}-")
        with os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8") as fh:
            yield fh
            fh.flush()
            written = os.fstat(fh.fileno()).st_size
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes it 0600; a plain open() would honour the umask
        os.replace(tmp, path)
        tmp = None
        _fsync_dir(folder)
    except OSError as exc:
        if written is None and tmp is not None:
            try:
                written = os.stat(tmp).st_size
            except OSError:
                pass
        err = os_storage_error(exc, folder, what or path.name, needed=size if size is not None else written)
        if err is None:
            raise
        raise err from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def atomic_write_bytes(path: str | os.PathLike, data: bytes, what: Optional[str] = None) -> Path:
    """Write ``data`` to ``path`` atomically: a temporary file in the same folder, fsync, rename over ``path``."""
    with atomic_open(path, "wb", what, size=len(data)) as fh:
        fh.write(data)
    return Path(path)


def atomic_write_text(path: str | os.PathLike, text: str, what: Optional[str] = None) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"), what)


def atomic_write_json(path: str | os.PathLike, obj: Any, what: Optional[str] = None, **dumps_kwargs) -> Path:
    """``json.dumps(obj, **dumps_kwargs)`` plus a newline, written atomically."""
    return atomic_write_text(path, json.dumps(obj, **dumps_kwargs) + "\n", what)


def atomic_write_jsonl(path: str | os.PathLike, records, what: Optional[str] = None) -> Path:
    """One JSON object per line, written atomically."""
    return atomic_write_text(path, "".join(json.dumps(rec) + "\n" for rec in records), what)


def atomic_copy(src: str | os.PathLike, dst: str | os.PathLike, what: Optional[str] = None) -> Path:
    """Copy a file atomically (the destination is complete or untouched)."""
    return atomic_write_bytes(dst, Path(src).read_bytes(), what)


def replace_file(src: str | os.PathLike, dst: str | os.PathLike, what: Optional[str] = None) -> Path:
    """Flush ``src`` to disk and rename it over ``dst`` (for files built up in place, e.g. appended samples)."""
    src, dst = Path(src), Path(dst)
    try:
        with open(src, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(src, dst)
        _fsync_dir(dst.parent)
    except OSError as exc:
        err = os_storage_error(exc, dst.parent, what or dst.name)
        if err is None:
            raise
        raise err from None
    return dst


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
