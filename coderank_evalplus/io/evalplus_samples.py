"""evalplus's own sample formats: ``{"task_id", "solution"}`` (a full program) or ``{"task_id", "completion"}``
(appended to the prompt) records, and a sample folder ``<task_id with _>/<n>.py``; likelihood fields on records."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Mapping

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
            per_task[tid].append({k: v for k, v in rec.items() if "logprob" in k and isinstance(v, (int, float))
                                  and not isinstance(v, bool)})
    out: dict[str, dict[str, list[float]]] = {}
    for tid, recs in per_task.items():
        names = sorted({k for r in recs for k in r})
        if names:
            out[tid] = {k: [float(r.get(k, float("nan"))) for r in recs] for k in names}
    return out
