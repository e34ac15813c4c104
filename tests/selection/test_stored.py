"""A stored run replayed on the per-problem path (selection/stored.py): its figures are a live run's, at the full
budget and on a sub-sample of the candidates, for every method, ``recommended`` (a step after ranking) included."""

from __future__ import annotations

import numpy as np
import pytest

from coderank_evalplus import metrics
from coderank_evalplus.api.evaluate import stage_config
from coderank_evalplus.api.options import RerankOptions
from coderank_evalplus.engine.execution.execute import ResultCache
from coderank_evalplus.io.problems import problem_from_prompt
from coderank_evalplus.io.results_folder import load_folder
from coderank_evalplus.pipeline import correct_array, rank_and_judge, write_results
from coderank_evalplus.report.curves import draw_subset, scores_at_budget
from coderank_evalplus.selection.stored import StoredSteps
from coderank_evalplus.types import Problem
from tests.selection.test_differential import PROMPT, RIGHT, RIGHT2

WIDE = "    return a + b if a != 3 else 0\n"  # right on both examples, wrong on any a = 3
WRONG = "    return a - b\n"
METHODS = ["recommended", "learned_examples", "codet", "mbr_exec"]
TESTS = {"T/0": ["assert add(1, 2) == 3\nassert add(0, 0) == 0", "assert add(1, 1) == 3", "assert add(5, 5) == 10"]}


def _problem() -> Problem:
    problem = problem_from_prompt(PROMPT, None, "T/0")
    return Problem(**{**problem.__dict__, "canonical_solution": RIGHT, "base_input": [[2, 3], [3, 1]],
                      "dataset_hash": "synthetic-replay"})


def _live(programs: list[str], cache: ResultCache):
    """A live rerank of ``programs`` (every method and the baselines), judged on base tests."""
    cfg = stage_config(RerankOptions(methods=METHODS, workers=2, progress=False, base_only=True))
    return rank_and_judge("humaneval", {"T/0": _problem()}, {"T/0": programs}, TESTS, cfg, cache)


def _live_scores(res) -> dict[str, float]:
    (out,) = res.outcomes.values()
    correct = correct_array(out, "base")
    return {m: metrics.problem_pass_at_k(m, correct, out.rankings.get(m)) for m in metrics.BASELINES + tuple(METHODS)}


@pytest.mark.slow
def test_a_replay_gives_the_live_run_at_full_budget_and_on_a_sub_sample(tmp_path):
    """The folder replayed at its full budget gives its live run's pass@1 for every method; a sub-sample of its
    candidates replayed (the budget curve's draw) gives what a live ``rerank`` of those candidates gives."""
    cache = ResultCache(tmp_path / "executions.sqlite")
    programs = [PROMPT + b for b in [RIGHT] * 4 + [RIGHT2] * 3 + [WIDE] * 3 + [WRONG] * 2]
    live = _live(programs, cache)
    write_results(live, tmp_path / "run")
    run = load_folder(tmp_path / "run")
    with StoredSteps(cache, workers=2) as replay:
        _check_replay(replay, run, programs, live, cache)


def _check_replay(replay: StoredSteps, run, programs: list[str], live, cache: ResultCache) -> None:
    names = list(metrics.BASELINES) + METHODS
    full = scores_at_budget(run, names, len(programs), draws=1, subset_steps=replay)
    assert {m: float(full[m]["base"][0]) for m in names} == _live_scores(live)
    # the path itself, every method on the stored executions (the folder's own matrices)
    (sp,) = run.problems
    from coderank_evalplus.report.curves import SubsetItem

    items = [SubsetItem(sp, None, sp.executions, m, sp.hidden, ("all",)) for m in METHODS]
    out = replay.replay(run, items)[("all",)]
    assert {m: metrics.problem_pass_at_k(m, sp.correct("base"), out.rankings[m]) for m in METHODS} == \
        {m: v for m, v in _live_scores(live).items() if m in METHODS}
    assert out.confidence["recommended"] == live.outcomes["T/0"].confidence["recommended"]
    for budget in (5, 8):
        chosen = draw_subset(len(programs), budget, 0, 0, budget)
        at = scores_at_budget(run, names, budget, draws=1, subset_steps=replay)
        sub = _live([programs[c] for c in chosen], cache)
        ranked = [m for m in names if m != "random"]  # random at a budget: its exact expectation, the full run's
        assert {m: float(at[m]["base"][0]) for m in ranked} == \
            {m: v for m, v in _live_scores(sub).items() if m in ranked}, (budget, chosen)
        assert float(at["random"]["base"][0]) == float(full["random"]["base"][0])
    assert np.isfinite(full["recommended"]["base"]).all()


