import math

import pytest

from coderank_evalplus.rankers import get_ranker
from coderank_evalplus.rankers.b4 import b4_scores

try:
    from tests.rankers.helpers import groups_of, make_ctx, make_executions
except ImportError:  # tests/ is not a package: pytest put tests/rankers on sys.path
    from helpers import groups_of, make_ctx, make_executions

# Four distinct programs, two asserts: patterns 11 (c0, c1), 10 (c2), 00 (c3).
PASSES = [[1, 1], [1, 1], [1, 0], [0, 0]]


def _rank(passes=PASSES, **kw):
    opts = {k: kw.pop(k) for k in list(kw) if k.startswith("b4_")}
    return get_ranker("b4")(make_ctx(make_executions(passes=passes, **kw), **opts))


def test_scores_by_hand_with_flat_priors():
    # alpha = beta0 = 1: each term is a Beta function of small integers, worked out on paper.
    # 11: B(3,3)·B(3,1)·B(2,4)·B(1,1) = 1/30·1/3·1/20     = 1/1800
    # 10: B(2,4)·B(2,2)·B(3,2)·B(3,2) = 1/20·1/6·1/12·1/12 = 1/17280
    # 00: B(2,4)·B(1,3)·B(1,1)·B(6,2) = 1/20·1/3·1/42     = 1/2520
    got = groups_of(_rank(b4_alpha=1, b4_beta0=1))
    assert [c for c, _ in got] == [[0, 1], [3], [2]]
    assert [s for _, s in got] == pytest.approx([math.log(1 / 1800), math.log(1 / 2520), math.log(1 / 17280)])


def test_default_priors_prefer_the_group_passing_most_tests():
    # alpha = 1e3 rewards large groups passing many tests; beta0 = 1e4 punishes other rows passing y's failed tests.
    got = groups_of(_rank())
    assert [c for c, _ in got] == [[0, 1], [2], [3]]
    # the 10 group's score by hand with the default priors (lgamma form of the Beta function)
    lb = lambda a, b: math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)  # noqa: E731
    expected_10 = lb(1 + 1e3, 3 + 1) + lb(1 + 1e3, 1 + 1) + lb(2 + 1, 1 + 1) + lb(2 + 1, 1 + 1e4)
    assert got[1][1] == pytest.approx(expected_10, rel=1e-12)


def test_repeated_asserts_count_once():
    # B4's columns are DISTINCT tests: multiplicities (CodeT's weights) do not change the scores.
    once = groups_of(_rank(counts=[1, 1]))
    many = groups_of(_rank(counts=[7, 1]))
    assert once == many


def test_duplicates_listed_once_unless_counted():
    ids = [0, 0, 1, 2]  # c0 and c1 are one program
    passes = [[1, 1], [1, 1], [1, 0], [0, 0]]
    distinct = groups_of(_rank(passes, program_ids=ids))
    assert [c for c, _ in distinct] == [[0], [2], [3]]
    counted = groups_of(_rank(passes, program_ids=ids, b4_duplicates="count"))
    assert [c for c, _ in counted] == [[0, 1], [2], [3]]
    assert [s for _, s in counted] == [s for _, s in distinct]
    with pytest.raises(ValueError, match="b4_duplicates"):
        _rank(b4_duplicates="some")


def test_programs_without_results_are_unranked_and_not_in_E():
    # c3 never got past its top level: it is no row of E, so the 00 pattern does not exist.
    passes = [[1, 1], [1, 1], [1, 0], [0, 0]]
    r = _rank(passes, compiled=[True, True, True, False], b4_alpha=1, b4_beta0=1)
    assert [c for c, _ in groups_of(r)] == [[0, 1], [2]]
    E = [[1, 1], [1, 1], [1, 0]]
    assert [s for _, s in groups_of(r)] == pytest.approx(list(b4_scores(E, [[1, 1], [1, 0]], 1, 1)))


def test_no_tests_or_unpackable_tests_rank_nothing():
    assert _rank([[], [], [], []]).groups == []
    ex = make_executions(passes=PASSES)
    ex.suite.asserts[0] = "f(0) == 0\nfrom os import *"  # module-level only: the packed check cannot compile
    r = get_ranker("b4")(make_ctx(ex))
    assert r.groups == [] and "pack" in r.info["unranked"]


def test_filter_wrapper_works():
    r = get_ranker("filter+b4")(make_ctx(make_executions(passes=PASSES)))
    assert [c for c, _ in groups_of(r)] == [[0, 1], [2], [3]]

