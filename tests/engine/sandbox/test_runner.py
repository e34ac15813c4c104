from coderank_evalplus.engine.sandbox import Limits, run_program
from coderank_evalplus.engine.sandbox.canonical import digest_text, digest_value
from coderank_evalplus.types import ERROR, FAIL, PASS, RAISED, RETURNED, TIMED_OUT, TIMEOUT

PROGRAM = """
def f(x):
    if x == 'loop':
        while True:
            pass
    if x == 'raise':
        raise ValueError('no')
    if x == 'exit':
        import os
        os._exit(3)
    if x == 'lambda':
        return lambda: 1
    if x == 'cycle':
        a = []
        a.append(a)
        return a
    return x * 2
"""

ITEMS = [
    ("call", "f(2)"), ("check", 0, "4", "=="), ("check", 0, "5", "=="),
    ("call", "f('loop')"), ("check", 3, "1", "=="),
    ("call", "f('raise')"), ("assert", "f('raise') == 1"),
    ("call", "f('exit')"), ("assert", "f(3) == 6"),
    ("call", "f('lambda')"), ("call", "f('cycle')"), ("assert", "f(1) == 3"),
]


def test_outcomes_of_one_program():
    imported, res = run_program(PROGRAM, ITEMS, Limits(cpu=0.05))
    assert imported
    assert res[0] == (RETURNED, digest_value(4))
    assert res[1][0] == PASS and res[2][0] == FAIL
    assert res[3][0] == TIMED_OUT and res[4][0] == TIMEOUT
    assert res[5][0] == RAISED and res[6][0] == ERROR
    assert res[7][0] == RAISED  # the child died inside this call: only this item is lost
    assert res[8][0] == PASS  # ... and a fresh child ran the rest
    assert res[9][0] == RETURNED and res[10][0] == RETURNED  # unpicklable / self-referential values digest fine
    assert res[11][0] == FAIL


def test_program_that_fails_at_import_fails_everything():
    imported, res = run_program("def f(:\n", ITEMS[:3], Limits())
    assert not imported and res[0][0] == RAISED and res[1][0] == ERROR and res[2][0] == ERROR
    imported, res = run_program("while True: pass\n", ITEMS[:3], Limits(import_cpu=0.1))
    assert not imported and res[0][0] == TIMED_OUT and res[1][0] == TIMEOUT


def test_digest_is_structural():
    assert digest_value({1: [1, 2], "a": {3, 4}}) == digest_value({"a": {4, 3}, 1: [1, 2]})
    assert digest_value(2) == digest_value(2.0)
    assert digest_value([1]) != digest_value((1,))
    assert digest_value(True) != digest_value(1)


IO_PROGRAM = '''
import sys
def close_out(x):
    sys.stdout.close()
    return x
def swap_out(x):
    sys.stdout = sys.__stdout__
    return x
def shout(x):
    print("x" * 1000)
    return x
def ask(x):
    return input()
def where(x):
    return [type(s).__name__ for s in (sys.stdout, sys.stderr, sys.stdin)]
'''


def test_each_test_starts_with_fresh_swallowed_io():
    """A candidate that closes or replaces stdout in one test does not change what the next test sees."""
    items = [("assert", "shout(1) == 1"), ("assert", "close_out(2) == 2"), ("assert", "shout(3) == 3"),
             ("assert", "swap_out(4) == 4"), ("assert", "shout(5) == 5"), ("call", "ask(6)"), ("call", "where(7)")]
    for run in (lambda: run_program(IO_PROGRAM, items, Limits()),
                lambda: _via_worker(IO_PROGRAM, items)):
        imported, res = run()
        assert imported
        assert [res[i][0] for i in range(5)] == [PASS] * 5
        assert res[5][0] == RAISED  # stdin is swallowed too: reading raises (evalplus's WriteOnlyStringIO)
        assert res[6] == (RETURNED, digest_value(["WriteOnlyStringIO"] * 3))


