"""Verdicts decided from the probes' reported values, outside the candidate's child (issue 25)."""


from coderank_evalplus.engine.sandbox import Limits, run_program
from coderank_evalplus.engine.sandbox.canonical import digest_text
from coderank_evalplus.engine.sandbox.report import NEED, VALUE, encode_value, frame
from coderank_evalplus.engine.sandbox.runner import read_values
from coderank_evalplus.engine.sandbox.verdicts import decide, plan_items
from coderank_evalplus.types import ERROR, FAIL, PASS, RAISED, RETURNED, TIMED_OUT, TIMEOUT


def _decide(items, returned):
    """Verdicts when probe i 'returned' returned[i]: a value, ("raised", name), ("timeout",) or ("opaque",)."""
    plan = plan_items(items)
    results, values = {}, {}
    for i, text in enumerate(plan.probes):
        r = returned[text]
        if isinstance(r, tuple) and r and r[0] == "raised":
            results[i] = (RAISED, digest_text("exc:" + r[1]))
        elif r == ("timeout",):
            results[i] = (TIMED_OUT, 0)
        elif r == ("opaque",):
            results[i], values[i] = (RETURNED, 0), None
        else:
            results[i], values[i] = (RETURNED, 0), encode_value(r)
    todo = list(range(len(items)))
    return [decide(plan, items, todo, None, results, values, 0.5, 1.0)[i][0] for i in todo]


ITEMS = [("call", "f(1)"), ("check", 0, "2", "=="), ("check", 0, "3", "r=="), ("check", 0, "True", "is"),
         ("check", 0, None, "truthy"), ("check", 0, None, "falsy"), ("assert", "sorted([f(1), 0]) == [0, 2]"),
         ("assert", "math.isclose(f(1), 2.0000000001)")]


def test_fast_and_slow_forms_follow_python_semantics_on_plain_values():
    assert _decide(ITEMS, {"f(1)": 2})[1:] == [PASS, FAIL, FAIL, PASS, FAIL, PASS, PASS]
    assert _decide(ITEMS, {"f(1)": 2.0})[1:] == [PASS, FAIL, FAIL, PASS, FAIL, PASS, PASS]
    assert _decide(ITEMS, {"f(1)": True})[1:4] == [FAIL, FAIL, PASS]


def test_a_probe_that_raised_timed_out_or_is_not_a_plain_value_is_never_a_pass():
    assert set(_decide(ITEMS, {"f(1)": ("raised", "ValueError")})[1:]) == {ERROR}
    assert set(_decide(ITEMS, {"f(1)": ("timeout",)})[1:]) == {TIMEOUT}
    assert set(_decide(ITEMS, {"f(1)": ("opaque",)})[1:]) == {ERROR}
    # a candidate's AssertionError fails a raw assert, as ``exec("assert ...")`` did; a check errs
    assert _decide([("call", "f(1)"), ("check", 0, "2", "=="), ("assert", "f(1) == 2")],
                   {"f(1)": ("raised", "AssertionError")})[1:] == [ERROR, FAIL]


def test_the_value_log_is_read_strictly():
    log = frame(VALUE, 0, encode_value([1, 2])) + frame(NEED, 1, b"Anything")
    assert read_values(log) == {0: encode_value([1, 2]), 1: None}
    assert read_values(log + b"garbage that is not a frame") == {0: encode_value([1, 2]), 1: None}
    assert read_values(b"\xff" * 40) == {}


def test_run_program_decides_every_form_on_a_real_child():
    program = "import math\ndef f(x):\n    return x + 1\n"
    items = ITEMS + [("assert", "f(1) == f(1)"), ("assert", "f(0) + f(1) == 3")]
    imported, res = run_program(program, items, Limits())
    assert imported
    assert [res[i][0] for i in range(1, len(items))] == [PASS, FAIL, FAIL, PASS, FAIL, PASS, PASS, PASS, PASS]


def test_numpy_scalars_compare_as_the_values_they_stand_for():
    """Real samples return numpy scalars (gpt-4's HumanEval/32 through scipy's ``newton``): as before, they pass."""
    program = "import numpy as np\ndef f(x):\n    return np.float64(x) / 2\ndef g(x):\n    return np.array([x])\n"
    items = [("call", "f(3)"), ("check", 0, "1.5", "=="), ("call", "g(1)"), ("check", 2, "[1]", "==")]
    imported, res = via_worker(program, items, preload_numpy=True)  # the engine's workers preload numpy for it
    assert imported and res[1][0] == PASS
    assert res[3][0] == ERROR  # an array is not a plain value: not compared (its == would decide)


def via_worker(program: str, items: list, preload_numpy: bool = False) -> tuple:
    """``run_program`` as the engine does it: the probes go to a worker interpreter (which guards itself once,
    then forks the child), the verdicts are decided here."""
    from coderank_evalplus.engine.execution.workers import WorkerPool

    plan = plan_items(items)
    todo = list(range(len(items)))
    job = (0, 0, program, "via-worker", plan.probes, plan.want, plan.probes_for(todo), Limits(), None,
           ("numpy",) if preload_numpy else ())
    with WorkerPool(1) as pool:
        [(_, (_, _, imported, failure, probe_results, values))] = list(
            pool.run("coderank_evalplus.engine.sandbox.worker:worker_run", [job]))
    return imported, decide(plan, items, todo, failure, probe_results, values, 1.0, 2.0)


def test_an_entry_point_that_shadows_a_builtin_is_the_candidates():
    """MBPP has a task whose entry point is ``sum``: its asserts call the candidate's, not the builtin."""
    from coderank_evalplus.engine.execution.execute import ProblemWork, execute
    from coderank_evalplus.testgen.extract import suite_from_asserts
    from coderank_evalplus.types import Problem

    prob = Problem("Shadow/sum", "mbpp", "", "sum", trial_tests=("assert sum([1, 2]) == 3",))
    wrong = "def sum(xs):\n    return 0\n"
    ex = execute([ProblemWork(prob, [wrong], suite_from_asserts({"sum([1, 2]) == 3": 1}, "sum"))], None, Limits(),
                 workers=1, progress=False)["Shadow/sum"]
    assert ex.pass_matrix[0, 0] == FAIL and ex.trial_matrix[0, 0] == FAIL


def test_an_equality_check_decided_from_report_bytes_or_the_memo_is_the_decoded_comparison():
    # the literal's own bytes pass without decoding; any other value (equal under == or not), decoded, as before;
    # the same value met again (the memo) gets the same verdict
    literals = ["[1, 2.0, (3, 'a')]", "{1: {2, 3}, 'x': None}", "-0.0", "1", "''", "[[]]", "1e999", "(1+2j)"]
    values = [[1, 2.0, (3, "a")], [1, 2, (3, "a")], (1, 2.0, (3, "a")), {1: {3, 2}, "x": None}, {1: {2}, "x": None},
              0.0, -0.0, 1, True, 1.0, "", [[]], [()], float("inf"), 1 + 2j, float("nan"), None]
    items = [("call", "f()")] + [("check", 0, lit, "==") for lit in literals]
    plan = plan_items(items)
    assert len(plan.expected_bytes) == len(literals)  # every literal here has bytes that decode equal to it
    for v in values:
        results, vals = {0: (RETURNED, 0)}, {0: encode_value(v)}
        want = [PASS if v == eval(lit) else FAIL for lit in literals]  # noqa: S307 - the test's own literals
        for _ in range(2):  # the second time through the memo
            got = decide(plan, items, list(range(len(items))), None, results, vals, 0.5, 1.0)
            assert [got[i][0] for i in range(1, len(items))] == want, v
