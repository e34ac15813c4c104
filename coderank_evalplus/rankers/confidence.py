"""Confidence of a ranking's pick: the probability that the candidate pass@1 picks (uniformly inside the top group)
passes the benchmark's base / plus tests, from features of the ranking's own outcome.

``pick_features`` reads only the ranking and the execution matrices — no verdict, no hidden input — so it works
for any ranker (the features say how the pick stands among the candidates, not what the ranker's score was):

- ``pick_share``: share of all samples that behave like the pick (its behaviour cluster), averaged over the top
  group; ``log_share`` its log; ``runner_share``: the largest other cluster's share; ``margin`` the difference;
- ``top_share``: the top group's samples / all samples (a tie of several clusters is a coin flip between them);
- ``clusters``: distinct behaviours / samples; ``unrunnable``: share of samples that never ran;
- ``assert_pass``: generated asserts the pick passes (weighted by how often each was generated) / all, 0 with
  none; ``has_tests``: 1 when the problem has any generated assert or input; ``log_tests``: log(1 + asserts +
  inputs); ``returned``: share of the generated inputs on which the pick returns normally (1 with none);
- ``log_n``: log of the number of samples;
- the prompt's examples (trial tests; issue 40: the default pick uses them): ``trial_pass``: share of them the pick
  passes (1 with none), ``survivors``: share of the samples passing them all (1 with none), ``has_trials``: 1 when
  the prompt shows any;
- ``mbpp``: 1 for an MBPP problem (a per-dataset term: a folder-wide bias on MBPP+ was the largest calibration
  error of the model before it).

The model is a logistic regression per split (intercept, L2, C = 1, features divided by their training standard
deviation), weights in a small JSON file (``confidence_model.json`` beside this module, with a sha256 digest checked
on load, as ``learned``'s); scoring needs numpy only, ``fit_confidence`` trains with scikit-learn (imported there).
Labels are the pick's expected pass (ties: the share of the top group that passes), entered as two weighted rows.
The file also records ``tau``, the adaptive budget's stopping threshold (``report/adaptive.py``), chosen on the
training sets only. Training sets and leave-one-set-out evaluation: ``study/confidence_loso.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from coderank_evalplus.metrics import pick_pool, pool_parts
from coderank_evalplus.rankers.filtering import trial_passes, trial_survivors
from coderank_evalplus.rankers.learned import check_digest, model_digest, read_model_json
from coderank_evalplus.rankers.overlap import behaviour_clusters
from coderank_evalplus.types import PASS, RETURNED, Executions, Ranking

MODEL_FILE = Path(__file__).with_name("confidence_model.json")
FEATURES = ("pick_share", "log_share", "runner_share", "margin", "top_share", "clusters", "unrunnable",
            "assert_pass", "has_tests", "log_tests", "returned", "log_n", "trial_pass", "survivors", "has_trials",
            "mbpp")
SPLITS = ("base", "plus")
LOG_EPS = 1e-3  # floor of log_share, fixed a priori (below 1 / the largest sample count here, 200), not fitted
REGULARISATION_C = 1.0  # scikit-learn's default, fixed before any evaluation


def pick_features(ranking: Ranking, ex: Executions) -> np.ndarray:
    """The ``FEATURES`` of ``ranking``'s pass@1 pick on ``ex`` (a float vector)."""
    n = max(ex.n_candidates, 1)
    clusters = behaviour_clusters(ex)
    cluster_of = np.full(ex.n_candidates, -1)
    for i, c in enumerate(clusters):
        cluster_of[c] = i
    sizes = np.asarray([len(c) for c in clusters], dtype=float)
    top = np.asarray(pick_pool(ranking, ex.n_candidates), dtype=int)
    ids = cluster_of[top]
    share_of = np.where(ids >= 0, sizes[np.maximum(ids, 0)] if sizes.size else 0.0, 0.0) / n
    pick_share = float(share_of.mean()) if top.size else 0.0
    main = int(np.bincount(ids[ids >= 0]).argmax()) if (ids >= 0).any() else -1
    others = [s for i, s in enumerate(sizes) if i != main]
    runner_share = float(max(others)) / n if others else 0.0
    rows = np.asarray(ex.program_of_candidate)[top] if top.size else np.zeros(0, dtype=int)
    counts = np.asarray(ex.assert_counts, dtype=float)
    if counts.size and counts.sum() > 0 and rows.size:
        assert_pass = float(((ex.pass_matrix[rows] == PASS).astype(float) @ counts).mean() / counts.sum())
    else:
        assert_pass = 0.0
    n_inputs = ex.output_matrix.shape[1]
    returned = float((ex.output_kind[rows] == RETURNED).mean()) if n_inputs and rows.size else 1.0
    runnable = np.asarray(ex.compiled, dtype=bool)[np.asarray(ex.program_of_candidate)]
    n_tests = len(counts) + n_inputs
    has_trials = ex.trial_matrix.ndim == 2 and ex.trial_matrix.shape[1] > 0
    trial_pass = float(trial_passes(ex, rows).mean()) if rows.size else float(not has_trials)
    survivors = len(trial_survivors(ex)) / n if has_trials else 1.0
    return np.asarray([pick_share, np.log(pick_share + LOG_EPS), runner_share, pick_share - runner_share,
                       top.size / n, len(clusters) / n, 1.0 - float(runnable.mean()) if runnable.size else 1.0,
                       assert_pass, float(n_tests > 0), np.log1p(n_tests), returned, np.log(n), trial_pass,
                       survivors, float(has_trials), float(ex.task_id.startswith("Mbpp"))], dtype=float)


