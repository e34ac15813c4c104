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


def _with_asserts(ex, asserts):
    ex.suite.asserts = list(asserts)
    return ex


def test_packing_rule_of_the_released_code():
    from coderank_evalplus.rankers.codet import packs_into_one_function

    assert packs_into_one_function(["f(1) == 2", "f([1,\n 2]) == 3"])
    # a generated test that dragged module-level code along: `import *` cannot sit inside a function
    assert not packs_into_one_function(["f(1) == 2", "f(2) == 3\n\nfrom os import *"])
    # a `yield` makes the packed check a generator: no list of results either
    assert not packs_into_one_function(["f(1) == 2\n(yield)"])


def test_codet_reference_leaves_an_unpackable_problem_unranked():
    good = ["f(1) == 2", "f(2) == 3", "f(3) == 4"]
    ex = _with_asserts(make_executions(passes=PASSES, counts=[1, 1, 2], program_ids=IDS), good)
    assert groups_of(get_ranker("codet_reference")(make_ctx(ex))) == groups_of(get_ranker("codet")(make_ctx(ex)))
    bad = _with_asserts(make_executions(passes=PASSES, counts=[1, 1, 2], program_ids=IDS),
                        good[:2] + ["f(3) == 4\nfrom os.path import *"])
    assert get_ranker("codet_reference")(make_ctx(bad)).groups == []
    assert get_ranker("codet")(make_ctx(bad)).groups != []