@pytest.mark.slow
def test_a_replay_split_over_processes_gives_the_same_rankings(tmp_path):
    """With several cores a report's call is split by problem over processes of their own (a problem keeps its
    process from call to call); the budget curve is the one a replay in this process gives, and closing the replay
    leaves no process behind."""
    import multiprocessing

    from coderank_evalplus.report.curves import budget_curve

    cache = ResultCache(tmp_path / "executions.sqlite")
    problems = {t: Problem(**{**_problem().__dict__, "task_id": t}) for t in ("T/0", "T/1", "T/2")}
    mixes = {"T/0": [RIGHT] * 4 + [RIGHT2] * 3 + [WIDE] * 3 + [WRONG] * 2,
             "T/1": [WIDE] * 5 + [RIGHT] * 4 + [WRONG] * 3,
             "T/2": [RIGHT2] * 2 + [WIDE] * 6 + [RIGHT] * 4}
    cfg = stage_config(RerankOptions(methods=METHODS, workers=2, progress=False, base_only=True))
    live = rank_and_judge("humaneval", problems, {t: [PROMPT + b for b in m] for t, m in mixes.items()},
                          {t: TESTS["T/0"] for t in problems}, cfg, cache)
    write_results(live, tmp_path / "run")
    run = load_folder(tmp_path / "run")
    before = set(multiprocessing.active_children())
    with StoredSteps(cache, workers=1) as here:
        expected = budget_curve(run, METHODS, draws=3, subset_steps=here)
    with StoredSteps(cache, workers=2) as split:
        got = budget_curve(run, METHODS, draws=3, subset_steps=split)
        shards = dict(split._shard_of)
        assert len(split._pools) == 2 and sorted(shards) == sorted(problems)
        again = budget_curve(run, METHODS, "tests", draws=3, subset_steps=split)
        assert split._shard_of == shards  # each problem stayed in its process
    assert got == expected
    with StoredSteps(cache, workers=1) as here:
        assert again == budget_curve(run, METHODS, "tests", draws=3, subset_steps=here)
    assert set(multiprocessing.active_children()) <= before


def _dies(*args) -> None:
    """A shard's call that loses its process."""
    import os

    os._exit(1)


@pytest.mark.slow
def test_a_lost_replay_process_costs_time_not_figures(tmp_path, caplog, monkeypatch):
    """A shard process killed between calls is started afresh; one killed during a call has its share replayed in
    this process, with a warning: the figures stay those of a replay in this process."""
    import os
    import signal

    from coderank_evalplus.report.curves import budget_curve

    cache = ResultCache(tmp_path / "executions.sqlite")
    problems = {t: Problem(**{**_problem().__dict__, "task_id": t}) for t in ("T/0", "T/1")}
    mix = [RIGHT] * 4 + [RIGHT2] * 3 + [WIDE] * 3 + [WRONG] * 2
    cfg = stage_config(RerankOptions(methods=METHODS, workers=2, progress=False, base_only=True))
    live = rank_and_judge("humaneval", problems, {t: [PROMPT + b for b in mix] for t in problems},
                          {t: TESTS["T/0"] for t in problems}, cfg, cache)
    write_results(live, tmp_path / "run")
    run = load_folder(tmp_path / "run")
    with StoredSteps(cache, workers=1) as here:
        expected = [budget_curve(run, METHODS, draws=2, subset_steps=here, seed=s) for s in (0, 1, 2)]
    with StoredSteps(cache, workers=2) as split:
        assert budget_curve(run, METHODS, draws=2, subset_steps=split, seed=0) == expected[0]
        for pool in split._pools.values():
            for pid in list(pool._processes):  # type: ignore[attr-defined]
                os.kill(pid, signal.SIGKILL)
        assert budget_curve(run, METHODS, draws=2, subset_steps=split, seed=1) == expected[1]
        monkeypatch.setattr("coderank_evalplus.selection.stored._replay_shard", _dies)
        with caplog.at_level("WARNING", logger="coderank_evalplus"):
            assert budget_curve(run, METHODS, draws=2, subset_steps=split, seed=2) == expected[2]
        assert "was lost; replaying its" in caplog.text
