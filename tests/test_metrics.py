import math

import numpy as np
import pytest

from coderank_evalplus.metrics import (
    aggregate_percent,
    choose_counts,
    merged_groups,
    needed_candidates,
    oracle_pass,
    pass_at_k,
    ranked_pass_at_k,
)
from coderank_evalplus.types import Group, Ranking


def R(*groups, **info):
    return Ranking([Group(list(c), float(s)) for c, s in groups], dict(info))


def test_pass_at_k_uses_unbiased_estimator():
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(4, 1, 2) == pytest.approx(0.5)  # 1 - C(3,2)/C(4,2)
    assert pass_at_k(3, 0, 5) == 0.0  # evalplus alone would say 1.0 here
    assert pass_at_k(3, 1, 5) == 1.0
    assert pass_at_k(0, 0, 1) == 0.0


def test_equal_scores_merge():
    ranking = R(([0, 1], 2), ([2, 3], 2), ([4], 1))
    correct = np.array([True, False, False, False, True])
    assert [g.candidates for g in merged_groups(ranking)] == [[0, 1, 2, 3], [4]]
    assert ranked_pass_at_k(ranking, correct, 1) == pytest.approx(0.25)
    assert ranked_pass_at_k(ranking, correct, 2) == pytest.approx(1.0)


def test_fewer_groups_than_k_round_robin_with_replacement():
    assert choose_counts(2, 5) == [3, 2]
    assert ranked_pass_at_k(R(([0, 1], 2)), np.array([True, False]), 3) == pytest.approx(1 - 0.5 ** 3)
    ranking = R(([0, 1], 2), ([2, 3, 4], 1))
    correct = np.array([False, True, False, False, True])
    # group 1 picked twice (miss 1/2 each), group 2 once (miss 2/3)
    assert ranked_pass_at_k(ranking, correct, 3) == pytest.approx(1 - 0.25 * 2 / 3)


def test_top_k_cut():
    ranking = R(([0], 3), ([1], 2), ([2], 1))
    correct = np.array([False, False, True])
    assert ranked_pass_at_k(ranking, correct, 2) == 0.0
    assert ranked_pass_at_k(ranking, correct, 3) == 1.0


def test_empty_ranking_falls_back_to_random_pass_at_k():
    correct = np.array([True, False, False, False])
    assert ranked_pass_at_k(R(), correct, 2) == pytest.approx(0.5)
    assert ranked_pass_at_k(R(), correct, 1) == pytest.approx(0.25)
    assert ranked_pass_at_k(R(fallback_pool=[0, 1]), correct, 1) == pytest.approx(0.5)
    assert ranked_pass_at_k(R(), np.zeros(3, bool), 1) == 0.0


def test_oracle_and_aggregate():
    assert oracle_pass(np.array([False, True])) == 1.0
    assert oracle_pass(np.array([False])) == 0.0
    assert oracle_pass(np.array([], bool)) == 0.0
    assert aggregate_percent([1.0, 0.0, 0.5]) == 50.0
    assert aggregate_percent([1 / 3]) == 33.33
    assert math.isnan(aggregate_percent([]))


def test_needed_candidates():
    ranking = R(([5, 1], 2), ([3], 2), ([0], 1), ([2], 0))
    assert needed_candidates(ranking, 1) == [1, 3, 5]
    assert needed_candidates(ranking, 2) == [0, 1, 3, 5]
    assert needed_candidates(R(), 1, n_candidates=3) == [0, 1, 2]
    assert needed_candidates(R(fallback_pool=[4, 2]), 1, n_candidates=9) == [2, 4]
