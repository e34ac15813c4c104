"""The execution cache keeps no wrong record and survives damage (issue 18), on synthetic records.

The same faults on real samples through the CLI, with exit codes and numbers: tests/test_storage_faults.py."""

from __future__ import annotations

import logging
import os
import sqlite3

import pytest

from coderank_evalplus.engine.execution.cache import APPLICATION_ID, SCHEMA_VERSION, ResultCache, verdict_checksum

PROGS = [i.to_bytes(16, "little") for i in range(300)]
ITEMS = [bytes([i]) * 16 for i in range(20)]


def _fill(path, n=len(PROGS)) -> None:  # noqa: B008 - an int, computed once
    cache = ResultCache(path)
    for k, prog in enumerate(PROGS[:n]):
        cache.store(prog, "cpu=0.1", [(item, (k + i) % 4, k * 1000 + i) for i, item in enumerate(ITEMS)])
        cache.put_verdict(prog, "T/0", "base", k % 3 == 0)
    cache.close()


def _expected(k: int) -> dict:
    return {item: ((k + i) % 4, k * 1000 + i) for i, item in enumerate(ITEMS)}


def _moved(folder, tag="damaged") -> list[str]:
    return sorted(p.name for p in folder.iterdir() if f".{tag}-" in p.name and not p.name.endswith("-wal"))


def test_round_trip_and_schema(tmp_path):
    path = tmp_path / "c.sqlite"
    _fill(path)
    cache = ResultCache(path)
    assert all(cache.lookup(p, "cpu=0.1") == _expected(k) for k, p in enumerate(PROGS))
    assert cache.lookup(PROGS[0], "cpu=1") == {}
    assert [cache.get_verdict(p, "T/0", "base") for p in PROGS[:4]] == [True, False, False, True]
    assert cache.get_verdict(PROGS[0], "T/0", "plus") is None
    cache.close()
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert con.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    con.close()


def test_flipped_byte_in_a_record_is_dropped_and_recomputed(tmp_path, caplog):
    path = tmp_path / "c.sqlite"
    _fill(path)
    con = sqlite3.connect(path)
    records = con.execute("SELECT records FROM item_results WHERE prog=?", (PROGS[7],)).fetchone()[0]
    con.close()
    data = bytearray(path.read_bytes())
    at = data.index(records)
    data[at + 17] ^= 0x01  # the status byte of the first item: a flipped verdict if it were used
    path.write_bytes(data)
    with caplog.at_level(logging.WARNING, logger="coderank_evalplus.engine.execution.cache"):
        cache = ResultCache(path)
        assert cache.lookup(PROGS[7], "cpu=0.1") == {}  # dropped, never used
        assert cache.lookup(PROGS[8], "cpu=0.1") == _expected(8)
        assert cache.dropped == 1
        cache.store(PROGS[7], "cpu=0.1", [(item, st, dg) for item, (st, dg) in _expected(7).items()])
        cache.close()
    assert [r.message for r in caplog.records if "checksum" in r.message] == [
        f"execution cache {path}: a record failed its checksum (damaged on disk); it is dropped and its work redone"]
    cache = ResultCache(path)
    assert cache.lookup(PROGS[7], "cpu=0.1") == _expected(7) and cache.dropped == 0
    cache.close()


def test_flipped_verdict_is_dropped(tmp_path):
    path = tmp_path / "c.sqlite"
    _fill(path, 5)
    data = bytearray(path.read_bytes())
    at = data.index(verdict_checksum(PROGS[3], "T/0", "base", 1))
    data[at] ^= 0x80
    path.write_bytes(data)
    cache = ResultCache(path)
    assert cache.get_verdict(PROGS[3], "T/0", "base") is None
    assert cache.get_verdict(PROGS[0], "T/0", "base") is True
    cache.put_verdict(PROGS[3], "T/0", "base", True)
    cache.close()
    cache = ResultCache(path)
    assert cache.get_verdict(PROGS[3], "T/0", "base") is True and cache.dropped == 0
    cache.close()


