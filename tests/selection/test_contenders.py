"""Who is in contention for a pick (``selection.contenders.contenders_of``): one rule for every step, on
``pick_pool``."""

from coderank_evalplus.selection.contenders import contenders_of
from coderank_evalplus.types import Group, Ranking


def test_the_pool_and_the_group_ranked_after_it():
    ranking = Ranking([Group([3, 1], 2.0), Group([0], 2.0), Group([2], 1.0), Group([4], 0.5)])
    contenders = contenders_of(ranking, 5)
    assert contenders.pool == [0, 1, 3]  # ties merged, as the pick reads them
    assert contenders.runner_up == [2] and contenders.candidates == [0, 1, 2, 3]


def test_a_ranking_without_groups_contends_with_its_fallback_pool_else_everyone():
    assert contenders_of(Ranking([], {"fallback_pool": [4, 2]}), 6).groups == [[2, 4]]
    assert contenders_of(Ranking([]), 3).groups == [[0, 1, 2]]
