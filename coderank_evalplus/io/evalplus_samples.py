"""evalplus's own sample formats: ``{"task_id", "solution"}`` (a full program) or ``{"task_id", "completion"}``
(appended to the prompt) records, and a sample folder ``<task_id with _>/<n>.py``; likelihood fields on records."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Mapping, Sequence

from coderank_evalplus.io.jsonl import SampleFileError, check_unmatched, read_jsonl, str_field
from coderank_evalplus.types import Problem


def program_of(rec: dict, problem: Problem, path: Path, lineno: int) -> str:
    """The full program of one record: its solution, or the prompt followed by its completion."""
    if "solution" in rec:
        return str_field(rec, "solution", path, lineno)
    if "completion" in rec:
        return problem.prompt + str_field(rec, "completion", path, lineno)
    raise SampleFileError(f"{path}:{lineno}: record for {problem.task_id} has neither 'solution' nor 'completion'")


def read_folder(path: Path, problems: Mapping[str, Problem], allow_unknown: bool,
                drop_extra: bool = False) -> dict[str, list[str]]:
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
        check_unmatched(unmatched, "sample folders", drop_extra, path)
    return out


def read_record_features(path: Path, problems: Mapping[str, Problem]) -> dict[str, dict[str, list[float]]]:
    """Per-sample numeric fields whose name contains ``logprob``, per task id, in sample order (nan where a
    sample lacks a field another has)."""
    per_task: dict[str, list[dict]] = defaultdict(list)
    for _, rec in read_jsonl(path):
        tid = rec.get("task_id")
        if isinstance(tid, str) and tid in problems and ("solution" in rec or "completion" in rec):
            per_task[tid].append(rec)
    return {tid: found for tid, recs in per_task.items() if (found := record_features(recs))}


def record_features(records: Sequence[Mapping]) -> dict[str, list[float]]:
    """One problem's sample records → their numeric fields whose name contains ``logprob`` (likelihood features),
    one value per record, nan where a record lacks a field another has; {} when none has any."""
    kept = [{k: v for k, v in r.items() if "logprob" in k and isinstance(v, (int, float)) and not isinstance(v, bool)}
            for r in records]
    names = sorted({k for r in kept for k in r})
    return {k: [float(r.get(k, float("nan"))) for r in kept] for k in names}
