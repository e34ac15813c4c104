"""Read and write samples: evalplus jsonl / folder layout, CodeT's ``{"prompt", "samples"}`` files, test files.

Other harnesses' formats (bigcode-evaluation-harness, lm-eval logs) are read by ``readers/``, called from here."""

from __future__ import annotations

import gzip
import json
import os
import zlib
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Optional

from coderank_evalplus.extract import assert_body, truncate
from coderank_evalplus.problems import data_dir_from_env
from coderank_evalplus.types import Problem


class SampleFileError(ValueError):
    """A samples or tests file is malformed; the message names the file and line."""


_SHOW = 80  # characters of an offending line or value quoted in a message


def _quote(text: str) -> str:
    return repr(text[:_SHOW]) + (f" … ({len(text)} characters)" if len(text) > _SHOW else "")


def read_jsonl(path: str | os.PathLike) -> Iterator[tuple[int, dict]]:
    """Yield (line number, record) of a .jsonl or .jsonl.gz file; malformed lines raise SampleFileError.

    Every message is one line and names the file and the line: invalid UTF-8, invalid or truncated JSON,
    nesting too deep, numbers out of range, a value that is not an object. A UTF-8 byte-order mark is allowed."""
    path = Path(path)
    if path.is_dir():
        raise SampleFileError(f"{path}: is a folder, expected a .jsonl file")
    if not path.is_file():
        raise SampleFileError(f"{path}: no such file")
    opener = gzip.open if path.suffix == ".gz" else open
    lineno = 0
    try:
        with opener(path, "rb") as fh:
            for lineno, raw in enumerate(fh, 1):
                try:
                    line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
                except UnicodeDecodeError as exc:
                    raise SampleFileError(f"{path}:{lineno}: not valid UTF-8 (byte {exc.start}: "
                                          f"{raw[exc.start:exc.start + 4]!r})") from None
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as exc:
                    cut = exc.pos >= len(line.rstrip()) or exc.msg.startswith("Unterminated string")
                    what = "truncated JSON" if cut else "not valid JSON"
                    reason = exc.msg[:-3] if exc.msg.endswith(" at") else exc.msg
                    raise SampleFileError(f"{path}:{lineno}: {what} ({reason}, column {exc.colno}): "
                                          f"{_quote(line.rstrip())}") from None
                except RecursionError:
                    raise SampleFileError(f"{path}:{lineno}: JSON nested too deeply") from None
                except ValueError as exc:  # e.g. an integer literal with too many digits
                    raise SampleFileError(f"{path}:{lineno}: unreadable JSON value ({str(exc)[:_SHOW]})") from None
                if not isinstance(rec, dict):
                    raise SampleFileError(f"{path}:{lineno}: expected a JSON object, got {type(rec).__name__}")
                yield lineno, rec
    except (EOFError, OSError, gzip.BadGzipFile, zlib.error) as exc:
        where = f"{path}:{lineno + 1}" if lineno else str(path)
        raise SampleFileError(f"{where}: cannot be read ({type(exc).__name__}: {str(exc)[:_SHOW]})") from None


def write_jsonl(path: str | os.PathLike, records: Iterable[Mapping[str, Any]], append: bool = False) -> None:
    """Write records as one JSON object per line: atomically (``storage.atomic_write_jsonl``), or appended and
    flushed with ``append=True`` (a killed run keeps what was written)."""
    if not append:
        from coderank_evalplus.storage import atomic_write_jsonl

        atomic_write_jsonl(path, records)
        return
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec) + "\n")
        fh.flush()


def _str_field(rec: dict, key: str, path: Path, lineno: int) -> str:
    value = rec.get(key)
    if not isinstance(value, str):
        got = "missing" if key not in rec else f"got {type(value).__name__}"
        raise SampleFileError(f"{path}:{lineno}: field {key!r} must be a string ({got})")
    return value


def _str_list(rec: dict, key: str, path: Path, lineno: int) -> list[str]:
    value = rec.get(key)
    if not isinstance(value, list):
        got = "missing" if key not in rec else f"got {type(value).__name__}"
        raise SampleFileError(f"{path}:{lineno}: field {key!r} must be a list of strings ({got})")
    for i, v in enumerate(value):
        if not isinstance(v, str):
            raise SampleFileError(f"{path}:{lineno}: field {key!r} must be a list of strings "
                                  f"(item {i} is {type(v).__name__})")
    return value


def _once(seen: dict[str, int], tid: str, path: Path, lineno: int, what: str) -> None:
    """A task may have one record of this kind per file (a second one would double its samples)."""
    first = seen.setdefault(tid, lineno)
    if first != lineno:
        raise SampleFileError(f"{path}:{lineno}: duplicate {what} for {tid} (first at line {first})")


