"""From raw model text to programs and tests: CodeT's truncation and assert extraction, assert parsing."""

from __future__ import annotations

import ast
import re
import warnings
from collections import Counter
from typing import Any, Iterable, Optional, Sequence

from coderank_evalplus.types import TestSuite

# CodeT's stop sequences: a completion ends where the model starts a new top-level statement.
STOP_SEQUENCES = ("\nclass", "\ndef", "\n#", "\nif", "\nprint")
DEFAULT_TESTS_PER_SAMPLE = 5


def truncate(text: str, stops: Sequence[str] = STOP_SEQUENCES) -> str:
    """Cut ``text`` at the first occurrence of any stop sequence (CodeT: each stop split in turn)."""
    for stop in stops:
        if stop in text:
            text = text.split(stop)[0]
    return text


def _valid_assert(test: str) -> bool:
    """CodeT's validity check: non-empty, mentions ``assert``, compiles inside a ``try:`` block."""
    if len(test.strip()) < 1 or "assert" not in test:
        return False
    block = "try:\n    " + test.replace("\n", "\n    ") + "\nexcept:\n    pass\n"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a model's SyntaxWarnings never reach the user's terminal
        try:
            compile(block, "", "exec")
        except Exception:  # noqa: BLE001 - SyntaxError, ValueError (null bytes), RecursionError…
            return False
    return True


def extract_asserts(sample: str, entry_point: str) -> list[str]:
    """All valid asserts of one raw test sample (the text the model wrote after ``assert ``), in order.

    The sample is split on ``assert ``; pieces that mention the entry point are kept, each is cut at the
    stop sequences, stripped, and kept only if it compiles inside a ``try:`` block.
    """
    pieces = [f"assert {part}".strip() for part in f"assert {sample}".split("assert ")
              if entry_point.strip() in part and len(part.strip()) > 0]
    return [t for t in (truncate(p).strip() for p in pieces) if _valid_assert(t)]


def build_suite(raw_samples: Iterable[str], entry_point: str,
                tests_per_sample: Optional[int] = DEFAULT_TESTS_PER_SAMPLE) -> TestSuite:
    """Extract asserts from every test sample (first ``tests_per_sample`` each), dedupe with counts, parse."""
    counter: Counter[str] = Counter()
    per_sample: list[list[str]] = []
    for sample in raw_samples:
        found = extract_asserts(sample, entry_point)
        if tests_per_sample is not None:
            found = found[:tests_per_sample]
        bodies = [assert_body(test) for test in found]
        counter.update(bodies)
        per_sample.append(bodies)
    suite = suite_from_asserts(counter, entry_point)
    index = {body: a for a, body in enumerate(suite.asserts)}
    suite.sample_asserts = [[index[b] for b in bodies] for bodies in per_sample]
    return suite


def suite_from_asserts(counted: "Counter[str] | dict[str, int]", entry_point: str) -> TestSuite:
    """A TestSuite from {assert body: count}; parses each assert into a call input and expected value."""
    suite = TestSuite()
    input_index: dict[str, int] = {}
    for body, count in counted.items():
        parsed = parse_assert(body, entry_point)
        suite.asserts.append(body)
        suite.counts.append(int(count))
        if parsed is None:
            suite.assert_input.append(-1)
            suite.expected.append(None)
            suite.comparisons.append("raw")
            continue
        call, expected, cmp = parsed
        if call not in input_index:
            input_index[call] = len(suite.inputs)
            suite.inputs.append(call)
        suite.assert_input.append(input_index[call])
        suite.expected.append(expected)
        suite.comparisons.append(cmp)
    return suite


_TOP_IMPORT = re.compile(r"^\s*(?:import|from)\s+([A-Za-z_]\w*)", re.M)


def literal_repr(value: Any) -> str:
    """``repr`` with sets written in sorted order, so that the text does not depend on string hashing
    (PYTHONHASHSEED): the same input is the same call text, and the same cache key, in every process."""
    if isinstance(value, (set, frozenset)):
        inner = sorted(literal_repr(v) for v in value)
        text = "{" + ", ".join(inner) + "}" if inner else "set()"
        return text if isinstance(value, set) else f"frozenset({text})"
    if isinstance(value, list):
        return "[" + ", ".join(literal_repr(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = [literal_repr(v) for v in value]
        return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal_repr(k)}: {literal_repr(v)}" for k, v in value.items()) + "}"
    return repr(value)


def imported_modules(program: str) -> set[str]:
    """The top-level name of the first module in each import statement that starts a line (``import a.b``,
    ``from a import b`` → ``a``; ``import a, c`` → ``a`` only): enough to spot the libraries a program loads."""
    return set(_TOP_IMPORT.findall(program))


def assert_body(test: str) -> str:
    """The text after ``assert `` — kept as is, so asserts that differ in spacing stay distinct (CodeT's identity)."""
    return test[len("assert "):] if test.startswith("assert ") else test.strip()


def is_callee(func: ast.AST, callee: str) -> bool:
    """Whether ``func`` (the called part of a call) is ``callee``: a name (``f``), or for a class's method the text
    ``Solution().f`` (``Problem.callee``)."""
    if isinstance(func, ast.Name):
        return func.id == callee
    return "." in callee and isinstance(func, ast.Attribute) and ast.unparse(func) == callee


