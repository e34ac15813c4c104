"""S* end to end on real samples (CodeGen-16B's HumanEval solutions and tests from the CodeT release): rank, then
ask a real model (the embedded SmolLM2, or vLLM's) through ``ModelSelector``. Machinery only: a 135M model's
judgement is not what these tests measure."""

from __future__ import annotations

from pathlib import Path

N_PROBLEMS = 12  # the first 12 HumanEval problems; at least 10 of them have a rival to the pick
N_SOLUTIONS = 8
N_TESTS = 10
METHOD = "codet"


def ranked_outcomes(tmp_path: Path):
    """(problems, outcomes, cache) of the first problems, ranked by CodeT on CodeGen-16B's own tests."""
    from coderank_evalplus.engine.execution import ResultCache, execute
    from coderank_evalplus.io.problems import load_problems
    from coderank_evalplus.io.samples import read_solutions, read_test_samples
    from coderank_evalplus.pipeline import build_works, rank_outcome
    from tests.conftest import CODET_SOLUTIONS, CODET_TESTS, SHARED_DATA

    allp = load_problems("humaneval", str(SHARED_DATA))
    problems = {t: allp[t] for t in list(allp)[:N_PROBLEMS]}
    sols = {t: s[:N_SOLUTIONS] for t, s in read_solutions(CODET_SOLUTIONS, allp, str(SHARED_DATA)).items()
            if t in problems}
    tests = {t: s[:N_TESTS] for t, s in read_test_samples(CODET_TESTS, allp, str(SHARED_DATA)).items() if t in problems}
    works = build_works(problems, sols, tests, 5)
    cache = ResultCache(tmp_path / "cache" / "executions.sqlite")
    ex = execute(works, cache, workers=2, progress=False)
    outcomes = {w.problem.task_id: rank_outcome(w, ex[w.problem.task_id], [METHOD]) for w in works}
    return problems, outcomes, cache


def check_sstar_machinery(selector, tmp_path: Path) -> dict:
    """Run the selector on the ranked outcomes twice; assert what the machinery owes whatever the model says.
    Returns the first run's decisions (for a test to add its own checks)."""
    import copy

    from coderank_evalplus.metrics import pick_pool

    problems, outcomes, cache = ranked_outcomes(tmp_path)
    before = {t: copy.deepcopy(o.rankings[METHOD]) for t, o in outcomes.items()}
    try:
        first = selector.select(outcomes, problems, [METHOD], cache, workers=2)
        assert len(first) >= 10, f"only {len(first)} problems have a rival to the pick"
        for (tid, _), d in first.items():
            assert 1 <= d.attempts <= 3 and d.model_calls >= 1
            ranking = outcomes[tid].rankings[METHOD]
            assert ranking.info["sstar"]["attempts"] == d.attempts
            if d.winner is None:  # the ranking stands
                assert pick_pool(ranking, outcomes[tid].n_candidates) == pick_pool(before[tid],
                                                                                   outcomes[tid].n_candidates)
            else:  # the winner's side is the new pick pool, and the evidence is there
                assert d.winner_index in pick_pool(ranking, outcomes[tid].n_candidates)
                assert d.shown and len(d.answers) == 2
                assert d.shown[0].input in " ".join(d.reasons())
            assert {s.input for s in d.shown} <= set(d.inputs)  # shown: inputs the model gave, that ran
        # a rerun reads every reply from the log: not one call
        problems2, outcomes2, cache2 = problems, {t: copy.deepcopy(o) for t, o in outcomes.items()}, cache
        for t, o in outcomes2.items():
            o.rankings[METHOD] = before[t]
        again = selector.select(outcomes2, problems2, [METHOD], cache2, workers=2)
        assert sum(d.model_calls for d in again.values()) == 0
        assert [d.winner for d in again.values()] == [d.winner for d in first.values()]
        return first
    finally:
        cache.close()
