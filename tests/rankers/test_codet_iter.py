import pytest

from coderank_evalplus.rankers import get_ranker

try:
    from tests.rankers.helpers import groups_of, make_ctx, make_executions
except ImportError:  # tests/ is not a package: pytest put tests/rankers on sys.path
    from helpers import groups_of, make_ctx, make_executions

# Group A = {c0} passes a0 (count 3); group B = {c1..c4} passes a1 (count 1); c5 passes nothing.
PASSES = [[1, 0], [0, 1], [0, 1], [0, 1], [0, 1], [0, 0]]


def _ctx(**opts):
    return make_ctx(make_executions(passes=PASSES, counts=[3, 1]), **opts)


def test_zero_iterations_ranks_by_sqrt_size():
    got = groups_of(get_ranker("codet_iter")(_ctx(iterations=0)))
    assert [c for c, _ in got] == [[1, 2, 3, 4], [0]]
    assert [s for _, s in got] == pytest.approx([2 / 3, 1 / 3])


def test_one_iteration_by_hand():
    # W counts passing (candidate, assert copy) pairs: A = 1 × 3 on a0, B = 4 × 1 on a1 → W = [[3, 0], [0, 4]].
    # f0 = [1, 2]/3, g0 = [1, 1]/2; f = 0.5 f0 + 0.5 W g0 = [1/6 + 3/4, 1/3 + 1] = [11/12, 16/12] → /(27/12)
    got = groups_of(get_ranker("codet_iter")(_ctx(iterations=1, alpha=0.5, beta=0.5)))
    assert [c for c, _ in got] == [[1, 2, 3, 4], [0]]
    assert [s for _, s in got] == pytest.approx([16 / 27, 11 / 27])


def test_default_scores_sum_to_one_and_unranked_excluded():
    r = get_ranker("codet_iter")(_ctx())
    assert sorted(c for g in r.groups for c in g.candidates) == [0, 1, 2, 3, 4]
    assert sum(g.score for g in r.groups) == pytest.approx(1.0)
    assert r.info["iterations"] == 3 and r.info["alpha"] == 0.9


def test_symmetric_groups_tie_exactly():
    ex = make_executions(passes=[[1, 0, 1], [0, 1, 1], [0, 0, 0]], counts=[2, 2, 1])
    r = get_ranker("codet_iter")(make_ctx(ex))
    assert len(r.groups) == 2 and r.groups[0].score == r.groups[1].score


def test_nothing_passed():
    assert get_ranker("codet_iter")(make_ctx(make_executions(passes=[[0]]))).groups == []
