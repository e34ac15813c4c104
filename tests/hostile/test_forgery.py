"""Wrong candidates that forge their verdict (issue 25) are judged wrong; the run finishes.

Through the judge (evalplus's rules, base and plus inputs), on a small problem of our own, so no data is needed.
An always-equal object passes, as in evalplus, and is listed as suspicious; ``strict`` fails it.
"""

from __future__ import annotations

import os

import pytest

from coderank_evalplus.engine.execution.execute import ResultCache
from coderank_evalplus.engine.judging.judge import Judge
from coderank_evalplus.types import Problem
from tests.hostile.forgers import ALWAYS_EQUAL, FORGERS, GOOD, HONEST_WRONG, OPAQUE_CLAIMS

TASK = "Forge/add"


def _problem(tag: str) -> Problem:
    return Problem(task_id=TASK, dataset="humaneval", prompt="def add(a, b):\n", entry_point="add",
                   canonical_solution="    return a + b\n", base_input=[[1, 2], [2, 2], [-1, 1]],
                   plus_input=[[k, 3 * k] for k in range(40)], dataset_hash=f"forgery-{tag}")


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    progs = [GOOD, HONEST_WRONG, ALWAYS_EQUAL, OPAQUE_CLAIMS] + list(FORGERS.values())
    judge = Judge(ResultCache(tmp_path_factory.mktemp("forge") / "c.sqlite"), workers=2, progress=False)
    out = judge.judge_programs({TASK: progs}, {TASK: _problem("a")})[TASK]
    return dict(zip(progs, out)), judge


@pytest.mark.parametrize("name", sorted(FORGERS))
def test_forger_is_judged_wrong(judged, name):
    verdicts, judge = judged
    v = verdicts[FORGERS[name]]
    assert (v.base, v.plus) == (False, False), name
    assert (TASK, FORGERS[name]) not in judge.suspicious


def test_honest_programs_keep_their_verdicts(judged):
    verdicts, judge = judged
    assert (verdicts[GOOD].base, verdicts[GOOD].plus) == (True, True)
    assert (verdicts[HONEST_WRONG].base, verdicts[HONEST_WRONG].plus) == (False, False)
    assert (TASK, GOOD) not in judge.suspicious


def test_own_equality_passes_as_in_evalplus_and_is_suspicious(judged):
    # evalplus lets an object whose == always says yes pass: so does the judge, and lists it
    verdicts, judge = judged
    assert (verdicts[ALWAYS_EQUAL].base, verdicts[ALWAYS_EQUAL].plus) == (True, True)
    assert "its own == decided" in judge.suspicious[(TASK, ALWAYS_EQUAL)]


def test_a_forger_claiming_its_own_equality_passes_only_as_suspicious(judged):
    # a forger that claims "my object compared equal" in the referee's protocol can do no more than that object:
    # wherever it passes, it is listed (the forger itself does not always find its pipes: either outcome is allowed)
    verdicts, judge = judged
    v = verdicts[OPAQUE_CLAIMS]
    if v.base or v.plus:
        assert "its own == decided" in judge.suspicious[(TASK, OPAQUE_CLAIMS)]


def test_strict_fails_suspicious_passes_and_the_cache_remembers_why(tmp_path):
    cache = ResultCache(tmp_path / "c.sqlite")
    progs = [GOOD, ALWAYS_EQUAL]
    lax = Judge(cache, workers=1, progress=False).judge_programs({TASK: progs}, {TASK: _problem("b")})[TASK]
    assert [(v.base, v.plus) for v in lax] == [(True, True), (True, True)]
    strict = Judge(cache, workers=1, progress=False, strict=True)  # from the cache: nothing is run again
    out = strict.judge_programs({TASK: progs}, {TASK: _problem("b")})[TASK]
    assert [(v.base, v.plus) for v in out] == [(True, True), (False, False)]
    assert list(strict.suspicious) == [(TASK, ALWAYS_EQUAL)]


def test_check_child_cannot_open_the_memory_of_other_processes():
    # the referee (and the worker, and the driver) hold what a forger wants; a check child may not read them
    from coderank_evalplus.engine.sandbox.report import VALUE, FrameReader, decode_value, encode_value, frame
    from coderank_evalplus.engine.sandbox.runner import run_reported

    def target(workdir: str, rep: int, ans: int) -> None:
        opened = []
        for pid in (os.getppid(), 1):
            try:
                os.close(os.open(f"/proc/{pid}/mem", os.O_RDONLY))
                opened.append(pid)
            except OSError:
                pass
        os.write(rep, frame(VALUE, 0, encode_value(opened)))

    def decide(pid, rfd, wfd, deadline):
        data = b""
        while chunk := os.read(rfd, 4096):
            data += chunk
        os.close(rfd)
        os.close(wfd)
        return [decode_value(p) for _, _, p in FrameReader().feed(data)]

    from coderank_evalplus.engine.sandbox.confine import _landlock_abi

    out = run_reported(target, decide, wall_timeout=10)
    if _landlock_abi() < 1:
        pytest.skip("no Landlock on this kernel: /proc/<pid>/mem is guarded only by ptrace rules")
    assert out == [[]]


def test_report_format_is_strict():
    from coderank_evalplus.engine.sandbox.report import Opaque, ReportError, decode_value, encode_value

    for v in [None, True, 0, -(10 ** 5000), 1.5, float("inf"), 2j, "é\udc80", b"\x00", [1, (2, {3: frozenset({4})})],
              {"a": [set(), ()]}]:
        assert decode_value(encode_value(v)) == v and type(decode_value(encode_value(v))) is type(v)
    class Sub(int):
        pass
    with pytest.raises(Opaque):
        encode_value(Sub(1))
    with pytest.raises(Opaque):
        encode_value([object()])
    loop: list = []
    loop.append(loop)
    with pytest.raises(Opaque):
        encode_value(loop)
    for bad in [b"", b"x", b"l\xff\xff\xff\x7f", b"i\x05\x00\x00\x00\x01", b"nn",
                b"S\x01\x00\x00\x00l\x00\x00\x00\x00"]:
        with pytest.raises(ReportError):
            decode_value(bad)
