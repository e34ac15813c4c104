"""Every hostile program of ``programs.py`` again, as a stdin program (LiveCodeBench's AtCoder / Codeforces shape):
the same guarantees as for a function -- the run completes, the hostile program never passes, the good programs
beside it pass with the right outputs, nothing outside the sandbox's temp dirs changes, no process outlives the
run, no connection leaves it.

Each program reads ``a b`` and prints ``add(a, b)``: LiveCodeBench's rewrite puts everything but the imports into
``wrapped_function``, so the attacks run in each test (a top-level attack too). Outcomes are those of the function
shape, except that a wrong value printed is a FAIL and that whatever stops the program before it prints (an
exception, ``sys.exit``, ``os._exit``) is a FAIL (nothing printed, or ``SystemExit`` ending it as under
LiveCodeBench) or an ERROR.
"""

from __future__ import annotations

import pytest

from coderank_evalplus.engine.execution.execute import ProblemWork
from coderank_evalplus.engine.sandbox.canonical import digest_value
from coderank_evalplus.testgen.extract import suite_from_asserts
from coderank_evalplus.types import ERROR, FAIL, PASS, RETURNED, STDIN, STDIN_CALLEE, TIMEOUT, Problem
from tests.hostile.programs import PROGRAMS, WRITES_OWN_TEMP
from tests.hostile.test_hostile import run_hostile

ASSERTS = {"run_stdin('1 2\\n') == '3'": 1, "run_stdin('2 2\\n') == '4'": 1, "run_stdin('-1 1\\n') == '0'": 1}
GOOD = "a, b = map(int, input().split())\nprint(a + b)\n"
GOOD_OUTPUTS = [digest_value("3"), digest_value("4"), digest_value("0")]
MAIN = "\nprint(add(*map(int, input().split())))\n"


def as_stdin(source: str) -> str:
    return source + MAIN


@pytest.fixture(scope="module")
def hostile_stdin_run(tmp_path_factory):
    def works(fill):
        suite = suite_from_asserts(ASSERTS, STDIN_CALLEE)
        out = [ProblemWork(Problem(f"HostileStdin/{h.name}", "livecodebench", "", STDIN_CALLEE, shape=STDIN),
                           [GOOD, as_stdin(fill(h.source)), GOOD], suite) for h in PROGRAMS]
        out.append(ProblemWork(Problem("HostileStdin/writes_own_temp", "livecodebench", "", STDIN_CALLEE,
                                       shape=STDIN), [GOOD, as_stdin(WRITES_OWN_TEMP)], suite))
        return out

    yield from run_hostile(tmp_path_factory.mktemp("hostile_stdin"), works)


@pytest.mark.parametrize("hostile", PROGRAMS, ids=[h.name for h in PROGRAMS])
def test_hostile_stdin_program_never_passes_and_leaves_the_good_one_alone(hostile_stdin_run, hostile):
    ex = hostile_stdin_run["ex"][f"HostileStdin/{hostile.name}"]
    outcomes = ex.pass_matrix[ex.program_of_candidate]
    assert set(outcomes[1].tolist()) <= hostile.expected | {FAIL, ERROR}, (hostile.name, outcomes[1].tolist())
    if hostile.expected == {TIMEOUT}:
        assert set(outcomes[1].tolist()) == {TIMEOUT}, (hostile.name, outcomes[1].tolist())
    assert PASS not in outcomes[1].tolist()
    for c in (0, 2):
        assert outcomes[c].tolist() == [PASS] * 3
        assert ex.candidate_output_kind()[c].tolist() == [RETURNED] * 3
        assert ex.candidate_outputs()[c].tolist() == GOOD_OUTPUTS


def test_writes_inside_own_temp_dir_are_allowed(hostile_stdin_run):
    assert hostile_stdin_run["ex"]["HostileStdin/writes_own_temp"].candidate_pass().all()


def test_no_stray_process_and_no_damage(hostile_stdin_run):
    assert hostile_stdin_run["strays"] == []
    assert hostile_stdin_run["children"] == []
    assert hostile_stdin_run["canary_after"] == hostile_stdin_run["canary_before"]
    assert not hostile_stdin_run["tmp_target"].exists()
    assert hostile_stdin_run["tcp"] == b"" and hostile_stdin_run["udp"] == b""
    assert list(hostile_stdin_run["sandbox_tmp"].iterdir()) == []
    assert hostile_stdin_run["stats"].unique_programs == 2 * len(PROGRAMS) + 2


def test_hostile_stdin_suite_is_fast(hostile_stdin_run):
    assert hostile_stdin_run["wall"] < 90, hostile_stdin_run["wall"]
