"""Model comparisons: which model wins once each reranks, at the same sample budget, and is the difference real.

Rows are comparable when they share the dataset and the test pool (``Entry.pool``). For each such group, each
split and each method, at two budgets — the group's matched budget N (the smallest samples/problem among its
rows; larger rows sub-sampled to N candidates per problem with the budget curves' seeded draws, nothing executed
again) and each row's full budget — this module gives every pair's paired difference (``stats.paired_difference``),
the ranking of models with a 95 % bootstrap rank interval, and the agreement between the random-pick order and
the method's order (Kendall's τ with its interval, and the pairs whose significant order flips). Below
``stats.MIN_PROBLEMS`` problems the intervals, p-values and τ are null and nothing flips.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import numpy as np
from scipy.stats import rankdata

from coderank_evalplus.stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    TIE_TOLERANCE,
    has_interval,
    paired_difference,
    resample_indices,
    tau_interval,
)

FULL = "full"
ALPHA = 0.05  # a pair "flips" when its order is significant at this level under random AND the opposite under a method
Scores = dict[str, dict[str, np.ndarray]]  # {method: {split: per-problem pass@1, 0..1}}


@dataclass
class ModelRow:
    """What the comparisons need of one leaderboard row: its per-problem scores at the full budget, its problems
    and how many candidates each problem has."""

    name: str
    dataset: str
    pool: str
    tests_label: str
    task_ids: list[str]
    splits: tuple[str, ...]
    scores: Scores
    n_candidates: list[int]
    folder: Optional[Path] = None
    at_budget: dict[int, Scores] = field(default_factory=dict)  # filled for the matched budget when it is smaller

    @property
    def min_candidates(self) -> int:
        return min(self.n_candidates, default=0)

    def scores_at(self, budget: int | str) -> Scores:
        if budget == FULL or max(self.n_candidates, default=0) <= int(budget):
            return self.scores
        return self.at_budget[int(budget)]


def groups_of(rows: Sequence[ModelRow]) -> list[list[ModelRow]]:
    """Rows grouped by (dataset, pool), in the order each group first appears; groups of one row are left out
    (there is nothing to compare). A model appearing twice in a group is shown with its tests label."""
    by_key: dict[tuple[str, str], list[ModelRow]] = {}
    for r in rows:
        by_key.setdefault((r.dataset, r.pool), []).append(r)
    return [g for g in by_key.values() if len(g) > 1]


def display_names(group: Sequence[ModelRow]) -> list[str]:
    names = [r.name for r in group]
    return [f"{r.name} · {r.tests_label}" if names.count(r.name) > 1 else r.name for r in group]


def matched_budget(group: Sequence[ModelRow]) -> int:
    """The group's matched budget: the smallest number of candidates any problem of any row has."""
    return min(r.min_candidates for r in group)


def _common_positions(group: Sequence[ModelRow]) -> list[list[int]]:
    """Per row, the positions of the problems every row of ``group`` has, in the first row's order."""
    shared = set(group[0].task_ids).intersection(*(r.task_ids for r in group[1:]))
    order = [t for t in group[0].task_ids if t in shared]
    return [[{t: i for i, t in enumerate(r.task_ids)}[t] for t in order] for r in group]


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's τ-b between the last axes of ``x`` and ``y`` (shape (..., m)), ties within ``TIE_TOLERANCE``
    counted as ties; nan where one side is all ties. Hand-vectorised over the leading axes because
    scipy.stats.kendalltau takes one pair of vectors per call (thousands of resamples here); it equals scipy's τ-b."""
    i, j = np.triu_indices(x.shape[-1], k=1)

    def signs(v: np.ndarray) -> np.ndarray:
        d = v[..., i] - v[..., j]
        return np.where(np.abs(d) < TIE_TOLERANCE, 0.0, np.sign(d))

    sx, sy = signs(np.asarray(x, float)), signs(np.asarray(y, float))
    denom = np.sqrt((sx != 0).sum(axis=-1) * (sy != 0).sum(axis=-1).astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, (sx * sy).sum(axis=-1) / np.where(denom > 0, denom, 1.0), np.nan)


