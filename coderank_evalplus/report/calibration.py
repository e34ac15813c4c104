"""How well a confidence predicts that a pick is right: Brier score, expected calibration error, AUROC, the
reliability diagram's bins, and selective pass@1 (abstain on the least confident problems), in numpy; and these
figures for a rerank run in memory (``result_calibration``) or a stored results folder (``folder_calibration``).

Outcomes may be fractional (a pick among tied candidates passes with the share of the tie that passes): a
problem then counts as a pass with weight y and as a failure with weight 1 − y, in every metric.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np

if TYPE_CHECKING:
    from coderank_evalplus.io.results_folder import StoredRun
    from coderank_evalplus.types import RerankResult

ECE_BINS = 10
COVERAGES = (0.5, 0.8, 0.9)


def brier(conf: np.ndarray, y: np.ndarray) -> float:
    """Mean squared difference between confidence and outcome."""
    conf, y = np.asarray(conf, dtype=float), np.asarray(y, dtype=float)
    return float(np.mean((conf - y) ** 2)) if conf.size else float("nan")


def _bin_index(conf: np.ndarray, bins: int) -> np.ndarray:
    """Each confidence's equal-width bin (1.0 in the last)."""
    return np.minimum((conf * bins).astype(int), bins - 1)


def reliability_bins(conf: np.ndarray, y: np.ndarray, bins: int = ECE_BINS) -> list[dict]:
    """Equal-width bins of confidence: for each non-empty one, its count, mean confidence and mean outcome."""
    conf, y = np.asarray(conf, dtype=float), np.asarray(y, dtype=float)
    idx = _bin_index(conf, bins)
    out = []
    for b in range(bins):
        m = idx == b
        if m.any():
            out.append({"lo": b / bins, "hi": (b + 1) / bins, "count": int(m.sum()),
                        "confidence": float(conf[m].mean()), "accuracy": float(y[m].mean())})
    return out


def ece(conf: np.ndarray, y: np.ndarray, bins: int = ECE_BINS) -> float:
    """Expected calibration error: Σ_bins (count / n) · |mean outcome − mean confidence|."""
    n = len(conf)
    if n == 0:
        return float("nan")
    return float(sum(b["count"] / n * abs(b["accuracy"] - b["confidence"]) for b in reliability_bins(conf, y, bins)))


def ece_if_calibrated(conf: np.ndarray, bins: int = ECE_BINS, draws: int = 1000, seed: int = 0) -> tuple[float, float]:
    """The ECE a perfectly calibrated confidence would still show on this many problems: outcomes drawn as
    Bernoulli(conf) ``draws`` times (seeded); returns (mean, 95th percentile). ECE is biased upwards on a finite
    set (each bin's outcome mean is noisy), so an observed ECE is read against this, not against 0."""
    conf = np.asarray(conf, dtype=float)
    if conf.size == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    in_bin = np.eye(bins)[_bin_index(conf, bins)]  # problems × bins, one 1 per row
    conf_sum = conf @ in_bin
    y_sum = (rng.random((draws, conf.size)) < conf) @ in_bin  # draws × bins: passing picks per bin
    values = np.abs(y_sum - conf_sum).sum(axis=1) / conf.size  # Σ_b n_b/n · |mean y − mean conf|
    return float(values.mean()), float(np.percentile(values, 95))


def auroc(conf: np.ndarray, y: np.ndarray) -> float:
    """P(confidence of a right pick > that of a wrong one), ties counting ½, outcomes as weights; nan when
    every pick is right or every one wrong."""
    conf, y = np.asarray(conf, dtype=float), np.asarray(y, dtype=float)
    pos, neg = y, 1.0 - y
    if pos.sum() <= 0 or neg.sum() <= 0:
        return float("nan")
    order = np.argsort(conf, kind="mergesort")
    c, p, q = conf[order], pos[order], neg[order]
    # for each distinct confidence: negatives strictly below, and ties
    uniq, start = np.unique(c, return_index=True)
    neg_by = np.add.reduceat(q, start)
    pos_by = np.add.reduceat(p, start)
    below = np.concatenate([[0.0], np.cumsum(neg_by)[:-1]])
    return float((pos_by * (below + 0.5 * neg_by)).sum() / (pos.sum() * neg.sum()))


