"""Candidates for one problem no benchmark has (``coderank-evalplus pick``): a JSON-lines file or a folder of .py files.

A record holds ``solution`` (a full program) or ``completion`` (appended to the prompt), as evalplus's samples
do, or, with ``raw_field``, a chat model's raw reply read as ``--raw-field`` reads it (``sanitize.raw_program``).
A ``task_id`` in a record is ignored: every record is a candidate for the one prompt. Every malformed record is a
``SampleFileError`` naming the file and the line.
"""

from __future__ import annotations

import ast
import os
import re
import warnings
from pathlib import Path
from typing import Optional

from coderank_evalplus.engine.execution.probe import prompt_lines
from coderank_evalplus.engine.shapes import shape_of
from coderank_evalplus.io.evalplus_samples import program_of
from coderank_evalplus.io.jsonl import SampleFileError, read_jsonl, str_field
from coderank_evalplus.io.sanitize import raw_program
from coderank_evalplus.types import InputNotFound, Problem


def as_program(candidate: str, problem: Problem) -> str:
    """A candidate as a full program: itself when it defines the entry point at the top level (a method: its class),
    else the prompt followed by it (a completion of the prompt's function); a stdin program is always itself."""
    return shape_of(problem).as_program(candidate, problem)


def entry_point_fault(program: str, problem: Problem) -> str:
    """What keeps a candidate's full program (``as_program``'s) from being an answer before anything runs, in
    words: "empty" (nothing of its own, after the prompt where the prompt came first), "defines no f" (prose that
    compiles, another function, a statement: the prompt's ``f`` keeps no body), "leaves f without a body" (a
    signature and docstring, ``pass`` or ``...``); "" when it defines the entry point with a body, binds it
    otherwise, or does not compile (the sandbox tells where). It runs as it is either way, and fails as evalplus
    fails it: these are words, never verdicts. A stdin program needs only to be there."""
    return diagnose(program, problem)[0]


def diagnose(program: str, problem: Problem) -> tuple[str, Optional[Exception]]:
    """``entry_point_fault``'s words for ``program`` and the parser's error when it does not compile (None when it
    does), from one parse: ``pick`` refuses with the one and explains the candidates that lost with the other."""
    start = prompt_lines(problem, program)
    empty = not program[len(problem.prompt) if start else 0:].strip()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a candidate's SyntaxWarnings are not the user's
            tree = ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return ("empty" if empty else ""), exc
    if empty:
        return "empty", None
    body = shape_of(problem).entry_point_scope(tree, problem)
    if body is None:
        return "", None
    last = _last_binding(body, problem.entry_point)
    if last is None:
        return f"defines no {problem.entry_point}", None
    if not (isinstance(last, (ast.FunctionDef, ast.AsyncFunctionDef)) and last.name == problem.entry_point) \
            or _has_body(last):
        return "", None
    own = [n for n in tree.body if n.lineno > start]  # the candidate's own statements
    if last.lineno <= start and own:  # the prompt's definition, left as it was, and something else after it
        return f"defines no {problem.entry_point}", None
    return f"leaves {problem.entry_point} without a body", None


def _last_binding(body: list[ast.stmt], name: str) -> Optional[ast.stmt]:
    """The last statement of ``body`` that binds ``name``, which is what a call finds: its ``def``, or any other
    statement that may bind it (an assignment, an import, a star import, a definition inside an ``if``); None when
    none does."""
    def binds(node: ast.AST) -> bool:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return node.name == name
        if isinstance(node, ast.alias):
            return node.name == "*" or (node.asname or node.name.split(".")[0]) == name
        return isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)

    found: Optional[ast.stmt] = None
    for stmt in body:
        if any(binds(node) for node in ast.walk(stmt)):
            found = stmt
    return found


def _has_body(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a function does anything: a statement other than its docstring, ``pass`` or ``...``."""
    return any(not (isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                                and (s.value.value is Ellipsis or isinstance(s.value.value, str))))
               for s in fn.body)


def _natural_key(path: Path) -> tuple:
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.name))


def read_candidates(path: str | os.PathLike, problem: Problem,
                    raw_field: Optional[str] = None) -> tuple[list[str], list[str]]:
    """Full programs of the candidates in ``path``, in file order (a folder's ``*.py`` files in natural order:
    ``2.py`` before ``10.py``), and their names: a folder's file names, a file's ``name`` field or
    ``line N``."""
    path = Path(path)
    if path.is_dir():
        if raw_field is not None:
            raise SampleFileError(f"{path}: --raw-field {raw_field} reads a field of JSON-lines records; this is a "
                                  f"folder")
        files = sorted(path.glob("*.py"), key=_natural_key)
        if not files:
            raise SampleFileError(f"{path}: a folder with no .py file")
        return [as_program(f.read_text(encoding="utf-8", errors="replace"), problem) for f in files], \
            [f.name for f in files]
    if not path.is_file():
        raise InputNotFound(f"candidates {path}: no such file or folder")
    out, names = [], []
    for lineno, rec in read_jsonl(path):
        if raw_field is not None:
            out.append(raw_program(str_field(rec, raw_field, path, lineno), problem))
        elif "solution" in rec or "completion" in rec:
            out.append(as_program(program_of(rec, problem, path, lineno), problem))
        else:
            raise SampleFileError(f"{path}:{lineno}: a candidate needs 'solution' or 'completion' (or --raw-field) "
                                  f"(keys: {sorted(map(str, rec))[:8]})")
        names.append(str(rec["name"]) if isinstance(rec.get("name"), str) else f"line {lineno}")
    if not out:
        raise SampleFileError(f"{path}: no candidates (empty file)")
    return out, names
