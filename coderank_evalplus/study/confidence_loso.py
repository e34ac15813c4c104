"""Leave-one-set-out evaluation of the pick's confidence and of the adaptive budget, and the training of the
shipped confidence model, from results folders (nothing is executed).

Folders, sets, model families and the licence rule are ``learned_loso``'s (``folds``, ``permissive``): each set is
scored by a model fitted on the folders of every other model family, with a τ chosen on those folders only.
Training rows are every problem × round × draw of the training folders' round tables (``report/adaptive.py``), so
the model has seen picks made from 1 sample up to the cap; the scored folder's calibration is that of its
full-folder picks (what ``rerank`` reports: its round table's last round, every sample), its adaptive figures come
from its own round table. ``recommended`` runs the selection step after its ranker: every round's pick is the step's
(``selection.stored.StoredSteps`` on the execution cache, with the part model of the folder's family).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import numpy as np

from coderank_evalplus.rankers.confidence import FEATURES, fit_confidence, predict, with_tau
from coderank_evalplus.rankers.learned import model_digest
from coderank_evalplus.rankers.registry import RECOMMENDED
from coderank_evalplus.report.adaptive import (
    RoundTable,
    budget_with_cap,
    choose_tau,
    confidences,
    method_report,
    round_tables,
    samples_to_match,
)
from coderank_evalplus.report.curves import DEFAULT_DRAWS, SubsetSteps, folder_hash
from coderank_evalplus.report.scores import splits_of
from coderank_evalplus.study.learned_loso import SetFolder, folds, permissive, read_folders

METHOD = RECOMMENDED  # the rankings the model learns from (the default method of `budget`), fixed a priori
BUDGET = 10.0  # the mean budget for the 100- and 200-sample sets
CAPS = (15, 20, 30, 50)  # the rule's cap (a user's --n-samples) for reading pass@1 at that budget
CACHE_VERSION = 4  # 3: recommended's rounds are the selection step's picks; 4: its search probes first
RANKER_OPTION = "learned_examples_model"  # the option through which ``recommended`` ranks with held-out weights


def cached_table(sf: SetFolder, method: str = METHOD, draws: int = DEFAULT_DRAWS, cache_dir: Optional[Path] = None,
                 workers: Optional[int] = None, progress: bool = False,
                 ranker_model: Optional[dict] = None, subset_steps: Optional[SubsetSteps] = None,
                 steps_key: str = "") -> RoundTable:
    """``round_tables`` of one folder and method, kept as an .npz under ``cache_dir`` (keyed by the folder's
    matrices and problems, the method, draws, the ranker's model, ``steps_key`` and this module's version);
    ``ranker_model``: the ``learned_examples`` weights ``recommended`` ranks with (default: the shipped ones);
    ``subset_steps``: the step of a method with one (``report.curves.SubsetSteps``; ``steps_key`` names its
    settings)."""
    options = {RANKER_OPTION: ranker_model} if ranker_model is not None else None
    path = None
    if cache_dir is not None:
        h = folder_hash(sf.folder)
        digest = (ranker_model or {}).get("digest", "shipped")
        h.update(json.dumps([method, draws, CACHE_VERSION, list(FEATURES), digest, steps_key]).encode())
        path = Path(cache_dir) / f"rounds-{h.hexdigest()[:20]}.npz"
        if path.exists():
            z = np.load(path)
            return RoundTable([int(r) for r in z["rounds"]], draws, tuple(str(s) for s in z["splits"]),
                              z["features"], z["passed"])
    table = round_tables(sf.run, [method], draws, workers=workers, progress=progress, label=sf.label,
                         options=options, subset_steps=subset_steps)[method]
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez_compressed(tmp, rounds=np.asarray(table.rounds), splits=np.asarray(table.splits),
                            features=table.features, passed=table.passed)
        tmp.replace(path)
    return table


def _labels(table: RoundTable) -> dict[str, np.ndarray]:
    p = table.passed
    return {s: (p[..., table.splits.index(s)] if s in table.splits else p[..., 0]).reshape(-1)
            for s in ("base", "plus")}


def train(sets: Sequence[SetFolder], tables: dict[int, RoundTable], exclude_model: Optional[str] = None,
          note: Optional[str] = None) -> dict:
    """A confidence model fitted on the round tables of ``sets`` (each problem × round counts 1 whatever the
    draws), with τ chosen on the same folders and recorded."""
    if exclude_model is not None and any(s.model == exclude_model for s in sets):
        raise AssertionError(f"training on a set of the scored model {exclude_model!r}")
    X = np.concatenate([tables[id(s)].features.reshape(-1, len(FEATURES)) for s in sets])
    labels = {k: np.concatenate([_labels(tables[id(s)])[k] for s in sets]) for k in ("base", "plus")}
    weights = np.concatenate([np.full(tables[id(s)].features[..., 0].size, 1.0 / tables[id(s)].draws) for s in sets])
    names = [{"name": s.name, "tests": s.tests_label, "dataset": s.run.dataset, "problems": len(s.run.problems),
              "license": "permissive" if permissive(s) else "not permissive"} for s in sets]
    model = fit_confidence(X, labels, names, weights=weights, note=note)
    model["method"] = METHOD
    tau, how = choose_tau([tables[id(s)] for s in sets], model)
    return with_tau(model, tau, how)


def train_shipped(sets: Sequence[SetFolder], tables: dict[int, RoundTable]) -> dict:
    """The model to ship: trained (and its τ chosen) on the permissively licensed folders only."""
    chosen = [s for s in sets if permissive(s)]
    if not chosen:
        raise ValueError("no permissively licensed folder among the given ones: nothing may train the shipped model")
    model = train(chosen, tables, note="trained on permissively licensed folders only (study/confidence_loso.py)")
    assert all(t["license"] == "permissive" for t in model["training_sets"])
    # the samples-per-problem cap that paid most at a mean of BUDGET samples on the same folders: a suggestion for
    # `run --adaptive --n-samples`, recorded with the rule that chose it (the digest covers it)
    model = {k: v for k, v in model.items() if k != "digest"}
    model["suggested_cap"] = choose_cap([tables[id(s)] for s in chosen], model)
    model["suggested_cap_rule"] = (f"best mean gain over fixed N = {int(BUDGET)} at a mean of {int(BUDGET)} samples "
                                   f"per problem among caps {list(CAPS)} and all samples, on the training folders")
    model["digest"] = model_digest(model)
    return model


def score_folder(sf: SetFolder, table: RoundTable, model: dict, n_resamples: int = 1000) -> dict:
    """``budget``'s per-method entry for one folder with ``model``, plus the issue's derived figures; the
    full-folder picks are the round table's last round (every sample, as the table ranked them)."""
    X = table.features[:, -1, 0]
    y = {s: table.passed[:, -1, 0, table.splits.index(s) if s in table.splits else 0] for s in ("base", "plus")}
    conf = {s: predict(model, X, s) for s in ("base", "plus")}
    splits = splits_of(sf.run)
    rep = method_report(table, model, float(model["tau"]), {s: conf[s] for s in splits},
                        {s: y[s] for s in splits}, n_resamples=n_resamples)
    rep["per_problem"] = {s: {"confidence": [round(float(v), 4) for v in conf[s]],
                              "passed": [round(float(v), 4) for v in y[s]]} for s in splits}
    cap = rep["fixed"][-1]
    fixed_at = {f["n"]: f for f in rep["fixed"]}
    derived: dict[str, Any] = {"cap": cap["n"],
                               "samples_within_1pt_of_cap": samples_to_match(rep["adaptive"], cap["base"]),
                               "adaptive_at_10": None, "adaptive_at_10_by_cap": {}, "fixed_at_10": None}
    if cap["n"] > BUDGET:  # the 100- and 200-sample sets: the rule at a mean of BUDGET samples against fixed N
        conf_rounds = confidences(table, model)
        derived.update(adaptive_at_10=budget_with_cap(table, conf_rounds, BUDGET),
                       adaptive_at_10_by_cap={c: budget_with_cap(table, conf_rounds, BUDGET, c) for c in CAPS
                                              if BUDGET < c < cap["n"]},
                       fixed_at_10=fixed_at[int(BUDGET)]["base"] if int(BUDGET) in fixed_at else None)
    rep["derived"] = derived
    return rep


