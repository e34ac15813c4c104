"""Storage faults through the CLI on real samples (issue 18): a damaged cache, a full disk, a read-only folder, two
runs on one cache, a run killed between writing and renaming a result file.

Each fault: the exit code and the one-line message, then — the fault gone — the same numbers, verdicts and
rankings as an undisturbed run. Real CodeGen-16B samples (CodeT's release), the dataset's first 3 problems, a few
samples each so that every run takes seconds.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from coderank_evalplus.engine.execution.cache import SCHEMA_VERSION
from coderank_evalplus.engine.execution.execute import content_key
from tests.conftest import SHARED_DATA, needs_data

REPO = Path(__file__).resolve().parents[1]
TASKS = ["HumanEval/0", "HumanEval/1", "HumanEval/2", "HumanEval/3"]
N = 8  # solutions and test samples per problem
LIMIT = 3

pytestmark = needs_data


@pytest.fixture(scope="module")
def inputs(tmp_path_factory, codet_samples) -> Path:
    sols, tests = codet_samples
    d = tmp_path_factory.mktemp("fault_inputs")
    (d / "samples.jsonl").write_text("".join(json.dumps({"task_id": t, "solution": p}) + "\n"
                                             for t in TASKS for p in sols[t][:N]))
    (d / "tests.jsonl").write_text("".join(json.dumps({"task_id": t, "samples": tests[t][:N]}) + "\n"
                                           for t in TASKS))
    return d


def _cmd(inputs: Path, out: Path, cache: Path | None = None, methods: str = "codet,srank") -> list[str]:
    cmd = [sys.executable, "-m", "coderank_evalplus.cli", "rerank", "--dataset", "humaneval", "--data-dir",
           str(SHARED_DATA), "--solutions", str(inputs / "samples.jsonl"), "--tests", str(inputs / "tests.jsonl"),
           "--limit", str(LIMIT), "--methods", methods, "--workers", "2", "--quiet", "--output", str(out)]
    return cmd + (["--cache-dir", str(cache)] if cache else [])


def _env(**extra) -> dict:
    return dict(os.environ, PYTHONPATH=str(REPO), **extra)


def _run(inputs: Path, out: Path, cache: Path | None = None, env: dict | None = None,
         **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(_cmd(inputs, out, cache), capture_output=True, text=True, timeout=600,
                          env=env or _env(), **kwargs)


def _outputs(out: Path) -> dict:
    res = json.loads((out / "rerank_results.json").read_text())
    return {"methods": res["methods"], "task_ids": res["task_ids"], "verdicts": (out / "verdicts.jsonl").read_text(),
            "rankings": (out / "rankings.jsonl").read_text()}


def _stats(out: Path) -> dict:
    return json.loads((out / "rerank_results.json").read_text())["execution"]


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning: execution cache")]


def _sound(db: Path) -> int:
    """Rows of a cache file that passes SQLite's integrity check (fails the test otherwise)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        return con.execute("SELECT COUNT(*) FROM item_results").fetchone()[0]
    finally:
        con.close()


@pytest.fixture(scope="module")
def reference(inputs, tmp_path_factory) -> dict:
    """An undisturbed run: its outputs, and its cache file (checkpointed into one file by the closing run)."""
    out = tmp_path_factory.mktemp("reference")
    r = _run(inputs, out)
    assert r.returncode == 0, r.stderr
    assert _warnings(r.stderr) == []
    db = out / "cache" / "executions.sqlite"
    assert not Path(str(db) + "-wal").exists()
    return {"outputs": _outputs(out), "cache": db.read_bytes(), "executed": _stats(out)["executed_items"],
            "rows": _sound(db),
            "provenance": json.loads((out / "rerank_results.json").read_text())["provenance"]}


def _with_cache(tmp_path: Path, reference: dict) -> tuple[Path, Path]:
    out = tmp_path / "out"
    (out / "cache").mkdir(parents=True)
    db = out / "cache" / "executions.sqlite"
    db.write_bytes(reference["cache"])
    return out, db


# ---------------------------------------------------------------- damaged cache files

