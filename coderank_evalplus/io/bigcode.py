"""bigcode-evaluation-harness ``generations_<task>.json``: one list of programs per problem, in the task's order.

bigcode writes ``json.dump(generations)`` (``bigcode_eval/evaluator.py``): a JSON list with one entry per document of
the task's dataset, each a list of ``n_samples`` strings. With its default ``--postprocess`` each string is the
task's prompt followed by the completion cut at the task's stop words — a full program, taken here as is (like
evalplus's ``solution`` field). Its ``references_<task>.json`` is not read: the dataset's own tests judge.

Positions map to task ids the way bigcode's tasks load their datasets (``bigcode_eval/tasks/{humaneval,
humanevalplus,mbpp,mbppplus}.py``):

* ``humaneval``, ``humanevalplus`` (and their ``-unstripped`` variants): ``openai_humaneval`` /
  ``evalplus/humanevalplus``, 164 problems, position i = ``HumanEval/i``;
* ``mbpp``: the test split of the original MBPP (500 problems, task ids 11–510 in order), position i =
  ``Mbpp/{11 + i}``; MBPP+ keeps a subset of them and the other positions are skipped;
* ``mbppplus``: ``evalplus/mbppplus`` (the MBPP+ release in task-id order): 378 problems as of MBPP+ v0.2.0, 399
  before (v0.1.0 = v0.2.0 plus the 21 tasks of :data:`MBPP_PLUS_REMOVED_IN_V020`). Both orders are derived from
  the MBPP+ problems at hand, so either version's file reads against either version's problems (tasks the loaded
  version lacks are skipped).

A list of another length (e.g. a run with ``--limit`` / ``--limit_start``, whose offset the file does not record)
cannot be mapped, and is refused.
"""

from __future__ import annotations

import codecs
import gzip
import os
import zlib
from pathlib import Path
from typing import Any, Mapping

from coderank_evalplus.io.jsonl import SampleFileError, file_head, loads
from coderank_evalplus.types import Problem

HUMANEVAL_SIZE = 164  # openai_humaneval and evalplus/humanevalplus: HumanEval/0 … HumanEval/163
MBPP_TEST_IDS = range(11, 511)  # the original MBPP's test split, bigcode's ``mbpp`` task
# MBPP+ v0.1.0 tasks that v0.2.0 dropped (the difference of the two evalplus/mbppplus_release files).
MBPP_PLUS_REMOVED_IN_V020 = frozenset(
    f"Mbpp/{n}" for n in (83, 115, 117, 143, 164, 229, 249, 295, 396, 400, 407, 431, 438, 442, 461, 574, 582, 595,
                          640, 746, 783))
_PEEK = 1 << 20  # bytes looked at to tell a JSON document from JSON lines


def starts_with_json_list(path: str | os.PathLike) -> bool:
    """Whether the file's first non-blank character (after a byte-order mark) is ``[``: a JSON list document such
    as bigcode's generations, not JSON lines (whose records are objects). Unreadable files answer False and are
    left to the JSON-lines reader, which reports them."""
    return file_head(Path(path), _PEEK)[:1] == b"["


def read_json_document(path: Path) -> Any:
    """The whole file as one JSON value; malformed input raises a one-line SampleFileError naming file and line."""
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as fh:
            raw = fh.read()
    except (EOFError, OSError, gzip.BadGzipFile, zlib.error) as exc:
        raise SampleFileError(f"{path}: cannot be read ({type(exc).__name__}: {str(exc)[:80]})") from None
    raw = raw.removeprefix(codecs.BOM_UTF8)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise SampleFileError(f"{path}:{line}: not valid UTF-8 (byte {exc.start}: "
                              f"{raw[exc.start:exc.start + 4]!r})") from None
    return loads(text, path)


def layouts(problems: Mapping[str, Problem]) -> list[tuple[str, list[str]]]:
    """(bigcode task, task id at each position) for every bigcode task that covers these problems."""
    if any(tid.startswith("HumanEval/") for tid in problems):
        return [("humaneval / humanevalplus", [f"HumanEval/{i}" for i in range(HUMANEVAL_SIZE)])]
    if not any(tid.startswith("Mbpp/") for tid in problems):
        return []
    out = [("mbpp (MBPP test split, task ids 11-510)", [f"Mbpp/{n}" for n in MBPP_TEST_IDS])]
    if all(p.has_evalplus_inputs for p in problems.values()):  # MBPP+ (sanitized MBPP has no plus inputs)
        v020 = set(problems) - MBPP_PLUS_REMOVED_IN_V020
        out.append(("mbppplus (MBPP+ v0.2.0)", sorted(v020, key=_number)))
        out.append(("mbppplus (MBPP+ v0.1.0)", sorted(v020 | MBPP_PLUS_REMOVED_IN_V020, key=_number)))
    return out


def _number(tid: str) -> int:
    tail = tid.split("/", 1)[-1]
    return int(tail) if tail.isdigit() else -1


def read_generations(path: str | os.PathLike, problems: Mapping[str, Problem]) -> dict[str, list[str]]:
    """Programs per task id from a bigcode ``generations_<task>.json`` (positions mapped as the module says)."""
    path = Path(path)
    data = read_json_document(path)
    if not isinstance(data, list):
        raise SampleFileError(f"{path}: expected a JSON list of lists of generations, got {type(data).__name__}")
    known = layouts(problems)
    order = next((ids for _, ids in known if len(ids) == len(data)), None)
    if order is None:
        expected = ", ".join(f"{len(ids)} ({name})" for name, ids in known) or "none for this dataset"
        raise SampleFileError(f"{path}: a bigcode generations list of {len(data)} entries matches no bigcode task "
                              f"of this dataset (expected one entry per problem: {expected}; a run with --limit "
                              f"or --limit_start cannot be mapped to task ids)")
    out: dict[str, list[str]] = {}
    for i, (tid, entry) in enumerate(zip(order, data)):
        where = f"{path}: entry {i} ({tid})"
        if not isinstance(entry, list):
            hint = " (an unfinished *_intermediate.json?)" if entry is None else ""
            raise SampleFileError(f"{where} must be a list of generation strings, got {type(entry).__name__}{hint}")
        for j, program in enumerate(entry):
            if not isinstance(program, str):
                raise SampleFileError(f"{where}, generation {j}: expected a string, got {type(program).__name__}")
        if entry and tid in problems:  # positions of problems this dataset lacks are skipped (see module doc)
            out[tid] = list(entry)
    if not out:
        raise SampleFileError(f"{path}: no generations for any problem of the dataset")
    return out
