"""Atomic result files and one-line storage errors (issue 18)."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from coderank_evalplus import storage
from coderank_evalplus.storage import StorageError, atomic_write_json, atomic_write_text, ensure_writable_dir

REPO = Path(__file__).resolve().parents[1]


def test_atomic_write_replaces_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "sub" / "r.json"
    atomic_write_json(path, {"a": 1}, indent=2)
    atomic_write_json(path, {"a": 2})
    assert json.loads(path.read_text()) == {"a": 2}
    assert [p.name for p in path.parent.iterdir()] == ["r.json"]
    assert oct(path.stat().st_mode & 0o777) == oct(0o666 & ~storage._UMASK)


def test_killed_between_writing_and_renaming_keeps_the_old_file(tmp_path):
    path = tmp_path / "rerank_results.json"
    atomic_write_json(path, {"old": True})
    code = ("import os, signal, sys\n"
            "from coderank_evalplus import storage\n"
            "os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)\n"
            f"storage.atomic_write_json({str(path)!r}, {{'new': list(range(100000))}})\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert r.returncode == -9
    assert json.loads(path.read_text()) == {"old": True}  # the old file, complete
    left = [p.name for p in tmp_path.iterdir() if p.name != path.name]
    assert len(left) == 1 and left[0].startswith(".rerank_results.json.tmp-")  # the written temporary
    atomic_write_json(path, {"new": 1})  # the next write clears what a dead process left
    assert json.loads(path.read_text()) == {"new": 1}
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


@pytest.mark.parametrize("code,reason", [(errno.ENOSPC, "no space left on the device"),
                                         (errno.EFBIG, "file size limit reached"),
                                         (errno.EROFS, "read-only file system")])
def test_write_errors_are_one_line_and_keep_the_old_file(tmp_path, monkeypatch, code, reason):
    path = tmp_path / "verdicts.jsonl"
    atomic_write_text(path, "old\n")

    def fail(*args):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(storage.os, "fsync", fail)
    with pytest.raises(StorageError) as info:
        atomic_write_text(path, "x" * 3000)
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith(f"cannot write verdicts.jsonl in {tmp_path}: {reason}")
    if code != errno.EROFS:
        assert "about 2.9 KiB to write" in msg and "rerun the same command" in msg
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_ensure_writable_dir(tmp_path, monkeypatch):
    assert ensure_writable_dir(tmp_path / "a" / "b").is_dir()
    assert list((tmp_path / "a" / "b").iterdir()) == []

    def fail(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(storage.tempfile, "mkstemp", fail)
    with pytest.raises(StorageError, match=r"cannot write results in .*: permission denied; make the folder "
                                           r"writable or choose another"):
        ensure_writable_dir(tmp_path / "a")


def test_an_existing_file_as_output_folder_is_a_one_line_refusal(tmp_path):
    (tmp_path / "taken").write_text("x")
    for target in (tmp_path / "taken", tmp_path / "taken" / "sub"):
        with pytest.raises(ValueError, match=r"results folder .*: .*taken is a file, not a folder; give another "
                                             r"--output"):
            ensure_writable_dir(target)
    assert (tmp_path / "taken").read_text() == "x"


def test_an_output_folder_is_opened_only_when_new_empty_or_this_tools(tmp_path):
    """A user's folder is refused (nothing written in it); a new or empty one is opened and marked, so that a later
    run knows it; one written before the mark is known by a file only this tool's folders hold."""
    from coderank_evalplus.storage import OUTPUT_MARK, open_output_dir

    users = tmp_path / "users"
    users.mkdir()
    (users / "verdicts.jsonl").write_text("mine")
    with pytest.raises(ValueError, match="holds files this tool did not write"):
        open_output_dir(users)
    assert [p.name for p in users.iterdir()] == ["verdicts.jsonl"]
    for folder in (tmp_path / "new" / "deep", tmp_path / "empty"):
        (tmp_path / "empty").mkdir(exist_ok=True)
        assert open_output_dir(folder) == folder and (folder / OUTPUT_MARK).is_file()
        (folder / "verdicts.jsonl").write_text("ours")
        assert open_output_dir(folder) == folder  # ours now, files and all
    assert open_output_dir(users, ours=("verdicts.jsonl",)) == users  # a folder from before the mark