@pytest.mark.parametrize("fault", ["zeros", "truncated", "future"])
def test_unusable_cache_is_moved_aside_and_the_run_gives_the_same_numbers(inputs, reference, tmp_path, fault):
    out, db = _with_cache(tmp_path, reference)
    size = db.stat().st_size
    if fault == "zeros":  # a few KiB of zeros in the middle (a crash, a full disk, a half-copied folder)
        with open(db, "r+b") as fh:
            fh.seek(size // 2)
            fh.write(bytes(8192))
    elif fault == "truncated":
        os.truncate(db, size // 2)
    else:  # written by a newer version
        con = sqlite3.connect(db)
        con.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
        con.close()
    r = _run(inputs, out)
    assert r.returncode == 0, r.stderr
    tag = f"schema-{SCHEMA_VERSION + 1}" if fault == "future" else "damaged"
    (warning,) = _warnings(r.stderr)
    assert re.fullmatch(rf"warning: execution cache {re.escape(str(db))} .*: "
                        rf"moved aside "
                        rf"to executions\.sqlite\.{tag}-\d{{8}}-\d{{6}}; the work it held will be redone "
                        rf"\(deleting a cache is always safe\)", warning), warning
    assert len(list(db.parent.glob(f"executions.sqlite.{tag}-*"))) == 1
    assert _outputs(out) == reference["outputs"]
    assert _stats(out)["executed_items"] == reference["executed"]  # everything redone, into a fresh file
    assert _sound(db) == reference["rows"]


def test_a_flipped_byte_in_one_record_is_dropped_and_recomputed(inputs, reference, tmp_path):
    out, db = _with_cache(tmp_path, reference)
    first = json.loads((inputs / "samples.jsonl").read_text().splitlines()[0])["solution"]  # a HumanEval/0 sample
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    (records,) = con.execute("SELECT records FROM item_results WHERE prog=?",
                             (content_key("program", first),)).fetchone()
    con.close()
    data = bytearray(db.read_bytes())
    at = data.index(records)
    data[at + len(records) // 2] ^= 0x04
    db.write_bytes(data)
    r = _run(inputs, out)
    assert r.returncode == 0, r.stderr
    assert _warnings(r.stderr) == [f"warning: execution cache {db}: a record failed its "
                                   f"checksum (damaged on disk); it is dropped and its work redone"]
    assert _outputs(out) == reference["outputs"]
    stats = _stats(out)
    assert 0 < stats["executed_items"] < reference["executed"]  # only the damaged record's program ran again
    assert stats["executed_items"] + stats["cached_items"] == reference["executed"]


# ---------------------------------------------------------------- full disk, read-only folder

def _fsize_limit(limit: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_file_size_limit_during_the_run_then_resume(inputs, reference, tmp_path):
    out = tmp_path / "out"
    db = out / "cache" / "executions.sqlite"
    # commit every record, so that the limit is reached after some commits; a write past the limit fails
    # (EFBIG) as on a full disk
    r = _run(inputs, out, env=_env(CODERANK_CACHE_COMMIT_S="0"), preexec_fn=_fsize_limit(48 * 1024))
    assert r.returncode == 2, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert re.fullmatch(rf"error: cannot write the execution cache in {re.escape(str(db.parent))}: file size limit "
                        rf"reached \(about [\d.]+ (B|KiB) to write, [\d.]+ \w+ free\); free some space and rerun "
                        rf"the same command \(finished work is kept\)", last), last
    assert "Traceback" not in r.stderr
    committed = _sound(db)
    assert 0 < committed < reference["rows"]
    assert not (out / "rerank_results.json").exists()
    r = _run(inputs, out)  # the limit gone: resumes
    assert r.returncode == 0, r.stderr
    assert _outputs(out) == reference["outputs"]
    stats = _stats(out)
    assert stats["cached_items"] > 0 and stats["cached_items"] + stats["executed_items"] == reference["executed"]


def _mount_tmpfs(folder: Path, options: str) -> bool:
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True)
    return r.returncode == 0


def _remount(folder: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(folder)], check=True, capture_output=True)


def test_full_disk_during_the_run_then_resume(inputs, reference, tmp_path):
    disk = tmp_path / "disk"
    if not _mount_tmpfs(disk, "size=96k"):
        pytest.skip("needs root and tmpfs to fill a disk (the file-size-limit test covers the same path)")
    try:
        out = disk / "out"
        r = _run(inputs, out, env=_env(CODERANK_CACHE_COMMIT_S="0"))
        assert r.returncode == 2, r.stderr
        last = r.stderr.strip().splitlines()[-1]
        assert re.fullmatch(rf"error: cannot write the execution cache in {re.escape(str(out / 'cache'))}: no space "
                            rf"left on the device \(about [\d.]+ (B|KiB) to write, [\d.]+ (B|KiB) free\); free some "
                            rf"space and rerun the same command \(finished work is kept\)", last), last
        _remount(disk, "size=4m")  # space freed
        r = _run(inputs, out)
        assert r.returncode == 0, r.stderr
        assert _outputs(out) == reference["outputs"]
        assert _stats(out)["cached_items"] > 0
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)


def test_read_only_output_folder_then_writable(inputs, reference, tmp_path):
    folder = tmp_path / "ro"
    mounted = _mount_tmpfs(folder, "size=4m")
    if not mounted and os.geteuid() == 0:
        pytest.skip("root ignores folder permissions and cannot mount a read-only tmpfs here")
    try:
        if mounted:
            _remount(folder, "ro")
        else:
            folder.chmod(0o555)
        out = folder / "out" if mounted else folder
        r = _run(inputs, out)
        assert r.returncode == 2, r.stderr
        reason = "read-only file system" if mounted else "permission denied"
        assert r.stderr.strip().splitlines()[-1] == (
            f"error: cannot write results in {out}: {reason}; make the folder writable or choose another "
            f"(--output / --cache-dir) and rerun")
        assert "Traceback" not in r.stderr
        if mounted:
            _remount(folder, "rw")
        else:
            folder.chmod(0o755)
        r = _run(inputs, out)
        assert r.returncode == 0, r.stderr
        assert _outputs(out) == reference["outputs"]
    finally:
        if mounted:
            subprocess.run(["umount", str(folder)], capture_output=True)
        else:
            folder.chmod(0o755)


# ---------------------------------------------------------------- two runs at once, killed writer

def test_two_runs_on_one_cache_at_once(inputs, reference, tmp_path):
    cache = tmp_path / "shared_cache"
    env = _env(CODERANK_CACHE_COMMIT_S="0")  # as many interleaved commits as possible
    procs = [subprocess.Popen(_cmd(inputs, tmp_path / f"out{i}", cache), env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for i in range(2)]
    results = [p.communicate(timeout=600) + (p.returncode,) for p in procs]
    for _, stderr, rc in results:
        assert rc == 0, stderr
        assert _warnings(stderr) == []
    for i in range(2):
        assert _outputs(tmp_path / f"out{i}") == reference["outputs"]
    _sound(cache / "executions.sqlite")
    r = _run(inputs, tmp_path / "out2", cache)  # a third run finds everything
    assert r.returncode == 0 and _stats(tmp_path / "out2")["executed_items"] == 0


def test_two_runs_open_one_damaged_cache_at_once(inputs, reference, tmp_path):
    out, db = _with_cache(tmp_path, reference)
    with open(db, "r+b") as fh:
        fh.seek(db.stat().st_size // 2)
        fh.write(bytes(8192))
    procs = [subprocess.Popen(_cmd(inputs, tmp_path / f"out{i}", db.parent), env=_env(), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for i in range(2)]
    results = [p.communicate(timeout=600) + (p.returncode,) for p in procs]
    assert [rc for _, _, rc in results] == [0, 0], [e for _, e, _ in results]
    assert len(list(db.parent.glob("executions.sqlite.damaged-*"))) == 1  # moved aside once, by one of them
    for i in range(2):
        assert _outputs(tmp_path / f"out{i}") == reference["outputs"]
    _sound(db)


def test_killed_between_writing_and_renaming_a_result_file(inputs, reference, tmp_path):
    out, _ = _with_cache(tmp_path, reference)
    # an earlier, complete run of the same inputs (so the rerun may replace it)
    (out / "rerank_results.json").write_text(json.dumps({"older": "complete",
                                                         "provenance": reference["provenance"]}) + "\n")
    code = ("import os, signal, sys\n"
            "real = os.replace\n"
            "def replace(src, dst):\n"
            "    if str(dst).endswith('rerank_results.json'):\n"
            "        os.kill(os.getpid(), signal.SIGKILL)\n"
            "    real(src, dst)\n"
            "os.replace = replace\n"
            "from coderank_evalplus.cli.console import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    r = subprocess.run([sys.executable, "-c", code, *_cmd(inputs, out)[3:]], capture_output=True, text=True,
                       env=_env(), timeout=600)
    assert r.returncode == -9, r.stderr
    # the earlier summary was removed before the new files were written, and the new one never got its name: the
    # folder reads as incomplete (what a report checks), never as half a JSON file or as a mix of two runs
    assert not (out / "rerank_results.json").exists()
    for name in ("verdicts.jsonl", "rankings.jsonl", "problems.jsonl"):
        [json.loads(line) for line in (out / name).read_text().splitlines()]  # complete files
    temps = list(out.glob(".rerank_results.json.tmp-*"))
    assert len(temps) == 1  # the new content, written in full under a temporary name
    assert json.loads(temps[0].read_text())["task_ids"] == reference["outputs"]["task_ids"]
    r = _run(inputs, out)
    assert r.returncode == 0, r.stderr
    assert _outputs(out) == reference["outputs"]
    assert list(out.glob(".*.tmp-*")) == []