def _ranks(means: np.ndarray) -> np.ndarray:
    """Competition ranks (1 = best; equal means share the better rank) along the last axis; means within
    rounding of each other are equal."""
    return rankdata(-np.round(means, 7), method="min", axis=-1).astype(int)


def _ranking(names: list[str], matrix: np.ndarray, idx: np.ndarray) -> tuple[list[dict], np.ndarray, np.ndarray]:
    """The ranking entries, the point means and the resampled means (resamples × models) of one method; rank
    intervals null below ``MIN_PROBLEMS`` problems."""
    means = 100.0 * matrix.mean(axis=1)
    boot = 100.0 * matrix[:, idx].mean(axis=2).T  # resamples × models
    point, boot_ranks = _ranks(means), _ranks(boot)
    lo = np.percentile(boot_ranks, 2.5, axis=0, method="lower")
    hi = np.percentile(boot_ranks, 97.5, axis=0, method="higher")
    shown = has_interval(matrix.shape[1])
    out: list[dict[str, Any]] = [{"name": n, "pass@1": round(float(means[k]), 2), "rank": int(point[k]),
                                  "rank_ci95": [int(lo[k]), int(hi[k])] if shown else None}
                                 for k, n in enumerate(names)]
    out.sort(key=lambda e: (e["rank"], -e["pass@1"], e["name"]))
    return out, means, boot


def _pairs(group: Sequence[ModelRow], names: list[str], method: str, split: str, budget: int | str,
           n_resamples: int, seed: int) -> list[dict]:
    """Every pair over the problems both rows have (not only those the whole group shares)."""
    out = []
    for (a, ra), (b, rb) in combinations(zip(names, group), 2):
        pos_a = {t: i for i, t in enumerate(ra.task_ids)}
        pos_b = {t: i for i, t in enumerate(rb.task_ids)}
        common = [t for t in ra.task_ids if t in pos_b]
        sa = ra.scores_at(budget)[method][split][[pos_a[t] for t in common]]
        sb = rb.scores_at(budget)[method][split][[pos_b[t] for t in common]]
        d = paired_difference(sa, sb, resample_indices(len(common), n_resamples, seed)).to_json()
        out.append({"a": a, "b": b, "a_pass@1": round(100.0 * float(sa.mean()), 2) if common else None,
                    "b_pass@1": round(100.0 * float(sb.mean()), 2) if common else None, **d})
    return out


def _flips(random_pairs: list[dict], method_pairs: list[dict]) -> list[list[str]]:
    """[winner under the method, winner under random] for each pair whose order is significant (p < ALPHA) both
    under random and under the method, and opposite (no p-value below ``MIN_PROBLEMS`` problems: no flip)."""
    out = []
    for r, m in zip(random_pairs, method_pairs):
        if r["p_value"] is None or m["p_value"] is None:
            continue
        if r["p_value"] < ALPHA and m["p_value"] < ALPHA and np.sign(r["diff"]) * np.sign(m["diff"]) < 0:
            out.append([m["a"], m["b"]] if m["diff"] > 0 else [m["b"], m["a"]])
    return out


def _samples(r: ModelRow, budget: int | str) -> int | list[int]:
    """Candidates per problem a row is scored with: N, or its own count ([min, max] when problems differ)."""
    if budget != FULL:
        return min(int(budget), max(r.n_candidates, default=0))
    lo, hi = r.min_candidates, max(r.n_candidates, default=0)
    return lo if lo == hi else [lo, hi]


