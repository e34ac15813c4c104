"""``learned``: clusters of equal behaviour scored by a tiny linear model over the signals the other rankers use.

Clusters are ``overlap.behaviour_clusters`` (equal outcome on every generated input, equal verdict on every assert
that does not parse into an input and an expected value — so MBPP's ``assert set(f(x)) == …`` and inputs without an
expected value both count). Each cluster gets the named features of ``FEATURES`` (see ``cluster_features``), all
scale-free within a problem so that pools of 5 and of 500 asserts read alike; the multiplicative ones enter as logs
(``design``). The score is ``w · (x / scale)``
with weights from a JSON file (``learned_model.json`` beside this module, or ``options['learned_model']``: a path
or an already loaded dict); scoring needs numpy only. ``fit_pairwise`` trains the weights with scikit-learn
(imported there only): pass@1 depends only on which cluster of a problem is on top, so the model is fitted on pairs
(better cluster, worse cluster) of the same problem — a pairwise logistic ranker, RankNet-style, with no intercept
— and problems whose clusters are all right or all wrong (where no ranker can matter) carry no weight.
Leave-one-set-out evaluation and the training-set rules live in ``study/learned_loso.py``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from coderank_evalplus.rankers.b4 import b4_scores
from coderank_evalplus.rankers.context import RankContext
from coderank_evalplus.rankers.grouping import sort_groups
from coderank_evalplus.rankers.overlap import behaviour_clusters, functional_overlap
from coderank_evalplus.rankers.registry import register_ranker
from coderank_evalplus.rankers.srank import pass_rates
from coderank_evalplus.types import PASS, RETURNED, Executions, Group, Ranking

MODEL_FILE = Path(__file__).with_name("learned_model.json")
FEATURES = ("share", "rel_size", "assert_pass", "codet", "srank", "overlap", "b4", "returned", "constant")
LOG_FEATURES = ("share", "rel_size", "assert_pass", "codet", "srank", "overlap", "b4")  # enter as log(x + LOG_EPS)
LOG_EPS = 1e-3  # fixed a priori: a floor below 1 / (the largest sample count here, 200), not fitted
FEATURE_DOC = {
    "share": "cluster's samples (duplicates included) / all samples of the problem",
    "rel_size": "cluster's samples / the largest cluster's",
    "assert_pass": "generated asserts passed, weighted by how often each was generated / all (0 with none)",
    "codet": "CodeT's score (asserts passed with multiplicity × √samples) / the problem's largest",
    "srank": "SRank's I·(share × pass rate on parsed asserts) / the problem's largest",
    "overlap": "Σ_j I_cj · share_j: functional overlap with every cluster, tests not used",
    "b4": "B4's posterior of the cluster's pass pattern relative to the best one, exp(score − max)",
    "returned": "share of the generated inputs on which the cluster returns normally (1 with none)",
    "constant": "1 when the cluster returns one same value on every one of ≥ 2 inputs (SRank calls it invalid)",
}


@dataclass
class ClusterTable:
    """One problem's clusters (candidate lists) and their feature matrix (cluster × FEATURES)."""

    clusters: list[list[int]]
    X: np.ndarray


def _normalised(v: np.ndarray) -> np.ndarray:
    top = float(v.max()) if v.size else 0.0
    return v / top if top > 0 else np.zeros_like(v)


def cluster_features(ex: Executions) -> ClusterTable:
    """Behaviour clusters of ``ex`` and their features (order of ``FEATURES``, through ``design``); unrunnable
    programs are left out."""
    clusters = behaviour_clusters(ex)
    if not clusters:
        return ClusterTable([], np.zeros((0, len(FEATURES))))
    return ClusterTable(clusters, design(raw_features(ex, cluster_stats(ex, clusters))))


@dataclass
class ClusterStats:
    """Per cluster (non-empty clusters only): its representative program row, its samples, the functional overlap
    with every cluster and SRank's pass rate — computed once, read by ``raw_features`` and by rankers that add
    features of their own (``learned_examples``)."""

    reps: np.ndarray
    n: np.ndarray
    overlap: np.ndarray
    pass_rate: np.ndarray


def cluster_stats(ex: Executions, clusters: Sequence[Sequence[int]]) -> ClusterStats:
    """``ClusterStats`` of at least one cluster of ``ex``."""
    rows = np.asarray(ex.program_of_candidate)
    reps = np.asarray([rows[c[0]] for c in clusters])
    return ClusterStats(reps, np.asarray([len(c) for c in clusters], dtype=float), functional_overlap(ex, reps),
                        pass_rates(ex, reps))


