"""Which call shape a problem has (``decide``), what runs for a candidate of each shape, and how its tests compare:
the one place that knows the shapes. Every reader of problems asks ``decide`` (your own benchmark's records,
LiveCodeBench's, ``pick``'s prompt), so a problem has one shape whichever door it came through.

* function: the program as it is; a test calls ``f(args)`` and compares with ``==``;
* method: LiveCodeBench's imports, then the program; a test calls ``Solution().f(args)`` and compares with ``==``;
* stdin: the program rewritten as LiveCodeBench rewrites it, with a harness (``engine/lcb.py``); a test calls
  ``run_stdin(input)``, which returns the program's output, and an expected output is compared with
  LiveCodeBench's line rule (comparison ``"stdout"``), not with ``==``.

A function's program text, and so every cache key of the function shape, is exactly what it was before shapes.
"""

from __future__ import annotations

import ast
import re
from typing import NamedTuple, Optional

from coderank_evalplus.engine import lcb
from coderank_evalplus.engine.sandbox.split import STDOUT
from coderank_evalplus.types import FUNCTION, METHOD, SHAPES, STDIN, STDIN_CALLEE

__all__ = ["STDOUT", "CallShape", "decide", "find_entry_point", "check_shape", "runnable", "comparison",
           "preload_modules"]

IO_CLASS = "Solution"  # the class whose method input/output tests call (LiveCodeBench's grader: ``Solution()``)
_IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")


class CallShape(NamedTuple):
    """A problem's call shape as decided: the shape, the function or method a test calls (``run_stdin`` for a stdin
    program) and, for a method, its class."""

    shape: str
    entry_point: str
    class_name: str = ""


def _top_level_functions(prompt: str) -> list[str]:
    try:
        return [n.name for n in ast.parse(prompt).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # an unfinished prompt: read the def lines
        return re.findall(r"(?m)^(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(", prompt)


def find_entry_point(prompt: str) -> str:
    """The function a prompt asks for: the last top-level ``def`` in it (HumanEval's prompts define helpers first).
    ValueError when the prompt defines none."""
    names = _top_level_functions(prompt)
    if not names:
        raise ValueError("the prompt defines no function: give its entry point")
    return names[-1]


def decide(prompt: str, entry_point: Optional[str] = None, io_tests: bool = False) -> CallShape:
    """The call shape of a problem from its prompt, its entry point (None: found in the prompt) and whether its tests
    are input/output text (``io_tests``: LiveCodeBench's public / private tests, your own file's ``public_tests`` /
    ``private_tests``) rather than asserts or evalplus inputs:

    * input/output tests and no entry point: a stdin program (its tests call ``run_stdin``);
    * the entry point a method of a class of the prompt, and not one of its top-level functions (or the entry point
      names the class; or none is given and the prompt's class has a public method and the prompt no top-level
      function): that method, called on an instance (``testgen/leetcode.py`` reads the class);
    * input/output tests with an entry point the prompt does not define: a method of ``Solution``, which
      LiveCodeBench's functional tests call (a LeetCode record's starter code may be empty);
    * else a function: the entry point, or the prompt's last top-level ``def``.

    ValueError, saying why, when the entry point is not a Python name, when input/output tests come with a top-level
    function or with a class other than ``Solution`` (the grader of such tests calls ``Solution().f``), or when the
    prompt defines no function and none is named."""
    from coderank_evalplus.testgen import leetcode

    if entry_point is not None and not _IDENTIFIER.match(entry_point):
        raise ValueError(f"entry point {entry_point!r} is not a Python name")
    if io_tests and not entry_point:
        return CallShape(STDIN, STDIN_CALLEE)
    method = leetcode.method_of(prompt, entry_point)
    if method is not None:
        cls, name = method[0], method[1]
        if io_tests and cls != IO_CLASS:
            raise ValueError(f"{name!r} is a method of class {cls}: input/output tests call {IO_CLASS}().{name}, "
                             f"as LiveCodeBench's grader does; name the class {IO_CLASS}")
        return CallShape(METHOD, name, cls)
    if io_tests:
        assert entry_point  # (no entry point: a stdin program, above)
        if entry_point in _top_level_functions(prompt):
            raise ValueError(f"{entry_point!r} is a function of the prompt: input/output tests are a stdin "
                             f"program's or a method's of class {IO_CLASS}; a function's tests are asserts")
        return CallShape(METHOD, entry_point, IO_CLASS)
    return CallShape(FUNCTION, entry_point or find_entry_point(prompt))


def check_shape(shape: str) -> str:
    if shape not in SHAPES:
        raise ValueError(f"unknown call shape {shape!r}; one of {', '.join(SHAPES)}")
    return shape


def runnable(shape: str, program: str) -> str:
    """The text a sandbox child executes for ``program`` under ``shape``."""
    if shape == FUNCTION:
        return program
    if shape == METHOD:
        return lcb.method_module(program)
    if shape == STDIN:
        return lcb.stdin_module(program)
    raise ValueError(f"unknown call shape {shape!r}")


def comparison(shape: str, cmp: str) -> str:
    """The comparison a parsed check uses under ``shape``: a stdin program's ``run_stdin(x) == y`` compares outputs
    with LiveCodeBench's rule; everything else as parsed."""
    if shape == STDIN and cmp in ("==", "r=="):
        return STDOUT
    return cmp


def preload_modules(shape: str) -> tuple[str, ...]:
    """Modules a worker loads once before forking the children of this shape's programs (each child would)."""
    return ("unittest.mock",) if shape == STDIN else ()
