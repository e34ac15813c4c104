"""What runs for a candidate of each call shape, and how its tests compare: the one place that knows the shapes.

* function: the program as it is; a test calls ``f(args)`` and compares with ``==``;
* method: LiveCodeBench's imports, then the program; a test calls ``Solution().f(args)`` and compares with ``==``;
* stdin: the program rewritten as LiveCodeBench rewrites it, with a harness (``engine/lcb.py``); a test calls
  ``run_stdin(input)``, which returns the program's output, and an expected output is compared with
  LiveCodeBench's line rule (comparison ``"stdout"``), not with ``==``.

A function's program text, and so every cache key of the function shape, is exactly what it was before shapes.
"""

from __future__ import annotations

from coderank_evalplus.engine import lcb
from coderank_evalplus.engine.split import STDOUT
from coderank_evalplus.types import FUNCTION, METHOD, SHAPES, STDIN

__all__ = ["STDOUT", "check_shape", "runnable", "comparison", "preload_modules"]


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
