"""Verdicts from evalplus's own ``*_eval_results.json``, so that samples evalplus has judged are not judged again.

``evalplus.evaluate`` writes, per task, one record per sample in sample order with ``solution``, ``base_status``
and ``plus_status`` (``"pass"`` / ``"fail"`` / ``"timeout"``, ``plus_status`` None with ``--base_only``), and the
hash of the dataset it judged on. Those are the reference verdicts our judge reproduces; when such a file is at
hand (``evalplus.evaluate --rerank``, or ``rerank --eval-results FILE``) it is used instead of judging, provided it
is about these very samples: same dataset (evalplus's hash of it, in either form of the release file), same number
of samples per task, same program text per sample, and plus verdicts when plus is wanted. Otherwise the caller
judges, and says why (the reason returned here).

evalplus itself reuses an existing results file without checking it against the samples, so a stale file next to
new samples is caught here by its program texts.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Mapping, Optional, Sequence

from coderank_evalplus.types import Problem, Verdict

_PASS = "pass"  # evalplus.eval.PASS


def evalplus_results_path(samples: str | os.PathLike) -> Path:
    """Where ``evalplus.evaluate`` writes its results for these samples (a folder: ``eval_results.json`` in it)."""
    s = str(samples).rstrip("/\\")
    if os.path.isdir(s):
        return Path(s) / "eval_results.json"
    return Path(s[: -len(".jsonl")] + "_eval_results.json" if s.endswith(".jsonl") else s + "_eval_results.json")


def read_verdicts(path: str | os.PathLike, problems: Mapping[str, Problem], solutions: Mapping[str, Sequence[str]],
                  plus: bool) -> tuple[Optional[dict[str, list[Verdict]]], str]:
    """Per task, the verdict of each sample (in sample order) from evalplus's results file, or (None, why not).

    ``plus``: plus verdicts are wanted (``plus`` of a Verdict means base and plus tests pass, as evalplus counts
    its plus pass@k); a file written with ``--base_only`` then does not do."""
    path = Path(path)
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        records = data["eval"]
        file_hash = data.get("hash")
    except FileNotFoundError:
        return None, f"{path}: no such file"
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return None, f"{path}: not an evalplus results file ({exc.__class__.__name__}: {exc})"
    # evalplus's hash is the md5 of the file it read: the same release read as .gz or as its decompressed text
    # (evalplus's cache) has two, both known to the problems
    known = [{problems[t].dataset_hash, *problems[t].dataset_hash_aliases} - {""} for t in solutions]
    if not file_hash or not all(file_hash in k for k in known):
        ours = ", ".join(sorted({problems[t].dataset_hash or "none" for t in solutions}))
        return None, f"{path}: judged on dataset {file_hash!r}, these samples are for dataset {ours}"
    want_plus = plus and any(problems[t].has_evalplus_inputs for t in solutions)
    out: dict[str, list[Verdict]] = {}
    for tid, programs in solutions.items():
        recs = records.get(tid) if isinstance(records, dict) else None
        if not isinstance(recs, list):
            return None, f"{path}: no results for {tid}"
        if len(recs) != len(programs):
            return None, f"{path}: {tid} has {len(recs)} judged samples, the samples file {len(programs)}"
        verdicts = []
        for i, (rec, program) in enumerate(zip(recs, programs)):
            if not isinstance(rec, dict):
                return None, f"{path}: {tid} sample {i}: not a result record"
            if rec.get("solution") != program:
                return None, f"{path}: {tid} sample {i}: judged program differs from the samples' (stale results?)"
            base = rec.get("base_status") == _PASS
            plus_status = rec.get("plus_status")
            if want_plus and plus_status is None:
                return None, f"{path}: judged on base tests only (--base_only), plus verdicts are wanted"
            verdicts.append(Verdict(base, (base and plus_status == _PASS) if want_plus else None))
        out[tid] = verdicts
    return out, ""
