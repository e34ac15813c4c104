import pytest

from coderank_evalplus import types as core_types
from coderank_evalplus.rankers import get_ranker
from coderank_evalplus.rankers.srank import reference_columns
from coderank_evalplus.types import RAISED, RETURNED

try:
    from tests.rankers.helpers import groups_of, make_ctx, make_executions
except ImportError:  # tests/ is not a package: pytest put tests/rankers on sys.path
    from helpers import groups_of, make_ctx, make_executions

R, E = RETURNED, RAISED
# Three inputs. c0/c1 one program, c2 another program with the same outputs (cluster 1, two distinct
# programs); c3 cluster 2; c7 cluster 3; c4 constant output, c5 raises everywhere, c6 does not compile.
OUTPUTS = [[1, 2, 3], [1, 2, 3], [1, 2, 3], [1, 2, 4], [5, 5, 5], [0, 0, 0], [0, 0, 0], [9, 2, 7]]
KINDS = [[R] * 3] * 5 + [[E] * 3] + [[R] * 3] * 2
COMPILED = [True] * 6 + [False, True]
IDS = [0, 0, 1, 2, 3, 4, 5, 6]
# Asserts: a0 "f(x0) == 1" x2, a1 "f(x2) == 3", a2 "f(x2) == 4", a3 unparsed x5 (ignored by the pass rate).
PASSES = [[1, 1, 0, 1]] * 3 + [[1, 0, 1, 1]] + [[0, 0, 0, 1]] * 2 + [[0, 0, 0, 0]] + [[0, 0, 0, 1]]


def _ctx(**opts):
    ex = make_executions(passes=PASSES, counts=[2, 1, 1, 5], outputs=OUTPUTS, kinds=KINDS, compiled=COMPILED,
                         program_ids=IDS, assert_input=[0, 2, 2, -1], expected=["1", "3", "4", None])
    return make_ctx(ex, **opts)


def _check(name, expected):
    got = groups_of(get_ranker(name)(_ctx()))
    assert [c for c, _ in got] == [c for c, _ in expected]
    assert [s for _, s in got] == pytest.approx([s for _, s in expected])


# size = distinct programs / 4 valid programs = [1/2, 1/4, 1/4]; pass rate = [3/4, 3/4, 0]
# I = [[1, 2/3, 1/3], [2/3, 1, 1/3], [1/3, 1/3, 1]]; invalid candidates share one group with score 0.
def test_srank_full():
    _check("srank", [([0, 1, 2], 0.5), ([3], 0.4375), ([7], 0.1875), ([4, 5, 6], 0.0)])


def test_srank_size():
    _check("srank_size", [([0, 1, 2], 0.5), ([3], 0.25), ([7], 0.25), ([4, 5, 6], 0.0)])


def test_srank_passrate_ties():
    _check("srank_passrate", [([0, 1, 2], 0.75), ([3], 0.75), ([4, 5, 6], 0.0), ([7], 0.0)])


def test_srank_size_passrate():
    _check("srank_size_passrate", [([0, 1, 2], 0.375), ([3], 0.1875), ([4, 5, 6], 0.0), ([7], 0.0)])


def test_srank_i_size():
    _check("srank_i_size", [([0, 1, 2], 0.75), ([3], 2 / 3), ([7], 0.5), ([4, 5, 6], 0.0)])


def test_srank_i_passrate_exact_tie():
    r = get_ranker("srank_i_passrate")(_ctx())
    assert r.groups[0].score == r.groups[1].score == pytest.approx(1.25)
    assert groups_of(r)[2:] == [([7], 0.5), ([4, 5, 6], 0.0)]
    assert r.info["n_invalid"] == 3


def test_single_input_raise_is_valid_but_scores_zero():
    ex = make_executions(passes=[[1], [0]], outputs=[[1], [0]], kinds=[[R], [E]], assert_input=[0],
                         expected=["1"])
    # the raising candidate is valid (reference: only >1 input can make it constant), so it halves size
    assert groups_of(get_ranker("srank")(make_ctx(ex))) == [([0], 0.5), ([1], 0.0)]


def test_exception_types_split_clusters_unless_any():
    ex = make_executions(passes=[[1], [1]], outputs=[[11, 4], [22, 4]], kinds=[[E, R], [E, R]],
                         assert_input=[1], expected=["4"])
    assert len(get_ranker("srank")(make_ctx(ex)).groups) == 2
    assert groups_of(get_ranker("srank")(make_ctx(ex, srank_exceptions="any"))) == [([0, 1], 1.0)]


def test_no_inputs_everything_invalid():
    ex = make_executions(passes=[[1], [0]])
    assert groups_of(get_ranker("srank")(make_ctx(ex))) == [([0, 1], 0.0)]


def test_reference_inputs_exact_text_no_truthiness_junk_raises():
    ex = make_executions(passes=[[1, 1, 1, 0], [1, 1, 1, 0], [0, 0, 1, 0]], outputs=[[1, 5], [1, 6], [7, 5]],
                         assert_input=[0, 0, 1, -1], expected=["1", "1", None, None])
    ex.suite = core_types.TestSuite(asserts=["f(1) == 1", "f( 1) == 1", "f(2)", "____.f(3) == 3"], counts=[1, 1, 1, 1],
                         inputs=["f(1)", "f(2)"], assert_input=[0, 0, 1, -1], expected=["1", "1", None, None],
                         comparisons=["==", "==", "truthy", "raw"])
    # reference list: "f(1)" and "f( 1)" (two texts, one executed call), no input from the bare "f(2)",
    # "____.f(3)" never executed here (it can only raise)
    assert reference_columns(make_ctx(ex)) == [0, 0, -1]
    assert len(get_ranker("srank")(make_ctx(ex)).groups) == 3  # f(2) splits c0 and c1
    got = groups_of(get_ranker("srank_reference")(make_ctx(ex)))
    assert [c for c, _ in got] == [[0, 1], [2]]
    assert [s for _, s in got] == pytest.approx([2 / 3, 0.0])
    same_options = groups_of(get_ranker("srank")(make_ctx(ex, srank_inputs="reference", srank_exceptions="any")))
    assert [c for c, _ in same_options] == [c for c, _ in got]
    # the released code merges only float-equal scores: srank_reference keeps the raw float, srank rounds
    assert got[0][1] == 2 / 3 and same_options[0][1] == round(2 / 3, 12) != 2 / 3
    with pytest.raises(ValueError):
        get_ranker("srank")(make_ctx(ex, srank_inputs="nonsense"))
