"""Forgers judged on a Ray cluster (``--executor ray``): the referee runs in each node's workers too."""

from __future__ import annotations

import pytest

pytest.importorskip("ray")

from coderank_evalplus.engine.judge import Judge  # noqa: E402
from coderank_evalplus.engine.ray_executor import RayExecutor  # noqa: E402
from tests.engine.test_ray_executor import cluster, worker_node  # noqa: E402,F401 - the fixtures
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