def codet_prompt_index(problems: Mapping[str, Problem], data_dir: Optional[str] = None) -> dict[str, str]:
    """Map every known prompt string to its task id: CodeT's problem files (which carry the task ids), the
    problems' own prompts and their CodeT-style test-generation prompts."""
    index: dict[str, str] = {}
    root = None
    try:
        root = data_dir_from_env(data_dir)
    except FileNotFoundError:
        root = None
    if root is not None:
        folder = root / "microsoft_CodeT" / "dataset"
        if not folder.is_dir():
            folder = root
        for f in sorted(folder.glob("*_for_*_generation.jsonl")):
            for _, rec in read_jsonl(f):
                if isinstance(rec.get("prompt"), str) and isinstance(rec.get("task_id"), str):
                    tid = rec["task_id"].replace("MbppEval/", "Mbpp/")
                    index.setdefault(rec["prompt"], tid)
    for tid, prob in problems.items():
        index.setdefault(prob.prompt, tid)
        if prob.test_prompt_body:
            index.setdefault(codet_test_prompt(prob), tid)
    return index


def codet_test_prompt(problem: Problem) -> str:
    """CodeT's test-generation prompt: examples removed, body ``pass``, then the check comment and ``assert ``."""
    return f"{problem.test_prompt_body}    pass\n\n# check the correctness of {problem.entry_point}\nassert "


def _task_for_prompt(prompt: str, index: Mapping[str, str], problems: Mapping[str, Problem],
                     path: Path, lineno: int, unmatched: list[str]) -> Optional[str]:
    tid = index.get(prompt)
    if tid is None or tid not in problems:
        unmatched.append(f"{path}:{lineno} (prompt starting {prompt.strip()[:60]!r})")
        return None
    return tid


def _check_unmatched(unmatched: list[str], what: str) -> None:
    if unmatched:
        shown = "; ".join(unmatched[:3])
        more = f"; … and {len(unmatched) - 3} more" if len(unmatched) > 3 else ""
        raise SampleFileError(f"{len(unmatched)} {what} match no problem of the dataset: {shown}{more}")


def read_solutions(path: str | os.PathLike, problems: Mapping[str, Problem], data_dir: Optional[str] = None,
                   allow_unknown: bool = False) -> dict[str, list[str]]:
    """Full programs per task id, in sample order.

    Accepts evalplus samples (``{"task_id", "solution"}`` = full program, or ``{"task_id", "completion"}`` =
    prompt + completion), an evalplus sample folder (``<task_id with _>/<n>.py``), CodeT's
    ``{"prompt", "samples"}`` (each sample cut at CodeT's stop sequences, appended to the prompt),
    bigcode-evaluation-harness ``generations_<task>.json`` (:mod:`coderank_evalplus.readers.bigcode`) and the
    lm-eval ``--log_samples`` file (or output folder) of one of our tasks
    (:mod:`coderank_evalplus.readers.lm_eval_log`). The format is recognised by the content.
    """
    from coderank_evalplus.readers import bigcode, lm_eval_log

    path = Path(path)
    out: dict[str, list[str]] = defaultdict(list)
    unmatched: list[str] = []
    if path.is_dir():
        found = lm_eval_log.find_samples_file(path)
        if found is None:
            return _read_solution_folder(path, problems, allow_unknown)
        path = found
    elif path.is_file() and bigcode.starts_with_json_list(path):
        return bigcode.read_generations(path, problems)
    index: Optional[dict[str, str]] = None
    codet_seen: dict[str, int] = {}
    lm_seen: dict[str, int] = {}
    lm_state: dict[str, Any] = {}
    n_records = 0
    for lineno, rec in read_jsonl(path):
        n_records += 1
        if lm_eval_log.is_logged_sample(rec):
            sample = lm_eval_log.parse_logged_sample(rec, path, lineno)
            if not lm_eval_log.only_first_filter(sample, lm_state):
                continue  # the same answers, logged again for another filter
            if sample.task_id not in problems:
                unmatched.append(f"{path}:{lineno} (task_id {sample.task_id!r})")
                continue
            _once(lm_seen, sample.task_id, path, lineno, "lm-eval sample")
            out[sample.task_id].extend(sample.programs())
            continue
        if "samples" in rec and "prompt" in rec and "task_id" not in rec:
            if index is None:
                index = codet_prompt_index(problems, data_dir)
            prompt = _str_field(rec, "prompt", path, lineno)
            tid = _task_for_prompt(prompt, index, problems, path, lineno, unmatched)
            if tid is not None:
                _once(codet_seen, tid, path, lineno, "CodeT record")
                out[tid].extend(prompt + truncate(s) for s in _str_list(rec, "samples", path, lineno))
            continue
        if "task_id" not in rec:
            raise SampleFileError(f"{path}:{lineno}: record has no 'task_id' (keys: {sorted(map(str, rec))[:8]})")
        tid = _str_field(rec, "task_id", path, lineno)
        if tid not in problems:
            unmatched.append(f"{path}:{lineno} (task_id {tid!r})")
            continue
        if "solution" in rec:
            out[tid].append(_str_field(rec, "solution", path, lineno))
        elif "completion" in rec:
            out[tid].append(problems[tid].prompt + _str_field(rec, "completion", path, lineno))
        else:
            raise SampleFileError(f"{path}:{lineno}: record for {tid} has neither 'solution' nor 'completion'")
    if n_records == 0:
        raise SampleFileError(f"{path}: no records (empty file)")
    if not allow_unknown:
        _check_unmatched(unmatched, "samples")
    return dict(out)


