"""Hostile candidates through the real engine (``execute``: worker pool → forked, confined child).

One ``execute`` call runs every hostile program of ``programs.py``, each as a candidate of its own problem
beside a good candidate. For each program: the run completes, the hostile candidate gets its expected
outcome (never a pass), the good candidate of the same problem passes everything with the right outputs,
no process of the run outlives it (found by an environment marker, so escapees re-parented to init count
too), nothing outside the sandbox's temp dirs changed (a canary folder, a path in the shared /tmp), no
connection reached a loopback listener, and the sandbox's temp dirs are gone.
"""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Iterator

import psutil
import pytest

from coderank_evalplus.engine.execution.execute import ExecutionStats, ProblemWork, execute
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.engine.sandbox.canonical import digest_value
from coderank_evalplus.testgen.extract import suite_from_asserts
from coderank_evalplus.types import PASS, RETURNED, Problem
from tests.hostile.programs import GOOD, PROGRAMS, WRITES_OWN_TEMP

ASSERTS = {"add(1, 2) == 3": 1, "add(2, 2) == 4": 1, "add(-1, 1) == 0": 1}
GOOD_OUTPUTS = [digest_value(3), digest_value(4), digest_value(0)]
LIMITS = Limits(cpu=0.1, import_cpu=0.5, wall_factor=5.0, wall_min=0.5)  # stalls: 1 s per test, 3 s at import
MEM = str(512 * 1024 * 1024)


def _tree_digest(root: Path) -> dict:
    out = {}
    for p in sorted(root.rglob("*")):
        out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
    return out


def _marked_processes(marker: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["pid"]):
        if proc.pid == os.getpid():
            continue
        try:
            if proc.environ().get("CODERANK_HOSTILE_MARKER") == marker:
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            pass
    return found


def run_hostile(base: Path, make_works) -> Iterator[dict]:
    """Run ``make_works(fill)`` (the works of every hostile program, ``fill`` replacing its tokens) in one
    ``execute`` call, watching for damage; yields what the tests check."""
    canary = base / "canary"
    (canary / "inner").mkdir(parents=True)
    (canary / "keep.txt").write_text("do not touch\n")
    (canary / "inner" / "data.bin").write_bytes(os.urandom(256))
    before = _tree_digest(canary)
    sandbox_tmp = base / "sandbox_tmp"  # TMPDIR of the workers: their per-program temp dirs land here
    sandbox_tmp.mkdir()
    tmp_target = Path("/tmp") / f"coderank_hostile_{uuid.uuid4().hex}"
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(16)
    tcp.setblocking(False)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.setblocking(False)
    subst = {"@CANARY_DIR@": str(canary), "@CANARY_FILE@": str(canary / "keep.txt"),
             "@TMP_TARGET@": str(tmp_target), "@PORT@": str(tcp.getsockname()[1]),
             "@UDP_PORT@": str(udp.getsockname()[1])}

    def fill(src: str) -> str:
        for k, v in subst.items():
            src = src.replace(k, v)
        return src

    works = make_works(fill)
    marker = uuid.uuid4().hex
    saved = {k: os.environ.get(k) for k in ("EVALPLUS_MAX_MEMORY_BYTES", "TMPDIR", "CODERANK_HOSTILE_MARKER")}
    os.environ.update(EVALPLUS_MAX_MEMORY_BYTES=MEM, TMPDIR=str(sandbox_tmp), CODERANK_HOSTILE_MARKER=marker)
    stats = ExecutionStats()
    t0 = time.monotonic()
    try:
        ex = execute(works, None, LIMITS, workers=2, progress=False, stats=stats)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    wall = time.monotonic() - t0
    time.sleep(0.2)  # anything killed at the very end has time to disappear
    strays = [(p.pid, p.name()) for p in _marked_processes(marker) if p.is_running()
              and p.status() != psutil.STATUS_ZOMBIE]
    try:
        conn, _ = tcp.accept()
        tcp_received = conn.recv(100) or b"<connected>"
    except BlockingIOError:
        tcp_received = b""
    try:
        udp_received = udp.recv(100)
    except BlockingIOError:
        udp_received = b""
    tcp.close()
    udp.close()
    yield dict(ex=ex, stats=stats, wall=wall, strays=strays, canary_before=before,
               canary_after=_tree_digest(canary), tmp_target=tmp_target, sandbox_tmp=sandbox_tmp,
               tcp=tcp_received, udp=udp_received, children=psutil.Process().children(recursive=True))
    if tmp_target.exists():
        tmp_target.unlink()



