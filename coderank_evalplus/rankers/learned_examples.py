"""``learned_examples``: ``learned`` on all the evidence a user has — the model's pool (when there is one), the
inputs grown from the examples (``examples+mutate``) and the prompt's own examples, run as trial tests.

Every HumanEval and MBPP prompt shows the model a few input/output examples; the model saw them, so checking a
candidate against them is fair in the setting a user deploys (DOCE's trial-test filtering, the ``filter+…``
compositions), though not in CodeT's published setting, which removes them (``learned`` stays there).

Clusters: ``learned``'s clusters of equal behaviour, split further by the verdict on every trial test. Features:
``learned``'s nine (``rankers/learned.py``) on those clusters, and

- ``trial_pass``: share of the trial tests the cluster passes (1 with none), ``trial_all``: 1 when it passes all;
- ``kept_share``, ``kept_srank``, ``kept_overlap``: share, SRank's score (/ the best) and functional overlap
  computed among the clusters that trial-test filtering keeps (those passing every trial test; all clusters when
  there are none or no cluster passes them all), 0 for the clusters it drops — so the model family holds
  ``filter+srank``'s order (a large weight on ``trial_all``, then ``kept_srank``) and can weigh it against
  agreement where a trial test is wrong.

Problems without examples get constant trial features, which drop out of every pairwise comparison: the other
features decide there. The model is ``learned``'s (pairwise logistic, ``fit_pairwise``), its weights in
``learned_examples_model.json``; its training and leave-one-set-out judging live in ``study/learned_loso.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from coderank_evalplus.rankers import learned
from coderank_evalplus.rankers.context import RankContext
from coderank_evalplus.rankers.filtering import trial_passes
from coderank_evalplus.rankers.learned import (
    ClusterStats,
    ClusterTable,
    FeatureSpec,
    cluster_stats,
    design,
    model_of,
    raw_features,
    table_ranking,
)
from coderank_evalplus.rankers.overlap import behaviour_clusters
from coderank_evalplus.rankers.registry import register_ranker
from coderank_evalplus.types import Executions, Ranking

TRIAL_FEATURES = ("trial_pass", "trial_all", "kept_share", "kept_srank", "kept_overlap")
FEATURES = learned.FEATURES + TRIAL_FEATURES
LOG_FEATURES = learned.LOG_FEATURES + ("kept_share", "kept_srank", "kept_overlap")
FEATURE_DOC = {
    **learned.FEATURE_DOC,
    "trial_pass": "share of the prompt's examples (trial tests) the cluster passes (1 with none)",
    "trial_all": "1 when the cluster passes every trial test (1 with none)",
    "kept_share": "cluster's samples / the samples of the clusters trial-test filtering keeps (0 if dropped)",
    "kept_srank": "SRank's score among the kept clusters / their best (0 if dropped)",
    "kept_overlap": "Σ_j I_cj · kept_share_j over the kept clusters j (0 if dropped)",
}
MODEL_FILE = Path(__file__).with_name("learned_examples_model.json")
SPEC = FeatureSpec("learned_examples", FEATURES, LOG_FEATURES, FEATURE_DOC, MODEL_FILE)


def _kept_features(stats: ClusterStats, kept: np.ndarray) -> np.ndarray:
    """kept_share, kept_srank, kept_overlap (cluster × 3), zero outside ``kept``: the overlap and pass rates of the
    kept clusters are those ``stats`` holds for all of them (both are per pair / per cluster)."""
    out = np.zeros((len(stats.reps), 3))
    idx = np.flatnonzero(kept)
    share = stats.n[idx] / stats.n[idx].sum()
    overlap = stats.overlap[np.ix_(idx, idx)]
    srank = overlap @ (share * stats.pass_rate[idx])
    top = float(srank.max()) if srank.size else 0.0
    out[idx, 0] = share
    out[idx, 1] = srank / top if top > 0 else 0.0
    out[idx, 2] = overlap @ share
    return out


def cluster_features(ex: Executions) -> ClusterTable:
    """Clusters of equal behaviour and equal trial verdicts, and their ``FEATURES`` (through ``design``)."""
    clusters = behaviour_clusters(ex, with_trials=True)
    if not clusters:
        return ClusterTable([], np.zeros((0, len(FEATURES))))
    stats = cluster_stats(ex, clusters)
    trial = trial_passes(ex, stats.reps)
    passes_all = trial >= 1.0
    kept = passes_all if passes_all.any() else np.ones(len(clusters), dtype=bool)
    raw = np.column_stack([raw_features(ex, stats), trial, passes_all.astype(float), _kept_features(stats, kept)])
    return ClusterTable(clusters, design(raw, SPEC))


@register_ranker("learned_examples", "learned's clusters and features plus the prompt's examples as trial tests "
                                     "(pass share, passes all, agreement among the survivors); weights in "
                                     "rankers/learned_examples_model.json", uses_examples=True)
def rank_learned_examples(ctx: RankContext) -> Ranking:
    """Option ``learned_examples_model``: a model path or dict instead of the shipped file."""
    model, vector = model_of(ctx, SPEC, "learned_examples_model")
    ranking = table_ranking(cluster_features(ctx.executions), vector, "learned_examples")
    ranking.info["model_digest"] = model.get("digest", "")[:12]
    return ranking