# --- the model file -----------------------------------------------------------------------------------------------
def load_model(source: str | Path | dict | None = None) -> dict:
    """The confidence model (default: the shipped file), its digest and features checked (ValueError otherwise)."""
    model, where = read_model_json(source, MODEL_FILE, "confidence model")
    if list(model.get("features", [])) != list(FEATURES):
        raise ValueError(f"confidence model {where}: features {model.get('features')} are not {list(FEATURES)}")
    if set(model.get("splits", {})) != set(SPLITS):
        raise ValueError(f"confidence model {where}: needs weights for the splits {SPLITS}")
    check_digest(model, where, "confidence model")
    return model


_DEFAULT: list[dict] = []


def default_model() -> dict:
    """The shipped model, read once."""
    if not _DEFAULT:
        _DEFAULT.append(load_model())
    return _DEFAULT[0]


def predict(model: dict, X: np.ndarray, split: str) -> np.ndarray:
    """Confidence (0..1) of each row of ``X`` (rows of ``FEATURES``) on ``split``."""
    part = model["splits"][split]
    w = np.asarray([part["weights"][f] / part["scale"][f] for f in FEATURES], dtype=float)
    z = np.atleast_2d(X) @ w + float(part["intercept"])
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))  # < 1 always: τ = 1 never stops early


def confidence(ranking: Ranking, ex: Executions, model: Optional[dict] = None) -> dict[str, float]:
    """{split: confidence} of one problem's pick: the model's, divided by the parts of the tie the pick is drawn
    from (``metrics.pool_parts``). The features read the executions before any step, where the tied parts behave
    alike; the step showed they differ on an input, so at most one of them is right, and nothing prefers one."""
    model = model or default_model()
    x = pick_features(ranking, ex)
    tie = len(pool_parts(ranking, ex.n_candidates))
    return {s: round(float(predict(model, x, s)[0]) / tie, 4) for s in SPLITS}


