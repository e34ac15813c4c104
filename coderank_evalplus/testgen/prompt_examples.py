"""A prompt's examples: where they are in its docstring, the prompt without them (CodeT's setting, the body of
its test-generation prompt) and the examples as trial tests (the deployed setting: DOCE's filtering, ``filter+…``).

The example handling is heuristic (HumanEval docstrings use a dozen example styles); it aims at being robust:
it never removes prose that is not next to an example, and every trial test it returns compiles and calls the
entry point with literal arguments.
"""

from __future__ import annotations

import ast
import re
import warnings
from typing import Optional

__all__ = ["strip_examples", "looks_like_example_text", "trial_tests_from_prompt", "make_test_prompt_body",
           "docstring_span", "compiles"]

# --------------------------------------------------------------------------------------------------------------
# docstring location
# --------------------------------------------------------------------------------------------------------------

_QUOTES = ('"""', "'''")


def docstring_span(prompt: str, entry_point: str) -> Optional[tuple[int, int]]:
    """(start, end) of the text *inside* the docstring of ``entry_point`` (or of the first docstring when the
    prompt has no such function, as in MBPP+ prompts). None when there is no docstring."""
    start = 0
    m = re.search(r"^[ \t]*(?:async\s+)?def\s+" + re.escape(entry_point) + r"\s*\(", prompt, re.M)
    if m:
        start = m.end()
    best = None
    for q in _QUOTES:
        i = prompt.find(q, start)
        if i >= 0 and (best is None or i < best[0]):
            best = (i, q)
    if best is None:
        return None
    i, q = best
    j = prompt.find(q, i + 3)
    if j < 0:
        return None
    return i + 3, j


def _strip_docstrings(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]


def tree_without_docs(program: str) -> Optional[ast.Module]:
    """The program's syntax tree without its docstrings (comments and layout are not in a tree); None when it does
    not parse."""
    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    _strip_docstrings(tree)
    return tree


def code_without_docs(program: str, entry_point: str = "") -> str:
    """The program with its docstrings and comments removed (``ast.unparse``); a program that does not parse
    keeps its text, less the docstring of ``entry_point`` (or its first docstring)."""
    tree = tree_without_docs(program)
    if tree is not None:
        try:
            return ast.unparse(tree)
        except (ValueError, RecursionError, MemoryError):
            pass
    span = docstring_span(program, entry_point) if entry_point else None
    return program if span is None else program[:span[0] - 3] + program[span[1] + 3:]


# --------------------------------------------------------------------------------------------------------------
# example-line recognition
# --------------------------------------------------------------------------------------------------------------

_HEADER = re.compile(
    r"^(?:for\s+)?(?:exam[a-z]*|e\.g\.|(?:\[input/output\]\s*)?samples?)\b\s*\d*\s*:?\s*(?P<rest>.*)$",
    re.I,
)
_PROSE = re.compile(r"^[A-Z][a-z]*(?:\s+[a-z]+){2,}")
_IO_LINE = re.compile(r"^(?:input|output|explanation)\s*\d*\s*:", re.I)
_SEP = re.compile(r"^\s*(?:==>|=>|==|->|➞|=|#\s*=>|#\s*returns|should\s+return|returns|return)\s*", re.I)


def _find_call(s: str, entry_point: str) -> Optional[tuple[int, int]]:
    """Span of the first balanced ``entry_point(...)`` call in ``s``."""
    m = re.search(r"(?<![\w.])" + re.escape(entry_point) + r"\s*\(", s)
    if not m:
        return None
    depth, k, quote = 0, m.end() - 1, None
    while k < len(s):
        c = s[k]
        if quote:
            if c == "\\":
                k += 2
                continue
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return m.start(), k + 1
        k += 1
    return None


def _literal_args(call: str) -> bool:
    """True when every argument of ``call`` is a Python literal (so the call is an example, not a definition
    such as ``fib4(n) -> fib4(n-1) + ...``)."""
    try:
        node = ast.parse(call.strip(), mode="eval").body
    except SyntaxError:
        return False
    if not isinstance(node, ast.Call) or node.keywords and any(k.arg is None for k in node.keywords):
        return False
    try:
        for a in list(node.args) + [k.value for k in node.keywords]:
            ast.literal_eval(a)
    except (ValueError, SyntaxError, TypeError, RecursionError):
        return False
    return True


