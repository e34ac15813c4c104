"""``evalplus.sanitize`` (0.3.1), the same output at a fraction of its cost: the code in a raw chat reply.

evalplus's ``sanitize(code, entrypoint)`` spends nearly all its time in ``code_extract``: it parses every span of
two or more lines (``ast.parse``, O(lines²) parses of O(lines) text) to keep the first span with the most
non-blank lines that parses. :func:`code_extract` returns the same span with far fewer parses:

- a start line's spans are tried longest first, and only those with more non-blank lines than the best so far
  (the count grows with the span, so the first that parses is that start's best; among spans of that count —
  they differ by trailing blank lines — the shortest that parses is kept, as evalplus's ascending loop keeps it);
- a start line whose remaining lines cannot beat the best ends the search (the count only falls as it moves on);
- spans that cannot parse are never tried: from a start line, a character no Python token holds (a Markdown
  fence's backtick, ``$``, ``?``, a non-identifier non-ASCII character) outside strings and comments, a
  one-quote string that ends with its line, or an indented first statement makes every span through that
  line a syntax error, whatever follows (a lexical scan from the start line finds that line);
- nor spans through a top-level statement that does not parse on its own: the scan also finds where each
  top-level statement begins (a logical line at column 0 that neither continues a compound statement — ``else``,
  ``elif``, ``except``, ``finally`` — nor follows a decorator), and a span holds the tokens of each statement it
  passes whole exactly as the statement alone does, so a statement that fails alone fails the span. When a span
  fails, the statement its error names is parsed alone (once per reply); a failure cuts every span through the
  next statement's start.

The tree-sitter stage reuses evalplus's own helpers with one parser built once. Where the installed evalplus's
sanitizer is not the one mirrored here (another release), :func:`sanitize` calls evalplus's own (slow, same
output by definition).
"""

from __future__ import annotations

import hashlib
import inspect
import re
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Optional

from coderank_evalplus.engine.shapes import shape_of
from coderank_evalplus.types import Problem

# The sources of evalplus 0.3.1's functions this module mirrors (sha256 of inspect.getsource).
_MIRRORED = {
    "code_extract": "732738ee7e2ec100",
    "syntax_check": "5a8adeffe4eeef6f",
    "extract_target_code_or_empty": "3377963b9cd779c9",
    "sanitize": "7be0a0a5a708b9de",
}

_NO_TOKEN = frozenset("`$?")
_INDENTED_START = re.compile(r"[ \t]+[^\s#\\]")
_BLANK_OR_COMMENT = re.compile(r"[ \t]*(#.*)?")
_CLAUSE = re.compile(r"(else|elif|except|finally)(?![A-Za-z0-9_])")  # a compound statement's next clause
# On Python >= 3.12 an f-string (3.14: a t-string) may nest quotes of its own kind: the scan stops there.
_NESTING_PREFIXES = frozenset("fFtT") if sys.version_info >= (3, 12) else frozenset()


def _syntax_ok(code: str) -> bool:
    """evalplus.syncheck.syntax_check without its printing (a program too deep to parse is not one)."""
    return _syntax_error_line(code) is None


def _syntax_error_line(code: str) -> Optional[int]:
    """None when ``code`` parses (as ``_syntax_ok``), else the line its error names (1-based; 0 when none)."""
    import ast

    try:
        ast.parse(code)
        return None
    except SyntaxError as exc:
        return exc.lineno or 0
    except (MemoryError, RecursionError, ValueError):
        return 0


_CLOSER = {")": "(", "]": "[", "}": "{"}
# what the scan looks at: in code, a comment, a quote, a bracket, a character no token holds (a non-ASCII one is
# checked there); in a string, its escape character or its quote (a delimiter starts with it)
_IN_CODE = re.compile("[#'\"()\\[\\]{}`$?\x80-\U0010ffff]")
_IN_STRING = {q: re.compile(f"[\\\\{q}]") for q in "'\""}


def _indented_first_statement(lines: list[str], start: int) -> Optional[int]:
    """The line of the first statement from ``start`` on when it is indented ("unexpected indent", whatever
    follows), else None: blank and comment lines before it are passed over, as the tokenizer does."""
    first, n = start, len(lines)
    while first < n and _BLANK_OR_COMMENT.fullmatch(lines[first]):
        first += 1
    return first if first < n and _INDENTED_START.match(lines[first]) else None


def _note_statement_start(line: str, e: int, top: str, starts: list[int]) -> str:
    """At a line that begins at column 0 outside any open string, bracket or continuation: line ``e`` starts a
    top-level statement unless it continues a compound statement (``else``…) or follows a decorator. Returns the
    last logical line that began at column 0, now ``line``."""
    if not _CLAUSE.match(line) and not top.startswith("@"):
        starts.append(e)
    return line


