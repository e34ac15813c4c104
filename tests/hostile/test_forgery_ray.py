"""Forgers judged on a Ray cluster (``--executor ray``): the referee runs in each node's workers too."""

from __future__ import annotations

import pytest

pytest.importorskip("ray")

from coderank_evalplus.engine.execution.ray_executor import RayExecutor  # noqa: E402
from coderank_evalplus.engine.judging.judge import Judge  # noqa: E402
from tests.engine.execution.test_ray_executor import cluster, worker_node  # noqa: E402,F401 - the fixtures
from tests.hostile.forgers import ALWAYS_EQUAL, FORGERS, GOOD  # noqa: E402
from tests.hostile.test_forgery import TASK, _problem  # noqa: E402

pytestmark = pytest.mark.timeout(420)


def test_ray_executor_judges_forgers_wrong(cluster, worker_node):  # noqa: F811
    progs = [FORGERS["fd_writer_call"], FORGERS["gc_walker"], FORGERS["ctypes_writer"], ALWAYS_EQUAL, GOOD]
    with RayExecutor(address=cluster.address, target_batch_s=0.2) as ex:
        judge = Judge(None, workers=1, progress=False, executor=ex)
        out = judge.judge_programs({TASK: progs}, {TASK: _problem("ray")})[TASK]
    assert [(v.base, v.plus) for v in out] == [(False, False)] * 3 + [(True, True)] * 2
    assert list(judge.suspicious) == [(TASK, ALWAYS_EQUAL)]


def test_ray_executor_keeps_the_engines_forgers_below_an_honest_wrong_candidate(cluster, worker_node):  # noqa: F811
    """CodeT's pass matrix on the cluster: its runners get probes only, the driver decides (issue 25, item 2)."""
    from coderank_evalplus.engine.execution.execute import ProblemWork, execute
    from coderank_evalplus.engine.sandbox import Limits
    from coderank_evalplus.testgen.extract import suite_from_asserts
    from coderank_evalplus.types import Problem
    from tests.hostile.forgers import ENGINE_FORGERS, HONEST_WRONG
    from tests.hostile.test_forgery_engine import ASSERTS

    names = ["slot_writer", "log_forger", "expectation_hunter", "always_equal"]
    prob = Problem("Forge/ray", "humaneval", "def add(a, b):\n", "add")
    work = ProblemWork(prob, [HONEST_WRONG, GOOD] + [ENGINE_FORGERS[n] for n in names],
                       suite_from_asserts(ASSERTS, "add"))
    with RayExecutor(address=cluster.address, target_batch_s=0.2) as ex:
        got = execute([work], None, Limits(cpu=0.5), progress=False, executor=ex)["Forge/ray"]
    passed = got.candidate_pass()
    assert passed[1].all() and not passed[0].any()
    assert not passed[2:].any(), names