def raw_features(ex: Executions, stats: ClusterStats) -> np.ndarray:
    """The ``FEATURES`` of the clusters ``stats`` describes (cluster × feature), before ``design``."""
    reps, n, overlap = stats.reps, stats.n, stats.overlap
    k = len(reps)
    share = n / max(ex.n_candidates, 1)
    counts = np.asarray(ex.assert_counts, dtype=float)
    passed = (ex.pass_matrix[reps] == PASS)
    t = passed.astype(float) @ counts if counts.size else np.zeros(k)
    assert_pass = t / counts.sum() if counts.sum() > 0 else np.zeros(k)
    srank = overlap @ (share * stats.pass_rate)
    n_inputs = ex.output_matrix.shape[1]
    ret = ex.output_kind[reps] == RETURNED
    returned = ret.mean(axis=1) if n_inputs else np.ones(k)
    out = ex.output_matrix[reps]
    constant = ((n_inputs > 1) & ret.all(axis=1) & (out == out[:, :1]).all(axis=1)).astype(float) if n_inputs \
        else np.zeros(k)
    if passed.shape[1]:
        ran = np.flatnonzero(np.asarray(ex.compiled, dtype=bool))
        E = (ex.pass_matrix[ran] == PASS).astype(np.int64)
        b4 = b4_scores(E, passed.astype(np.int64))
        b4 = np.exp(b4 - b4.max())
    else:
        b4 = np.ones(k)
    return np.column_stack([share, n / n.max(), assert_pass, _normalised(t * np.sqrt(n)), _normalised(srank),
                            overlap @ share, b4, returned, constant])


@dataclass(frozen=True)
class FeatureSpec:
    """What a learned model scores with: its ranker's name, feature names (in column order), which of them enter as
    logs, what each means, and the shipped weights file. ``learned`` and ``learned_examples`` each have one."""

    name: str
    features: tuple[str, ...]
    log_features: tuple[str, ...]
    doc: dict[str, str]
    model_file: Path


SPEC = FeatureSpec("learned", FEATURES, LOG_FEATURES, FEATURE_DOC, MODEL_FILE)


def design(raw: np.ndarray, spec: FeatureSpec = SPEC) -> np.ndarray:
    """The model's inputs: log(x + LOG_EPS) of the multiplicative features (``LOG_FEATURES``), the rest as they are.

    In logs a linear score is a product of powers, Π x_f^w_f, so the model family holds CodeT's T·√n and SRank's
    size × pass rate exactly (SRank's ablations vary just those exponents); on raw features a linear score lets a
    tiny cluster that passes many asserts outscore a large one, which no published ranker does."""
    out = np.array(raw, dtype=float, copy=True)
    cols = [spec.features.index(f) for f in spec.log_features]
    out[:, cols] = np.log(out[:, cols] + LOG_EPS)
    return out