def _is_entry_call(node: ast.AST, entry_point: str) -> bool:
    return (isinstance(node, ast.Call) and is_callee(node.func, entry_point)
            and not any(isinstance(n, ast.NamedExpr) for n in ast.walk(node)))


def parse_assert(body: str, entry_point: str) -> Optional[tuple[str, Optional[str], str]]:
    """Parse ``assert <body>`` into (call expression, expected expression, comparison), or None.

    Understood forms: ``f(x) == y`` and ``y == f(x)``; ``f(x)``; ``not f(x)``; ``f(x) is True/False/None``.
    A trailing assert message is dropped. Comparisons: ``==``, ``r==`` (call on the right), ``truthy``,
    ``falsy``, ``is``.
    """
    try:
        tree = ast.parse("assert " + body)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assert):
        return None
    test = tree.body[0].test
    if _is_entry_call(test, entry_point):
        return ast.unparse(test), None, "truthy"
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _is_entry_call(test.operand, entry_point):
        return ast.unparse(test.operand), None, "falsy"
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(op, ast.Eq):
            if _is_entry_call(left, entry_point) and not _mentions(right, entry_point):
                return ast.unparse(left), ast.unparse(right), "=="
            if _is_entry_call(right, entry_point) and not _mentions(left, entry_point):
                return ast.unparse(right), ast.unparse(left), "r=="
        if (isinstance(op, ast.Is) and _is_entry_call(left, entry_point) and isinstance(right, ast.Constant)
                and (right.value is True or right.value is False or right.value is None)):
            return ast.unparse(left), ast.unparse(right), "is"
    return None


def _mentions(node: ast.AST, name: str) -> bool:
    name = name.rsplit(".", 1)[-1]  # a method's callee (``Solution().f``): its name
    return any((isinstance(n, ast.Name) and n.id == name) or (isinstance(n, ast.Attribute) and n.attr == name)
               for n in ast.walk(node))


# --- the released SRank code's notion of a test input ------------------------------------------------
_TRIPLE_QUOTED = (re.compile(r"'''.*?'''", re.DOTALL), re.compile(r'""".*?"""', re.DOTALL))
_SPLIT_EQ = re.compile(r"assert\s+(.*?)\s+==\s+(.+)")
_SPLIT_IS = re.compile(r"assert\s+(.*?)\s+is\s+(True|False|None)")


def _literal(text: str) -> bool:
    try:
        ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def reference_input(body: str, entry_point: str, prompt: str = "") -> Optional[str]:
    """The test input the released SRank code (FSoft-AI4Code/SRank-CodeRanker, execution/utils.py) reads from
    ``assert <body>``, as exact text, or None when it finds none.

    Its rules, textual rather than syntactic: triple-quoted strings are deleted and lines joined; a last
    comma-separated piece that is a value is dropped as the assert message (the reference evaluates it; a
    literal check is used here, which gives the same inputs on CodeT's HumanEval samples); one pair of
    parentheses around the whole condition is removed; the condition is split at the first `` == `` (spaces
    required) or before `` is True/False/None``; the sides are swapped when the right one contains a call of
    the entry point; the input side must contain such a call (it may be wrapped, ``len(f(x))``, or junk that
    can only raise, ``____.f(x)``) and compile after the prompt (stubbed with ``pass`` when the prompt ends in a
    function header; a prompt that is not one, as MBPP+'s docstring, is taken as it is). Bare ``f(x)`` and
    ``not f(x)`` give no input.
    Inputs are told apart by this exact text: ``f(1,2)`` and ``f(1, 2)`` are two inputs there.
    """
    text = "assert " + body
    for pattern in _TRIPLE_QUOTED:
        text = pattern.sub("", text)
    text = text.replace("\n", "")
    if "," in text:
        head, _, last = text.rpartition(",")
        if _literal(last):
            text = head
    condition = text[len("assert"):].strip()
    if condition.startswith("(") and condition.endswith(")"):
        text = "assert " + condition[1:-1]
    match = (_SPLIT_EQ if "==" in text else _SPLIT_IS).match(text)
    if match is None:
        return None
    left, right = match.group(1), match.group(2)
    call = re.compile(re.escape(entry_point) + r"\(.*?\)")
    if call.search(right):
        left, right = right, left
    if not left.strip() or not call.search(left):
        return None
    if not _compiles(_stub(prompt) + left):
        return None
    return left


def _compiles(text: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(text, "<srank-input>", "exec")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


def _stub(prompt: str) -> str:
    """What the input is compiled after: the prompt stubbed with ``pass`` when it ends in a function header (the
    released code's HumanEval prompts), else the prompt as it is (MBPP+'s prompt is a module docstring: stubbing it
    with an indented ``pass`` never compiles, which rejected every input and left srank_reference a random pick)."""
    if not prompt:
        return ""
    stubbed = prompt + "\n    pass\n"
    return stubbed if _compiles(stubbed) else prompt.rstrip("\n") + "\n"


def reference_inputs(asserts: Sequence[str], entry_point: str, prompt: str = "") -> list[str]:
    """Distinct :func:`reference_input` texts of ``asserts``, first-seen order."""
    seen: dict[str, None] = {}
    for body in asserts:
        found = reference_input(body, entry_point, prompt)
        if found is not None:
            seen.setdefault(found, None)
    return list(seen)
