"""Is a streamed ``run``'s results folder the one the unstreamed order gives? ``rerank_again`` reranks a run's
own sample files with ``run_rerank`` (as ``run`` did before it streamed: sample everything, then execute, rank and
judge) into another folder, with the run's settings read from its ``rerank_results.json``; ``results_of`` is what
must be equal between the two folders (everything but timing: the executions' and the steps' seconds). Used by the
stream's tests on every backend and by bench/stream_run.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping, Optional

COMPARED_FILES = ("verdicts.jsonl", "rankings.jsonl", "problems.jsonl")


FILE_KEYS = ("solutions", "solutions_digest", "test_sources", "inputs_fingerprint")  # provenance naming the files


def results_of(folder: Path, files: bool = True) -> dict:
    """A results folder's tables, per-problem files and matrices: all of it but when things ran and how long
    (and, ``files=False``, the provenance's names and digests of the sample files: two folders of the same samples
    written in another order)."""
    import numpy as np

    res = json.loads((Path(folder) / "rerank_results.json").read_text())
    out = {k: v for k, v in res.items() if k not in ("timing", "execution", "self_debug", "selection")}
    if not files:
        out["provenance"] = {k: v for k, v in out["provenance"].items() if k not in FILE_KEYS}
    out["execution"] = {k: v for k, v in res["execution"].items() if k != "wall_s"}
    out["selection"] = {m: {k: v for k, v in cost.items() if not k.endswith("_s")}  # a step's seconds: timing
                        for m, cost in (res.get("selection") or {}).items()}
    out.update({name: (Path(folder) / name).read_text() for name in COMPARED_FILES})
    out["rankings.jsonl"] = [_untimed(json.loads(line)) for line in out["rankings.jsonl"].splitlines()]
    with np.load(Path(folder) / "matrices.npz") as arr:
        out["matrices"] = {k: arr[k].tolist() for k in sorted(arr.files)}
    return out


def _untimed(row: dict) -> dict:
    """A rankings.jsonl row less the seconds its steps took."""
    for step in row.get("steps") or []:
        (step.get("cost") or {}).pop("seconds", None)
    return row


def rerank_again(run: Path, out: Path, problems: Mapping, data_dir: Optional[str] = None) -> Path:
    """``run``'s samples (samples.jsonl, tests_raw.jsonl) reranked and judged in one batch by ``run_rerank``, as
    ``run`` did before it streamed, into ``out`` with its own cache; returns ``out``."""
    from coderank_evalplus.api.evaluate import run_rerank
    from coderank_evalplus.api.options import RerankOptions
    from coderank_evalplus.io.samples import read_test_samples

    res = json.loads((Path(run) / "rerank_results.json").read_text())
    cfg, prov = res["config"], res["provenance"]
    tests = [str(Path(run) / "tests_raw.jsonl") if s.endswith("tests_raw.jsonl") else s for s in prov["test_sources"]]
    model_tests = any(s.endswith("tests_raw.jsonl") for s in tests)
    options = RerankOptions(
        solutions=str(Path(run) / "samples.jsonl"), tests=tests, dataset=prov["dataset"]["name"], data_dir=data_dir,
        limit=cfg["limit"], task_ids=None if cfg["limit"] else res["task_ids"],
        methods=[m for m in cfg["methods"] if m not in ("random", "oracle")], k=cfg["ks"],
        pass_at_k_rule=cfg["pass_at_k_rule"], tests_per_sample=cfg["tests_per_sample"] or 0,
        time_limit=cfg["time_limit"], seed=cfg["seed"], base_only=not cfg["plus"], strict=cfg["strict"],
        min_time_limit=cfg["min_time_limit"], gt_time_limit_factor=cfg["gt_time_limit_factor"], workers=2,
        progress=False, output=str(out), overwrite=True, model=prov["model"], tests_label=prov["tests"])
    given = read_test_samples(Path(run) / "tests_raw.jsonl", problems) if model_tests else {}
    run_rerank(options, problems=problems, test_samples=given, frontend=prov.get("frontend", prov.get("door")))
    return Path(out)