# --- training (scikit-learn, imported here only) ------------------------------------------------------------------
def fit_confidence(X: np.ndarray, labels: dict[str, np.ndarray], training_sets: Sequence[Any],
                   weights: Optional[np.ndarray] = None, c: float = REGULARISATION_C,
                   note: Optional[str] = None) -> dict:
    """A model dict (with its digest): one logistic regression per split on rows ``X`` with fractional ``labels``
    (each row enters twice, as a pass with weight y and a failure with weight 1 − y)."""
    import sklearn
    from sklearn.linear_model import LogisticRegression

    X = np.asarray(X, dtype=float)
    if len(X) == 0:
        raise ValueError("no training row: nothing to learn the confidence from")
    w = np.ones(len(X)) if weights is None else np.asarray(weights, dtype=float)
    scale = X.std(axis=0)
    scale = np.where(scale > 1e-6, scale, 1.0)
    model: dict = {"name": "confidence", "format": 1, "features": list(FEATURES), "log_eps": LOG_EPS,
                   "objective": "logistic regression of the pick's expected pass, L2, intercept", "C": c,
                   "rows": int(len(X)), "training_sets": list(training_sets), "splits": {},
                   "library": {"scikit-learn": sklearn.__version__, "numpy": np.__version__}}
    for split in SPLITS:
        y = np.clip(np.asarray(labels[split], dtype=float), 0.0, 1.0)
        Xs = X / scale
        clf = LogisticRegression(C=c, max_iter=2000)
        clf.fit(np.concatenate([Xs, Xs]), np.concatenate([np.ones(len(y)), np.zeros(len(y))]),
                sample_weight=np.concatenate([w * y, w * (1 - y)]) * (len(y) / w.sum()))
        model["splits"][split] = {"weights": {f: round(float(v), 6) for f, v in zip(FEATURES, clf.coef_[0])},
                                  "scale": {f: round(float(v), 6) for f, v in zip(FEATURES, scale)},
                                  "intercept": round(float(clf.intercept_[0]), 6),
                                  "training_rate": round(float(np.average(y, weights=w)), 4)}
    if note:
        model["note"] = note
    model["digest"] = model_digest(model)
    return model


def with_tau(model: dict, tau: float, how: str) -> dict:
    """``model`` with the adaptive budget's threshold recorded (and the digest recomputed)."""
    out = {k: v for k, v in model.items() if k != "digest"}
    out["tau"] = round(float(tau), 4)
    out["tau_rule"] = how
    out["digest"] = model_digest(out)
    return out


def confidence_block(per_task: dict[str, dict[str, dict[str, float]]],
                     passed: Optional[Mapping[str, Mapping[str, Sequence[float]]]] = None,
                     model: Optional[dict] = None) -> dict:
    """``rerank_results.json``'s ``confidence``: the model's digest and τ, and per method and split the
    confidence of every problem's pick, in the order of ``per_task`` (the results' ``task_ids``). Given ``passed``
    ({method: {split: each problem's pick pass, in the same order}}), also per method how well these confidences
    predict it (``calibration.summary``: ECE, Brier, AUROC and selective pass@1, null under
    ``metrics.MIN_PROBLEMS`` problems) — the figures the run's table prints."""
    from coderank_evalplus.rankers.calibration import summary

    model = model or default_model()
    methods = list(dict.fromkeys(m for conf in per_task.values() for m in conf))
    per_problem = {m: {s: [per_task[t][m][s] if m in per_task[t] else None for t in per_task] for s in SPLITS}
                   for m in methods}
    block: dict[str, Any] = {"model": model.get("digest", "")[:12], "tau": model.get("tau"),
                             "per_problem": per_problem}
    if passed is not None:
        block["calibration"] = {}
        for m in (m for m in methods if m in passed):
            known = [i for i, c in enumerate(per_problem[m]["base"]) if c is not None]
            block["calibration"][m] = summary({s: np.asarray([per_problem[m][s][i] for i in known], dtype=float)
                                               for s in passed[m]},
                                              {s: np.asarray([y[i] for i in known], dtype=float)
                                               for s, y in passed[m].items()})
    return block
