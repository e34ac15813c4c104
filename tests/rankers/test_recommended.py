from coderank_evalplus.rankers import describe_ranker, get_ranker
from coderank_evalplus.rankers.recommended import TARGET

try:
    from tests.rankers.helpers import groups_of, make_ctx, make_executions
except ImportError:  # tests/ is not a package: pytest put tests/rankers on sys.path
    from helpers import groups_of, make_ctx, make_executions


def test_recommended_is_the_documented_alias():
    ex = make_executions(passes=[[1], [1], [0]], outputs=[[1, 2], [1, 2], [3, 4]], assert_input=[0], expected=["1"])
    direct = get_ranker(TARGET)(make_ctx(ex))
    alias = get_ranker("recommended")(make_ctx(ex))
    assert groups_of(alias) == groups_of(direct) and alias.groups
    assert alias.info["alias_of"] == TARGET and alias.info["method"] == "recommended"
    assert TARGET in describe_ranker("recommended")