def _is_call_example(s: str, entry_point: str) -> bool:
    """A line that starts (after bullets / 'for ') with a call of the entry point followed by a result."""
    t = re.sub(r"^(?:[*\-•]\s+|for\s+)", "", s.strip(), flags=re.I)
    span = _find_call(t, entry_point)
    if span is None or span[0] != 0:
        return False
    rest = t[span[1]:]
    return bool(_SEP.match(rest)) or rest.strip().startswith("#")


def _example_mask(lines: list[str], entry_point: str) -> list[bool]:
    """For each docstring line, whether it belongs to an input/output example."""
    n = len(lines)
    ex = [False] * n
    stripped = [ln.strip() for ln in lines]
    i = 0
    while i < n:
        s = stripped[i]
        if s.startswith(">>>"):
            examples, i = _doctest_example(stripped, i)
        elif _is_example_header(stripped, i, entry_point):
            examples, i = _header_examples(lines, stripped, i, entry_point)
        elif _is_call_example(s, entry_point) or _IO_LINE.match(s):
            examples, i = _example_paragraph(stripped, i, entry_point)
        else:
            examples, i = [], i + 1
        for k in examples:
            ex[k] = True
    return ex


def _looks_like_example(s: str, entry_point: str) -> bool:
    """A stripped docstring line that shows an example (a doctest, a call with its result, ``Input:`` / ``Output:``,
    ``Example 2:``, ``for x = 3 ... should be``): it continues an example block past blank lines and prose."""
    return (
        looks_like_example_text(s, entry_point)
        or bool(re.match(r"^example\s*\d*\s*:", s, re.I))
        or (re.match(r"^for\s+\w+\s*=", s, re.I) is not None and "should be" in s)
    )


def _doctest_example(stripped: list[str], i: int) -> tuple[list[int], int]:
    """A doctest at line ``i``: the call (with '...' continuation lines) and its output lines up to a blank line or
    the next ``>>>``. Returns (its lines, the line after it)."""
    end = i + 1
    while end < len(stripped) and stripped[end] and not stripped[end].startswith(">>>"):
        end += 1
    return list(range(i, end)), end


def _is_example_header(stripped: list[str], i: int, entry_point: str) -> bool:
    """Whether line ``i`` opens an example block: an "Example:" / "Examples" / "For example:" header (alone, or
    followed by an example on its line), or a line ending with ':' right before a doctest or a call example."""
    s = stripped[i]
    h = _HEADER.match(s)
    if h is not None and (not h.group("rest") or looks_like_example_text(h.group("rest"), entry_point)):
        return True
    if s.endswith(":") and i + 1 < len(stripped):
        nxt = stripped[i + 1]
        return nxt.startswith(">>>") or _is_call_example(nxt, entry_point)
    return False


def _header_examples(lines: list[str], stripped: list[str], i: int, entry_point: str) -> tuple[list[int], int]:
    """The block after an example header at line ``i``, the header included, up to a prose sentence, or a blank
    line that is not followed by another example or by a line indented deeper than the header. Returns (its lines,
    the line after it); a block that holds a definition is a specification, not examples: (no lines, ``i + 1``),
    so that its lines are looked at one by one."""
    n = len(lines)
    indent = _indent(lines[i]) if i > 0 else min((_indent(x) for x in lines[1:] if x.strip()), default=0)
    block = [i]
    k = i + 1
    while k < n:
        if stripped[k]:
            if len(block) > 1 and _ends_example_block(lines[k], stripped[k], indent, entry_point):
                break
            block.append(k)
            k += 1
            continue
        j = _next_nonblank(stripped, k)
        if j < n and (_looks_like_example(stripped[j], entry_point) or _indent(lines[j]) > indent):
            k = j
            continue
        break
    if any(_is_definition(stripped[b], entry_point) for b in block):
        return [], i + 1
    return block, k


