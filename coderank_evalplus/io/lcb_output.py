"""lcb_runner's output file: a JSON list of ``{"question_id", "code_list", …}`` per problem, as
``lcb_runner.runner.main`` writes it (``output_list`` holds the raw replies, ``code_list`` the programs it extracted
from them; its ``_eval_all.json`` adds ``graded_list``) and as its ``custom_evaluator`` reads a custom one. The
programs are read from ``code_list`` as they are, so they are the very programs LiveCodeBench grades."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from coderank_evalplus.io.bigcode import read_json_document
from coderank_evalplus.io.jsonl import SampleFileError, check_unmatched, file_head
from coderank_evalplus.types import Problem

_PEEK = 4096


def starts_with_object_list(path: Path) -> bool:
    """Whether the file is a JSON list whose first item is an object (``[{``): lcb_runner's output, not bigcode's
    list of lists."""
    head = file_head(path, _PEEK)
    return head[:1] == b"[" and head[1:].lstrip()[:1] == b"{"


def read_code_lists(path: Path, problems: Mapping[str, Problem], drop_extra: bool = False) -> dict[str, list[str]]:
    """The programs of each problem, in ``code_list`` order; a malformed entry is a SampleFileError naming its place."""
    doc = read_json_document(path)
    if not isinstance(doc, list):
        raise SampleFileError(f"{path}: expected a JSON list of {{question_id, code_list}}")
    out: dict[str, list[str]] = {}
    unmatched: list[str] = []
    for i, item in enumerate(doc, 1):
        where = f"{path}: item {i}"
        if not isinstance(item, dict) or "question_id" not in item or "code_list" not in item:
            raise SampleFileError(f"{where}: expected an object with 'question_id' and 'code_list' (lcb_runner's "
                                  f"output)")
        qid, codes = str(item["question_id"]), item["code_list"]
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise SampleFileError(f"{where}: field 'code_list': expected a list of strings")
        if qid not in problems:
            unmatched.append(f"{where} (question_id {qid!r})")
            continue
        if qid in out:
            raise SampleFileError(f"{where}: question_id {qid!r} appears twice")
        out[qid] = list(codes)
    if not doc:
        raise SampleFileError(f"{path}: no problems (empty list)")
    check_unmatched(unmatched, "samples", drop_extra, path)
    return out