def _holds_no_token(c: str) -> bool:
    """Whether no Python token may hold the character ``c`` outside strings and comments (the tokenizer fails)."""
    return c in _NO_TOKEN or (c > "\x7f" and not ("a" + c).isidentifier())


def _stop_at_nested_quotes(e: int, n: int, open_end: list[bool], starts: Optional[list[int]]) -> tuple[int, list[bool]]:
    """The scan's answer where a string that may nest quotes of its own kind starts on line ``e``: nothing more
    is known from there (no dead line; spans ending from there on are not known to be open; no more statement
    starts, nor ``e`` itself)."""
    if starts is not None:
        del starts[starts.index(e) if e in starts else len(starts):]
    return n, open_end + [False] * (n - e)


def _scan(lines: list[str], start: int, starts: Optional[list[int]] = None) -> tuple[int, list[bool]]:
    """A lexical scan of lines[start:] as one program: (dead, open_end). Every span lines[start..j] with
    j >= dead is a syntax error (dead = len(lines) when the scan finds no such line); open_end[j - start] says the
    span lines[start..j] ends inside a string or a bracket or on a line continuation, also an error. Sound by
    construction: each reason is the tokenizer's error whatever follows (a character no token holds, an
    unmatched or mismatched closing bracket, a one-quote string that ends with its line, an indented first
    statement) or at the end of the text. ``starts`` gets the lines before ``dead`` where a top-level statement
    begins (module docstring), in order; a scan that stops early (a nested f-string) stops finding them there.

    The loop over a line's characters stays in this one function: it runs on every line of every reply (a call
    per line costs a fifth more)."""
    n = len(lines)
    open_end: list[bool] = []
    indented = _indented_first_statement(lines, start)
    if indented is not None:
        return indented, [False] * (indented - start)  # the first statement is indented: "unexpected indent"
    quote = ""  # the open string's delimiter ("", ', ", ''' or """)
    brackets: list[str] = []
    top = ""  # the last logical line that began at column 0 (a decorator's statement goes on)
    for e in range(start, n):
        line = lines[e]
        if starts is not None and line[:1] not in ("", " ", "\t", "#") and not (open_end and open_end[-1]):
            top = _note_statement_start(line, e, top, starts)
        k, m = 0, len(line)
        comment = False
        while k < m:
            # the next character that can change the state (the others are passed over, as one by one)
            found = (_IN_STRING[quote[0]] if quote else _IN_CODE).search(line, k)
            if found is None:
                k = m
                break
            k = found.start()
            c = line[k]
            if quote:
                if c == "\\":
                    k += 2
                    continue
                if line.startswith(quote, k):
                    k += len(quote)
                    quote = ""
                    continue
                k += 1
                continue
            if c == "#":
                comment = True
                break
            if c in "'\"":
                if _NESTING_PREFIXES.intersection(line[max(0, k - 2):k]):
                    return _stop_at_nested_quotes(e, n, open_end, starts)
                quote = c * 3 if line.startswith(c * 3, k) else c
                k += len(quote)
                continue
            if c in "([{":
                brackets.append(c)
            elif c in _CLOSER:
                if not brackets or brackets.pop() != _CLOSER[c]:
                    return e, open_end
            elif _holds_no_token(c):
                return e, open_end
            k += 1
        if len(quote) == 1 and k <= m:
            return e, open_end  # a one-quote string ends with its line
        continued = k > m or (not quote and not comment and line.endswith("\\"))
        open_end.append(bool(quote or brackets or continued))
    return n, open_end


def code_extract(text: str) -> str:
    """evalplus.sanitize.code_extract: the first span of lines with the most non-blank lines that parses."""
    lines = text.split("\n")
    n = len(lines)
    prefix = [0] * (n + 1)  # prefix[k] = non-blank lines among lines[:k]
    for k, line in enumerate(lines):
        prefix[k + 1] = prefix[k] + (1 if line.strip() else 0)
    prune = not any(c in text for c in "\r\x00\x0c")  # the scan's idea of a line is the tokenizer's
    alone: dict[tuple[int, int], bool] = {}  # (first, last line) of a top-level statement → it parses alone
    best, pair = 0, (0, 0)
    for i in range(n):
        if prefix[n] - prefix[i] <= best:
            break
        starts: list[int] = []
        dead, open_end = _scan(lines, i, starts) if prune else (n, None)
        top = dead - 1
        while top > i and prefix[top + 1] - prefix[i] > best:
            low = top  # the spans lines[i..low..top] have the same count: they differ by trailing blank lines
            while low > i + 1 and not lines[low].strip():
                low -= 1
            found, error = _shortest_valid(lines, i, low, top, open_end)
            if found >= 0:
                best, pair = prefix[found + 1] - prefix[i], (i, found)
                break
            top = min(low, _cut(lines, starts, i + error - 1, low, alone)) - 1 if error else low - 1
    return "\n".join(lines[pair[0]:pair[1] + 1])


