import itertools
import math

import numpy as np
import pytest

from coderank_evalplus.metrics import (
    PASS_AT_K_RULES,
    aggregate_percent,
    choose_counts,
    merged_groups,
    needed_candidates,
    oracle_pass,
    pass_at_k,
    pick_order,
    ranked_pass_at_k,
    recorded_rule,
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
    for rule in PASS_AT_K_RULES:
        assert ranked_pass_at_k(ranking, correct, 1, rule) == pytest.approx(0.25)
    # CodeT's rule spends its second pick on the next group; k picks in rank order draw twice from the top one
    assert ranked_pass_at_k(ranking, correct, 2, "codet") == pytest.approx(1.0)
    assert ranked_pass_at_k(ranking, correct, 2) == pytest.approx(1 - 3 / 4 * 2 / 3)


def test_codet_rule_round_robin_with_replacement():
    assert choose_counts(2, 5) == [3, 2]
    assert ranked_pass_at_k(R(([0, 1], 2)), np.array([True, False]), 3, "codet") == pytest.approx(1 - 0.5 ** 3)
    ranking = R(([0, 1], 2), ([2, 3, 4], 1))
    correct = np.array([False, True, False, False, True])
    # group 1 picked twice (miss 1/2 each), group 2 once (miss 2/3)
    assert ranked_pass_at_k(ranking, correct, 3, "codet") == pytest.approx(1 - 0.25 * 2 / 3)


def test_top_k_cut():
    ranking = R(([0], 3), ([1], 2), ([2], 1))
    correct = np.array([False, False, True])
    for rule in PASS_AT_K_RULES:
        assert ranked_pass_at_k(ranking, correct, 2, rule) == 0.0
        assert ranked_pass_at_k(ranking, correct, 3, rule) == 1.0


def test_empty_ranking_falls_back_to_random_pass_at_k():
    correct = np.array([True, False, False, False])
    for rule in PASS_AT_K_RULES:
        assert ranked_pass_at_k(R(), correct, 2, rule) == pytest.approx(0.5)
        assert ranked_pass_at_k(R(), correct, 1, rule) == pytest.approx(0.25)
        assert ranked_pass_at_k(R(fallback_pool=[0, 1]), correct, 1, rule) == pytest.approx(0.5)
        assert ranked_pass_at_k(R(), np.zeros(3, bool), 1, rule) == 0.0
    # past the pool, k picks in rank order go on to the other candidates; CodeT's rule stays in the pool
    pool_of_two = R(fallback_pool=[1, 2])
    assert [ranked_pass_at_k(pool_of_two, correct, k) for k in (2, 3, 4)] == [0.0, 0.5, 1.0]
    assert [ranked_pass_at_k(pool_of_two, correct, k, "codet") for k in (2, 3, 4)] == [0.0, 0.0, 0.0]


def test_worked_example_of_docs_usage():
    """docs/usage.md's example: 4 candidates, the top group {0, 1, 2} holds the one right candidate (0), candidate 3
    alone below it and wrong. k picks in rank order: 1/3, 2/3, 1, 1; CodeT's rule: 1/3, 1/3, 5/9, 5/9."""
    ranking = R(([0, 1, 2], 2.0), ([3], 1.0))
    correct = np.array([True, False, False, False])
    ranked = [ranked_pass_at_k(ranking, correct, k) for k in (1, 2, 3, 4)]
    codet = [ranked_pass_at_k(ranking, correct, k, "codet") for k in (1, 2, 3, 4)]
    assert ranked == pytest.approx([1 / 3, 1 - 2 / 3 * 1 / 2, 1.0, 1.0])
    assert codet == pytest.approx([1 / 3, 1 / 3, 1 - (2 / 3) ** 2, 1 - (2 / 3) ** 2])
    assert ranked[3] == oracle_pass(correct) > codet[3]


def _by_enumeration(ranking: Ranking, correct: np.ndarray, k: int) -> float:
    """The ranked rule counted out: every order of the candidates that keeps ``pick_order``'s groups in turn (each
    group shuffled, all orders equally likely); the share whose first k include a correct candidate."""
    tiers = list(pick_order(ranking, len(correct)))
    hits = total = 0
    for orders in itertools.product(*(itertools.permutations(t) for t in tiers)):
        first = [c for order in orders for c in order][:k]
        hits += bool(correct[first].any())
        total += 1
    return hits / total


def _random_case(rng: np.random.Generator) -> tuple[Ranking, np.ndarray]:
    """A ranking of some of n ≤ 6 candidates (ties between groups, unranked candidates, a fallback pool)."""
    n = int(rng.integers(1, 7))
    correct = rng.random(n) < rng.choice([0.0, 0.2, 0.5])
    order = [int(c) for c in rng.permutation(n)]
    ranked = order[: int(rng.integers(0, n + 1))]
    groups, i = [], 0
    while i < len(ranked):
        size = int(rng.integers(1, 4))
        groups.append((ranked[i:i + size], float(rng.integers(0, 3))))
        i += size
    groups.sort(key=lambda g: -g[1])
    info = {} if ranked or rng.random() < 0.5 else {"fallback_pool": order[: int(rng.integers(1, n + 1))]}
    return R(*groups, **info), correct


def test_ranked_rule_is_k_picks_in_rank_order_without_replacement():
    rng = np.random.default_rng(0)
    for _ in range(300):
        ranking, correct = _random_case(rng)
        n = len(correct)
        values = [ranked_pass_at_k(ranking, correct, k) for k in range(1, n + 1)]
        assert values == pytest.approx([_by_enumeration(ranking, correct, k) for k in range(1, n + 1)], abs=1e-12)
        assert values[-1] == oracle_pass(correct)  # all n picks cannot miss a correct candidate
        assert all(a <= b for a, b in zip(values, values[1:])) and max(values) <= oracle_pass(correct)
        # pass@1 is the rule-free number: one pick from the top group (bit for bit what CodeT's rule gives), or
        # from the pool (the same up to rounding: evalplus's estimator there)
        one = ranked_pass_at_k(ranking, correct, 1, "codet")
        assert values[0] == one if merged_groups(ranking) else values[0] == pytest.approx(one, abs=1e-12)


def test_an_unknown_rule_is_refused_and_a_run_says_its_rule():
    with pytest.raises(ValueError, match="ranked or codet"):
        ranked_pass_at_k(R(([0], 1)), np.array([True]), 1, "unbiased")
    assert recorded_rule({"pass_at_k_rule": "ranked"}) == "ranked"
    assert recorded_rule({}) == "codet"  # a run recorded before the rule was a setting used CodeT's


def test_oracle_and_aggregate():
    assert oracle_pass(np.array([False, True])) == 1.0
    assert oracle_pass(np.array([False])) == 0.0
    assert oracle_pass(np.array([], bool)) == 0.0
    assert aggregate_percent([1.0, 0.0, 0.5]) == 50.0
    assert aggregate_percent([1 / 3]) == 33.33
    assert math.isnan(aggregate_percent([]))


def test_needed_candidates():
    ranking = R(([5, 1], 2), ([3], 2), ([0], 1), ([2], 0))
    assert needed_candidates(ranking, 1, rule="codet") == [1, 3, 5]
    assert needed_candidates(ranking, 2, rule="codet") == [0, 1, 3, 5]
    assert needed_candidates(ranking, 3) == [1, 3, 5]  # three picks in rank order stay in the top group
    assert needed_candidates(ranking, 4) == [0, 1, 3, 5]
    assert needed_candidates(ranking, 6, n_candidates=7) == [0, 1, 2, 3, 4, 5, 6]  # unranked 4 and 6 come last
    for rule in PASS_AT_K_RULES:
        assert needed_candidates(R(), 1, n_candidates=3, rule=rule) == [0, 1, 2]
        assert needed_candidates(R(fallback_pool=[4, 2]), 1, n_candidates=9, rule=rule) == [2, 4]
    assert needed_candidates(R(fallback_pool=[4, 2]), 3, n_candidates=5) == [0, 1, 2, 3, 4]
    rng = np.random.default_rng(1)
    for _ in range(200):  # what each rule's value reads is what it asks to be judged
        ranking, correct = _random_case(rng)
        n = len(correct)
        for rule in PASS_AT_K_RULES:
            for k in range(1, n + 1):
                needed = needed_candidates(ranking, k, n, rule)
                judged = np.zeros(n, bool)
                judged[needed] = correct[needed]
                assert ranked_pass_at_k(ranking, judged, k, rule) == ranked_pass_at_k(ranking, correct, k, rule)


def test_pool_parts_keeps_a_recorded_tie_to_the_pick_pool():
    from coderank_evalplus.metrics import TIE, pool_parts
    from coderank_evalplus.types import Group, Ranking

    groups = [Group([2, 0, 1], 2.0), Group([3], 1.0)]
    assert pool_parts(Ranking(groups), 4) == [[0, 1, 2]]
    assert pool_parts(Ranking(groups, {TIE: [[0, 2], [1], [3]]}), 4) == [[0, 2], [1]]  # 3 is outside the pool
    assert pool_parts(Ranking(groups, {TIE: [[0]]}), 4) == [[0], [1, 2]]  # the rest of the pool: one part more
    assert pool_parts(Ranking([], {"fallback_pool": [1, 3]}), 4) == [[1, 3]]


def test_one_rule_scores_a_problem_under_every_method():
    """``problem_pass_at_k``: ``random`` is the unbiased estimate over every candidate, ``oracle`` any-correct, a
    ranked method its ranking's k picks under the rule; a ranked method without a ranking is refused."""
    from coderank_evalplus.metrics import BASELINES, problem_pass_at_k

    correct = np.array([False, True, False, True, False])
    ranking = R(([0, 2], 2.0), ([1], 1.0))
    assert BASELINES == ("random", "oracle")
    assert problem_pass_at_k("random", correct, None, 2) == pass_at_k(5, 2, 2)
    assert problem_pass_at_k("oracle", correct, None) == 1.0
    assert problem_pass_at_k("codet", correct, ranking) == 0.0
    assert problem_pass_at_k("codet", correct, ranking, 3) == 1.0
    assert problem_pass_at_k("codet", correct, ranking, 2, "codet") == ranked_pass_at_k(ranking, correct, 2, "codet")
    with pytest.raises(ValueError, match="needs its ranking"):
        problem_pass_at_k("codet", correct, None)
