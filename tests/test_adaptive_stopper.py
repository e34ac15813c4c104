"""``pipeline.adaptive_stopper``: a problem's solutions so far down the per-problem path; it stops at τ."""

from __future__ import annotations

from coderank_evalplus.api.evaluate import stage_config
from coderank_evalplus.api.options import RerankOptions
from coderank_evalplus.engine.execution import ResultCache
from coderank_evalplus.pipeline import adaptive_stopper
from coderank_evalplus.types import Problem

PROMPT = 'def add(a, b):\n    """ Add.\n    """\n'
PROBLEM = Problem(task_id="T/0", dataset="humaneval", prompt=PROMPT, entry_point="add")
RIGHT = PROMPT + "    return a + b\n"
WRONG = PROMPT + "    return a - b\n"
TESTS = ["add(1, 2) == 3\nassert add(2, 2) == 4", "add(0, 0) == 0"]


def test_agreeing_right_samples_are_more_confident_than_a_split_and_tau_decides(tmp_path):
    cache = ResultCache(tmp_path / "executions.sqlite")
    cfg = stage_config(RerankOptions(methods=["recommended"], workers=1, progress=False))
    try:
        stop = adaptive_stopper("recommended", cfg, cache, tau=0.0)
        done, agree = stop(PROBLEM, [RIGHT] * 6, TESTS, {})
        assert done  # τ = 0 stops at once
        split = adaptive_stopper("recommended", cfg, cache, tau=1.0)(PROBLEM, [RIGHT, WRONG, WRONG + "\n"], TESTS, {})
        assert split[0] is False and 0.0 <= split[1] < agree <= 1.0
    finally:
        cache.close()


def test_the_stopping_method_and_threshold():
    from coderank_evalplus.pipeline import adaptive_method, adaptive_tau
    from coderank_evalplus.rankers.confidence import default_model

    assert adaptive_method(["random", "codet", "srank", "oracle"]) == "codet"
    assert adaptive_method(["random", "codet", "recommended", "oracle"]) == "recommended"
    assert adaptive_method(["random", "oracle"]) == "recommended"
    assert adaptive_tau(0.3) == 0.3 and adaptive_tau(0) == 0.0
    assert adaptive_tau() == float(default_model()["tau"])
