"""The one place that decides a samples file's format and hands it to that format's reader.

Formats (each read by the module beside this one): evalplus records or an evalplus sample folder
(``evalplus_samples``), CodeT's ``{"prompt", "samples"}`` files (``codet``), bigcode-evaluation-harness
``generations_<task>.json`` (``bigcode``), lcb_runner's output (``lcb_output``: ``question_id`` + ``code_list``) and
the lm-eval ``--log_samples`` file or output folder of one of our tasks (``lm_eval_log``). ``detect_format`` looks
at the path (folder or JSON document); inside a .jsonl file each record says what it is. Every reader raises
``SampleFileError`` naming the file and the line.
"""

from __future__ import annotations

import os
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any, Mapping, Optional

from coderank_evalplus.io import bigcode, codet, evalplus_samples, lcb_output, lm_eval_log
from coderank_evalplus.io.jsonl import (  # noqa: F401 (re-exported)
    SampleFileError,
    check_unmatched,
    once,
    quote,
    read_jsonl,
    str_field,
    str_list,
    write_jsonl,
)
from coderank_evalplus.io.sanitize import SanitizeTally, looks_unsanitized, sanitize_reply
from coderank_evalplus.testgen.extract import assert_body
from coderank_evalplus.types import Problem

# re-exported for callers of the former ``artifacts`` module
codet_prompt_index = codet.codet_prompt_index
codet_test_prompt = codet.codet_test_prompt

FOLDER_LM_EVAL, FOLDER_EVALPLUS, BIGCODE, JSONL = "lm-eval log folder", "evalplus folder", "bigcode", "jsonl"
LCB_OUTPUT = "lcb_runner output"


def detect_format(path: Path) -> tuple[str, Path]:
    """(format, the file to read) for a samples path: an lm-eval output folder (its samples file), an evalplus
    sample folder, a bigcode JSON document, or JSON lines (whose records each say which format they are in)."""
    if path.is_dir():
        found = lm_eval_log.find_samples_file(path)
        return (FOLDER_EVALPLUS, path) if found is None else (JSONL, found)
    if path.is_file() and bigcode.starts_with_json_list(path):
        return (LCB_OUTPUT if lcb_output.starts_with_object_list(path) else BIGCODE), path
    return JSONL, path


def read_solutions(path: str | os.PathLike, problems: Mapping[str, Problem], data_dir: Optional[str] = None,
                   allow_unknown: bool = False, drop_extra: bool = False,
                   raw_field: Optional[str] = None, tally: Optional[SanitizeTally] = None) -> dict[str, list[str]]:
    """Full programs per task id, in sample order.

    Accepts evalplus samples (``{"task_id", "solution"}`` = full program, or ``{"task_id", "completion"}`` =
    prompt + completion), an evalplus sample folder (``<task_id with _>/<n>.py``), CodeT's
    ``{"prompt", "samples"}`` (each sample cut at CodeT's stop sequences, appended to the prompt),
    bigcode-evaluation-harness ``generations_<task>.json`` (:mod:`coderank_evalplus.io.bigcode`) and the
    lm-eval ``--log_samples`` file (or output folder) of one of our tasks
    (:mod:`coderank_evalplus.io.lm_eval_log`). The format is recognised by the content.

    Records of problems the dataset lacks are an error, unless ``allow_unknown`` (dropped silently: a harness's
    own sample folder) or ``drop_extra`` (dropped with one warning that counts them: the user asked for it).

    ``raw_field``: evalplus-style records whose field of that name holds a chat model's raw reply (prose around
    code), each read as :func:`coderank_evalplus.io.sanitize.raw_program` (evalplus.sanitize's output, the
    prompt's imports before it) and counted in ``tally``. Without it, a file whose samples are mostly not
    programs gets one warning saying so.
    """
    kind, path = detect_format(Path(path))
    if raw_field is not None:
        tally = tally if tally is not None else SanitizeTally(raw_field)
        if kind != JSONL:
            raise SampleFileError(f"{path}: --raw-field {raw_field} reads a field of JSON-lines records "
                                  f"({{\"task_id\", \"{raw_field}\"}}); this is {kind}")
    out = _read_programs(kind, path, problems, data_dir, allow_unknown, drop_extra, raw_field, tally)
    if raw_field is None:
        warning = looks_unsanitized(out)
        if warning:
            print(f"warning: {path}: {warning}", file=sys.stderr, flush=True)
    return out


