from coderank_evalplus.engine.execution.execute import ExecutionStats, ProblemWork, ResultCache, execute
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.testgen.extract import suite_from_asserts
from coderank_evalplus.types import PASS, Problem

PROBLEM = Problem(task_id="T/0", dataset="humaneval", prompt="def add(a, b):\n", entry_point="add",
                  trial_tests=("assert add(1, 1) == 2",))
GOOD = "def add(a, b):\n    return a + b\n"
BAD = "def add(a, b):\n    return a - b\n"


def _work():
    suite = suite_from_asserts({"add(1, 2) == 3": 2, "add(0, 0) == 0": 1, "add(2, 2) == 4": 1}, "add")
    return ProblemWork(PROBLEM, [GOOD, BAD, GOOD, "def add(:"], suite)


def test_duplicates_run_once_and_matrices_line_up(tmp_path):
    stats = ExecutionStats()
    ex = execute([_work()], ResultCache(tmp_path / "c.sqlite"), Limits(), workers=2, progress=False, stats=stats)["T/0"]
    assert stats.unique_programs == 3
    assert list(ex.program_of_candidate) == [0, 1, 0, 2]
    cand = ex.candidate_pass()
    assert cand[0].all() and cand[2].all() and not cand[3].any()
    assert list(cand[1]) == [False, True, False]  # a - b is right only on add(0, 0)
    assert list(ex.assert_counts) == [2, 1, 1]
    assert ex.trial_matrix[0, 0] == PASS and ex.trial_matrix[1, 0] != PASS
    assert list(ex.compiled) == [True, True, False]


def test_rerun_hits_the_cache_and_partial_cache_resumes(tmp_path):
    cache = ResultCache(tmp_path / "c.sqlite")
    first = execute([_work()], cache, Limits(), workers=1, progress=False)["T/0"]
    stats = ExecutionStats()
    again = execute([_work()], cache, Limits(), workers=1, progress=False, stats=stats)["T/0"]
    assert stats.executed_pairs == 0 and stats.jobs == 0
    assert (again.pass_matrix == first.pass_matrix).all() and (again.output_matrix == first.output_matrix).all()
    # a new assert: only that one runs, for each program
    work = _work()
    work.suite = suite_from_asserts({"add(1, 2) == 3": 2, "add(0, 0) == 0": 1, "add(2, 2) == 4": 1,
                                     "add(5, 5) == 10": 1}, "add")
    stats = ExecutionStats()
    more = execute([work], cache, Limits(), workers=1, progress=False, stats=stats)["T/0"]
    assert stats.jobs == 3 and stats.executed_pairs == 3 * 2  # one new call and one new check per program
    assert (more.pass_matrix[:, :3] == first.pass_matrix).all()