def read_features(path: str | os.PathLike, problems: Mapping[str, Problem]) -> dict[str, dict[str, list[float]]]:
    """Per-sample numeric fields whose name contains ``logprob`` (likelihood features), per task id, aligned
    with ``read_solutions``'s sample order: ``{task_id: {field: [value or nan per sample]}}``.

    Only evalplus-style records (``task_id`` + ``solution``/``completion``) carry them; CodeT files, sample
    folders and other harnesses' files give none. A field present on some samples only is nan on the others."""
    from coderank_evalplus.readers import bigcode

    path = Path(path)
    if path.is_dir() or (path.is_file() and bigcode.starts_with_json_list(path)):
        return {}
    per_task: dict[str, list[dict]] = defaultdict(list)
    for _, rec in read_jsonl(path):
        tid = rec.get("task_id")
        if isinstance(tid, str) and tid in problems and ("solution" in rec or "completion" in rec):
            per_task[tid].append({k: v for k, v in rec.items() if "logprob" in k and isinstance(v, (int, float))
                                  and not isinstance(v, bool)})
    out: dict[str, dict[str, list[float]]] = {}
    for tid, recs in per_task.items():
        names = sorted({k for r in recs for k in r})
        if names:
            out[tid] = {k: [float(r.get(k, float("nan"))) for r in recs] for k in names}
    return out


def _read_solution_folder(path: Path, problems: Mapping[str, Problem], allow_unknown: bool) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    unmatched = []
    for task_dir in sorted(p for p in path.iterdir() if p.is_dir()):
        tid = task_dir.name.replace("_", "/")
        files = sorted((f for f in task_dir.glob("*.py") if f.stem.isdigit()), key=lambda f: int(f.stem))
        if tid not in problems:
            unmatched.append(f"{task_dir} (task_id {tid!r})")
            continue
        out[tid] = [f.read_text(encoding="utf-8", errors="replace") for f in files]
    if not allow_unknown:
        _check_unmatched(unmatched, "sample folders")
    return out


def read_test_samples(path: str | os.PathLike, problems: Mapping[str, Problem],
                      data_dir: Optional[str] = None) -> dict[str, list[str]]:
    """Raw test samples per task id (text after ``assert ``, as CodeT stores them).

    Accepts CodeT's ``{"prompt", "samples"}``, our ``{"task_id", "samples": [...]}`` (raw samples) or
    ``{"task_id", "asserts": [...]}`` (each a ready assert statement; one sample per assert), and the lm-eval
    ``--log_samples`` file (or output folder) of one of our tasks (the test request's answers).
    """
    from coderank_evalplus.readers import bigcode, lm_eval_log

    path = Path(path)
    if path.is_dir():
        found = lm_eval_log.find_samples_file(path)
        if found is None:
            raise SampleFileError(f"{path}: is a folder with no lm-eval {lm_eval_log.SAMPLES_GLOB} file; "
                                  f"expected a .jsonl file")
        path = found
    elif path.is_file() and bigcode.starts_with_json_list(path):
        raise SampleFileError(f"{path}: a JSON list (bigcode-evaluation-harness generations?) holds solutions, "
                              f"not test samples")
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
            _once(seen, sample.task_id, path, lineno, "lm-eval sample")
            if sample.tests is not None:
                n_logged_tests += 1
                out[sample.task_id].extend(sample.tests)
            continue
        if "task_id" in rec:
            tid = _str_field(rec, "task_id", path, lineno)
            if tid not in problems:
                unmatched.append(f"{path}:{lineno} (task_id {tid!r})")
                continue
        elif "prompt" in rec:
            if index is None:
                index = codet_prompt_index(problems, data_dir)
            tid = _task_for_prompt(_str_field(rec, "prompt", path, lineno), index, problems, path, lineno, unmatched)
            if tid is None:
                continue
        else:
            raise SampleFileError(f"{path}:{lineno}: test record needs 'task_id' or 'prompt' "
                                  f"(keys: {sorted(map(str, rec))[:8]})")
        _once(seen, tid, path, lineno, "test record")
        if "samples" in rec:
            out[tid].extend(_str_list(rec, "samples", path, lineno))
        elif "asserts" in rec:
            out[tid].extend(assert_body(a.strip()) for a in _str_list(rec, "asserts", path, lineno))
        else:
            raise SampleFileError(f"{path}:{lineno}: test record for {tid} has neither 'samples' nor 'asserts'")
    if n_records == 0:
        raise SampleFileError(f"{path}: no records (empty file)")
    if n_logged and not n_logged_tests:
        raise SampleFileError(f"{path}: the lm-eval samples hold no test samples (the task ran with "
                              f"n_test_samples 0)")
    _check_unmatched(unmatched, "test records")
    return dict(out)
