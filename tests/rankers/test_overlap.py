import math

import pytest

from coderank_evalplus.metrics import merged_groups
from coderank_evalplus.rankers import get_ranker
from coderank_evalplus.types import RAISED, RETURNED

try:
    from tests.rankers.helpers import groups_of, make_ctx, make_executions
except ImportError:  # tests/ is not a package: pytest put tests/rankers on sys.path
    from helpers import groups_of, make_ctx, make_executions

R, E = RETURNED, RAISED
# Two inputs; a0 parses to input 0 (generated twice), a1 does not parse (a raw assert, generated once).
# c0/c1 one program: outputs (1, 2), passes both -> n=2, T=3.  c2: outputs (1, 3), passes a0 -> n=1, T=2.
# c3: outputs (5, 6), passes nothing -> T=0.  c4 never got past its top level.
OUTPUTS = [[1, 2], [1, 2], [1, 3], [5, 6], [0, 0]]
PASSES = [[1, 1], [1, 1], [1, 0], [0, 0], [0, 0]]


def _ctx(**opts):
    ex = make_executions(passes=PASSES, counts=[2, 1], outputs=OUTPUTS, compiled=[True] * 4 + [False],
                         program_ids=[0, 0, 1, 2, 3], assert_input=[0, -1], expected=["1", None])
    return make_ctx(ex, **opts)


def test_scores_by_hand():
    # evidence n*T: A=6, B=2, C=0 (total 8); overlap A-B = 1/2 (they agree on input 0 only), others 0.
    got = groups_of(get_ranker("overlap_agreement")(_ctx()))
    assert [c for c, _ in got] == [[0, 1], [2], [3]]
    assert [s for _, s in got] == pytest.approx([(6 + 2 * math.sqrt(0.5)) / 8, (2 + 6 * math.sqrt(0.5)) / 8, 0.0])


def test_exponent_option_changes_neighbour_weight():
    got = groups_of(get_ranker("overlap_agreement")(_ctx(overlap_exponent=1.0)))
    assert [s for _, s in got] == pytest.approx([7 / 8, 5 / 8, 0.0])
    with pytest.raises(ValueError, match="overlap_exponent"):
        get_ranker("overlap_agreement")(_ctx(overlap_exponent=-1))


def test_unparsed_assert_verdicts_split_clusters():
    # c0 and c1 return the same values but differ on the raw assert: two clusters, the passing one first.
    ex = make_executions(passes=[[1, 1], [1, 0]], outputs=[[1, 2], [1, 2]], assert_input=[0, -1],
                         expected=["1", None])
    got = groups_of(get_ranker("overlap_agreement")(make_ctx(ex)))
    assert [c for c, _ in got] == [[0], [1]]
    # evidence 2 and 1; the two agree on both inputs (overlap 1): both score 3/3 and tie.
    assert got[0][1] == got[1][1] == pytest.approx(1.0)
    assert len(merged_groups(get_ranker("overlap_agreement")(make_ctx(ex)))) == 1


def test_exception_types_are_outcomes_and_never_agree():
    # c0 and c1 raise different exception types on input 1 (different digests): two clusters, overlap 1/2.
    ex = make_executions(passes=[[1], [1], [0]], outputs=[[1, 7], [1, 8], [4, 4]],
                         kinds=[[R, E], [R, E], [R, R]], assert_input=[0], expected=["1"])
    got = groups_of(get_ranker("overlap_agreement")(make_ctx(ex)))
    assert [c for c, _ in got] == [[0], [1], [2]]
    assert got[0][1] == pytest.approx((1 + math.sqrt(0.5)) / 2)


def test_no_tests_is_one_tie_of_runnable_candidates():
    ex = make_executions(passes=[[], [], []], compiled=[True, True, False])
    ranking = get_ranker("overlap_agreement")(make_ctx(ex))
    assert [sorted(g.candidates) for g in merged_groups(ranking)] == [[0, 1]]

