"""LiveCodeBench's grading rules and runtime, as ``lcb_runner/evaluation/testing_util.py`` has them.

LiveCodeBench (MIT License, Copyright (c) 2024 LiveCodeBench) is not a package one can install, so its rules are
restated here, each next to the function of ``testing_util.py`` it follows (checked against it by
``bench/lcb_parity.py``):

* a LeetCode (functional) program runs after ``IMPORT_STRING``; its class ``Solution`` is instantiated once (a
  program without the words ``class Solution`` is searched for a top-level function of that name); each test's input
  is one JSON value per line (the arguments in order), its output one JSON value; a returned tuple counts as a list,
  then ``==`` decides (``grade_call_based``);
* a stdin program (AtCoder, Codeforces) has a last ``if __name__ == '__main__':`` block unwrapped
  (``clean_if_name``), its imports hoisted and everything else wrapped into ``def wrapped_function()``
  (``make_function``), which is called per test with ``sys.stdin`` replaced as LiveCodeBench replaces it and
  ``sys.stdout`` captured; ``SystemExit`` ends the program normally (``call_method``);
* printed lines are compared stripped, trailing blank lines ignored, line by line: equal text, or equal lists of
  ``Decimal`` numbers (``grade_stdio``);
* a test gets ``TIMEOUT_S`` seconds (``--timeout``, default 6); the verdict is whether every test passed.

``stdin_module`` / ``method_module`` give the text a sandbox child runs for a candidate (``engine/shapes.py``);
``stdout_matches`` / ``values_match`` are the comparisons, made outside the child.
"""

from __future__ import annotations

import ast
from decimal import Decimal, InvalidOperation
from typing import Any

from coderank_evalplus.types import STDIN_CALLEE

TIMEOUT_S = 6  # lcb_runner's --timeout default: seconds per test
# testing_util.import_string, verbatim: what every LiveCodeBench program runs after (``from sys import *`` too)
IMPORT_STRING = ("from string import *\nfrom re import *\nfrom datetime import *\nfrom collections import *\n"
                 "from heapq import *\nfrom bisect import *\nfrom copy import *\nfrom math import *\n"
                 "from random import *\nfrom statistics import *\nfrom itertools import *\nfrom functools import *\n"
                 "from operator import *\nfrom io import *\nfrom sys import *\nfrom json import *\n"
                 "from builtins import *\nfrom typing import *\nimport string\nimport re\nimport datetime\n"
                 "import collections\nimport heapq\nimport bisect\nimport copy\nimport math\nimport random\n"
                 "import statistics\nimport itertools\nimport functools\nimport operator\nimport io\nimport sys\n"
                 "import json\nsys.setrecursionlimit(50000)\n")


def clean_if_name(code: str) -> str:
    """testing_util.clean_if_name: a last top-level ``if __name__ == '__main__':`` is replaced by its body."""
    try:
        tree = ast.parse(code)
        last = tree.body[-1]
        if isinstance(last, ast.If) and ast.unparse(last.test).strip() == "__name__ == '__main__'":
            code = ast.unparse(tree.body[:-1]) + "\n" + ast.unparse(last.body)  # type: ignore[arg-type]  # a list, as LCB
    except Exception:  # noqa: BLE001 - as LiveCodeBench: the code stays as it is
        pass
    return code


def make_function(code: str) -> str:
    """testing_util.make_function: IMPORT_STRING, the program's top-level imports, then every other top-level
    statement inside ``def wrapped_function():`` (the code as it is when it does not parse)."""
    try:
        imports: list[ast.stmt] = []
        others: list[ast.stmt] = []
        for stmt in ast.parse(code).body:
            (imports if isinstance(stmt, (ast.Import, ast.ImportFrom)) else others).append(stmt)
        func = ast.FunctionDef(name="wrapped_function",
                               args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
                               body=others, decorator_list=[], lineno=-1)
        return IMPORT_STRING + "\n" + ast.unparse(imports) + "\n" + ast.unparse(func)  # type: ignore[arg-type]  # as LCB
    except Exception:  # noqa: BLE001 - as LiveCodeBench
        return code


# Runs first in a stdin program's module: the state LiveCodeBench's test process is in when it compiles the program
# (its stdin at end of file -- a multiprocessing child reads /dev/null --, ``exit()`` raising SystemExit as its guard
# leaves it, long int conversions allowed). ``sys.stdin`` of that moment is what ``from sys import *`` binds.
_PROLOGUE = """\
import sys as _cr_sys, io as _cr_io, builtins as _cr_builtins, _sitebuiltins as _cr_site
from unittest.mock import patch as _cr_patch, mock_open as _cr_mock_open
_cr_sys.stdin = _cr_io.TextIOWrapper(_cr_io.BytesIO())
_cr_stdin0 = _cr_sys.stdin
_cr_builtins.exit = _cr_site.Quitter("exit", "Ctrl-D (i.e. EOF)")
_cr_sys.set_int_max_str_digits(50000)
"""

