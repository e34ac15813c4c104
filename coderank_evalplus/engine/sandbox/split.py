"""Split a test assert into what needs the candidate and what does not, so that its verdict is decided outside.

An assert such as ``sorted(f(x))[0] == 1`` becomes *probes*, the smallest subexpressions that need the candidate's
namespace (here ``f(x)``), and a *remainder* over their values (``sorted(__probe(0))[0] == 1``). The child that runs
the candidate evaluates only the probes and reports their values (``sandbox/report.py``); the remainder -- with the
expected value in it -- is evaluated by the worker (the common ``probe == literal`` forms, ``fast``) or by a
confined child of the worker that runs no candidate code (everything else). A probe's reported value is a claim:
forging one gives a candidate nothing a program could not get by returning that value, and the expected side of
the assert never enters its address space.

A name is the candidate's when it is not a builtin or one of ``TRUSTED_MODULES`` (or is the entry point, which
may shadow a builtin: MBPP has ``sum``). Written by hand: no library splits an expression at free names.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass
from typing import Any, Optional, cast

# Modules a test may use on the values it checks (``math.isclose(f(x), 2.0)``); the remainder gets them imported.
TRUSTED_MODULES = frozenset({"math", "cmath", "re", "string", "itertools", "collections", "functools", "operator",
                             "heapq", "bisect", "statistics", "fractions", "decimal"})
_TRUSTED = frozenset(dir(builtins)) | TRUSTED_MODULES
PROBE = "__probe"
STDOUT = "stdout"  # the comparison of a stdin program's output with an expected one (LiveCodeBench's line rule)
# nodes whose children are split further; any other node that needs the candidate is a probe as a whole, or (a
# comprehension, lambda, walrus: values bound inside it) makes the assert impossible to split
_STRUCTURAL = (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.BinOp, ast.IfExp, ast.Tuple, ast.List, ast.Set, ast.Dict,
               ast.Subscript, ast.Slice, ast.Starred, ast.JoinedStr, ast.FormattedValue)
_SCOPED = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda, ast.NamedExpr, ast.Await,
           ast.Yield, ast.YieldFrom)


@dataclass(frozen=True)
class Split:
    """probes: expression texts to evaluate in the candidate's namespace. remainder: the assert's test over
    ``__probe(i)`` (None: cannot be split -- the verdict is ERROR). fast: the remainder in a form the worker
    decides itself: ("==", i, value), ("is", i, value), ("truthy", i), ("falsy", i) or (STDOUT, i, text)."""

    probes: tuple[str, ...]
    remainder: Optional[str]
    fast: Optional[tuple] = None


def _free_names(node: ast.AST) -> set[str]:
    loaded: set[str] = set()
    bound: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            (loaded if isinstance(n.ctx, ast.Load) else bound).add(n.id)
        elif isinstance(n, ast.arg):
            bound.add(n.arg)
    return loaded - bound


class _Unsplittable(Exception):
    pass


def split_assert(body: str, entry_point: Optional[str] = None) -> Split:
    """The probes and remainder of ``assert <body>`` (an assert message, if any, is dropped).

    A body that runs on into more statements (``f(1) == 2\n\nimport unittest``: model-written tests often do) is
    what ``exec`` made of it before: its asserts must all hold, and imports in between change nothing; any other
    statement cannot be split."""
    try:
        tree = ast.parse("assert " + body)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Split((), None)
    tests = [stmt.test for stmt in tree.body if isinstance(stmt, ast.Assert)]
    if not tests or any(not isinstance(stmt, (ast.Assert, ast.Import, ast.ImportFrom)) for stmt in tree.body):
        return Split((), None)
    return split_expression(tests[0] if len(tests) == 1 else ast.BoolOp(op=ast.And(), values=tests), entry_point)


def split_expression(test: ast.expr, entry_point: Optional[str] = None, candidate_names: frozenset[str] = frozenset()
                     ) -> Split:
    """The probes and remainder of one test expression; ``candidate_names``: more names that are the candidate's
    although they are builtins or trusted modules (a test that uses a name it never bound takes the candidate's)."""
    untrusted = ({entry_point} if entry_point else set()) | set(candidate_names)
    probes: dict[str, int] = {}

    def needs_candidate(node: ast.AST) -> bool:
        return any(name not in _TRUSTED or name in untrusted for name in _free_names(node))

    def probe(node: ast.AST) -> ast.expr:
        index = probes.setdefault(ast.unparse(node), len(probes))
        return ast.Call(func=ast.Name(PROBE, ast.Load()), args=[ast.Constant(index)], keywords=[])

    def lift(node: Any) -> Any:
        if isinstance(node, list):
            return [lift(x) for x in node]
        if not isinstance(node, ast.AST) or isinstance(node, (ast.expr_context, ast.operator, ast.cmpop,
                                                              ast.boolop, ast.unaryop)):
            return node
        if not needs_candidate(node):
            return node
        if isinstance(node, ast.keyword):
            return ast.keyword(arg=node.arg, value=lift(node.value))
        if isinstance(node, ast.Call):
            if needs_candidate(node.func):  # f(x), obj.method(): called in the candidate's namespace
                return probe(node)
            return ast.Call(func=node.func, args=lift(node.args), keywords=lift(node.keywords))
        if isinstance(node, _STRUCTURAL):
            fields = {name: lift(value) for name, value in ast.iter_fields(node)}
            return type(node)(**fields)
        if isinstance(node, _SCOPED):
            raise _Unsplittable()
        return probe(node)  # a name, an attribute of the candidate's objects

    try:
        rest = ast.fix_missing_locations(ast.Expression(lift(test)))
    except (_Unsplittable, RecursionError):
        return Split((), None)
    texts = tuple(probes)
    return Split(texts, ast.unparse(rest.body), _fast_form(rest.body))


def _probe_index(node: ast.expr) -> Optional[int]:
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == PROBE
            and len(node.args) == 1 and isinstance(node.args[0], ast.Constant)):
        return cast(int, node.args[0].value)  # a probe call of our own making: its index
    return None


def _literal(node: ast.expr) -> tuple[bool, Any]:
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def _fast_form(test: ast.expr) -> Optional[tuple]:
    """The remainder as ("==", i, value) etc. when it is a probe compared with a literal, or a probe's truth."""
    i = _probe_index(test)
    if i is not None:
        return ("truthy", i)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        i = _probe_index(test.operand)
        return ("falsy", i) if i is not None else None
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(op, ast.Eq):
            for probe_side, other in ((left, right), (right, left)):
                i = _probe_index(probe_side)
                if i is not None and _probe_index(other) is None:
                    ok, value = _literal(other)
                    return ("==", i, value) if ok else None
        if isinstance(op, ast.Is) and isinstance(right, ast.Constant) and type(right.value) in (bool, type(None)):
            i = _probe_index(left)
            if i is not None:
                return ("is", i, right.value)
    return None


def check_body(call: str, expected: Optional[str], comparison: str) -> str:
    """The assert text of a parsed check (``testgen.extract.parse_assert``'s call, expected text, comparison)."""
    if comparison == "truthy":
        return call
    if comparison == "falsy":
        return f"not ({call})"
    if comparison == "is":
        return f"({call}) is {expected}"
    if comparison == "r==":
        return f"({expected}) == ({call})"
    return f"({call}) == ({expected})"