def _read_programs(kind: str, path: Path, problems: Mapping[str, Problem], data_dir: Optional[str],
                   allow_unknown: bool, drop_extra: bool, raw_field: Optional[str],
                   tally: Optional[SanitizeTally]) -> dict[str, list[str]]:
    if kind == FOLDER_EVALPLUS:
        return evalplus_samples.read_folder(path, problems, allow_unknown, drop_extra)
    if kind == BIGCODE:
        return bigcode.read_generations(path, problems)
    if kind == LCB_OUTPUT:
        return lcb_output.read_code_lists(path, problems, drop_extra)
    out: dict[str, list[str]] = defaultdict(list)
    unmatched: list[str] = []
    index: Optional[dict[str, str]] = None
    codet_seen: dict[str, int] = {}
    lm_seen: dict[str, int] = {}
    lm_state: dict[str, Any] = {}
    n_records = 0
    for lineno, rec in read_jsonl(path):
        n_records += 1
        if raw_field is not None and "task_id" not in rec:
            raise SampleFileError(f"{path}:{lineno}: --raw-field {raw_field} reads evalplus-style records "
                                  f"({{\"task_id\", \"{raw_field}\"}}); this record has no 'task_id' "
                                  f"(keys: {sorted(map(str, rec))[:8]})")
        if lm_eval_log.is_logged_sample(rec):
            sample = lm_eval_log.parse_logged_sample(rec, path, lineno)
            if not lm_eval_log.only_first_filter(sample, lm_state):
                continue  # the same answers, logged again for another filter
            if sample.task_id not in problems:
                unmatched.append(f"{path}:{lineno} (task_id {sample.task_id!r})")
                continue
            once(lm_seen, sample.task_id, path, lineno, "lm-eval sample")
            out[sample.task_id].extend(sample.programs())
            continue
        if "samples" in rec and codet.is_codet_record(rec):
            if index is None:
                index = codet.codet_prompt_index(problems, data_dir)
            prompt = str_field(rec, "prompt", path, lineno)
            tid = codet.task_for_prompt(prompt, index, problems, path, lineno, unmatched)
            if tid is not None:
                once(codet_seen, tid, path, lineno, "CodeT record")
                out[tid].extend(codet.solution_programs(rec, prompt, path, lineno))
            continue
        if "task_id" not in rec:
            raise SampleFileError(f"{path}:{lineno}: record has no 'task_id' (keys: {sorted(map(str, rec))[:8]})")
        tid = str_field(rec, "task_id", path, lineno)
        if tid not in problems:
            unmatched.append(f"{path}:{lineno} (task_id {tid!r})")
            continue
        if raw_field is not None and tally is not None:
            reply = str_field(rec, raw_field, path, lineno)
            out[tid].append(sanitize_reply(reply, problems[tid], tally))
        else:
            out[tid].append(evalplus_samples.program_of(rec, problems[tid], path, lineno))
    if n_records == 0:
        raise SampleFileError(f"{path}: no records (empty file)")
    if not allow_unknown:
        check_unmatched(unmatched, "samples", drop_extra, path)
    return dict(out)


def read_features(path: str | os.PathLike, problems: Mapping[str, Problem]) -> dict[str, dict[str, list[float]]]:
    """Per-sample numeric fields whose name contains ``logprob`` (likelihood features), per task id, aligned
    with ``read_solutions``'s sample order: ``{task_id: {field: [value or nan per sample]}}``.

    Only evalplus-style records (``task_id`` + ``solution``/``completion``) carry them; CodeT files, sample
    folders and other harnesses' files give none. A field present on some samples only is nan on the others."""
    kind, path = detect_format(Path(path))
    if kind != JSONL or path.is_dir():
        return {}
    return evalplus_samples.read_record_features(path, problems)


