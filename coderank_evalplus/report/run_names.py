"""Every leaderboard row is one run — one results folder — and keeps a name of its own.

Rows are named as their runs recorded them (the model, ``provenance`` in ``rerank_results.json``) or as a suite
names them. A name may stand for several rows of one model (its samples reranked with other pools: one model,
compared with others pool by pool). Two rows of one dataset would be confused when they share a name but hold other
samples (two models both named after a ``samples_limit3.jsonl``), or share the name and the test pool's label (the
same model and pool twice): the tables key rows by name, so one would show the other's figures or drop out of the
models summary. Such rows are told apart by their results folders (the shortest end of the folder's path that no
other of them shares), and the leaderboard says so (``same_names``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Optional, Sequence

from coderank_evalplus.io.results_folder import read_summary
from coderank_evalplus.report.board import Entry
from coderank_evalplus.types import CoderankError


def _samples_of(summary: dict) -> Optional[str]:
    """What identifies a run's samples: their digest, else (results written before it was recorded) their path;
    None when neither is known (such rows count as one model's)."""
    prov = summary.get("provenance") or {}
    return prov.get("solutions_digest") or prov.get("solutions") or (summary.get("inputs") or {}).get("solutions")


def folder_ends(folders: Sequence[Path]) -> list[str]:
    """Each folder's shortest trailing path (``name``, ``parent/name``, …) that none of the others ends with."""
    parts = [f.resolve().parts for f in folders]
    out = []
    for i, p in enumerate(parts):
        k = 1
        while k < len(p) and any(q[-k:] == p[-k:] for j, q in enumerate(parts) if j != i):
            k += 1
        out.append("/".join(p[-k:]))
    return out


def tell_apart(entries: Sequence[Entry]) -> tuple[list[Entry], list[dict]]:
    """The entries with the names their rows show, and how same-named runs were told apart: one record per name
    that needed it, ``{"name", "dataset", "why", "by": "results folder", "rows": [shown names]}``. A results folder
    given twice is refused (it is one run)."""
    seen: dict[Path, int] = {}
    for k, e in enumerate(entries):
        where = Path(e.folder).resolve()
        if where in seen:
            raise CoderankError(f"leaderboard: results folder {e.folder} given twice (entries {seen[where] + 1} and "
                                f"{k + 1}); a run is one row")
        seen[where] = k
    summaries = [read_summary(Path(e.folder)) for e in entries]
    groups: dict[tuple[str, str], list[int]] = {}
    for k, (e, s) in enumerate(zip(entries, summaries)):
        groups.setdefault((e.name, str(s.get("dataset", ""))), []).append(k)
    shown = [e.name for e in entries]
    notes = []
    for (name, dataset), members in groups.items():
        samples = {_samples_of(summaries[k]) for k in members}
        labels = [entries[k].tests_label for k in members]
        other_samples = len(samples - {None}) > 1
        clash = [k for k in members if other_samples or labels.count(entries[k].tests_label) > 1]
        if not clash:
            continue
        for k, end in zip(clash, folder_ends([Path(entries[k].folder) for k in clash])):
            shown[k] = f"{name} ({end})"
        notes.append({"name": name, "dataset": dataset, "by": "results folder",
                      "why": "other samples under one model name" if other_samples else "the same model and pool "
                                                                                          "twice",
                      "rows": [shown[k] for k in clash]})
    return [dataclasses.replace(e, name=n) for e, n in zip(entries, shown)], notes