def compare_group(group: Sequence[ModelRow], methods: Sequence[str], split: str, budget: int | str,
                  n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> list[dict]:
    """One JSON entry per method for one group, split and budget (``FULL`` or an int N)."""
    names = display_names(group)
    positions = _common_positions(group)
    n_common = len(positions[0])
    idx = resample_indices(n_common, n_resamples, seed)
    first = group[0]
    base: dict[str, Any] = {"dataset": first.dataset, "tests_label": first.pool, "pool": first.pool, "split": split,
            "budget": budget, "n_problems": n_common,
            "samples": {n: _samples(r, budget) for n, r in zip(names, group)},
            "labels": {n: r.tests_label for n, r in zip(names, group)}}
    means: dict[str, np.ndarray] = {}
    boots: dict[str, np.ndarray] = {}
    entries: dict[str, dict[str, Any]] = {}
    pairs = {m: _pairs(group, names, m, split, budget, n_resamples, seed) for m in methods}
    for m in methods:
        entries[m] = {**base, "method": m, "ranking": [], "pairs": pairs[m], "kendall_tau": None, "flips": []}
        if n_common:
            matrix = np.stack([r.scores_at(budget)[m][split][pos] for r, pos in zip(group, positions)])
            entries[m]["ranking"], means[m], boots[m] = _ranking(names, matrix, idx)
    ref = "random" if "random" in methods else methods[0]
    for m in methods if n_common else ():
        tau = float(kendall_tau_b(means[ref], means[m]))
        # normal bootstrap interval moved out to τ's values (stats.tau_interval): the percentile one ended at τ
        ci = tau_interval(tau, kendall_tau_b(boots[ref], boots[m]), len(group))
        entries[m]["kendall_tau"] = None if np.isnan(tau) or not has_interval(n_common) else {
            "tau": round(tau, 3), "ci95": [round(ci[0], 3), round(ci[1], 3)]}
        entries[m]["flips"] = _flips(pairs[ref], pairs[m])
    return [entries[m] for m in methods]


def compare_models(rows: Sequence[ModelRow], methods: Sequence[str], n_resamples: int = DEFAULT_RESAMPLES,
                   seed: int = DEFAULT_SEED,
                   sub_sample: Optional[Callable[[ModelRow, int], Scores]] = None) -> list[dict]:
    """Every group's comparisons: for each split, the matched budget then the full budget. ``sub_sample(row, N)``
    gives a row's per-problem scores at N candidates (``curves.scores_at_budget``, possibly cached); it is asked
    only for rows with more than N candidates on some problem."""
    out: list[dict] = []
    for group in groups_of(rows):
        n = matched_budget(group)
        for r in group:
            if max(r.n_candidates, default=0) > n and n not in r.at_budget:
                if sub_sample is None:
                    raise ValueError(f"{r.name} ({r.tests_label}): needs sub-sampling to {n} candidates")
                r.at_budget[n] = sub_sample(r, n)
        splits = [s for s in ("base", "plus") if all(s in r.splits for r in group)]
        budgets: list[int | str] = [n, FULL]
        for split in splits:
            for budget in budgets:
                out += compare_group(group, methods, split, budget, n_resamples, seed)
    return out


def summary(rows: Sequence[dict], methods: Sequence[str]) -> list[dict]:
    """Each model's full-budget pass@1 per benchmark and method, read from the leaderboard's rows. A benchmark's
    methods are shown with the pool most of its models were ranked with (ties: the first in suite order); random
    and oracle do not depend on the pool."""
    out: dict[str, dict] = {}
    main_pool: dict[str, str] = {}
    for ds in dict.fromkeys(r["dataset"] for r in rows):
        pools = [r.get("pool", r["tests_label"]) for r in rows if r["dataset"] == ds]
        main_pool[ds] = max(dict.fromkeys(pools), key=pools.count)
    for r in rows:
        model = out.setdefault(r["name"], {"name": r["name"], "benchmarks": {}})
        ds = r["dataset"]
        bench = model["benchmarks"].setdefault(ds, {"pool": None, "samples": r["samples_per_problem"],
                                                    "methods": {}})
        pool = r.get("pool", r["tests_label"])
        if pool == main_pool[ds]:
            bench["pool"] = pool
        for m in methods:
            if pool == main_pool[ds] or (m in ("random", "oracle") and m not in bench["methods"]):
                bench["methods"][m] = {s: r["methods"][m][s]["pass@1"] for s in r["splits"]}
    return list(out.values())
