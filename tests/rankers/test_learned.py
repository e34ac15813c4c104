import json
import math

import numpy as np
import pytest

from coderank_evalplus.metrics import merged_groups
from coderank_evalplus.rankers import get_ranker
from coderank_evalplus.rankers.learned import (
    FEATURES,
    LOG_EPS,
    LOG_FEATURES,
    MODEL_FILE,
    cluster_features,
    design,
    load_model,
    model_digest,
    pairwise_rows,
    table_ranking,
)
from coderank_evalplus.types import RAISED, RETURNED

try:
    from tests.rankers.helpers import groups_of, make_ctx, make_executions
except ImportError:  # tests/ is not a package: pytest put tests/rankers on sys.path
    from helpers import groups_of, make_ctx, make_executions

R, E = RETURNED, RAISED
# Two inputs; a0 parses to input 0 with expected "1" (generated twice), a1 does not parse (generated once).
# c0/c1 one program: outputs (1, 2), passes both.  c2: outputs (1, 3), passes a0.  c3: (5, 5), passes nothing.
# c4 never got past its top level: unranked, but it counts in the problem's samples (share's denominator).
OUTPUTS = [[1, 2], [1, 2], [1, 3], [5, 5], [0, 0]]
PASSES = [[1, 1], [1, 1], [1, 0], [0, 0], [0, 0]]


def _ex(kinds=None):
    return make_executions(passes=PASSES, counts=[2, 1], outputs=OUTPUTS, kinds=kinds, compiled=[True] * 4 + [False],
                           program_ids=[0, 0, 1, 2, 3], assert_input=[0, -1], expected=["1", None])


def _col(table, name):
    """The feature's raw value (the design holds log(x + LOG_EPS) of the multiplicative ones)."""
    x = table.X[:, FEATURES.index(name)]
    return np.exp(x) - LOG_EPS if name in LOG_FEATURES else x


def test_multiplicative_features_enter_as_logs():
    raw = np.array([[0.5] * len(FEATURES), [0.0] * len(FEATURES)])
    d = design(raw)
    for f in FEATURES:
        want = np.log(raw[:, 0] + LOG_EPS) if f in LOG_FEATURES else raw[:, 0]
        assert d[:, FEATURES.index(f)] == pytest.approx(want)
    assert {"returned", "constant"}.isdisjoint(LOG_FEATURES) and np.isfinite(d).all()


def test_features_by_hand():
    t = cluster_features(_ex())
    assert t.clusters == [[0, 1], [2], [3]]
    assert _col(t, "share") == pytest.approx([2 / 5, 1 / 5, 1 / 5])
    assert _col(t, "rel_size") == pytest.approx([1, 0.5, 0.5])
    assert _col(t, "assert_pass") == pytest.approx([1, 2 / 3, 0])
    # CodeT: T·√n = 3√2, 2, 0 -> over the largest
    assert _col(t, "codet") == pytest.approx([1, 2 / (3 * math.sqrt(2)), 0])
    # SRank: pass rate on the parsed assert a0 only: 1, 1, 0; V = share × rate; I(A,B) = 1/2
    v = np.array([0.4, 0.2, 0.0])
    srank = np.array([v[0] + 0.5 * v[1], v[1] + 0.5 * v[0], 0.0])
    assert _col(t, "srank") == pytest.approx(srank / srank.max())
    assert _col(t, "overlap") == pytest.approx([0.4 + 0.1, 0.2 + 0.2, 0.2])
    assert _col(t, "returned") == pytest.approx([1, 1, 1])
    assert _col(t, "constant") == pytest.approx([0, 0, 1])  # c3 returns 5 on both inputs
    b4 = _col(t, "b4")
    assert b4.max() == pytest.approx(1.0) and np.all((0 <= b4) & (b4 <= 1))


def test_raised_outputs_lower_returned_and_never_agree():
    kinds = [[R, R], [R, R], [R, E], [R, R], [R, R]]
    t = cluster_features(_ex(kinds))
    assert _col(t, "returned") == pytest.approx([1, 0.5, 1])  # B (c2) raises on input 1
    assert _col(t, "overlap")[1] == pytest.approx(0.2 + 0.5 * 0.4)  # agrees with A on input 0 only


def test_inputs_without_expected_values_and_no_tests_at_all():
    # an input with no expected value (truthiness checks, MBPP's set(f(x)) == …): clusters still split on it
    ex = make_executions(passes=[[1], [1], [0]], outputs=[[1], [1], [2]], assert_input=[-1], expected=[None])
    t = cluster_features(ex)
    assert t.clusters == [[0, 1], [2]] and _col(t, "srank") == pytest.approx([0, 0])
    none = cluster_features(make_executions(outputs=[[], [], []]))
    assert none.clusters == [[0, 1, 2]] and np.isfinite(none.X).all()
    assert _col(none, "returned") == pytest.approx([1]) and _col(none, "b4") == pytest.approx([1])


def test_ranking_follows_the_weights_and_ties_stay_together():
    t = cluster_features(_ex())
    size_only = np.zeros(len(FEATURES))
    size_only[FEATURES.index("share")] = 1.0
    merged = merged_groups(table_ranking(t, size_only))
    assert [sorted(g.candidates) for g in merged] == [[0, 1], [2, 3]]  # B and C tie
    constant_bad = np.zeros(len(FEATURES))
    constant_bad[FEATURES.index("constant")] = -1.0
    assert groups_of(table_ranking(t, constant_bad))[-1][0] == [3]


def test_pairwise_rows_weight_each_informative_problem_once():
    t = cluster_features(_ex())
    D, y, w = pairwise_rows([t, t], [np.array([1.0, 0.0, 0.0]), np.array([1.0, 1.0, 1.0])])
    assert len(y) == 4 and w.sum() == pytest.approx(1.0)  # the all-correct problem adds nothing
    assert np.allclose(D[:2], -D[2:]) and list(y) == [1, 1, 0, 0]


def test_shipped_model_loads_and_reproduces_its_digest():
    raw = json.loads(MODEL_FILE.read_text())
    assert raw["digest"] == model_digest(raw) and raw["features"] == list(FEATURES)
    assert set(raw["weights"]) == set(FEATURES) and raw["library"]["scikit-learn"]
    assert raw["training_sets"] and all(s["license"] == "permissive" for s in raw["training_sets"])
    tampered = dict(raw, weights=dict(raw["weights"], share=raw["weights"]["share"] + 1))
    with pytest.raises(ValueError, match="digest"):
        load_model(tampered)
    ranking = get_ranker("learned")(make_ctx(_ex()))
    assert ranking.groups and ranking.info["model_digest"] == raw["digest"][:12]


def test_scoring_needs_no_scikit_learn(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_sklearn(name, *a, **k):
        if name.startswith("sklearn"):
            raise ImportError("scikit-learn hidden")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_sklearn)
    assert get_ranker("learned")(make_ctx(_ex(), learned_model=str(MODEL_FILE))).groups