def _ends_example_block(line: str, s: str, indent: int, entry_point: str) -> bool:
    """A prose sentence, not an example, indented no deeper than the block's header."""
    return bool(_PROSE.match(s)) and not _looks_like_example(s, entry_point) and _indent(line) <= indent


def _next_nonblank(stripped: list[str], k: int) -> int:
    """The first line from ``k`` on that is not blank (``len(stripped)`` when none)."""
    while k < len(stripped) and not stripped[k]:
        k += 1
    return k


def _example_paragraph(stripped: list[str], i: int, entry_point: str) -> tuple[list[int], int]:
    """A paragraph of example lines without a header (calls with their results, ``Input:`` / ``Output:`` lines)
    from line ``i``. Returns (its example lines, the line after it): a lone ``Output:`` line without an ``Input:``
    describes the result and stays; a paragraph that contains a definition with non-literal arguments
    (``fib4(n) -> ...``) is part of the specification and stays whole."""
    j = i
    para = []
    while j < len(stripped) and stripped[j] and (
            _is_call_example(stripped[j], entry_point) or _IO_LINE.match(stripped[j])):
        para.append(j)
        j += 1
    has_io = [bool(_IO_LINE.match(stripped[k])) for k in para]
    if any(has_io) and not any(re.match(r"^input", stripped[k], re.I) for k in para):
        para = [k for k, io in zip(para, has_io) if not io]
    if any(_is_definition(stripped[k], entry_point) for k in para):
        para = []
    return para, max(j, i + 1)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _is_definition(s: str, entry_point: str) -> bool:
    """A line defining the function rather than showing an example: ``fib4(n) -> fib4(n-1) + ...`` (non-literal
    arguments) or ``tri(3) = tri(2) + tri(1) + tri(4)`` (the result refers to the function again)."""
    t = re.sub(r"^(?:[*\-•]\s+|for\s+)", "", s.strip(), flags=re.I)
    span = _find_call(t, entry_point)
    if span is None:
        return False
    rest = t[span[1]:]
    if _find_call(rest, entry_point) is not None:
        return True
    if _literal_args(t[span[0]: span[1]]):
        return False
    m = _SEP.match(rest)  # non-literal arguments: a definition unless the result is a plain literal
    if not m:
        return True
    try:
        ast.literal_eval(_LITERAL_FIX.get(rest[m.end():].strip().lower(), rest[m.end():].strip()))
        return False
    except (ValueError, SyntaxError, TypeError, RecursionError):
        return True


def looks_like_example_text(text: str, entry_point: str) -> bool:
    """Text after an 'Example:' header on the same line that is itself an example."""
    t = text.strip()
    return t.startswith(">>>") or _is_call_example(t, entry_point) or bool(_IO_LINE.match(t))


def _remove_lines(lines: list[str], mask: list[bool]) -> list[str]:
    """Drop masked lines; blank lines around a removed block collapse (to nothing at the docstring's start or end,
    to one blank line between paragraphs)."""
    n = len(lines)
    blank = [not ln.strip() for ln in lines]
    keep = [not m for m in mask]
    i = 0
    while i < n:
        if not mask[i]:
            i += 1
            continue
        # maximal run of masked-or-blank lines containing i
        a = i
        while a > 0 and (mask[a - 1] or blank[a - 1]):
            a -= 1
        b = i
        while b + 1 < n and (mask[b + 1] or blank[b + 1]):
            b += 1
        # the last line of the docstring text is the indentation before the closing quotes: never touch it
        last = n - 1
        at_start = a == 0
        at_end = b >= last - (1 if blank[last] else 0)
        run = range(a, min(b, last - 1 if blank[last] else last) + 1)
        blanks = [k for k in run if blank[k] and not mask[k]]
        for k in run:
            keep[k] = False
        if blanks and not at_start and not at_end:
            keep[blanks[0]] = True
        i = b + 1
    return [ln for ln, k in zip(lines, keep) if k]