def selective(conf: np.ndarray, y: np.ndarray, coverage: float) -> float:
    """Mean outcome (percent) over the ``coverage`` share of problems with the highest confidence (ties broken by
    problem order, so the figure is deterministic)."""
    conf, y = np.asarray(conf, dtype=float), np.asarray(y, dtype=float)
    if conf.size == 0:
        return float("nan")
    k = max(1, int(round(coverage * len(conf))))
    order = np.argsort(-conf, kind="mergesort")[:k]
    return float(100.0 * y[order].mean())


def coverage_curve(conf: np.ndarray, y: np.ndarray, points: int = 20) -> list[dict]:
    """Accuracy–coverage curve: selective pass@1 at coverage 1/points … 1."""
    return [{"coverage": round(k / points, 4), "pass@1": round(selective(conf, y, k / points), 2)}
            for k in range(1, points + 1)]


def summary(conf: dict[str, np.ndarray], y: dict[str, np.ndarray],
            coverages: Sequence[float] = COVERAGES) -> dict:
    """``{"calibration": {split: {ece, brier, auroc}}, "selective": [{coverage, split: pass@1}], "all":
    {split: pass@1}}`` for per-problem confidences and outcomes of each split."""
    def r(x: float, d: int = 4) -> float | None:
        return None if np.isnan(x) else round(float(x), d)

    cal = {s: {"ece": r(ece(conf[s], y[s])), "brier": r(brier(conf[s], y[s])), "auroc": r(auroc(conf[s], y[s]))}
           for s in conf}
    sel = [{"coverage": c, **{s: r(selective(conf[s], y[s], c), 2) for s in conf}} for c in coverages]
    return {"calibration": cal, "selective": sel,
            "all": {s: r(100.0 * float(np.mean(y[s])), 2) if len(y[s]) else None for s in conf}}


def result_calibration(result: "RerankResult") -> dict[str, dict]:
    """{method: ``summary``} of a rerank run in memory: each problem's recorded confidence against its pick's
    expected pass (the judged verdicts)."""
    from coderank_evalplus import metrics
    from coderank_evalplus.pipeline import correct_array

    splits = ("base", "plus") if any((t or {}).get("plus") for t in result.methods.values()) else ("base",)
    methods = list(dict.fromkeys(m for o in result.outcomes.values() for m in o.confidence))
    out = {}
    for m in methods:
        conf: dict[str, list[float]] = {s: [] for s in splits}
        y: dict[str, list[float]] = {s: [] for s in splits}
        for o in result.outcomes.values():
            if m not in o.confidence:
                continue
            for s in splits:
                correct = correct_array(o, s)
                conf[s].append(o.confidence[m][s])
                y[s].append(metrics.ranked_pass_at_k(o.rankings[m], correct, 1))
        out[m] = summary({s: np.asarray(v) for s, v in conf.items()}, {s: np.asarray(v) for s, v in y.items()})
    return out


def calibration_markdown(cal: dict[str, dict], title: str = "confidence of the pick") -> str:
    """One line per method and split: ECE, Brier, AUROC, selective pass@1 against no abstention."""
    if not cal:
        return ""
    lines = [f"### {title}", "",
             "| method | split | ECE | Brier | AUROC | pass@1 (all) | at 90 % | at 80 % | at 50 % |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]

    def f(x: object) -> str:
        return "–" if x is None else str(x)

    for m, rep in cal.items():
        for s, c in rep["calibration"].items():
            sel = {x["coverage"]: x[s] for x in rep["selective"]}
            lines.append(f"| {m} | {s} | {f(c['ece'])} | {f(c['brier'])} | {f(c['auroc'])} | {f(rep['all'][s])} | "
                         f"{f(sel.get(0.9))} | {f(sel.get(0.8))} | {f(sel.get(0.5))} |")
    return "\n".join(lines)


def final_picks(run: "StoredRun", method: str = "recommended") -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Features of the full folder's pick per problem, and its expected pass per split (both splits: a folder
    without plus verdicts repeats base)."""
    from coderank_evalplus.rankers.confidence import FEATURES, pick_features
    from coderank_evalplus.report.scores import pass_at_1, rank, splits_of

    X: list[np.ndarray] = []
    y: dict[str, list[float]] = {"base": [], "plus": []}
    splits = splits_of(run)
    for sp in run.problems:
        ranking = rank(sp, method, run.seed)
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
        # for the page: the reliability diagram's bins and the accuracy–coverage curve
        out[m]["reliability"] = {s: reliability_bins(conf[s], y[s]) for s in splits}
        out[m]["coverage_curve"] = {s: coverage_curve(conf[s], y[s]) for s in splits}
    return out