# --- the model file -----------------------------------------------------------------------------------------------
def model_digest(model: dict) -> str:
    """sha256 of the model's canonical JSON without its ``digest`` field."""
    body = {k: v for k, v in model.items() if k != "digest"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def read_model_json(source: str | Path | dict | None, default: Path, label: str) -> tuple[dict, str]:
    """A model given as a dict, or read from a JSON file (``default`` when None), and where it came from; a
    ValueError that names the file (``label``: which model) when it cannot be read."""
    if isinstance(source, dict):
        return source, "<model dict>"
    where = str(source or default)
    try:
        return json.loads(Path(where).read_text()), where
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{label} {where}: cannot read it ({exc})") from exc


def check_digest(model: dict, where: str, label: str) -> None:
    """A ValueError when the model's ``digest`` (if it has one) does not match its content."""
    if "digest" in model and model["digest"] != model_digest(model):
        raise ValueError(f"{label} {where}: digest {model['digest']} does not match its content")


def load_model(source: str | Path | dict | None = None, spec: FeatureSpec = SPEC) -> dict:
    """The model (default: the shipped file), its digest checked; a ValueError names the file otherwise."""
    label = f"{spec.name} model"
    model, where = read_model_json(source, spec.model_file, label)
    if list(model.get("features", [])) != list(spec.features):
        raise ValueError(f"{label} {where}: features {model.get('features')} are not {list(spec.features)}")
    if list(model.get("log_features", [])) != list(spec.log_features) or model.get("log_eps") != LOG_EPS:
        raise ValueError(f"{label} {where}: log_features/log_eps differ from this version's {spec.log_features}")
    check_digest(model, where, label)
    return model


def model_vector(model: dict) -> np.ndarray:
    """Weights already divided by the feature scales: score = X @ vector."""
    return np.asarray([model["weights"][f] / model["scale"][f] for f in model["features"]], dtype=float)


def table_ranking(table: ClusterTable, vector: np.ndarray, method: str = "learned") -> Ranking:
    """Clusters ordered by ``X @ vector`` (rounded to 12 digits so that equal scores tie)."""
    scores = table.X @ vector if len(table.clusters) else np.zeros(0)
    groups = [Group(c, round(float(s), 12)) for c, s in zip(table.clusters, scores)]
    return Ranking(sort_groups(groups), {"method": method})


_DEFAULT: dict[str, tuple[dict, np.ndarray]] = {}


def model_of(ctx: RankContext, spec: FeatureSpec, option: str) -> tuple[dict, np.ndarray]:
    """The model a ranking uses and its weight vector: ``ctx.options[option]`` (a path or dict) or the shipped file
    (read once)."""
    source = ctx.options.get(option)
    if source is not None:
        model = load_model(source, spec)
        return model, model_vector(model)
    if spec.name not in _DEFAULT:
        model = load_model(None, spec)
        _DEFAULT[spec.name] = (model, model_vector(model))
    return _DEFAULT[spec.name]


@register_ranker("learned", "clusters of equal behaviour scored by a pairwise logistic model over size, CodeT, "
                            "SRank, B4 and overlap features (weights in rankers/learned_model.json)")
def rank_learned(ctx: RankContext) -> Ranking:
    """Option ``learned_model``: a model path or dict instead of the shipped file."""
    model, vector = model_of(ctx, SPEC, "learned_model")
    ranking = table_ranking(cluster_features(ctx.executions), vector)
    ranking.info["model_digest"] = model.get("digest", "")[:12]
    return ranking


# --- training (scikit-learn, imported here only) ------------------------------------------------------------------
def pairwise_rows(tables: Sequence[ClusterTable], quality: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray,
                                                                                          np.ndarray]:
    """(X_i − X_j, label, weight) over pairs of clusters of one problem whose correct share differs: label 1 when
    i is the better, both orientations listed; weights n_i·n_j·|q_i − q_j| normalised so that each problem counts 1.
    ``quality[p][c]`` is cluster c's share of correct candidates."""
    diffs, labels, weights = [], [], []
    for table, q in zip(tables, quality):
        if len(table.clusters) < 2:
            continue
        n = np.asarray([len(c) for c in table.clusters], dtype=float)
        i, j = np.nonzero(q[:, None] > q[None, :])
        if len(i) == 0:
            continue
        w = n[i] * n[j] * (q[i] - q[j])
        w = w / w.sum()
        d = table.X[i] - table.X[j]
        diffs += [d, -d]
        labels += [np.ones(len(i)), np.zeros(len(i))]
        weights += [w / 2, w / 2]
    if not diffs:
        width = next((t.X.shape[1] for t in tables), len(FEATURES))
        return np.zeros((0, width)), np.zeros(0), np.zeros(0)
    return np.concatenate(diffs), np.concatenate(labels), np.concatenate(weights)


def cluster_quality(table: ClusterTable, correct: np.ndarray) -> np.ndarray:
    """Per cluster, the share of its candidates judged correct."""
    return np.asarray([float(np.mean(correct[c])) for c in table.clusters])


REGULARISATION_C = 1.0  # scikit-learn's default, fixed before any evaluation (no set is used to choose it)


def fit_pairwise(tables: Sequence[ClusterTable], quality: Sequence[np.ndarray], training_sets: Sequence[Any],
                 c: float = REGULARISATION_C, note: Optional[str] = None, spec: FeatureSpec = SPEC) -> dict:
    """A model dict (with its digest) fitted by L2 logistic regression on the pairwise rows of ``tables`` (whose
    columns are ``spec.features``)."""
    import sklearn
    from sklearn.linear_model import LogisticRegression

    D, y, w = pairwise_rows(tables, quality)
    if len(y) == 0:
        raise ValueError("no problem of the training sets has both a better and a worse cluster: nothing to learn")
    features = spec.features
    all_x = np.concatenate([t.X for t in tables if len(t.clusters)])
    scale = all_x.std(axis=0)
    scale = np.where(scale > 1e-6, scale, 1.0)  # a constant feature keeps scale 1
    n_problems = sum(1 for q in quality if len(q) and q.max() > q.min())
    clf = LogisticRegression(C=c, fit_intercept=False, max_iter=1000)
    # the weights sum to the number of informative problems, so C means the same whatever the pair counts
    clf.fit(D / scale, y, sample_weight=w)
    model = {
        "name": spec.name, "format": 1, "features": list(features), "feature_doc": spec.doc,
        "weights": {f: round(float(v), 6) for f, v in zip(features, clf.coef_[0])},
        "scale": {f: round(float(v), 6) for f, v in zip(features, scale)},
        "log_features": list(spec.log_features), "log_eps": LOG_EPS,
        "objective": "pairwise logistic (better vs worse cluster of one problem), L2, no intercept",
        "C": c, "informative_problems": n_problems, "pairs": int(len(y) // 2),
        "training_sets": list(training_sets),
        "library": {"scikit-learn": sklearn.__version__, "numpy": np.__version__},
    }
    if note:
        model["note"] = note
    model["digest"] = model_digest(model)
    return model