# Runs last: LiveCodeBench's Capturing, MockStdinWithBuffer, MockBuffer and call_method (testing_util.py, MIT
# License, Copyright (c) 2024 LiveCodeBench), and ``run_stdin``, the call a test makes: the program's output as
# LiveCodeBench compares it (``normalized_stdout``). Output beyond _MAX_OUTPUT characters raises (bounded output).
_HARNESS = """
class _CrOutput(_cr_io.StringIO):
    def write(self, s):
        if self.tell() + len(s) > @MAX_OUTPUT@:
            raise OSError("output limit exceeded")
        return super().write(s)


class _CrCapturing(list):
    def __enter__(self):
        self._stdout = _cr_sys.stdout
        _cr_sys.stdout = self._stringio = _CrOutput()
        self._stringio.close = lambda x: 1
        return self

    def __exit__(self, *args):
        self.append(self._stringio.getvalue())
        del self._stringio
        _cr_sys.stdout = self._stdout


class _CrMockBuffer:
    def __init__(self, inputs):
        self.inputs = inputs.encode("utf-8")

    def read(self, *args):
        return self.inputs

    def readline(self, *args):
        return self.inputs.split(b"\\n")[0] + b"\\n"


class _CrMockStdin:
    def __init__(self, inputs):
        self.inputs = inputs
        self._stringio = _cr_io.StringIO(inputs)
        self.buffer = _CrMockBuffer(inputs)

    def read(self, *args):
        return self.inputs

    def readline(self, *args):
        return self._stringio.readline(*args)

    def readlines(self, *args):
        return self.inputs.split("\\n")

    def __getattr__(self, name):
        return getattr(self._stringio, name)


def _cr_call_method(method, inputs):
    if isinstance(inputs, list):
        inputs = "\\n".join(inputs)
    inputs_line_iterator = iter(inputs.split("\\n"))
    mock_stdin = _CrMockStdin(inputs)

    @_cr_patch("builtins.open", _cr_mock_open(read_data=inputs))
    @_cr_patch("sys.stdin", mock_stdin)
    @_cr_patch("sys.stdin.readline", lambda *args: next(inputs_line_iterator))
    @_cr_patch("sys.stdin.readlines", lambda *args: inputs.split("\\n"))
    @_cr_patch("sys.stdin.read", lambda *args: inputs)
    def _inner_call_method(_method):
        try:
            return _method()
        except SystemExit:
            pass

    return _inner_call_method(method)


def @CALLEE@(_cr_input):
    _cr_sys.stdin = _cr_stdin0
    with _CrCapturing() as _cr_out:
        _cr_call_method(wrapped_function, _cr_input)
    _cr_lines = _cr_out[0].strip().split("\\n")
    return "\\n".join(_cr_line.strip() for _cr_line in _cr_lines)
"""
MAX_OUTPUT = 64 << 20  # characters a stdin program may print in one test


def stdin_module(program: str) -> str:
    """What a sandbox child runs for a stdin program: the prologue, the program as LiveCodeBench rewrites it
    (``make_function(clean_if_name(program))``), then the harness that defines ``run_stdin(input)``."""
    harness = _HARNESS.replace("@MAX_OUTPUT@", str(MAX_OUTPUT)).replace("@CALLEE@", STDIN_CALLEE)
    return _PROLOGUE + make_function(clean_if_name(program)) + "\n" + harness


def method_module(program: str) -> str:
    """What a sandbox child runs for a LeetCode program: ``IMPORT_STRING`` then the program (grade_call_based)."""
    return IMPORT_STRING + "\n\n" + program


# --- comparisons (made outside the candidate's child) ---------------------------------------------------------

def stripped_lines(text: str) -> list[str]:
    """testing_util.get_stripped_lines: the text stripped, split at newlines, each line stripped."""
    return [line.strip() for line in text.strip().split("\n")]


def normalized_stdout(text: str) -> str:
    """A program's output as the comparison sees it (its stripped lines joined): what ``run_stdin`` returns."""
    return "\n".join(stripped_lines(text))


def _decimals(line: str) -> tuple[bool, list[Decimal]]:
    try:
        return True, [Decimal(x) for x in line.split()]
    except (InvalidOperation, ValueError, TypeError):
        return False, []


def stdout_matches(got: str, expected: str) -> bool:
    """grade_stdio's rule: as many stripped lines, each equal as text or as a list of Decimal numbers."""
    a, b = stripped_lines(got), stripped_lines(expected)
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x == y:
            continue
        ok_x, dx = _decimals(x)
        ok_y, dy = _decimals(y)
        if not (ok_x and ok_y) or dx != dy:
            return False
    return True


def values_match(got: Any, expected: Any) -> bool:
    """grade_call_based's rule: a returned tuple counts as a list, then ``==``."""
    if isinstance(got, tuple):
        got = list(got)
    try:
        return bool(got == expected)
    except Exception:  # noqa: BLE001 - a comparison that raises is a wrong answer
        return False
