"""Issue 25, item 2, NOT fixed yet: the execution engine's child still decides its tests' outcomes itself.

A candidate in that child reaches the shared-memory page its results go to (``child._TIMER``, or any frame) and
marks every test passed; CodeT then ranks it above an honest wrong candidate. Kept as a strict xfail: it fails
loudly (XPASS) once the engine reports observations only, as the judge does (see docs/engine.md).
"""

from __future__ import annotations

import pytest

from coderank_evalplus.engine.execution import execute
from coderank_evalplus.engine.execution import ProblemWork
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.rankers import RankContext, get_ranker
from coderank_evalplus.testgen.extract import suite_from_asserts
from coderank_evalplus.types import Problem
from tests.hostile.forgers import GOOD, HONEST_WRONG, SLOT_WRITER

ASSERTS = {"add(1, 2) == 3": 1, "add(2, 2) == 4": 1, "add(-1, 1) == 0": 1}


@pytest.mark.xfail(strict=True, reason="issue 25 item 2: the engine's pass matrix is still forgeable")
def test_slot_writer_is_not_ranked_above_an_honest_wrong_candidate():
    prob = Problem("Forge/engine", "humaneval", "def add(a, b):\n", "add")
    work = ProblemWork(prob, [HONEST_WRONG, SLOT_WRITER, GOOD], suite_from_asserts(ASSERTS, "add"))
    ex = execute([work], None, Limits(cpu=0.1), workers=1, progress=False)["Forge/engine"]
    passed = ex.candidate_pass()
    assert passed[2].all() and not passed[0].any()  # the honest ones get their outcomes
    assert not passed[1].any()
    ranking = get_ranker("codet")(RankContext(prob, ex, seed=0))
    order = [c for g in ranking.groups for c in g.candidates]
    assert order.index(1) > order.index(0)