def _cut(lines: list[str], starts: list[int], line: int, low: int, alone: dict[tuple[int, int], bool]) -> int:
    """Where spans stop being able to parse, from a failed span ending at ``low`` whose error names ``line``:
    the start of the statement after the one holding ``line`` when that statement, whole in the span, fails
    alone (every span through that start fails then); else ``low + 1`` (nothing learned)."""
    k = next((k for k in range(len(starts) - 1, -1, -1) if starts[k] <= line), -1)
    if k < 0 or k + 1 >= len(starts) or starts[k + 1] > low:
        return low + 1
    key = (starts[k], starts[k + 1] - 1)
    if key not in alone:
        alone[key] = _syntax_ok("\n".join(lines[key[0]:key[1] + 1]))
    return low + 1 if alone[key] else starts[k + 1]


def _shortest_valid(lines: list[str], i: int, low: int, top: int, open_end: Optional[list[bool]]) -> tuple[int, int]:
    """The first j in low..top whose span lines[i..j] parses (-1: none), and the line (1-based in the span; 0:
    none) the error of the span to ``low`` names when it was parsed and failed; lines low+1..top are blank.

    With the scan's ``open_end``: a span that ends in a string, a bracket or a continuation is an error, and
    when the span to the run's non-blank line ends outside them and does not parse, blank lines after it leave it
    an error (the tokenizer skips them), so one parse answers for the run. After a continuation the blank lines
    are part of the logical line ("x \\" + "" fails, + "" + "" parses): each is parsed."""
    error = 0
    for j in range(low, top + 1):
        if open_end is not None and open_end[j - i]:
            continue
        line = _syntax_error_line("\n".join(lines[i:j + 1]))
        if line is None:
            return j, 0
        if j == low:
            error = line
            if open_end is not None:
                return -1, error
    return -1, error


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter_python
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_python.language()))


def _extract_target(code: str, entrypoint: Optional[str]) -> str:
    """evalplus.sanitize.extract_target_code_or_empty after its code_extract (given the extracted code): the
    imports and the definitions the entry point reaches, with evalplus's helpers and a parser built once."""
    from evalplus import sanitize as es

    code_bytes = bytes(code, "utf8")
    root = _parser().parse(code_bytes).root_node
    names: set[str] = set()
    import_nodes, definition_nodes = [], []
    for child in root.children:
        if child.type in es.IMPORT_TYPE:
            import_nodes.append(child)
            continue
        if child.type == es.CLASS_TYPE or (child.type == es.FUNCTION_TYPE and es.has_return_statement(child)):
            node = child
        elif child.type == es.EXPRESSION_TYPE and child.children[0].type == es.ASSIGNMENT_TYPE:
            node = child.children[0]
        else:
            continue
        name = es.get_definition_name(node)
        if name not in names:
            definition_nodes.append((name, node))
            names.add(name)
    reachable = es.get_function_dependency(entrypoint, es.get_deps(definition_nodes)) if entrypoint else None
    out = b""
    for node in import_nodes:
        out += code_bytes[node.start_byte:node.end_byte] + b"\n"
    for name, node in definition_nodes:
        if reachable is None or name in reachable:
            out += code_bytes[node.start_byte:node.end_byte] + b"\n"
    return out[:-1].decode("utf8")


def _source_digest(fn: Optional[Callable]) -> str:
    if fn is None:
        return ""
    try:
        return hashlib.sha256(inspect.getsource(fn).encode()).hexdigest()[:16]
    except (OSError, TypeError):
        return ""


@lru_cache(maxsize=1)
def _evalplus_is_mirrored() -> bool:
    """Whether the installed evalplus's sanitizer is the one this module mirrors (evalplus 0.3.1's)."""
    try:
        from evalplus import sanitize as es
    except ImportError:
        return False
    return all(_source_digest(getattr(es, name, None)) == digest for name, digest in _MIRRORED.items())


def sanitize(code: str, entrypoint: Optional[str] = None) -> str:
    """evalplus.sanitize.sanitize(code, entrypoint): the same text, fast where the installed evalplus's
    sanitizer is the mirrored one (else evalplus's own)."""
    if not _evalplus_is_mirrored():
        from evalplus.sanitize import sanitize as evalplus_sanitize

        return evalplus_sanitize(code, entrypoint)
    extracted = code_extract(code)
    return _extract_target(extracted, entrypoint).strip() or extracted