def strip_examples(prompt: str, entry_point: str) -> str:
    """The prompt with the input/output examples in the entry point's docstring removed.

    Handles doctest examples (``>>> f(x)`` and output lines), ``f(x) ➞ y`` / ``== y`` / ``-> y`` / ``=> y`` /
    ``returns y`` lines, ``Example:`` / ``Examples:`` / ``For example:`` blocks, ``Input: … Output: …`` blocks,
    and MBPP-style ``assert`` lines. Prose and definitions (``fib4(n) -> fib4(n-1) + …``) stay.
    """
    span = docstring_span(prompt, entry_point)
    if span is None:
        return prompt
    a, b = span
    inner = prompt[a:b]
    lines = inner.split("\n")
    mask = _example_mask(lines, entry_point)
    for k, ln in enumerate(lines):
        if ln.strip().startswith("assert ") or ln.strip() == "assert":
            mask[k] = True
    if not any(mask):
        return prompt
    new_lines = _remove_lines(lines, mask)
    # a docstring whose first line was an example must not start with a dangling newline only
    return prompt[:a] + "\n".join(new_lines) + prompt[b:]


# --------------------------------------------------------------------------------------------------------------
# trial tests
# --------------------------------------------------------------------------------------------------------------


def compiles(src: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a prompt's SyntaxWarning ("is" with a literal…) is not the user's concern
        try:
            compile(src, "<trial>", "exec")
            return True
        except (SyntaxError, ValueError):
            return False


_LITERAL_FIX = {"true": "True", "false": "False", "none": "None", "null": "None"}


def _expected_candidates(rest: str) -> list[str]:
    """Candidate expected-value expressions from the text after a call's separator."""
    r = rest.strip()
    r = re.split(r"\s+#|\s+\(the |\s+\(because|\s+because\b", r)[0].strip()
    out = [r]
    if r.endswith("."):
        out.append(r[:-1].strip())
    if " = " in r:  # '1 + 9 + 0 + 0 = 10' → '10'
        out.append(r.rsplit(" = ", 1)[1].strip().rstrip("."))
    res = []
    for c in out:
        c = _LITERAL_FIX.get(c.lower(), c) if c else c
        if c and c not in res:
            res.append(c)
    return res


def _make_assert(call: str, expected: Optional[str], check_call: bool = True) -> Optional[str]:
    call = call.strip()
    if check_call and not _literal_args(call):
        return None
    if expected is None:
        src = f"assert {call} is None"
    else:
        try:
            node = ast.parse(expected, mode="eval")
        except SyntaxError:
            return None
        # the expected value must be a literal (or simple arithmetic on literals), never another call / name
        try:
            ast.literal_eval(node.body)
        except (ValueError, TypeError, SyntaxError, RecursionError):
            if not all(
                isinstance(x, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.operator, ast.unaryop))
                for x in ast.walk(node)
            ):
                return None
        src = f"assert {call} == {expected}"
    return src if compiles(src) else None


def _strip_comment(src: str) -> str:
    """Source of an expression without a trailing comment (via ast; '' when it does not parse)."""
    try:
        return ast.unparse(ast.parse(src.strip(), mode="eval").body)
    except SyntaxError:
        return ""


def _calls_only_literal(expr: str, entry_point: str) -> bool:
    """Every call of the entry point in ``expr`` has literal arguments, and there is at least one."""
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        return False
    calls = [
        n for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == entry_point
    ]
    return bool(calls) and all(_literal_args(ast.unparse(c)) for c in calls)


def _doctest_tests(lines: list[str], entry_point: str) -> list[str]:
    tests = []
    n = len(lines)
    i = 0
    while i < n:
        s = lines[i].strip()
        if not s.startswith(">>>"):
            i += 1
            continue
        call = s[3:].strip()
        i += 1
        while i < n and lines[i].strip().startswith("..."):  # continuation lines of the call
            call += " " + lines[i].strip()[3:].strip()
            i += 1
        out = []
        while i < n and lines[i].strip() and not lines[i].strip().startswith(">>>"):
            out.append(lines[i].strip())
            i += 1
        expr = _strip_comment(call)
        if not expr or len(out) > 1 or not _calls_only_literal(expr, entry_point):
            continue  # not an expression calling the entry point, or a multi-line output: skip
        span = _find_call(expr, entry_point)
        if span == (0, len(expr)):
            t = _make_assert(expr, out[0] if out else None)
        elif out:  # '>>> round(f([1, 2]), 2)' with output '-0.5'
            t = _make_assert(expr, out[0], check_call=False)
        else:  # '>>> f(x) == y' with no output line: the expression is the check itself
            try:
                node = ast.parse(expr, mode="eval").body
            except SyntaxError:
                node = None
            ok = isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.Is))
            t = f"assert {expr}" if ok and compiles(f"assert {expr}") else None
        if t:
            tests.append(t)
    return tests


