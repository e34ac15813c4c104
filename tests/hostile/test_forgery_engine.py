"""Issue 25, item 2: the execution engine's child decides no outcome, so forging what it writes gains nothing.

A candidate in that child reaches the shared-memory page its results go to (``child._TIMER``, or any frame). Before,
it could mark every test passed there and CodeT ranked it above an honest wrong candidate; now the page holds only
what its probes returned (claims), and the verdicts are decided by the process that holds the tests.
"""

from __future__ import annotations

import pytest

from coderank_evalplus.engine.execution.execute import ProblemWork, execute
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.rankers import RankContext, get_ranker
from coderank_evalplus.testgen.extract import suite_from_asserts
from coderank_evalplus.types import Problem
from tests.hostile.forgers import ENGINE_FORGERS, EXPECTATION_HUNTER, GOOD, HONEST_WRONG

ASSERTS = {"add(1, 2) == 3": 1, "add(2, 2) == 4": 1, "add(-1, 1) == 0": 1, "math.isclose(add(0.5, 0.25), 0.75)": 1,
           "sorted([add(3, 4), 1]) == [1, 7]": 1}


@pytest.mark.parametrize("name", sorted(ENGINE_FORGERS))
def test_no_forger_passes_a_test_or_is_ranked_above_an_honest_wrong_candidate(name):
    prob = Problem("Forge/engine", "humaneval", "def add(a, b):\n", "add")
    work = ProblemWork(prob, [HONEST_WRONG, ENGINE_FORGERS[name], GOOD], suite_from_asserts(ASSERTS, "add"))
    ex = execute([work], None, Limits(cpu=0.5), workers=1, progress=False)["Forge/engine"]
    passed = ex.candidate_pass()
    assert passed[2].all() and not passed[0].any()  # the honest ones get their outcomes
    assert not passed[1].any(), ex.pass_matrix[ex.program_of_candidate[1]].tolist()
    ranking = get_ranker("codet")(RankContext(prob, ex, seed=0))
    order = [c for g in ranking.groups for c in g.candidates]
    assert 1 not in order or order.index(1) > order.index(0)


def test_the_hunter_finds_the_expected_values_where_they_are_in_its_process():
    """The hunter is not idle: in a process holding the split tests it returns every expected value."""
    from coderank_evalplus.engine.execution.execute import suite_items
    from coderank_evalplus.engine.sandbox.verdicts import plan_items

    items = suite_items(suite_from_asserts(ASSERTS, "add"), ())[0]
    plan = plan_items(items)  # noqa: F841 - held, so that the collector sees it
    env: dict = {}
    exec(EXPECTATION_HUNTER, env)
    assert (env["add"](1, 2), env["add"](2, 2), env["add"](-1, 1)) == (3, 4, 0)
