"""The execution cache: (program, test item, limits) → (status, digest), and judge verdicts, in one SQLite file.

It is the project's memory across runs, so it must never hand back a wrong result:

* **Checked on open.** The file must carry this package's application id and schema version and pass SQLite's
  ``quick_check``. A damaged file, a foreign one or one of another schema is moved aside
  (``executions.sqlite.damaged-<time>``, ``….schema-<N>-<time>``) with a one-line warning, and the run goes on
  with a fresh cache: the work it held is redone. A read that fails mid-run as damaged is handled the same way.
* **Every record carries a checksum** of its content and of the key it was stored under (8 bytes of BLAKE2b per
  row; a row packs all the item results of one program execution, so this costs one hash per program, not per
  item). SQLite does not checksum pages: without it a flipped byte would become a flipped verdict. A record that
  does not match is dropped and its work redone.
* **Out of space / read-only**: a :class:`~coderank_evalplus.storage.StorageError` naming the folder; what was
  committed before stays usable and a rerun resumes.
* **Shared safely.** Several processes may use one cache at once (WAL mode; writes are buffered and committed in
  short ``BEGIN IMMEDIATE`` transactions about once a second). Each process holds a shared ``flock`` on
  ``executions.sqlite.lock`` while it has the cache open; a file is moved aside only by a process that holds the
  lock exclusively, i.e. that is alone, so no run ever loses its file under it. A process that finds damage
  while others use the cache goes on without it (the next run alone moves it aside).

Deleting the cache (the ``.sqlite`` file with its ``-wal`` / ``-shm`` / ``.lock`` companions) is always safe: it
only costs the time to recompute.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import sqlite3
import struct
import time
from pathlib import Path
from typing import Iterable, Optional

from coderank_evalplus.storage import StorageError, os_storage_error, storage_error

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1  # PRAGMA user_version of the files this code writes (0: the unversioned files before checksums)
APPLICATION_ID = 0x43524B45  # "CRKE" in the SQLite header: the file is a coderank_evalplus execution cache
# seconds between commits (a killed run loses at most this much work); tests set 0 to commit every record
_COMMIT_EVERY_S = float(os.environ.get("CODERANK_CACHE_COMMIT_S") or 1.0)
_BUSY_TIMEOUT_S = 60.0

# One stored item result: content key of the test item, status, digest.
ITEM_RECORD = struct.Struct("<16sBq")

# SQLite's primary result codes (sqlite3.Error.sqlite_errorcode & 0xff, Python ≥ 3.11)
_PERM, _BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 3, 5, 6, 8, 10, 11, 13, 14, 26
_BY_MESSAGE = (("malformed", _CORRUPT), ("not a database", _NOTADB), ("disk is full", _FULL),
               ("readonly", _READONLY), ("read-only", _READONLY), ("disk I/O", _IOERR),
               ("unable to open", _CANTOPEN), ("locked", _BUSY))


def _code(exc: sqlite3.Error) -> Optional[int]:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF
    text = str(exc)
    return next((c for needle, c in _BY_MESSAGE if needle in text), None)  # Python 3.10


def item_checksum(prog: bytes, limits: str, records: bytes) -> bytes:
    """8-byte checksum of one packed row and the key it belongs to."""
    h = hashlib.blake2b(prog, digest_size=8)
    h.update(limits.encode("utf-8", "surrogatepass"))
    h.update(b"\x00")
    h.update(records)
    return h.digest()


def verdict_checksum(prog: bytes, task: str, config: str, passed: int) -> bytes:
    """8-byte checksum of one judge verdict and its key."""
    h = hashlib.blake2b(prog, digest_size=8)
    for part in (task, config):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    h.update(bytes([passed]))
    return h.digest()


class _Damaged(Exception):
    """Internal: the file cannot be used as a cache (the message says why)."""

    def __init__(self, reason: str, tag: str = "damaged") -> None:
        super().__init__(reason)
        self.tag = tag


class ResultCache:
    """SQLite store of (program, test item, limits) → (status, digest), and of judge verdicts.

    The item results of one execution of a program are stored as one row of packed records (``ITEM_RECORD``),
    keyed by program and limits, with a checksum; a later run that executes more items of the same program adds a
    row. One SQLite row per item cost ~10 % of the main process's time on a 1.1 M-item matrix."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.folder = self.path.parent
        self.dropped = 0  # damaged records found (dropped and recomputed) by this process
        self._db: Optional[sqlite3.Connection] = None
        self._inode: Optional[int] = None
        self._failed = False
        self._pending_items: list[tuple[bytes, str, bytes, bytes]] = []
        self._pending_verdicts: list[tuple[bytes, str, str, int, bytes]] = []
        self._pending_bytes = 0
        self._drop_items: list[int] = []
        self._drop_verdicts: list[tuple[bytes, str, str]] = []
        self._last_commit = time.monotonic()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            # read-only is enough for flock, so that users who may not write the lock file can still share it
            fd = os.open(self.path.with_name(self.path.name + ".lock"), os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o666)
            self._lock_fh = os.fdopen(fd, "rb")
        except OSError as exc:
            raise self._os_error(exc) from None
        try:
            self._open()
        except BaseException:
            self._lock_fh.close()
            raise

    # ------------------------------------------------------------------ opening, checking, moving aside
    def _open(self) -> None:
        alone = self._flock(fcntl.LOCK_EX | fcntl.LOCK_NB)
        if not alone:
            self._flock(fcntl.LOCK_SH)  # waits only while another process checks or replaces the file
        try:
            try:
                self._db = self._connect_checked()
            except _Damaged as exc:
                if not alone:
                    self._give_up(str(exc))
                    return
                self._move_aside(str(exc), exc.tag)
                self._db = self._connect_checked()
        finally:
            if alone:
                self._flock(fcntl.LOCK_SH)
        self._inode = _inode(self.path)

    def _flock(self, how: int) -> bool:
        try:
            fcntl.flock(self._lock_fh.fileno(), how)
            return True
        except BlockingIOError:
            return False

    def _connect_checked(self) -> sqlite3.Connection:
        """Open the file, check it (raises _Damaged) and create the schema in a new or empty file."""
        try:
            db = sqlite3.connect(str(self.path), timeout=_BUSY_TIMEOUT_S, isolation_level=None)
        except sqlite3.Error as exc:
            raise self._sqlite_error(exc) from None
        try:
            _check(db)
            if db.execute("PRAGMA journal_mode=WAL").fetchone()[0].lower() != "wal":
                raise StorageError(f"cannot use the execution cache {self.path}: SQLite refused WAL mode "
                                   f"(a file system without shared memory?); choose another --cache-dir")
            db.execute("PRAGMA synchronous=NORMAL")
            if db.execute("PRAGMA user_version").fetchone()[0] == 0:
                db.execute("BEGIN IMMEDIATE")
                if db.execute("PRAGMA user_version").fetchone()[0] == 0:  # not made meanwhile by another process
                    db.execute("CREATE TABLE item_results (prog BLOB, limits TEXT, records BLOB, checksum BLOB)")
                    db.execute("CREATE INDEX item_results_prog ON item_results (prog, limits)")
                    db.execute("CREATE TABLE verdicts (prog BLOB, task TEXT, config TEXT, passed INTEGER, "
                               "checksum BLOB, PRIMARY KEY (prog, task, config)) WITHOUT ROWID")
                    db.execute(f"PRAGMA application_id={APPLICATION_ID}")
                    db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                db.execute("COMMIT")
        except sqlite3.Error as exc:
            _close_quietly(db)
            raise self._sqlite_error(exc) from None
        except BaseException:
            _close_quietly(db)
            raise
        return db

    def _move_aside(self, reason: str, tag: str) -> None:
        """Rename the file (and its WAL) to ``<name>.<tag>-<time>``; only while holding the lock exclusively."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        dest = self.path.with_name(f"{self.path.name}.{tag}-{stamp}")
        n = 1
        while dest.exists():
            n += 1
            dest = self.path.with_name(f"{self.path.name}.{tag}-{stamp}-{n}")
        try:
            os.replace(self.path, dest)
            for suffix in ("-wal", "-journal"):
                side = Path(str(self.path) + suffix)
                if side.exists():
                    os.replace(side, Path(str(dest) + suffix))
            shm = Path(str(self.path) + "-shm")
            if shm.exists():
                shm.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise self._os_error(exc) from None
        log.warning("execution cache %s %s: moved aside to %s; the work it held will be redone (deleting a "
                    "cache is always safe)", self.path, reason, dest.name)

    def _give_up(self, reason: str) -> None:
        """Damage found while other processes use the file: go on without the cache, leave the file to them."""
        if self._db is not None:
            _close_quietly(self._db)
        self._db = None
        self._pending_items.clear()
        self._pending_verdicts.clear()
        self._flock(fcntl.LOCK_UN)
        log.warning("execution cache %s %s; another run is using it, so it stays in place until a run has it to "
                    "itself (which moves it aside); this run goes on without the cache", self.path, reason)

    def _on_damage(self, reason: str) -> None:
        """A read or write found the file damaged mid-run: replace it if we are alone, else stop using it."""
        pending = (list(self._pending_items), list(self._pending_verdicts))
        _close_quietly(self._db)
        self._db = None
        self._drop_items.clear()
        self._drop_verdicts.clear()
        if not self._flock(fcntl.LOCK_EX | fcntl.LOCK_NB):
            self._give_up(reason)
            return
        try:
            if _inode(self.path) == self._inode:
                self._move_aside(reason, "damaged")
            try:
                self._db = self._connect_checked()
            except _Damaged as exc:  # another process replaced it by a file that is damaged too
                self._move_aside(str(exc), exc.tag)
                self._db = self._connect_checked()
        finally:
            self._flock(fcntl.LOCK_SH)
        self._inode = _inode(self.path)
        self._pending_items, self._pending_verdicts = pending  # results still in memory go to the new file

    # ------------------------------------------------------------------ errors
    def _os_error(self, exc: OSError) -> Exception:
        return os_storage_error(exc, self.folder, "the execution cache", self._pending_bytes or None) or exc

    def _sqlite_error(self, exc: sqlite3.Error) -> Exception:
        """Map an SQLite error to _Damaged, a StorageError, or the error itself."""
        code = _code(exc)
        if code in (_CORRUPT, _NOTADB):
            return _Damaged(f"is damaged ({exc})")
        if code == _FULL:
            return storage_error(self.folder, "no space left on the device", "the execution cache",
                                 self._pending_bytes or None)
        if code == _IOERR:
            limited = _file_size_limited()
            reason = "file size limit reached" if limited else f"{exc} (disk full or failing?)"
            return storage_error(self.folder, reason, "the execution cache", self._pending_bytes or None)
        if code in (_READONLY, _CANTOPEN, _PERM):
            writable = os.access(self.folder, os.W_OK)
            reason = f"{exc}" + ("" if writable else " (read-only folder)")
            return storage_error(self.folder, reason, "the execution cache", no_room=False)
        if code in (_BUSY, _LOCKED):
            return StorageError(f"execution cache {self.path} stayed locked by another process for "
                                f"{_BUSY_TIMEOUT_S:.0f} s ({exc}); rerun, or use another --cache-dir")
        return exc

    def _guard(self, exc: sqlite3.Error) -> None:
        """Handle an SQLite error of a running cache: damage → replace the file (the caller treats the rows it
        touched as missing); storage errors → raise StorageError."""
        err = self._sqlite_error(exc)
        if isinstance(err, _Damaged):
            self._on_damage(str(err))
            return
        self._rollback()
        self._failed = True
        raise err from None

    def _rollback(self) -> None:
        try:
            if self._db is not None and self._db.in_transaction:
                self._db.execute("ROLLBACK")
        except sqlite3.Error:
            pass

    # ------------------------------------------------------------------ the interface
    def lookup(self, prog: bytes, limits: str) -> dict[bytes, tuple[int, int]]:
        """Every sound stored item result of this program under these limits: {item key: (status, digest)}."""
        if self._db is None:
            return {}
        if self._pending_items or self._drop_items:
            self.commit()
        try:
            rows = self._db.execute("SELECT rowid, records, checksum FROM item_results WHERE prog=? AND limits=? "
                                    "ORDER BY rowid", (prog, limits)).fetchall()
        except sqlite3.Error as exc:
            self._guard(exc)
            return {}
        out: dict[bytes, tuple[int, int]] = {}
        for rowid, records, checksum in rows:
            if not isinstance(records, bytes) or len(records) % ITEM_RECORD.size or \
                    checksum != item_checksum(prog, limits, records):
                self._dropped()
                self._drop_items.append(rowid)
                continue
            for item, status, digest in ITEM_RECORD.iter_unpack(records):
                out[item] = (status, digest)
        return out

    def store(self, prog: bytes, limits: str, rows: Iterable[tuple[bytes, int, int]]) -> None:
        """Add item results of one program (a later row wins over an earlier one for the same item)."""
        if self._db is None:
            return
        pack = ITEM_RECORD.pack
        records = b"".join(pack(item, st, dg) for item, st, dg in rows)
        if records:
            self._pending_items.append((prog, limits, records, item_checksum(prog, limits, records)))
            self._pending_bytes += len(records) + len(prog) + len(limits) + 8
            self._maybe_commit()

    def get_verdict(self, prog: bytes, task: str, config: str) -> Optional[bool]:
        if self._db is None:
            return None
        if self._pending_verdicts or self._drop_verdicts:
            self.commit()
        try:
            row = self._db.execute("SELECT passed, checksum FROM verdicts WHERE prog=? AND task=? AND config=?",
                                   (prog, task, config)).fetchone()
        except sqlite3.Error as exc:
            self._guard(exc)
            return None
        if row is None:
            return None
        passed, checksum = row
        if passed not in (0, 1) or checksum != verdict_checksum(prog, task, config, passed):
            self._dropped()
            self._drop_verdicts.append((prog, task, config))
            return None
        return bool(passed)

    def put_verdict(self, prog: bytes, task: str, config: str, passed: bool) -> None:
        if self._db is None:
            return
        p = int(bool(passed))
        self._pending_verdicts.append((prog, task, config, p, verdict_checksum(prog, task, config, p)))
        self._pending_bytes += len(prog) + len(task) + len(config) + 16
        self._maybe_commit()

    def _dropped(self) -> None:
        self.dropped += 1
        if self.dropped == 1:
            log.warning("execution cache %s: a record failed its checksum (damaged on disk); it is dropped and its "
                        "work redone", self.path)

    def _maybe_commit(self) -> None:
        if time.monotonic() - self._last_commit >= _COMMIT_EVERY_S:
            self.commit()

    def commit(self) -> None:
        """Write the buffered records in one short transaction."""
        self._last_commit = time.monotonic()
        if self._db is None or self._failed or not (self._pending_items or self._pending_verdicts or
                                                    self._drop_items or self._drop_verdicts):
            return
        for _attempt in range(2):  # a second time into a fresh file if this one turns out damaged
            try:
                self._db.execute("BEGIN IMMEDIATE")
                if self._drop_items:
                    self._db.executemany("DELETE FROM item_results WHERE rowid=?", [(r,) for r in self._drop_items])
                if self._drop_verdicts:
                    self._db.executemany("DELETE FROM verdicts WHERE prog=? AND task=? AND config=?",
                                         self._drop_verdicts)
                self._db.executemany("INSERT INTO item_results VALUES (?, ?, ?, ?)", self._pending_items)
                self._db.executemany("INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?)", self._pending_verdicts)
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                self._rollback()
                self._guard(exc)  # storage errors raise; damage replaces the file
                if self._db is None:
                    return
                continue
            break
        self._pending_items.clear()
        self._pending_verdicts.clear()
        self._drop_items.clear()
        self._drop_verdicts.clear()
        self._pending_bytes = 0

    def close(self) -> None:
        """Commit what is buffered (unless a storage error already stopped the cache), close, release the lock."""
        try:
            if not self._failed:
                self.commit()
        finally:
            if self._db is not None:
                _close_quietly(self._db)
                self._db = None
            if self.dropped > 1:
                log.warning("execution cache %s: %d damaged records were dropped and their work redone",
                            self.path, self.dropped)
            self.dropped = 0
            if not self._lock_fh.closed:
                self._lock_fh.close()


def _check(db: sqlite3.Connection) -> None:
    """Raise _Damaged unless ``db`` is a sound cache of this schema, or a new (empty) file."""
    try:
        app = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if app != APPLICATION_ID:
            if app == 0 and version == 0 and not tables:
                return  # a new, empty file
            if app == 0 and version == 0 and tables <= {"item_results", "verdicts"}:
                raise _Damaged("was written by an older coderank_evalplus (schema 0, records without checksums)",
                               "schema-0")
            raise _Damaged(f"is not a coderank_evalplus cache (application id {app:#x}, tables "
                           f"{', '.join(sorted(tables)) or 'none'})")
        if version != SCHEMA_VERSION:
            newer = "a newer" if version > SCHEMA_VERSION else "an older"
            raise _Damaged(f"has schema {version}, from {newer} coderank_evalplus (this one reads schema "
                           f"{SCHEMA_VERSION})", f"schema-{version}")
        result = db.execute("PRAGMA quick_check").fetchall()
    except sqlite3.DatabaseError as exc:
        if _code(exc) in (_CORRUPT, _NOTADB):
            raise _Damaged(f"is damaged ({exc})") from None
        raise
    if result != [("ok",)]:
        first = str(result[0][0]).splitlines()[0][:120] if result else "no answer"
        more = f", and {len(result) - 1} more problem(s)" if len(result) > 1 else ""
        raise _Damaged(f"is damaged (quick_check: {first}{more})")


def _close_quietly(db) -> None:
    try:
        db.close()
    except sqlite3.Error:
        pass


def _inode(path: Path) -> Optional[int]:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def _file_size_limited() -> bool:
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    return soft != resource.RLIM_INFINITY


__all__ = ["ResultCache", "ITEM_RECORD", "SCHEMA_VERSION", "APPLICATION_ID", "StorageError", "item_checksum",
           "verdict_checksum"]
