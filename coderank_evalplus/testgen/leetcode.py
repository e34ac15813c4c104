"""A LeetCode-style prompt given as text: a class with a method and a docstring (``class Solution: def twoSum(self,
nums, target): \"\"\"… Example 1: Input: nums = [2,7,11,15], target = 9 Output: [0,1] …\"\"\"``).

``method_of`` finds the class and its method (the entry point: the class is instantiated, ``Solution().twoSum``);
``trial_tests`` reads the docstring's examples as asserts on that call: doctest lines (``>>> Solution().twoSum([2,
7], 9)`` or ``>>> twoSum(...)`` and the line after) and LeetCode's ``Input: a = …, b = …`` / ``Output: …`` pairs, whose
values are JSON-like literals (``true``, ``null`` read as Python's). Written by hand: the function-prompt parser
(``prompt_examples.trial_tests_from_prompt``) knows top-level functions only.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Optional

from coderank_evalplus.testgen.extract import literal_repr

_INPUT = re.compile(r"^\s*Input\s*:\s*(.+?)\s*$", re.I)
_OUTPUT = re.compile(r"^\s*Output\s*:\s*(.+?)\s*$", re.I)
_JSONISH = {"true": "True", "false": "False", "null": "None"}


def _parse(prompt: str) -> Optional[ast.Module]:
    for text in (prompt, prompt.rstrip() + "\n        pass\n", prompt.rstrip() + "\n    pass\n"):
        try:
            return ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return None


def method_of(prompt: str, name: Optional[str] = None) -> Optional[tuple[str, str, list[str], str]]:
    """(class name, method name, parameter names without ``self``, docstring) of the prompt's class method: the one
    named ``name`` (or, when ``name`` is a class, that class's last public method), else the last public method of
    the last class; None when the prompt has a top-level function of that name, or no class with such a method."""
    tree = _parse(prompt)
    if tree is None:
        return None
    if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and (name is None or n.name == name)
           for n in tree.body):
        return None
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    if name and any(c.name == name for c in classes):  # the class named as the entry point: its method
        classes, name = [c for c in classes if c.name == name], None
    for cls in reversed(classes):
        methods = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                   and (n.name == name if name else not n.name.startswith("_"))]
        if methods:
            m = methods[-1]
            params = [a.arg for a in m.args.posonlyargs + m.args.args][1:]
            return cls.name, m.name, params, ast.get_docstring(m) or ast.get_docstring(cls) or ""
    return None


def _literal(text: str) -> tuple[bool, Any]:
    text = re.sub(r"\b(true|false|null)\b", lambda m: _JSONISH[m.group(1)], text.strip().rstrip(","))
    try:
        return True, ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def _bindings(text: str, params: list[str]) -> Optional[list[Any]]:
    """``a = [1,2], b = 3`` → the values in the parameters' order (None unless every parameter is bound once)."""
    if not params:
        return None
    pattern = r"\s*,\s*".join(rf"{re.escape(p)}\s*=\s*(.+?)" for p in params) + r"\s*$"
    m = re.match(pattern, text)
    if m is None:
        ok, value = _literal(text)
        return [value] if ok and len(params) == 1 else None
    values = []
    for group in m.groups():
        ok, value = _literal(group)
        if not ok:
            return None
        values.append(value)
    return values


def trial_tests(docstring: str, class_name: str, method: str, params: list[str]) -> list[str]:
    """The docstring's examples as asserts ``Solution().method(args) == expected``."""
    callee = f"{class_name}().{method}"
    out: list[str] = []
    lines = docstring.split("\n")
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith(">>>") and i + 1 < len(lines):
            expr = s[3:].strip()
            if expr.startswith(method + "("):
                expr = f"{class_name}()." + expr
            ok, expected = _literal(lines[i + 1])
            if ok and expr.startswith(callee + "(") and _parse(expr) is not None:
                out.append(f"assert {expr} == {literal_repr(expected)}")
            continue
        m = _INPUT.match(line)
        if m is None:
            continue
        out_line = next((_OUTPUT.match(x) for x in lines[i + 1:i + 4] if _OUTPUT.match(x)), None)
        args = _bindings(m.group(1), params)
        if out_line is None or args is None:
            continue
        ok, expected = _literal(out_line.group(1))
        if ok:
            out.append(f"assert {callee}({', '.join(literal_repr(a) for a in args)}) == {literal_repr(expected)}")
    return list(dict.fromkeys(out))
