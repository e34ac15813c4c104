"""The check child's claims: an output too large to report as a value (MBPP+'s Mbpp/255 returns 128 million
strings) goes as its pickle, streamed in parts; the referee compares it with its own pickle of the expected output
as it comes, and evalplus's rules still decide every output whose bytes differ."""

import pytest

from coderank_evalplus.engine.judging import check_child
from coderank_evalplus.engine.judging.judge import Judge
from coderank_evalplus.engine.sandbox import report
from coderank_evalplus.types import Problem
from tests.engine.judging.test_judge import in_process_referee  # noqa: F401 - a fixture

N = 40_000  # strings of 1,000 characters: a 40 MB pickle, built at once
CANONICAL = f"    return ['x' * 1000] * n if n == {N} else [n]\n"


def _problem() -> Problem:
    return Problem(task_id="T/large", dataset="humaneval", prompt="def f(n):\n", entry_point="f",
                   canonical_solution=CANONICAL, base_input=[[1], [N], [2]], plus_input=[], dataset_hash="large-out")


def _judged(programs: list[str], prob: Problem, monkeypatch, max_frame: int = 4 << 20) -> list[tuple]:
    """(base, plus, why suspicious) per program, judged in this process by a worker whose referee refuses frames
    over ``max_frame``: what reaches it of a 40 MB output must come in parts."""
    from coderank_evalplus.engine.judging import judge as judge_mod

    monkeypatch.setattr(report, "MAX_FRAME", max_frame)
    judge = Judge(None, workers=1, progress=False)  # (kept: it holds the task's files)
    return judge_mod.worker_judge(judge._job(prob, programs, False))


GOOD = "def f(n):\n    return [''.join(['x'] * 1000) for _ in range(n)] if n > 2 else [n]\n"  # fresh strings
LAST_DIFFERS = ("def f(n):\n    out = ['x' * 1000] * n if n > 2 else [n]\n    out[-1] = out[-1][:-1] + 'y'\n"
                "    return out\n")
ONE_SHORT = "def f(n):\n    return ['x' * 1000] * (n - 1) if n > 2 else [n]\n"
# other bytes, and unequal for evalplus too: a tuple where a list is expected
AS_TUPLE = "def f(n):\n    return tuple(['x' * 1000] * n) if n > 2 else [n]\n"


@pytest.mark.usefixtures("in_process_referee")
def test_a_large_output_equal_to_the_expected_passes_and_one_differing_at_its_end_fails(monkeypatch):
    got = _judged([GOOD, LAST_DIFFERS, ONE_SHORT, AS_TUPLE], _problem(), monkeypatch)
    assert got == [(True, None, None), (False, None, None), (False, None, None), (False, None, None)]


@pytest.mark.usefixtures("in_process_referee")
def test_a_large_output_with_other_bytes_is_still_compared_with_evalplus_rules(monkeypatch):
    # 1.0 == 1 for evalplus: the pickles differ, the value comes again and the referee compares it as before
    prob = Problem(task_id="T/large", dataset="humaneval", prompt="def f(n):\n", entry_point="f",
                   canonical_solution="    return list(range(n))\n", base_input=[[3], [100_000]], plus_input=[],
                   dataset_hash="large-floats")
    floats = "def f(n):\n    return [float(i) for i in range(n)]\n"
    wrong = "def f(n):\n    return [float(i) for i in range(n - 1)] + [0.5]\n"
    # a claim from 256 KiB on, in parts of 64 KiB (the child is forked from this process): 100,000 floats, a 900 KB
    # pickle, go as a claim, and their values again, far within the input's time limit whatever the machine's load
    monkeypatch.setattr(check_child, "LARGE_VALUE_BYTES", 256 << 10)
    monkeypatch.setattr(check_child, "CLAIM_PART_BYTES", 64 << 10)
    got = _judged([floats, wrong], prob, monkeypatch, 64 << 20)  # (the value comes again as one frame)
    assert [base for base, _, _ in got] == [True, False]


FORGER = """
import os, struct
def f(n):
    if n <= 2:
        return [n]
    for fd in range(3, 64):  # on every descriptor: a claim of bytes that are no pickle, its end, then a value True
        try:
            os.write(fd, struct.pack("<cII", b"L", 1, 2) + b"\\x80\\x05" + struct.pack("<cII", b"E", 1, 0)
                     + struct.pack("<cII", b"V", 1, 1) + b"t")
        except OSError:
            pass
    return RETURNS
"""
FORGE_WRONG, FORGE_RIGHT = FORGER.replace("RETURNS", "['x'] * n"), FORGER.replace("RETURNS", "['x' * 1000] * n")
WRITES_NOTHING = FORGE_RIGHT.replace("range(3, 64)", "range(0)")
LYING_ITER = """
class L(list):
    def __iter__(self):
        return iter(['x' * 1000] * 40000)
def f(n):
    return L(['y'] * n) if n > 2 else [n]
"""
LYING_EQ = """
class Anything(list):
    def __eq__(self, other):
        return True
    __hash__ = None
def f(n):
    return Anything(['y'] * n) if n > 2 else [n]
"""


@pytest.mark.usefixtures("in_process_referee")
def test_a_forged_stream_or_a_lying_iter_fails_and_a_lying_eq_passes_only_as_suspicious(monkeypatch):
    forged, forged_right, control, lying_iter, lying_eq = _judged(
        [FORGE_WRONG, FORGE_RIGHT, WRITES_NOTHING, LYING_ITER, LYING_EQ], _problem(), monkeypatch)
    # (the forged frames reach the referee: even the right value after them fails; without them it passes)
    assert forged[0] is False and forged_right[0] is False and control[0] is True and lying_iter[0] is False
    # a value of its own class is compared in the child with its own ==, as evalplus compares it: the pass is
    # listed as suspicious (strict fails it)
    assert lying_eq[0] is True and "its own == decided" in lying_eq[2]
