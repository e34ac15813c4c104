"""Likelihood rankers (ll, coder_reviewer) and their composition with execution agreement by name."""

import math

import numpy as np
import pytest

from coderank_evalplus.rankers import get_ranker, is_log_score, validate_methods
from coderank_evalplus.rankers.likelihood import features_needed
from coderank_evalplus.types import FAIL, PASS

try:
    from tests.rankers.helpers import groups_of, make_ctx, make_executions
except ImportError:  # tests/ is not a package: pytest put tests/rankers on sys.path
    from helpers import groups_of, make_ctx, make_executions

P, F = PASS, FAIL
NAN = float("nan")


def _ctx(trial=None, **feats):
    # outputs: candidates 0, 1, 2 agree (cluster of 3), 3 and 4 agree (cluster of 2); 5 alone
    ex = make_executions(outputs=[[1], [1], [1], [2], [2], [3]], trial=trial)
    base = dict(logprob=[-10.0, -4.0, -6.0, -1.0, -9.0, -2.0], logprob_tokens=[10, 2, 3, 1, 3, 4])
    base.update(feats)
    return make_ctx(ex, **{k: np.asarray(v, dtype=float) for k, v in base.items()})


def test_ll_ranks_by_mean_token_logprob():
    # means: -1, -2, -2, -1, -3, -0.5
    assert groups_of(get_ranker("ll")(_ctx())) == [([5], -0.5), ([0, 3], -1.0), ([1, 2], -2.0), ([4], -3.0)]


def test_missing_values_are_unranked_and_absent_features_are_an_error():
    r = get_ranker("ll")(_ctx(logprob=[-1.0, NAN, -1.0, -1.0, -1.0, -1.0], logprob_tokens=[1, 1, 0, 1, 1, 1]))
    assert sorted(c for g in r.groups for c in g.candidates) == [0, 3, 4, 5] and r.info["unscored"] == 2
    ctx = make_ctx(make_executions(outputs=[[1], [2]]))
    with pytest.raises(ValueError, match="coderank-evalplus likelihood"):
        get_ranker("ll")(ctx)


def test_coder_reviewer_adds_the_two_normalised_likelihoods():
    ctx = _ctx(reviewer_logprob=[-2.0, -30.0, -3.0, -4.0, -2.0, -10.0], reviewer_logprob_tokens=[2, 10, 3, 2, 2, 5])
    # coder means -1, -2, -2, -1, -3, -0.5; reviewer means -1, -3, -1, -2, -1, -2
    assert groups_of(get_ranker("coder_reviewer")(ctx)) == [([0], -2.0), ([5], -2.5), ([2, 3], -3.0),
                                                             ([4], -4.0), ([1], -5.0)]


def test_ll_plus_mbr_exec_is_cluster_size_times_exp_ll():
    r = get_ranker("ll+mbr_exec")(_ctx())
    expected = {c: math.log(size) + mean for c, size, mean in
                [(0, 3, -1), (1, 3, -2), (2, 3, -2), (3, 2, -1), (4, 2, -3), (5, 1, -0.5)]}
    got = {c: g.score for g in r.groups for c in g.candidates}
    assert got == pytest.approx(expected)
    # a candidate of the big cluster with a good likelihood wins; ties (1, 2) stay one group
    assert r.groups[0].candidates == [0] and [1, 2] in [sorted(g.candidates) for g in r.groups]
    assert r.info["combined"] == "log(mbr_exec) + ll"


def test_composition_after_filter_and_with_any_nonnegative_ranker():
    trial = [[P], [F], [P], [P], [F], [P]]
    r = get_ranker("filter+ll+mbr_exec")(_ctx(trial=trial))
    # survivors 0, 2, 3, 5 re-clustered: {0, 2} size 2, {3} 1, {5} 1
    got = {c: g.score for g in r.groups for c in g.candidates}
    assert got == pytest.approx({0: math.log(2) - 1, 2: math.log(2) - 2, 3: -1.0, 5: -0.5})
    assert r.info["trial_filter"]["applied"] is True
    for name in ("coder_reviewer+mbr_exec", "filter+coder_reviewer+mbr_exec", "ll+codet", "ll+first"):
        validate_methods([name])


def test_zero_agreement_ranks_last_and_negative_scores_are_refused():
    from coderank_evalplus.rankers.compose import combine
    from coderank_evalplus.types import Group, Ranking

    ctx = make_ctx(make_executions(outputs=[[1], [2], [3]]), logprob=np.array([-1.0, 0.0, -2.0]),
                   logprob_tokens=np.array([1.0, 1.0, 1.0]))
    scored = lambda scores: lambda c: Ranking([Group([i], s) for i, s in enumerate(scores)])  # noqa: E731
    r = combine("ll", get_ranker("ll"), "x", scored([2.0, 0.0, 1.0]))(ctx)
    assert groups_of(r) == [([0], pytest.approx(math.log(2) - 1)), ([2], -2.0), ([1], -math.inf)]
    with pytest.raises(ValueError, match="non-negative"):
        combine("ll", get_ranker("ll"), "x", scored([2.0, -1.0, 1.0]))(ctx)


def test_only_feature_rankers_compose():
    assert is_log_score("ll") and is_log_score("coder_reviewer") and not is_log_score("mbr_exec")
    with pytest.raises(ValueError, match="only a likelihood feature ranker"):
        validate_methods(["mbr_exec+ll"])
    with pytest.raises(ValueError, match="unknown ranking method"):
        validate_methods(["ll+nonsense"])


def test_features_needed_looks_inside_names():
    assert features_needed(["codet", "filter+mbr_exec"]) == set()
    assert features_needed(["ll+mbr_exec"]) == {"coder"}
    assert features_needed(["filter+coder_reviewer+mbr_exec", "ll"]) == {"coder", "reviewer"}