@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    def works(fill):
        suite = suite_from_asserts(ASSERTS, "add")
        out = [ProblemWork(Problem(f"Hostile/{h.name}", "humaneval", "def add(a, b):\n", "add"),
                           [GOOD, fill(h.source), GOOD], suite) for h in PROGRAMS]
        out.append(ProblemWork(Problem("Hostile/writes_own_temp", "humaneval", "def add(a, b):\n", "add"),
                               [GOOD, WRITES_OWN_TEMP], suite))
        return out

    yield from run_hostile(tmp_path_factory.mktemp("hostile"), works)


@pytest.mark.parametrize("hostile", PROGRAMS, ids=[h.name for h in PROGRAMS])
def test_hostile_candidate_gets_its_outcome_and_leaves_the_good_one_alone(hostile_run, hostile):
    ex = hostile_run["ex"][f"Hostile/{hostile.name}"]
    pm = ex.candidate_pass()
    outcomes = ex.pass_matrix[ex.program_of_candidate]
    assert set(outcomes[1].tolist()) <= hostile.expected, (hostile.name, outcomes[1].tolist())
    assert not pm[1].any()
    # the good candidates around it: all pass, right outputs
    for c in (0, 2):
        assert outcomes[c].tolist() == [PASS] * 3
        assert ex.candidate_output_kind()[c].tolist() == [RETURNED] * 3
        assert ex.candidate_outputs()[c].tolist() == GOOD_OUTPUTS


def test_writes_inside_own_temp_dir_are_allowed(hostile_run):
    ex = hostile_run["ex"]["Hostile/writes_own_temp"]
    assert ex.candidate_pass().all()


def test_no_stray_process_and_no_damage(hostile_run):
    assert hostile_run["strays"] == []
    assert hostile_run["children"] == []
    assert hostile_run["canary_after"] == hostile_run["canary_before"]
    assert not hostile_run["tmp_target"].exists()
    assert hostile_run["tcp"] == b"" and hostile_run["udp"] == b""
    assert list(hostile_run["sandbox_tmp"].iterdir()) == []  # every per-program temp dir was removed
    assert hostile_run["stats"].unique_programs == 2 * len(PROGRAMS) + 2


def test_hostile_suite_is_fast(hostile_run):
    assert hostile_run["wall"] < 60, hostile_run["wall"]


def test_confinement_is_active_here():
    """Report which kernel pieces the child gets on this machine (x86-64 Linux: seccomp; ≥ 5.13: Landlock)."""
    from coderank_evalplus.engine.sandbox import run_function_in_child

    def probe() -> bytes:
        from coderank_evalplus.engine.sandbox.confine import confine

        done = confine(os.getcwd(), strict=True)
        return f"{int(done['seccomp'])}{int(done['landlock'])}".encode()

    out = run_function_in_child(probe, wall_timeout=10)
    assert out is not None
    if os.uname().machine == "x86_64":
        assert out[:1] == b"1", "seccomp filter was not installed"


ESCAPEE = r"""
import os, sys, time
sys.path.insert(0, {root!r})
from coderank_evalplus.engine import sandbox
from coderank_evalplus.engine.execution import workers
from coderank_evalplus.engine.sandbox import confine
confine.apply_confinement = lambda *a, **k: {{}}  # as on a kernel without seccomp / Landlock
workers._prctl(workers._PR_SET_CHILD_SUBREAPER, 1)
program = '''
import posix, time
def add(a, b):
    if posix.fork() == 0:
        posix.setsid()
        if posix.fork() == 0:
            time.sleep(1000)
        posix._exit(0)
    return None
'''
imported, res = sandbox.run_program(program, [("call", "add(1, 2)")], sandbox.Limits(cpu=0.5))
before = workers._children(os.getpid())
killed = workers.kill_descendants()
print(len(before), killed, len(workers._children(os.getpid())))
"""


@pytest.mark.slow
def test_unconfined_escapee_is_still_killed_by_the_worker_sweep():
    """Without the kernel pieces a double fork + setsid escapes killpg; the worker (a subreaper) kills it."""
    marker = uuid.uuid4().hex
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, CODERANK_HOSTILE_MARKER=marker)
    out = subprocess.run([sys.executable, "-c", ESCAPEE.format(root=root)], env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    before, killed, after = map(int, out.stdout.split())
    assert before >= 1 and killed >= 1 and after == 0
    time.sleep(0.1)
    assert [p for p in _marked_processes(marker) if p.status() != psutil.STATUS_ZOMBIE] == []
