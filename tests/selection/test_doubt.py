"""Who is in contention for a pick (``selection.doubt.contest_of``): one rule for every step, on ``pick_pool``."""

from coderank_evalplus.selection.doubt import contest_of
from coderank_evalplus.types import Group, Ranking


def test_the_pool_and_the_group_ranked_after_it():
    ranking = Ranking([Group([3, 1], 2.0), Group([0], 2.0), Group([2], 1.0), Group([4], 0.5)])
    contest = contest_of(ranking, 5)
    assert contest.pool == [0, 1, 3]  # ties merged, as the pick reads them
    assert contest.runner_up == [2] and contest.contenders == [0, 1, 2, 3]


def test_a_ranking_without_groups_contends_with_its_fallback_pool_else_everyone():
    assert contest_of(Ranking([], {"fallback_pool": [4, 2]}), 6).groups == [[2, 4]]
    assert contest_of(Ranking([]), 3).groups == [[0, 1, 2]]
