import numpy as np
import pytest

from coderank_evalplus.rankers import get_ranker, list_rankers
from coderank_evalplus.rankers.filtering import with_trial_filter
from coderank_evalplus.types import FAIL, PASS

try:
    from tests.rankers.helpers import groups_of, make_ctx, make_executions
except ImportError:  # tests/ is not a package: pytest put tests/rankers on sys.path
    from helpers import groups_of, make_ctx, make_executions

P, F = PASS, FAIL


def _ex(trial):
    # codet groups: {c0,c1} pass a0 (score 1*sqrt2), {c2} passes a0,a1 (score 2), {c3} passes nothing
    return make_executions(passes=[[1, 0], [1, 0], [1, 1], [0, 0]], trial=trial,
                           outputs=[[1], [1], [2], [3]])


def test_filter_then_codet_maps_indices_back():
    r = get_ranker("filter+codet")(make_ctx(_ex([[P], [F], [F], [P]])))
    assert groups_of(r) == [([0], 1.0)]
    assert r.info["trial_filter"] == {"kept": 2, "total": 4, "applied": True}


def test_filter_random_and_oracle():
    ctx = make_ctx(_ex([[P, P], [F, P], [P, P], [P, P]]), correct=np.array([False, True, True, False]))
    assert groups_of(get_ranker("filter+random")(ctx)) == [([0, 2, 3], 0.0)]
    assert groups_of(get_ranker("filter+oracle")(ctx)) == [([2], 1.0), ([0, 3], 0.0)]


def test_no_trial_tests_or_no_survivor_keeps_all():
    plain = groups_of(get_ranker("codet")(make_ctx(_ex(None))))
    assert groups_of(get_ranker("filter+codet")(make_ctx(_ex(None)))) == plain
    r = get_ranker("filter+codet")(make_ctx(_ex([[F]] * 4)))
    assert groups_of(r) == plain and r.info["trial_filter"]["applied"] is False


def test_empty_inner_ranking_records_fallback_pool():
    r = get_ranker("filter+codet")(make_ctx(_ex([[F], [F], [F], [P]])))
    assert r.groups == [] and r.info["fallback_pool"] == [3]


def test_benchmark_outputs_are_restricted_to_survivors():
    bench = (np.array([[4], [4], [5], [4]]), np.zeros((4, 1), dtype=np.uint8))
    r = get_ranker("filter+mbr_exec_hidden")(make_ctx(_ex([[F], [P], [P], [P]]), benchmark_outputs=bench))
    assert groups_of(r) == [([1, 3], 2.0), ([2], 1.0)]


@pytest.mark.parametrize("name", list_rankers())
def test_every_ranker_can_be_filtered(name):
    ex = _ex([[P], [F], [P], [P]])
    bench = (np.array([[1], [1], [2], [2]]), np.zeros((4, 1), dtype=np.uint8))
    lp = dict(logprob=np.array([-1.0, -2.0, -3.0, -4.0]), logprob_tokens=np.array([1.0, 2.0, 3.0, 4.0]),
              reviewer_logprob=np.array([-4.0, -3.0, -2.0, -1.0]), reviewer_logprob_tokens=np.ones(4))
    ctx = make_ctx(ex, benchmark_outputs=bench, correct=[True, True, False, False], **lp)
    r = with_trial_filter(get_ranker(name))(ctx)
    assert all(c in (0, 2, 3) for g in r.groups for c in g.candidates)