@pytest.mark.parametrize("fault", ["zeros", "truncated", "garbage", "future", "old", "foreign"])
def test_unusable_file_is_moved_aside_and_a_fresh_cache_used(tmp_path, caplog, fault):
    path = tmp_path / "c.sqlite"
    _fill(path)
    size = path.stat().st_size
    tag = "damaged"
    if fault == "zeros":
        with open(path, "r+b") as fh:
            fh.seek(size // 2)
            fh.write(bytes(8192))
    elif fault == "truncated":
        os.truncate(path, size // 2)
    elif fault == "garbage":
        path.write_bytes(b"not a database at all\n" * 100)
    elif fault == "future":
        con = sqlite3.connect(path)
        con.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
        con.close()
        tag = f"schema-{SCHEMA_VERSION + 1}"
    elif fault == "old":  # the layout before checksums (no application id, no version)
        path.unlink()
        con = sqlite3.connect(path)
        con.execute("CREATE TABLE item_results (prog BLOB, limits TEXT, records BLOB)")
        con.execute("CREATE TABLE verdicts (prog BLOB, task TEXT, config TEXT, passed INTEGER)")
        con.close()
        tag = "schema-0"
    elif fault == "foreign":
        path.unlink()
        con = sqlite3.connect(path)
        con.execute("CREATE TABLE photos (name TEXT)")
        con.close()
    with caplog.at_level(logging.WARNING, logger="coderank_evalplus.engine.execution.cache"):
        cache = ResultCache(path)
    warnings = [r.message for r in caplog.records]
    assert len(warnings) == 1 and "moved aside to c.sqlite." + tag in warnings[0]
    assert "the work it held will be redone" in warnings[0]
    assert len(_moved(tmp_path, tag)) == 1
    assert cache.lookup(PROGS[0], "cpu=0.1") == {}
    cache.store(PROGS[0], "cpu=0.1", [(ITEMS[0], 1, 2)])
    cache.close()
    cache = ResultCache(path)
    assert cache.lookup(PROGS[0], "cpu=0.1") == {ITEMS[0]: (1, 2)}
    cache.close()


def test_damage_found_mid_run_replaces_the_file(tmp_path, caplog):
    path = tmp_path / "c.sqlite"
    _fill(path)
    cache = ResultCache(path)
    cache._db.execute("PRAGMA cache_size=2")  # so that reads go to the file, not to pages read by the open check
    with open(path, "r+b") as fh:
        fh.seek(path.stat().st_size // 2)
        fh.write(bytes(16384))
    with caplog.at_level(logging.WARNING, logger="coderank_evalplus.engine.execution.cache"):
        found = [cache.lookup(p, "cpu=0.1") for p in PROGS]
    assert all(f in ({}, _expected(k)) for k, f in enumerate(found))  # sound rows or nothing, never a wrong one
    assert {} in found
    assert len(_moved(tmp_path)) == 1 and "is damaged" in caplog.records[0].message
    cache.store(PROGS[0], "cpu=1", [(ITEMS[0], 3, 4)])  # the run goes on with the fresh file
    assert cache.lookup(PROGS[0], "cpu=1") == {ITEMS[0]: (3, 4)}
    cache.close()


def test_damage_while_another_process_uses_the_cache_leaves_the_file(tmp_path, caplog):
    path = tmp_path / "c.sqlite"
    _fill(path, 10)
    other = ResultCache(path)  # a second user (flock is per open file, so this stands for another process)
    with open(path, "r+b") as fh:
        fh.write(b"\0" * 4096)  # header page gone
    with caplog.at_level(logging.WARNING, logger="coderank_evalplus.engine.execution.cache"):
        cache = ResultCache(path)
    assert "another run is using it" in caplog.records[0].message
    assert cache.lookup(PROGS[0], "cpu=0.1") == {} and cache.get_verdict(PROGS[0], "T/0", "base") is None
    cache.store(PROGS[0], "cpu=0.1", [(ITEMS[0], 1, 1)])  # a no-op
    cache.close()
    other.close()
    assert _moved(tmp_path) == []
    cache = ResultCache(path)  # alone now: moved aside
    assert len(_moved(tmp_path)) == 1
    cache.close()


def test_read_only_folder_is_a_one_line_storage_error(tmp_path):
    from coderank_evalplus.storage import StorageError

    if os.geteuid() == 0:
        pytest.skip("root writes into read-only folders; tests/test_storage_faults.py uses a read-only mount")
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(StorageError, match=r"cannot write the execution cache in .*ro: permission denied"):
            ResultCache(folder / "c.sqlite")
    finally:
        folder.chmod(0o755)


class _FailingOnce:
    """A connection whose next write transaction fails as SQLite does on a damaged page."""

    def __init__(self, db):
        self._db, self.failed = db, False

    def execute(self, sql, *args):
        if sql == "BEGIN IMMEDIATE" and not self.failed:
            self.failed = True
            raise sqlite3.DatabaseError("database disk image is malformed")
        return self._db.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self._db, name)


def test_damage_found_while_committing_writes_the_buffered_records_to_the_fresh_file(tmp_path, caplog):
    path = tmp_path / "c.sqlite"
    _fill(path, 10)
    cache = ResultCache(path)
    cache._db = _FailingOnce(cache._db)
    cache.store(PROGS[50], "cpu=0.1", [(ITEMS[0], 1, 2)])
    cache.put_verdict(PROGS[50], "T/0", "base", True)
    with caplog.at_level(logging.WARNING, logger="coderank_evalplus.engine.execution.cache"):
        cache.commit()
    assert len(_moved(tmp_path)) == 1 and "is damaged" in caplog.records[0].message
    cache.close()
    cache = ResultCache(path)
    assert cache.lookup(PROGS[50], "cpu=0.1") == {ITEMS[0]: (1, 2)}
    assert cache.get_verdict(PROGS[50], "T/0", "base") is True
    assert cache.lookup(PROGS[1], "cpu=0.1") == {}  # what the moved-aside file held is redone
    cache.close()