def _via_worker(program, items):
    """The same run as a job in a worker interpreter (which guards itself once, then forks the child)."""
    from tests.engine.sandbox.test_verdicts import via_worker

    return via_worker(program, items)


def test_worker_children_can_import_multiprocessing():
    """``multiprocessing`` cannot be imported under evalplus's guard; the worker loads it before guarding itself,
    as evalplus's judge process has it loaded, so a candidate that merely imports it still runs."""
    program = "from multiprocessing import Process\ndef f(x):\n    return x\n"
    imported, res = _via_worker(program, [("assert", "f(1) == 1")])
    assert imported and res[0][0] == PASS


def test_candidate_is_compiled_as_its_own_module():
    # no __future__ flag of ours leaks in: an annotation naming nothing fails at definition, as under evalplus
    imported, res = run_program("def f(x: Undefined) -> int:\n    return 1\n", [("call", "f(1)")], Limits())
    assert not imported and res[0] == (RAISED, digest_text("import:NameError"))
    # whether the worker or the child compiles it (a warning sends it to the child), the result is the same
    for program in ("def f(x):\n    return x + 1\n", 'def f(x):\n    s = "\\d"\n    return x + len(s) - 1\n'):
        imported, res = run_program(program, [("call", "f(1)"), ("check", 0, "2", "==")], Limits())
        assert imported and res[0] == (RETURNED, digest_value(2)) and res[1][0] == PASS
    imported, res = run_program("def f(:\n", [("call", "f(1)")], Limits())
    assert not imported and res[0] == (RAISED, digest_text("import:SyntaxError"))


def test_cpu_limit_counts_cpu_not_waiting():
    # the precise timer is a wall-clock one: when it fires, the CPU clock decides, so a test that waits (or
    # waits for the CPU on a busy machine) is not cut at the CPU limit; the wall limit still catches sleepers
    program = "import time\ndef f(s):\n    time.sleep(s)\n    return s\n"
    imported, res = run_program(program, [("call", "f(0.15)"), ("call", "f(30)")], Limits(cpu=0.05, wall_factor=4))
    assert imported and res[0] == (RETURNED, digest_value(0.15))
    assert res[1][0] == TIMED_OUT


def test_program_that_does_not_compile_gets_what_its_child_would_record():
    # such programs need no child (the worker's compile tells); a text too long to precompile still gets one
    items = [("call", "f(1)"), ("check", 0, "1", "=="), ("assert", "f(1) == 1")]
    for broken, name in (("def f(:\n", "SyntaxError"), ("def f(x):\nreturn x\n", "IndentationError")):
        without_child = run_program(broken, items, Limits())
        with_child = run_program("#" * 100_001 + "\n" + broken, items, Limits())
        assert without_child == with_child == (False, {0: (RAISED, digest_text("import:" + name)), 1: (ERROR, 0),
                                                        2: (ERROR, 0)})


def test_the_timer_armed_once_still_gives_each_probe_its_whole_cpu_limit():
    # many fast probes, then one that needs about half the limit (not cut), one that loops (cut), fast ones again
    program = ("import time\n"
               "def burn(s):\n"
               "    end = time.process_time() + s\n"
               "    while time.process_time() < end:\n"
               "        pass\n"
               "    return s\n"
               "def g(x):\n"
               "    return x + 1\n")
    items = ([("call", f"g({i})") for i in range(300)] + [("call", "burn(0.05)"), ("call", "burn(10)")]
             + [("call", f"g({-i})") for i in range(1, 50)] + [("call", "burn(0.05)")])
    imported, res = run_program(program, items, Limits(cpu=0.1))
    assert imported
    assert all(res[i] == (RETURNED, digest_value(i + 1)) for i in range(300))
    assert res[300] == (RETURNED, digest_value(0.05)) and res[301][0] == TIMED_OUT
    assert all(res[302 + k][0] == RETURNED for k in range(49)) and res[351] == (RETURNED, digest_value(0.05))