def _signature_params(prompt: str, entry_point: str) -> Optional[list[str]]:
    m = re.search(r"^[ \t]*def\s+" + re.escape(entry_point) + r"\s*\((.*?)\)\s*(?:->[^:]*)?:", prompt, re.M | re.S)
    if not m:
        return None
    try:
        fn = ast.parse(f"def f({m.group(1)}): pass").body[0]
    except SyntaxError:
        return None
    if not isinstance(fn, ast.FunctionDef):  # it is one: the parsed text starts with 'def f('
        return None
    return [a.arg for a in fn.args.posonlyargs + fn.args.args]


def _call_from_bindings(text: str, entry_point: str, params: Optional[list[str]]) -> Optional[str]:
    """'arr = [1, 2], k = 3' (or a bare literal for a one-parameter function) → 'f([1, 2], 3)'."""
    if not params:
        return None
    text = text.strip().rstrip(",").strip()
    try:
        node = ast.parse(f"f({text})", mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.Call):  # unbalanced brackets in the text: 'f(1), (2)' is a tuple
        return None
    if node.args and not node.keywords and len(params) == 1 and len(node.args) == 1:
        values = [node.args[0]]
    elif node.keywords and not node.args and sorted(k.arg or "" for k in node.keywords) == sorted(params):
        by_name = {k.arg: k.value for k in node.keywords}
        values = [by_name[p] for p in params]
    else:
        return None
    call = f"{entry_point}({', '.join(ast.unparse(v) for v in values)})"
    return call if _literal_args(call) else None


_FOR_SHOULD = re.compile(r"^for\s+(?P<bind>.+?)\s*,?\s+the\s+(?:output|result)\s+should\s+be\s+(?P<out>.+)$", re.I)


def _binding_tests(lines: list[str], entry_point: str, params: Optional[list[str]]) -> list[str]:
    """'For lst = [1,2,3] the output should be 14' and 'Input: arr = [1], k = 1' / 'Output: [1]' examples."""
    tests = []
    stripped = [ln.strip() for ln in lines]
    for i, s in enumerate(stripped):
        m = _FOR_SHOULD.match(s)
        if m:
            call = _call_from_bindings(m.group("bind"), entry_point, params)
            if call:
                for exp in _expected_candidates(m.group("out")):
                    t = _make_assert(call, exp)
                    if t:
                        tests.append(t)
                        break
            continue
        m = re.match(r"^input\s*:\s*(?P<bind>.+)$", s, re.I)
        if m and i + 1 < len(stripped):
            o = re.match(r"^output\s*:\s*(?P<out>.+)$", stripped[i + 1], re.I)
            call = _call_from_bindings(m.group("bind"), entry_point, params)
            if o and call:
                for exp in _expected_candidates(o.group("out")):
                    t = _make_assert(call, exp)
                    if t:
                        tests.append(t)
                        break
    return tests


def _line_tests(lines: list[str], entry_point: str) -> list[str]:
    tests = []
    for ln in lines:
        s = re.sub(r"^(?:[*\-•]\s+|for\s+)", "", ln.strip(), flags=re.I)
        if s.startswith(">>>"):
            continue
        span = _find_call(s, entry_point)
        if span is None or span[0] != 0:
            continue
        rest = s[span[1]:]
        m = _SEP.match(rest)
        if not m:
            m2 = re.match(r"^\s*#\s*(?:=>|returns|->|==)?\s*", rest)
            if not m2:
                continue
            m = m2
        for exp in _expected_candidates(rest[m.end():]):
            t = _make_assert(s[: span[1]], exp)
            if t:
                tests.append(t)
                break
    return tests


