import itertools
import json

import numpy as np
import pytest

from coderank_evalplus.metrics import merged_groups
from coderank_evalplus.rankers import get_ranker, learned
from coderank_evalplus.rankers.learned import LOG_EPS, load_model, model_digest, model_vector, table_ranking
from coderank_evalplus.rankers.learned_examples import (
    FEATURES,
    LOG_FEATURES,
    MODEL_FILE,
    SPEC,
    TRIAL_FEATURES,
    cluster_features,
)
from coderank_evalplus.types import FAIL, PASS

try:
    from tests.rankers.helpers import make_ctx, make_executions
except ImportError:  # tests/ is not a package: pytest put tests/rankers on sys.path
    from helpers import make_ctx, make_executions

P, F = PASS, FAIL


def _col(table, name):
    x = table.X[:, FEATURES.index(name)]
    return np.exp(x) - LOG_EPS if name in LOG_FEATURES else x


def _ex(trial):
    """Five candidates, two inputs: c0/c1 return (1, 2), c2/c3 (1, 3), c4 (7, 7); one parsed assert f(0) == 1 that
    all but c4 pass; ``trial``: each candidate's verdicts on the prompt's examples."""
    return make_executions(passes=[[1], [1], [1], [1], [0]], outputs=[[1, 2], [1, 2], [1, 3], [1, 3], [7, 7]],
                           trial=trial, assert_input=[0], expected=["1"], codes=False)


def test_clusters_split_by_trial_verdicts_and_trial_features_by_hand():
    # c0 and c1 behave alike on the generated inputs but c1 fails the second example: two clusters
    t = cluster_features(_ex([[P, P], [P, F], [F, F], [F, F], [P, P]]))
    assert [sorted(c) for c in t.clusters] == [[0], [1], [2, 3], [4]]
    assert _col(t, "trial_pass") == pytest.approx([1, 0.5, 0, 1])
    assert _col(t, "trial_all") == pytest.approx([1, 0, 0, 1])
    # the filter keeps c0 and c4 (one sample each): their share among the kept, 0 for the dropped
    assert _col(t, "kept_share") == pytest.approx([0.5, 0, 0, 0.5])
    # SRank among the kept: c4 fails the parsed assert (pass rate 0), so c0 is the best and c4 scores 0
    assert _col(t, "kept_srank") == pytest.approx([1, 0, 0, 0])
    assert _col(t, "kept_overlap") == pytest.approx([0.5, 0, 0, 0.5])  # c0 and c4 agree on no input
    # learned's own features are there too, on the finer clusters
    assert _col(t, "share") == pytest.approx([0.2, 0.2, 0.4, 0.2])


def test_without_examples_the_trial_features_are_constant_and_drop_out():
    ex = _ex(None)
    t = cluster_features(ex)
    assert [sorted(c) for c in t.clusters] == [[0, 1], [2, 3], [4]]
    for f in ("trial_pass", "trial_all"):
        assert _col(t, f) == pytest.approx([1, 1, 1])
    # every cluster is kept: the kept features are learned's share / SRank / overlap
    assert _col(t, "kept_share") == pytest.approx(_col(t, "share") / _col(t, "share").sum())
    assert _col(t, "kept_srank") == pytest.approx(_col(t, "srank"))
    # ranking: only the differences between clusters count, and the trial columns have none
    w = model_vector(load_model(None, SPEC))
    drop = np.asarray([f in ("trial_pass", "trial_all") for f in FEATURES])
    assert np.ptp(t.X[:, drop], axis=0) == pytest.approx(0)
    assert [g.candidates for g in table_ranking(t, w).groups] == \
        [g.candidates for g in table_ranking(t, np.where(drop, 0.0, w)).groups]


@pytest.mark.parametrize("sizes", [(1, 1), (2, 2), (5, 5), (20, 20)])
def test_a_cluster_failing_every_example_never_outranks_one_passing_them_all(sizes):
    """Equal agreement (same size, same generated asserts passed, symmetric outputs): the shipped model puts the
    cluster that passes the prompt's examples first, whichever candidate indices each holds."""
    a, b = sizes
    for first_passes, n_trials in itertools.product((True, False), (1, 3)):
        good, bad = [P] * n_trials, [F] * n_trials
        outputs = [[1, 2]] * a + [[1, 3]] * b
        trial = [good if first_passes else bad] * a + [bad if first_passes else good] * b
        ex = make_executions(passes=[[1]] * (a + b), outputs=outputs, trial=trial, assert_input=[0], expected=["1"])
        ranking = get_ranker("learned_examples")(make_ctx(ex))
        top = sorted(merged_groups(ranking)[0].candidates)
        assert top == (list(range(a)) if first_passes else list(range(a, a + b)))


def test_failing_examples_loses_even_against_a_smaller_cluster():
    # 6 samples agree and fail the example; 3 pass it: the shipped model follows the examples (as filter+ does)
    ex = make_executions(passes=[[1]] * 9, outputs=[[1, 2]] * 6 + [[1, 3]] * 3, trial=[[F]] * 6 + [[P]] * 3,
                         assert_input=[0], expected=["1"])
    assert sorted(merged_groups(get_ranker("learned_examples")(make_ctx(ex)))[0].candidates) == [6, 7, 8]


def test_shipped_model_is_learned_examples_trained_on_permissive_sets_only():
    raw = json.loads(MODEL_FILE.read_text())
    assert raw["name"] == "learned_examples" and raw["features"] == list(FEATURES)
    assert raw["digest"] == model_digest(raw)
    assert raw["training_sets"] and all(s["license"] == "permissive" for s in raw["training_sets"])
    assert raw["weights"]["trial_all"] > 0  # passing every example counts for a cluster
    with pytest.raises(ValueError, match="features"):
        load_model(learned.load_model(), SPEC)  # learned's model is not this ranker's
    ranking = get_ranker("learned_examples")(make_ctx(_ex(None)))
    assert ranking.groups and ranking.info["model_digest"] == raw["digest"][:12]


def test_feature_names_extend_learned():
    assert FEATURES[:len(learned.FEATURES)] == learned.FEATURES and FEATURES[len(learned.FEATURES):] == TRIAL_FEATURES