def gain_at_budget(table: RoundTable, model: dict, cap: Optional[int]) -> Optional[float]:
    """pass@1 (base) of the rule at a mean of BUDGET samples with ``cap`` (None: the folder's samples), minus fixed
    N = BUDGET's; None where the folder has no more than BUDGET samples or the sweep does not reach the budget."""
    return _gain(table, confidences(table, model), cap) if _large(table) else None


def _large(table: RoundTable) -> bool:
    return table.rounds[-1] > BUDGET and int(BUDGET) in table.rounds


def _gain(table: RoundTable, conf: np.ndarray, cap: Optional[int]) -> Optional[float]:
    at = budget_with_cap(table, conf, BUDGET, cap)
    fixed = 100.0 * float(table.passed[:, table.rounds.index(int(BUDGET)), :, 0].mean())
    return None if at is None else at - fixed


def choose_cap(train_tables: Sequence[RoundTable], model: dict) -> Optional[int]:
    """The cap (CAPS, or None: all samples) with the best mean gain at BUDGET over the training folders that have
    more than BUDGET samples; None when there are none. Chosen on training folders only."""
    scores: dict[Optional[int], list[float]] = {}
    for t in filter(_large, train_tables):
        conf = confidences(t, model)  # once per folder, whatever the cap
        for cap in (None, *CAPS):
            if cap is not None and cap >= t.rounds[-1]:
                continue
            g = _gain(t, conf, cap)
            if g is not None:
                scores.setdefault(cap, []).append(g)
    return max(scores, key=lambda c: float(np.mean(scores[c]))) if scores else None


