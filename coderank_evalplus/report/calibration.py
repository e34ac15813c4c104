"""The pick's confidence measured on stored results: each problem's final pick and its features
(``final_picks``), and calibration and selective pass@1 of a results folder (``folder_calibration``), with the
reliability diagram's bins and the accuracy–coverage curve for the page. The figures themselves are
``rankers.calibration``'s, which follow the one minimum of problems: a run's own are in its ``rerank_results.json``
(``confidence.calibration``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np

from coderank_evalplus.metrics import enough_problems
from coderank_evalplus.rankers.calibration import coverage_curve, reliability_bins, summary
from coderank_evalplus.rankers.registry import RECOMMENDED

if TYPE_CHECKING:
    from coderank_evalplus.io.results_folder import StoredRun


def final_picks(run: "StoredRun", method: str = RECOMMENDED) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Features of the full folder's pick per problem, and its expected pass per split (both splits: a folder
    without plus verdicts repeats base)."""
    from coderank_evalplus.rankers.confidence import FEATURES, pick_features
    from coderank_evalplus.report.scores import pass_at_1, rank, splits_of, stored_method

    X: list[np.ndarray] = []
    y: dict[str, list[float]] = {"base": [], "plus": []}
    splits = splits_of(run)
    read_as = stored_method(run, method)
    for sp in run.problems:
        ranking = rank(sp, read_as, run.seed)
        X.append(pick_features(ranking, sp.executions))
        for s in ("base", "plus"):
            y[s].append(pass_at_1(method, sp.correct(s if s in splits else "base"), ranking))
    return np.asarray(X).reshape(-1, len(FEATURES)), {s: np.asarray(v) for s, v in y.items()}


def folder_calibration(run: "StoredRun", methods: Sequence[str], model: Optional[dict] = None) -> dict[str, dict]:
    """{method: ``summary``} of a stored folder's full-folder picks, confidences from ``model`` (default: the
    shipped one)."""
    from coderank_evalplus.rankers.confidence import default_model, predict
    from coderank_evalplus.report.scores import splits_of

    model = model or default_model()
    splits = splits_of(run)
    out = {}
    for m in methods:
        X, y = final_picks(run, m)
        conf = {s: predict(model, X, s) for s in splits}
        out[m] = summary(conf, {s: y[s] for s in splits})
        # for the page: the reliability diagram's bins and the accuracy–coverage curve (none under the minimum)
        shown = splits if enough_problems(len(run.problems)) else ()
        out[m]["reliability"] = {s: reliability_bins(conf[s], y[s]) for s in shown}
        out[m]["coverage_curve"] = {s: coverage_curve(conf[s], y[s]) for s in shown}
    return out