def _defines(code: str, entry_point: str) -> bool:
    return re.search(rf"^(async\s+)?def\s+{re.escape(entry_point)}\s*\(", code, re.M) is not None


def prompt_imports(prompt: str) -> str:
    """The prompt's top-level import lines (HumanEval's ``from typing import List``), which replies often omit."""
    return "\n".join(line for line in prompt.split("\n") if line.startswith(("import ", "from ")))


def fenced_program(reply: str) -> str:
    """A chat reply's program as lcb_runner's ``extract_code`` takes it: the lines between the last two lines that
    hold a code fence, whole (imports, classes, a main guard). A reply without two fence lines is its own program
    when it compiles (LiveCodeBench would give ``""``), else ``""`` (a failing sample)."""
    lines = reply.split("\n")
    fences = [i for i, line in enumerate(lines) if "```" in line]
    if len(fences) >= 2:
        return "\n".join(lines[fences[-2] + 1:fences[-1]])
    return reply if not fences and _syntax_ok(reply) else ""


_FENCED = {  # a block the reply leaves open (a reply cut at its token limit) runs to the reply's end
    "python": re.compile(r"```[ \t]*(?:python|py|Python|python3)?[ \t]*\n(.*?)(?:```|\Z)", re.S),
    "json": re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n(.*?)(?:```|\Z)", re.S),
}


def code_blocks(reply: str, language: str = "python") -> list[str]:
    """The fenced blocks of a chat reply, in order: its ```python blocks (or ```py, ```python3, untagged), or its
    ```json blocks; the one reader of fenced blocks for every chat reply the package reads."""
    return _FENCED[language].findall(reply)


def raw_program(reply: str, problem: Problem) -> str:
    """The program a raw chat reply stands for, as ``../shared/data``'s chat sets made their ``solution``: the
    prompt's imports + ``sanitize(reply, entry_point)``; a reply that only continues the prompt (a bare function
    body) is read after the prompt, as evalplus.sanitize reads a completion; ``""`` (a failing sample) when
    neither defines the entry point. A class's method or a stdin program (LiveCodeBench) is the reply's fenced
    program, whole, as LiveCodeBench extracts it (``fenced_program``)."""
    if shape_of(problem).reply_is_program:
        return fenced_program(reply)
    # every line sanitize gives is a line of its input (or its start, up to where a statement ends): a reply with
    # no line that defines the entry point gives no such code, and only the prompt + reply can (one sanitize less)
    code = sanitize(reply, problem.entry_point) if _defines(reply, problem.entry_point) else ""
    if not _defines(code, problem.entry_point):
        code = sanitize(problem.prompt + "\n" + reply, problem.entry_point)
        if not _defines(code, problem.entry_point):
            return ""
    imports = prompt_imports(problem.prompt)
    return (imports + "\n\n" if imports else "") + code.strip() + "\n"


@dataclass
class SanitizeTally:
    """What a reader's ``raw_field`` did: replies read from the field and sanitized, how many came out different
    from the reply, how many gave no definition of the entry point (an empty, failing program), and the time."""

    field: str
    samples: int = 0
    changed: int = 0
    empty: int = 0
    seconds: float = 0.0

    def add(self, reply: str, program: str, seconds: float) -> None:
        self.samples += 1
        self.changed += program != reply
        self.empty += not program
        self.seconds += seconds

    def to_json(self) -> dict:
        return {"field": self.field, "samples": self.samples, "changed": self.changed, "empty": self.empty,
                "seconds": round(self.seconds, 2)}

    def line(self) -> str:
        return (f"sanitized {self.samples} samples (field {self.field!r}, as evalplus.sanitize does): "
                f"{self.changed} changed, {self.empty} without a definition of the entry point; "
                f"{self.seconds:.1f} s")


def sanitize_reply(reply: str, problem: Problem, tally: SanitizeTally) -> str:
    """:func:`raw_program` of one reply, counted in ``tally``."""
    t0 = time.perf_counter()
    program = raw_program(reply, problem)
    tally.add(reply, program, time.perf_counter() - t0)
    return program


def looks_unsanitized(programs_per_task: dict[str, list[str]]) -> Optional[str]:
    """A warning when most tasks' first sample is not a Python program (a chat model's replies, prose around a
    fenced block, read as programs would all fail), else None. One parse per task: cheap on any file."""
    firsts = [progs[0] for progs in programs_per_task.values() if progs]
    bad = sum(not _syntax_ok(p) for p in firsts)
    if not firsts or 2 * bad <= len(firsts):
        return None
    return (f"{bad} of {len(firsts)} tasks' first samples are not Python programs (a chat model's raw replies?): "
            f"they fail every test as they are; --raw-field FIELD (suites: raw_field) reads them as "
            f"evalplus.sanitize would")