def loso(sets: Sequence[SetFolder], tables: dict[int, RoundTable], n_resamples: int = 1000) -> list[dict]:
    """One row per scored folder: its model family, the training families, τ and ``score_folder``'s figures; on a
    folder with more than BUDGET samples also the cap chosen on the training folders (``choose_cap``) and the rule's
    gain at a mean of BUDGET samples with it."""
    rows = []
    for model_name, scored, train_sets in folds(sets):
        fitted = train(train_sets, tables, exclude_model=model_name)
        cap = None if not any(tables[id(sf)].rounds[-1] > BUDGET for sf in scored) else \
            choose_cap([tables[id(t)] for t in train_sets], fitted)
        for sf in scored:
            row = {"set": sf.label, "model": model_name, "n_problems": len(sf.run.problems),
                   "trained_on": sorted({t.model for t in train_sets}), "tau": fitted["tau"],
                   "digest": fitted["digest"][:12], **score_folder(sf, tables[id(sf)], fitted, n_resamples)}
            if tables[id(sf)].rounds[-1] > BUDGET:
                row["derived"]["heldout_cap"] = cap
                row["derived"]["gain_at_10_heldout_cap"] = gain_at_budget(tables[id(sf)], fitted, cap)
            rows.append(row)
    return rows


def bound_arguments(doc: str) -> argparse.ArgumentParser:
    """The command line the adaptive-budget bound scripts share (bench/adaptive_*_bound.py)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+", help="results folders or glob patterns (the LOSO training sets too)")
    ap.add_argument("--cache-dir", default=None, help="round tables kept here (as bench/confidence_loso.py)")
    ap.add_argument("--budget", type=float, default=10.0)
    return ap


def read_sets(patterns: Sequence[str], cache_dir: Optional[str] = None, workers: Optional[int] = None,
              log: bool = False, ranker_models: Optional[dict[str, dict]] = None,
              steps: Optional[Callable[[SetFolder], tuple[SubsetSteps, str]]] = None
              ) -> tuple[list[SetFolder], dict[int, RoundTable]]:
    """The complete folders the paths or patterns name, and their round tables (keyed by ``id`` of the folder);
    ``ranker_models``: {model family: the ranker weights that family's folders are ranked with} (held out: trained
    without that family; default: the shipped weights); ``steps``: a folder → the step ``recommended`` runs on its
    rounds and a key naming it (``cached_table``'s); ``log``: each table's time on stderr."""
    sets = read_folders(patterns, with_tables=False)
    tables = {}
    for s in sets:
        t0 = time.perf_counter()
        subset_steps, key = steps(s) if steps is not None else (None, "")
        try:
            tables[id(s)] = cached_table(s, cache_dir=Path(cache_dir) if cache_dir else None, workers=workers,
                                         ranker_model=(ranker_models or {}).get(s.model), subset_steps=subset_steps,
                                         steps_key=key)
        finally:
            close = getattr(subset_steps, "close", None)
            if close is not None:
                close()  # its shard processes (selection.stored)
        if log:
            print(f"{s.label} [{s.model}]: round table in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return sets, tables