def _self_contained(stmt: str) -> str:
    """MBPP asserts use ``math.isclose`` without importing math; make them run on any candidate program."""
    return re.sub(r"(?<![\w.])math\.", "__import__('math').", stmt)


def _mbpp_tests(text: str) -> list[str]:
    tests = []
    for ln in text.split("\n"):
        s = ln.strip()
        if s.startswith("assert ") and compiles(s):
            tests.append(_self_contained(s))
    return tests


def trial_tests_from_prompt(prompt: str, entry_point: str) -> list[str]:
    """The examples of the prompt's docstring as assert statements (``assert f(1, 2) == 3``).

    Doctest examples with a one-line output, ``f(x) ➞ y``-style lines with literal arguments, and MBPP's example
    assert lines. Anything that does not compile, has non-literal arguments or a multi-line output is skipped.
    Duplicates are removed, order kept.
    """
    span = docstring_span(prompt, entry_point)
    text = prompt[span[0]: span[1]] if span else prompt
    lines = text.split("\n")
    mask = _example_mask(lines, entry_point)
    example_lines = [ln for ln, m in zip(lines, mask) if m]  # only lines strip_examples would remove
    tests = (
        _mbpp_tests(text)
        + _doctest_tests(example_lines, entry_point)
        + _line_tests(example_lines, entry_point)
        + _binding_tests(example_lines, entry_point, _signature_params(prompt, entry_point))
    )
    seen: list[str] = []
    for t in tests:
        if t not in seen:
            seen.append(t)
    return seen


# --------------------------------------------------------------------------------------------------------------
# the prompt without its examples (the body of CodeT's test-generation prompt)
# --------------------------------------------------------------------------------------------------------------


def _signature_from_solution(code: str, entry_point: str) -> Optional[str]:
    """Import lines and the ``def entry_point(...):`` line of a reference solution."""
    m = re.search(r"^def\s+" + re.escape(entry_point) + r"\s*\(.*?\)\s*(?:->[^:]*)?:", code, re.M | re.S)
    if not m:
        return None
    head = [
        ln for ln in code[: m.start()].split("\n") if re.match(r"^(?:import\s|from\s+\S+\s+import\s)", ln)
    ]
    return "\n".join(head + [m.group(0)])


def make_test_prompt_body(
    prompt: str, entry_point: str, canonical_solution: str = "", dataset: str = "humaneval"
) -> str:
    """Signature + docstring without examples: the value of ``Problem.test_prompt_body``.

    HumanEval: ``strip_examples(prompt)``. MBPP+ prompts have no signature (just a module docstring), so the body is
    CodeT's MBPP layout: the reference solution's imports and ``def`` line, then the description as a ``'''``
    docstring (its example assert removed). Without a reference solution the parameters are named after the
    example call's arity (``arg0, arg1``).
    """
    if dataset != "mbpp" or re.search(r"^def\s+" + re.escape(entry_point) + r"\s*\(", prompt, re.M):
        return strip_examples(prompt, entry_point)
    span = docstring_span(prompt, entry_point)
    text = prompt[span[0]: span[1]] if span else prompt
    desc = "\n".join(
        ln.strip() for ln in text.split("\n") if ln.strip() and not ln.strip().startswith("assert")
    )
    sig = _signature_from_solution(canonical_solution, entry_point) if canonical_solution else None
    if sig is None:
        arity = 0
        for t in _mbpp_tests(text):
            sp = _find_call(t, entry_point)
            if sp:
                try:
                    call = ast.parse(t[sp[0]: sp[1]], mode="eval").body
                except SyntaxError:
                    call = None
                if isinstance(call, ast.Call):  # a balanced 'name(...)' span: always, once it parses
                    arity = len(call.args)
                break
        sig = f"def {entry_point}({', '.join(f'arg{i}' for i in range(arity))}):"
    doc = "\n".join("    " + ln for ln in desc.split("\n"))
    return f"{sig}\n    '''\n{doc}\n    '''\n"
