import numpy as np
import pytest

from coderank_evalplus.rankers import get_ranker

try:
    from tests.rankers.helpers import groups_of, make_ctx, make_executions
except ImportError:  # tests/ is not a package: pytest put tests/rankers on sys.path
    from helpers import groups_of, make_ctx, make_executions


def _ex(n=4):
    return make_executions(passes=[[1, 0]] * n)


def test_random_is_one_group_of_all():
    r = get_ranker("random")(make_ctx(_ex()))
    assert groups_of(r) == [([0, 1, 2, 3], 0.0)]


def test_first_orders_candidates_by_index_without_ties():
    r = get_ranker("first")(make_ctx(_ex(3)))
    assert [g.candidates for g in r.groups] == [[0], [1], [2]]
    assert [g.score for g in r.groups] == sorted({g.score for g in r.groups}, reverse=True)


def test_oracle_puts_correct_first():
    r = get_ranker("oracle")(make_ctx(_ex(), correct=np.array([False, True, False, True])))
    assert groups_of(r) == [([1, 3], 1.0), ([0, 2], 0.0)]


def test_oracle_all_or_none_correct_is_one_group():
    assert groups_of(get_ranker("oracle")(make_ctx(_ex(2), correct=[True, True]))) == [([0, 1], 1.0)]
    assert groups_of(get_ranker("oracle")(make_ctx(_ex(2), correct=[False, False]))) == [([0, 1], 0.0)]


def test_oracle_without_correctness_raises():
    with pytest.raises(ValueError, match="correct"):
        get_ranker("oracle")(make_ctx(_ex()))
    with pytest.raises(ValueError, match="shape"):
        get_ranker("oracle")(make_ctx(_ex(), correct=[True]))
