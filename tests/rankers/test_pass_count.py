from coderank_evalplus.rankers import get_ranker

try:
    from tests.rankers.helpers import groups_of, make_ctx, make_executions
except ImportError:  # tests/ is not a package: pytest put tests/rankers on sys.path
    from helpers import groups_of, make_ctx, make_executions


def test_groups_by_weighted_count_and_drops_zero():
    ex = make_executions(
        passes=[[1, 1, 0], [0, 0, 1], [0, 1, 1], [0, 0, 0], [1, 0, 0]],
        counts=[2, 1, 1],
    )
    r = get_ranker("pass_count")(make_ctx(ex))
    assert groups_of(r) == [([0], 3.0), ([2, 4], 2.0), ([1], 1.0)]


def test_duplicates_are_distinct_candidates():
    ex = make_executions(passes=[[1], [1], [0]], program_ids=[7, 7, 8])
    assert groups_of(get_ranker("pass_count")(make_ctx(ex))) == [([0, 1], 1.0)]


def test_no_asserts_ranks_nothing():
    ex = make_executions(passes=[[], []])
    assert get_ranker("pass_count")(make_ctx(ex)).groups == []