def read_test_samples(path: str | os.PathLike, problems: Mapping[str, Problem],
                      data_dir: Optional[str] = None, drop_extra: bool = False) -> dict[str, list[str]]:
    """Raw test samples per task id (text after ``assert ``, as CodeT stores them).

    Accepts CodeT's ``{"prompt", "samples"}``, our ``{"task_id", "samples": [...]}`` (raw samples) or
    ``{"task_id", "asserts": [...]}`` (each a ready assert statement; one sample per assert), and the lm-eval
    ``--log_samples`` file (or output folder) of one of our tasks (the test request's answers). Records of
    problems the dataset lacks are an error, or with ``drop_extra`` dropped with one warning that counts them.
    """
    kind, path = detect_format(Path(path))
    if kind == FOLDER_EVALPLUS:
        raise SampleFileError(f"{path}: is a folder with no lm-eval {lm_eval_log.SAMPLES_GLOB} file; "
                              f"expected a .jsonl file")
    if kind in (BIGCODE, LCB_OUTPUT):
        what = "bigcode-evaluation-harness generations?" if kind == BIGCODE else "lcb_runner's output?"
        raise SampleFileError(f"{path}: a JSON list ({what}) holds solutions, not test samples")
    out: dict[str, list[str]] = defaultdict(list)
    unmatched: list[str] = []
    index: Optional[dict[str, str]] = None
    seen: dict[str, int] = {}
    lm_state: dict[str, Any] = {}
    n_records = n_logged = n_logged_tests = 0
    for lineno, rec in read_jsonl(path):
        n_records += 1
        if lm_eval_log.is_logged_sample(rec):
            sample = lm_eval_log.parse_logged_sample(rec, path, lineno)
            if not lm_eval_log.only_first_filter(sample, lm_state):
                continue  # the same answers, logged again for another filter
            n_logged += 1
            if sample.task_id not in problems:
                unmatched.append(f"{path}:{lineno} (task_id {sample.task_id!r})")
                continue
            once(seen, sample.task_id, path, lineno, "lm-eval sample")
            if sample.tests is not None:
                n_logged_tests += 1
                out[sample.task_id].extend(sample.tests)
            continue
        if "task_id" in rec:
            tid = str_field(rec, "task_id", path, lineno)
            if tid not in problems:
                unmatched.append(f"{path}:{lineno} (task_id {tid!r})")
                continue
        elif "prompt" in rec:
            if index is None:
                index = codet.codet_prompt_index(problems, data_dir)
            found = codet.task_for_prompt(str_field(rec, "prompt", path, lineno), index, problems, path, lineno,
                                          unmatched)
            if found is None:
                continue
            tid = found
        else:
            raise SampleFileError(f"{path}:{lineno}: test record needs 'task_id' or 'prompt' "
                                  f"(keys: {sorted(map(str, rec))[:8]})")
        once(seen, tid, path, lineno, "test record")
        if "samples" in rec:
            out[tid].extend(str_list(rec, "samples", path, lineno))
        elif "asserts" in rec:
            out[tid].extend(assert_body(a.strip()) for a in str_list(rec, "asserts", path, lineno))
        else:
            raise SampleFileError(f"{path}:{lineno}: test record for {tid} has neither 'samples' nor 'asserts'")
    if n_records == 0:
        raise SampleFileError(f"{path}: no records (empty file)")
    if n_logged and not n_logged_tests:
        raise SampleFileError(f"{path}: the lm-eval samples hold no test samples (the task ran with "
                              f"n_test_samples 0)")
    check_unmatched(unmatched, "test records", drop_extra, path)
    return dict(out)
