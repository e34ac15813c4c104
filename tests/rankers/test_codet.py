import math

import pytest

from coderank_evalplus.rankers import get_ranker
try:
    from tests.rankers.helpers import groups_of, make_ctx, make_executions
except ImportError:  # tests/ is not a package: pytest put tests/rankers on sys.path
    from helpers import groups_of, make_ctx, make_executions

# counts: a0 once, a1 once, a2 twice.  c2/c3 are one program (duplicates), c5 passes nothing.
PASSES = [[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 1], [0, 0, 1], [0, 0, 0], [1, 1, 1]]
IDS = [0, 1, 2, 2, 3, 4, 5]


def _ctx():
    return make_ctx(make_executions(passes=PASSES, counts=[1, 1, 2], program_ids=IDS))


def test_codet_sqrt_score_and_order():
    r = get_ranker("codet")(_ctx())
    got = groups_of(r)
    assert [c for c, _ in got] == [[6], [2, 3, 4], [0, 1]]  # c5 unranked
    assert [s for _, s in got] == pytest.approx([4.0, 2 * math.sqrt(3), 2 * math.sqrt(2)])


def test_codet_linear_ties_are_kept_as_equal_scores():
    got = groups_of(get_ranker("codet_linear")(_ctx()))
    assert got == [([2, 3, 4], 6.0), ([0, 1], 4.0), ([6], 4.0)]


def test_codet_log_uses_log1p_of_size():
    got = {tuple(c): s for c, s in groups_of(get_ranker("codet_log")(_ctx()))}
    assert got == pytest.approx({(2, 3, 4): 2 * math.log(4), (6,): 4 * math.log(2), (0, 1): 2 * math.log(3)})
    assert list(got)[-1] == (0, 1)


def test_nothing_passed_ranks_nothing():
    ex = make_executions(passes=[[0, 0], [0, 0]])
    assert get_ranker("codet")(make_ctx(ex)).groups == []
