"""Quality of a model-written test pool, as CodeT's paper analyses it, from a results folder's stored matrices.

Per problem, over the pool's distinct asserts: **accuracy**, the share the reference solution passes; **toxic**,
the share that the reference solution fails but some wrong candidate passes (tests that lead a ranker astray);
and the number of distinct inputs. "Wrong" is the strictest verdict stored (plus where judged, else base).
Per run: the means, and how the reranking gain (method − random, per problem) relates to test accuracy — Spearman's
rank correlation (scipy; none under ``metrics.MIN_PROBLEMS`` problems) and the mean gain in accuracy bins.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from coderank_evalplus.io.results_folder import StoredProblem, StoredRun
from coderank_evalplus.stats import has_interval
from coderank_evalplus.types import PASS

ACCURACY_BINS = (0.0, 0.25, 0.5, 0.75, 1.0)


def problem_quality(sp: StoredProblem) -> dict:
    """Accuracy, toxic share and sizes of one problem's test pool (accuracy/toxic None without a reference run)."""
    ex = sp.executions
    n_asserts = ex.pass_matrix.shape[1]
    rec = {"task_id": sp.problem.task_id, "n_asserts": int(n_asserts), "n_inputs": int(ex.output_matrix.shape[1]),
           "accuracy": None, "toxic": None}
    if sp.canonical is None or n_asserts == 0:
        return rec
    canonical_ok = sp.canonical.pass_matrix[0] == PASS
    wrong = ~(sp.correct("plus") if (sp.verdict_plus >= 0).any() else sp.correct("base"))
    judged = sp.verdict_base >= 0
    rows = np.unique(ex.program_of_candidate[wrong & judged])
    wrong_pass = (ex.pass_matrix[rows] == PASS).any(axis=0) if len(rows) else np.zeros(n_asserts, dtype=bool)
    rec["accuracy"] = float(canonical_ok.mean())
    rec["toxic"] = float((wrong_pass & ~canonical_ok).mean())
    return rec


def _mean(values: Sequence[float]) -> float | None:
    vals = [v for v in values if v is not None]
    return round(100.0 * float(np.mean(vals)), 2) if vals else None


def run_quality(run: StoredRun, scores: Mapping[str, Mapping[str, np.ndarray]], methods: Sequence[str]) -> dict:
    """Per-problem records and the run's summary; ``scores`` are ``problem_scores`` of the same run."""
    from scipy.stats import spearmanr

    per_problem = [problem_quality(sp) for sp in run.problems]
    acc = np.array([math.nan if r["accuracy"] is None else r["accuracy"] for r in per_problem])
    gain_vs_accuracy: dict[str, dict] = {}
    summary: dict[str, Any] = {"n_problems": len(per_problem), "with_reference": int(np.isfinite(acc).sum()),
               "accuracy": _mean([r["accuracy"] for r in per_problem]),
               "toxic": _mean([r["toxic"] for r in per_problem]),
               "asserts_per_problem": round(float(np.mean([r["n_asserts"] for r in per_problem])), 2)
               if per_problem else None,
               "inputs_per_problem": round(float(np.mean([r["n_inputs"] for r in per_problem])), 2)
               if per_problem else None,
               "gain_vs_accuracy": gain_vs_accuracy}
    split = "base"
    random = np.asarray(scores["random"][split])
    ok = np.isfinite(acc)
    for m in methods:
        if m in ("random", "oracle"):
            continue
        gain = np.asarray(scores[m][split]) - random
        for i, r in enumerate(per_problem):
            r.setdefault("gain", {})[m] = round(100.0 * float(gain[i]), 2)
        rho = p = None
        if has_interval(int(ok.sum())) and np.ptp(acc[ok]) > 0 and np.ptp(gain[ok]) > 0:  # none under MIN_PROBLEMS
            res = spearmanr(acc[ok], gain[ok])
            rho, p = round(float(res.statistic), 3), round(float(res.pvalue), 4)
        bins = []
        for lo, hi in zip(ACCURACY_BINS[:-1], ACCURACY_BINS[1:]):
            inside = ok & (acc >= lo) & ((acc < hi) if hi < 1.0 else (acc <= hi))
            bins.append({"accuracy": [lo, hi], "n_problems": int(inside.sum()),
                         "mean_gain": round(100.0 * float(gain[inside].mean()), 2) if inside.any() else None})
        gain_vs_accuracy[m] = {"split": split, "spearman_rho": rho, "p_value": p, "bins": bins}
    return {"summary": summary, "problems": per_problem}
