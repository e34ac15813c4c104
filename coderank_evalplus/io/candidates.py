"""Candidates for one problem no benchmark has (``coderank-evalplus pick``): a JSON-lines file or a folder of .py files.

A record holds ``solution`` (a full program) or ``completion`` (appended to the prompt), as evalplus's samples
do, or, with ``raw_field``, a chat model's raw reply read as ``--raw-field`` reads it (``sanitize.raw_program``).
A ``task_id`` in a record is ignored: every record is a candidate for the one prompt. Every malformed record is a
``SampleFileError`` naming the file and the line.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Optional

from coderank_evalplus.engine.shapes import shape_of
from coderank_evalplus.io.evalplus_samples import program_of
from coderank_evalplus.io.jsonl import SampleFileError, read_jsonl, str_field
from coderank_evalplus.io.sanitize import raw_program
from coderank_evalplus.types import InputNotFound, Problem


def as_program(candidate: str, problem: Problem) -> str:
    """A candidate as a full program: itself when it defines the entry point at the top level (a method: its class),
    else the prompt followed by it (a completion of the prompt's function); a stdin program is always itself."""
    return shape_of(problem).as_program(candidate, problem)


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
