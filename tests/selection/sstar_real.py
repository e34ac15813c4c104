"""S* end to end on real samples (CodeGen-16B's HumanEval solutions and tests from the CodeT release): rank, then
ask a real model (the embedded SmolLM2, or vLLM's) through ``ModelSelector``, the step after ranking, on the
per-problem path. Machinery only: a 135M model's judgement is not what these tests measure."""

from __future__ import annotations

from pathlib import Path

N_PROBLEMS = 12  # the first 12 HumanEval problems; at least 10 of them have a rival to the pick
N_SOLUTIONS = 8
N_TESTS = 10
METHOD = "codet"


def ranked_items(tmp_path: Path):
    """(the items a step is given: each problem's CodeT ranking on CodeGen-16B's own tests, cache)."""
    from coderank_evalplus.api.evaluate import stage_config
    from coderank_evalplus.api.options import RerankOptions
    from coderank_evalplus.engine.execution.execute import ResultCache
    from coderank_evalplus.io.problems import load_problems
    from coderank_evalplus.io.samples import read_solutions, read_test_samples
    from coderank_evalplus.pipeline import build_works
    from coderank_evalplus.selection import StepItem
    from coderank_evalplus.selection.path import ProblemPath
    from tests.conftest import CODET_SOLUTIONS, CODET_TESTS, SHARED_DATA

    allp = load_problems("humaneval", str(SHARED_DATA))
    problems = {t: allp[t] for t in list(allp)[:N_PROBLEMS]}
    sols = {t: s[:N_SOLUTIONS] for t, s in read_solutions(CODET_SOLUTIONS, allp, str(SHARED_DATA)).items()
            if t in problems}
    tests = {t: s[:N_TESTS] for t, s in read_test_samples(CODET_TESTS, allp, str(SHARED_DATA)).items() if t in problems}
    works = build_works(problems, sols, tests, 5)
    cache = ResultCache(tmp_path / "cache" / "executions.sqlite")
    cfg = stage_config(RerankOptions(methods=[METHOD], workers=2, progress=False))
    outcomes = ProblemPath(cfg, [METHOD], cache).run(works)
    items = [StepItem(w, outcomes[w.problem.task_id].executions, outcomes[w.problem.task_id].rankings[METHOD],
                      METHOD) for w in works]
    return items, cache


def check_sstar_machinery(selector, tmp_path: Path) -> dict:
    """Run the selector on the ranked problems twice; assert what the machinery owes whatever the model says.
    Returns the first run's decisions by task id (for a test to add its own checks)."""
    from coderank_evalplus.engine.sandbox import Limits
    from coderank_evalplus.metrics import pick_pool
    from coderank_evalplus.selection import SelectEnv

    items, cache = ranked_items(tmp_path)
    env = SelectEnv(cache, Limits(cpu=0.1), workers=2)
    try:
        answers = selector.run(items, env)
        first = {it.work.problem.task_id: a.decision for it, a in zip(items, answers) if a.decision is not None}
        assert len(first) >= 10, f"only {len(first)} problems have a rival to the pick"
        for it, a in zip(items, answers):
            d, n = a.decision, it.executions.n_candidates
            if d is None:
                continue
            assert 1 <= d.attempts <= 3 and d.model_calls >= 1 and a.cost.model_calls == d.model_calls
            assert a.ranking.info["sstar"]["attempts"] == d.attempts
            if d.winner is None:  # the ranking stands
                assert pick_pool(a.ranking, n) == pick_pool(it.ranking, n) and not a.changed
            else:  # the winner's side is the new pick pool, and the evidence is there
                assert d.winner_index in pick_pool(a.ranking, n)
                assert d.shown and len(d.answers) == 2
                assert d.shown[0].input in " ".join(a.reasons())
            assert {s.input for s in d.shown} <= set(d.inputs)  # shown: inputs the model gave, that ran
        # a rerun reads every reply from the log: not one call
        again = [a.decision for a in selector.run(items, env) if a.decision is not None]
        assert sum(d.model_calls for d in again) == 0
        assert [d.winner for d in again] == [d.winner for d in first.values()]
        return first
    finally:
        cache.close()
