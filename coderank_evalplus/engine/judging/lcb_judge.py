"""The judge of LiveCodeBench problems: every public and private test, LiveCodeBench's grader's rules and time limit.

Built like the evalplus judge (``judge.py``, ``referee.py``): a check child runs the candidate and *reports* what each
test gave (``sandbox/report.py``) -- a LeetCode method's returned value, a stdin program's output as the comparison
reads it -- and the worker's referee, which alone holds the expected outputs, compares (``lcb.values_match`` /
``lcb.stdout_matches``) and stops at the first failure, as ``grade_call_based`` / ``grade_stdio`` do. The child:

* functional (``grade_call_based``): ``IMPORT_STRING`` + the program executed as a module; ``Solution()`` made once
  when the text says ``class Solution`` (else the module itself); its ``func_name`` looked up; every input parsed
  first (one JSON value per line); each call under the per-test limit;
* stdin (``grade_stdio``): the program as the engine runs it (``lcb.stdin_module``), ``run_stdin`` per test.

Limits are CPU seconds (LiveCodeBench's ``signal.alarm`` counts wall seconds: on a busy machine ours flip nothing),
with a wall-clock watchdog for programs that sleep. A value the report cannot carry (a numpy array…) is compared in
the child with the candidate's ``==``, as LiveCodeBench compares it; the referee lists that pass as suspicious.

Here: the verdict cache's key (``config``), the task's files (``write_task_files``), the child's side (``observe``)
and the referee's (``referee_check``); a judge worker forks the child (``judge._run_lcb``), its referee reads it.
"""

from __future__ import annotations

import json
import os
import pickle
from typing import Any, Callable, Optional

from coderank_evalplus.engine import shapes
from coderank_evalplus.engine.execution.execute import content_key
from coderank_evalplus.types import Problem


def config(problem: Problem) -> str:
    """The verdict cache's key for a problem's tests and rules."""
    tests = json.dumps([[t.input, t.output] for t in problem.io_tests])
    return (f"lcb|{problem.shape}|{problem.entry_point}|{content_key(tests).hex()}|t={problem.time_limit:g}|sem=1")


def write_task_files(problem: Problem, folder: str, name: str) -> str:
    """The file a judge worker reads (inputs, limits) and the ``.expected`` file only its referee reads."""
    path = os.path.join(folder, name)
    data = {"shape": problem.shape, "func_name": problem.entry_point, "time_limit": problem.time_limit,
            "inputs": [t.input for t in problem.io_tests]}
    secret = {"shape": problem.shape, "outputs": [t.output for t in problem.io_tests]}
    for file, obj in ((path, data), (path + ".expected", secret)):
        with open(file, "wb") as fh:
            pickle.dump(obj, fh, protocol=pickle.HIGHEST_PROTOCOL)
    return path


def observe(data: dict, code, has_solution: bool, workdir: str, rep: int, ans: int) -> None:  # pragma: no cover
    """In the check child: run the program's tests in order and report each result; stop at the first that raised
    or timed out (the referee stops reading at the first wrong one)."""
    import evalplus.eval as ev

    from coderank_evalplus.engine.judging.check_child import _cpu_time_limit, report_result, start_check
    from coderank_evalplus.types import STDIN_CALLEE

    channel = start_check(workdir, rep, ans)
    limit = float(data["time_limit"])
    inputs = data["inputs"]
    try:
        env: dict = {"__name__": "tmp_sol"}
        with ev.swallow_io(), _cpu_time_limit(limit):
            exec(code, env)
        if shapes.shape_of(data["shape"]).json_io:
            target = env["Solution"]() if has_solution else None
            method = getattr(target, data["func_name"]) if target is not None else env[data["func_name"]]
            parsed = [[json.loads(line) for line in text.split("\n")] for text in inputs]
            calls = [lambda args=args: method(*args) for args in parsed]
        else:
            run = env[STDIN_CALLEE]
            calls = [lambda text=text: run(text) for text in inputs]
        for i, call in enumerate(calls):
            with ev.swallow_io(), _cpu_time_limit(limit):
                out = call()
            if not report_result(channel, i, out, _same_as_expected):
                return
    except BaseException:  # noqa: BLE001 - the program failed a test (or never got to one): nothing more to report
        pass
    finally:
        channel.close()


def _same_as_expected(i: int, out: Any, expected: Any) -> bool:  # pragma: no cover - runs in the child
    """LiveCodeBench's comparison of a value the report cannot carry: the candidate's ``==`` (a tuple as a list)."""
    return bool((list(out) if isinstance(out, tuple) else out) == expected)


def referee_check(secret: dict, rfd: int, answer: Callable[[Any], None]
                  ) -> tuple[bool, Optional[str]]:  # pragma: no cover - runs in the referee
    """The referee's side: read the child's reports in order; every test's result must match its expected output.
    ``secret``: the task's ``.expected`` file; ``answer(value)`` sends the child an expected output it asked for."""
    from coderank_evalplus.engine import lcb
    from coderank_evalplus.engine.sandbox.report import decode_value, read_reports

    outputs = secret["outputs"]
    functional = shapes.shape_of(secret["shape"]).json_io

    def value_ok(index: int, payload: bytes) -> bool:
        got = decode_value(payload)
        if not functional:
            return type(got) is str and lcb.stdout_matches(got, outputs[index])
        try:
            return lcb.values_match(got, json.loads(outputs[index]))
        except ValueError:  # an expected output that is not JSON fails every program, as in LCB
            return False

    def need(index: int) -> bool:  # (a method's value only: a stdin program reports text)
        try:
            expected = json.loads(outputs[index])
        except ValueError:
            return False
        answer(expected)
        return True

    return read_reports(rfd, len(outputs), value_ok, need if functional else None,
                        lambda index, got: f"test {index} returned {got}; its own == decided")
