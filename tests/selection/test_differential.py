"""The model-free selection step (selection/differential.py, contenders.py, search.py): the leading programs split on
inputs grown for them, on toy problems and two real HumanEval problems."""

from __future__ import annotations

import pytest

from coderank_evalplus.api.evaluate import stage_config
from coderank_evalplus.api.options import RerankOptions
from coderank_evalplus.engine.execution.execute import ProblemWork
from coderank_evalplus.io.problems import problem_from_prompt
from coderank_evalplus.metrics import merged_groups
from coderank_evalplus.rankers.registry import get_step
from coderank_evalplus.selection import SelectEnv, StepItem
from coderank_evalplus.selection.contenders import MAX_PROGRAMS
from coderank_evalplus.selection.differential import in_words_of, select_all, select_one
from coderank_evalplus.selection.path import ProblemPath
from coderank_evalplus.selection.search import MAX_ROUNDS, STEP
from coderank_evalplus.testgen.io_tests import suite_for
from coderank_evalplus.testgen.mutate import TestSources
from tests.conftest import LOOKALIKE_DIR, LOOKALIKE_DOES, lookalike_data, needs_data

PROMPT = '''def add(a, b):
    """Add two integers.
    >>> add(2, 3)
    5
    >>> add(10, 4)
    14
    """
'''
RIGHT, RIGHT2 = "    return a + b\n", "    return b + a\n"
LOOKALIKE = "    return a + b if a != 11 else 0\n"  # right on both examples, wrong near them


def _path(method, mutate=None):
    return ProblemPath(stage_config(RerankOptions(methods=[method], progress=False, workers=2),
                                    TestSources(mutate=mutate)), [method])


def _ranked(problem, bodies, method="learned_examples", mutate=None):
    """Executions on the examples (and ``mutate`` grown inputs) and the ranking of ``method``."""
    work = ProblemWork(problem, [problem.prompt + b for b in bodies], suite_for(problem, [], None))
    out = _path(method, mutate).run([work])[problem.task_id]
    return work, out.executions, out.rankings[method]


def _select(work, ex, ranking):
    """The registered step ``select`` on one problem (a batch of one)."""
    return get_step("select")().run([StepItem(work, ex, ranking, "recommended+select")], SelectEnv(workers=2))[0]


def test_lookalikes_in_the_top_group_are_split_and_the_larger_part_kept():
    problem = problem_from_prompt(PROMPT, None, "toy/add")
    work, ex, ranking = _ranked(problem, [RIGHT] * 4 + [RIGHT2] * 3 + [LOOKALIKE] * 3)
    assert sorted(merged_groups(ranking)[0].candidates) == list(range(10))  # the examples cannot tell them apart
    sel = _select(work, ex, ranking)
    assert sel.changed and "several distinct programs" in sel.reason
    assert merged_groups(sel.ranking)[0].candidates == list(range(7))
    assert merged_groups(sel.ranking)[1].candidates == [7, 8, 9]  # set apart, not dropped
    (ev,) = sel.evidence
    assert ev.input.startswith("add(11,") and ev.sides[0].candidates == tuple(range(7))
    assert ev.sides[1].candidates == (7, 8, 9) and ev.sides[0].output != ev.sides[1].output
    assert ev.rule == "A kept: 7 of 10 candidates agree (B: 3)"
    assert 0 < sel.cost.programs <= 3 and 0 < sel.cost.inputs <= STEP * (MAX_ROUNDS + 1)


def test_a_tie_of_parts_is_kept_together_and_recorded_with_the_ranking():
    """One right program against one look-alike: the step finds where they differ, cannot order them, keeps them as
    one group and records the tie (``info['tie']``, read by ``metrics.pool_parts``); a split records none."""
    from coderank_evalplus.metrics import TIE, pool_parts

    problem = problem_from_prompt(PROMPT, None, "toy/add")
    work, ex, ranking = _ranked(problem, [RIGHT, LOOKALIKE])
    assert pool_parts(ranking, 2) == [[0, 1]]  # before the step: one behaviour as far as anything ran
    sel = _select(work, ex, ranking)
    assert merged_groups(sel.ranking)[0].candidates == [0, 1] and sel.ranking.info[TIE] == [[0], [1]]
    assert sel.evidence[0].rule.startswith("a tie") and pool_parts(sel.ranking, 2) == [[0], [1]]
    work, ex, ranking = _ranked(problem, [RIGHT] * 2 + [LOOKALIKE])
    assert TIE not in _select(work, ex, ranking).ranking.info


def test_a_problem_with_nothing_to_split_costs_nothing():
    problem = problem_from_prompt(PROMPT, None, "toy/add")
    work, ex, ranking = _ranked(problem, [RIGHT] * 5 + ["    return a * b\n"])
    sel = _select(work, ex, ranking)
    assert not sel.changed and not sel.reason and sel.cost.programs == 0 and sel.ranking is ranking


def test_without_an_example_to_grow_from_nothing_changes():
    problem = problem_from_prompt("def add(a, b):\n    \"\"\"Add two integers.\"\"\"\n", None, "toy/bare")
    work, ex, ranking = _ranked(problem, [RIGHT] * 2 + [LOOKALIKE] * 2)
    sel = select_one(work, ex, ranking, SelectEnv(workers=2))
    assert "several distinct programs" in sel.reason and not sel.changed and sel.cost.inputs == 0
    assert [g.candidates for g in merged_groups(sel.ranking)] == [g.candidates for g in merged_groups(ranking)]


def test_the_cost_is_bounded_by_the_named_constants():
    problem = problem_from_prompt(PROMPT, None, "toy/many")
    bodies = [f"    return a + b + {k} * 0\n" for k in range(MAX_PROGRAMS + 4)]  # all alike, all distinct texts
    work, ex, ranking = _ranked(problem, bodies)
    sel = select_one(work, ex, ranking, SelectEnv(workers=2), max_rounds=1)
    assert sel.cost.programs == MAX_PROGRAMS and sel.cost.inputs <= STEP and sel.cost.rounds == 1
    assert not sel.changed  # nothing separates programs that all add


def test_the_search_costs_no_more_than_the_execution():
    """Programs that all add: nothing separates them, so the search would go on for every round; bounded (the
    default), after a first round it runs no more items than executing the candidates on their tests did, its last
    round smaller."""
    from coderank_evalplus.selection.differential import execution_items, select_all

    problem = problem_from_prompt(PROMPT, None, "toy/alike")
    bodies = [f"    return a + b + {k} * 0\n" for k in range(4)]
    work, ex, ranking = _ranked(problem, bodies, mutate=20)
    tests = len(ex.suite.inputs) + len(ex.suite.asserts) + 2  # + the prompt's two examples as trial tests
    assert execution_items(ex) == 4 * tests and tests > 20
    bounded, free = (select_all([(work, ex, ranking)], SelectEnv(workers=2), bounded=b)[0] for b in (True, False))
    assert bounded.cost.inputs == max(STEP, execution_items(ex) // 4) and bounded.cost.programs == 4
    assert bounded.cost.rounds == -(-bounded.cost.inputs // STEP) < MAX_ROUNDS == free.cost.rounds
    assert not bounded.changed and not free.changed


def test_copies_that_differ_in_comments_and_layout_run_once():
    """Texts that differ only in comments, layout and docstrings are one program: a top group of such copies is
    not in doubt, and among contenders they run as one."""
    from coderank_evalplus.selection.contenders import contenders_to_split, program_key

    assert program_key("def f(a):\n    'doc'\n    return a  # one\n") == program_key("def f(a):\n  return (a)\n")
    problem = problem_from_prompt(PROMPT, None, "toy/copies")
    copies = [RIGHT, "    return a + b  # the sum\n", "    return (a +\n            b)\n"]
    work, ex, ranking = _ranked(problem, copies * 2)
    assert contenders_to_split(ranking, ex, work.programs) is None
    work, ex, ranking = _ranked(problem, copies * 2 + [LOOKALIKE])
    contenders = contenders_to_split(ranking, ex, work.programs)
    assert contenders is not None and len(contenders.programs) == 2
    assert {contenders.runs_as[c] for c in range(6)} == {work.programs[0]}


@needs_data
@pytest.mark.parametrize("task_id, right, wrong", [
    ("HumanEval/55", "    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n",
     "    t = [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89]\n    return t[n] if n < len(t) else -1\n"),
    ("HumanEval/24", "    for i in reversed(range(1, n)):\n        if n % i == 0:\n            return i\n",
     "    return n // 3 if n % 3 == 0 else 1\n"),
])
def test_real_problems_keep_the_right_program(humaneval_problems, task_id, right, wrong):
    """A right program and a lookalike that passes every example of the prompt: the per-problem path
    (``selection.path``) sets the lookalike apart on an input grown from the examples."""
    problem = humaneval_problems[task_id]
    work = ProblemWork(problem, [problem.prompt + b for b in [right] * 3 + [wrong] * 2], suite_for(problem, [], None))
    methods = ["learned_examples", "recommended"]
    path = ProblemPath(stage_config(RerankOptions(methods=methods, progress=False, workers=2)), methods)
    out = path.run([work])[problem.task_id]
    assert sorted(merged_groups(out.rankings["learned_examples"])[0].candidates) == [0, 1, 2, 3, 4]
    assert merged_groups(out.rankings["recommended"])[0].candidates == [0, 1, 2]
    (sel,) = out.steps["recommended"]
    assert sel.changed and sel.evidence[0].input.startswith(problem.entry_point + "(")
    assert set(out.confidence["recommended"]) == {"base", "plus"}


@pytest.mark.slow
def test_rerank_runs_the_step_once_for_every_frontend_and_reports_its_cost(tmp_path):
    """``rank_and_judge`` (the one entry point): ``recommended+select`` beside ``recommended``, the step's cost in the
    timing block and line, its evidence with the rankings written to the results folder."""
    import json

    from coderank_evalplus.engine.execution.execute import ResultCache
    from coderank_evalplus.pipeline import rank_and_judge, write_results
    from coderank_evalplus.report.text import timing_line
    from coderank_evalplus.types import Problem

    problem = problem_from_prompt(PROMPT, None, "T/0")
    problem = Problem(**{**problem.__dict__, "canonical_solution": RIGHT, "base_input": [[2, 3], [3, 1]],
                         "dataset_hash": "synthetic-select"})
    wide = "    return a + b if a != 3 else 0\n"  # right on both examples, wrong on any a = 3
    sols = {"T/0": [PROMPT + b for b in [RIGHT] * 4 + [RIGHT2] * 3 + [wide] * 3]}
    cfg = stage_config(RerankOptions(methods=["learned_examples", "recommended"], workers=2, progress=False,
                                     base_only=True))
    res = rank_and_judge("humaneval", {"T/0": problem}, sols, {}, cfg, ResultCache(tmp_path / "c.sqlite"))
    assert res.methods["learned_examples"]["base"]["pass@1"] == 70.0
    assert res.methods["recommended"]["base"]["pass@1"] == 100.0
    assert res.methods["recommended"]["uses_prompt_examples"] is True
    assert res.timing["select_problems"] == 1 and res.timing["select_changed"] == 1
    assert res.timing["select_programs"] == 3 and "select_s" in res.timing
    assert "select " in timing_line(res.timing) and "1 picks changed" in timing_line(res.timing)
    assert res.extra["selection"]["recommended"]["select_changed"] == 1
    write_results(res, tmp_path)
    rows = [json.loads(line) for line in (tmp_path / "rankings.jsonl").read_text().splitlines()]
    (row,) = [r for r in rows if r["method"] == "recommended"]
    (step,) = row["steps"]
    assert step["changed"] and step["evidence"][0]["input"].startswith("add(")
    # the folder keeps the step's final ranking and the programs, so reports read the pick the run made
    from coderank_evalplus.io.results_folder import load_folder, load_programs
    from coderank_evalplus.report.scores import problem_scores

    run = load_folder(tmp_path)
    assert run.summary["config"]["aliases"] == {"recommended": "learned_examples+select"}
    assert run.problems[0].rankings["recommended"].groups[0].candidates == list(range(7))
    assert problem_scores(run, ["learned_examples", "recommended"])["recommended"]["base"].tolist() == [1.0]
    assert load_programs(tmp_path)["T/0"] == sols["T/0"]


def test_a_ranking_without_groups_is_looked_at_through_its_fallback_pool():
    """A ranking that put no candidate in a group but kept a fallback pool (the candidates trial filtering kept):
    the pick draws from that pool (``metrics.pick_pool``), so the step's contenders are that pool too. The lookalikes
    in it are set apart; the candidate outside it stays out of the new ranking."""
    from coderank_evalplus.types import Ranking

    problem = problem_from_prompt(PROMPT, None, "toy/fallback")
    work, ex, _ = _ranked(problem, [RIGHT] * 3 + [RIGHT2] * 2 + [LOOKALIKE] * 2 + ["    return a * b\n"])
    ranking = Ranking([], {"fallback_pool": list(range(7))})
    sel = select_one(work, ex, ranking, SelectEnv(workers=2))
    assert "several distinct programs" in sel.reason and sel.changed
    assert merged_groups(sel.ranking)[0].candidates == [0, 1, 2, 3, 4]
    assert merged_groups(sel.ranking)[1].candidates == [5, 6]
    assert 7 not in {c for g in sel.ranking.groups for c in g.candidates}


def test_an_input_the_most_sampled_program_times_out_on_is_left_out():
    """The most sampled contender runs each round's inputs first; where it times out (beyond the run's limit: no
    sign of which program is right) the input is left out and the others do not run on it."""
    import re

    from coderank_evalplus.selection.search import search

    problem = problem_from_prompt(PROMPT, None, "toy/slow")
    slow = PROMPT + "    while b > 4:\n        pass\n    return a + b\n"  # right on both examples, hangs for b > 4
    found = search(problem, [slow, PROMPT + RIGHT], SelectEnv(workers=2), max_rounds=2)
    assert found.calls and found.ex is not None and len(found.calls) < found.cost.rounds * STEP  # some left out
    assert all(int(re.match(r"add\((-?\d+), (-?\d+)\)", c)[2]) <= 4 for c in found.calls), found.calls
    assert not (found.ex.output_kind[0] == 2).any()  # 2: TIMED_OUT


# --- the evidence in words, on every shape ----------------------------------------------------------------------
@pytest.mark.slow
def test_the_evidence_says_what_each_side_did_on_every_shape():
    """The look-alike problem as a function, a ``class Solution`` method and a stdin program (one batch): each side
    of the deciding input said in words -- "returns True" / "returns False", "prints True" / "prints False" --
    where a method's sides used to "pass it when run alone (flaky or slow)" and "raise AssertionError"."""
    from coderank_evalplus.io.problems import problem_of_record

    records, pools = lookalike_data()
    works = []
    for tid in LOOKALIKE_DOES:
        problem = problem_of_record(records[tid], tid)
        works.append(ProblemWork(problem, pools[tid], suite_for(problem, [], None)))
    outs = _path("learned_examples").run(works)  # the ranker before the step, on the examples alone
    items = [StepItem(w, outs[w.problem.task_id].executions, outs[w.problem.task_id].rankings["learned_examples"],
                      "learned_examples+select") for w in works]
    # the rounds unbounded: on the examples alone the execution ran too few items to bound a search by
    env = SelectEnv(workers=2)
    sels = select_all([(it.work, it.executions, it.ranking) for it in items], env, bounded=False)
    in_words_of(items, sels, env)
    for tid, sel in zip(LOOKALIKE_DOES, sels):
        (ev,) = sel.evidence
        does = LOOKALIKE_DOES[tid]
        assert [(s.candidates, s.output) for s in ev.sides] == [
            (tuple(range(7)), f"{does} True"), ((7, 8, 9), f"{does} False")], tid
        assert ev.sentence() == (f"on {ev.input}: group A {does} True, group B {does} False; A kept: 7 of 10 "
                                 f"candidates agree (B: 3)")


def test_a_side_whose_probe_is_lost_keeps_its_digest_and_says_so(monkeypatch):
    """Words come from one more run of each side; where that run is lost, the side keeps the engine's digest and
    says that its words were lost, rather than a wrong sentence."""
    import coderank_evalplus.engine.execution.probe as probe

    problem = problem_from_prompt(PROMPT, None, "toy/add")
    work, ex, ranking = _ranked(problem, [RIGHT] * 4 + [RIGHT2] * 3 + [LOOKALIKE] * 3)
    monkeypatch.setattr(probe, "probe_all", lambda probes, *a, **k: [("lost",)] * len(probes))
    (ev,) = _select(work, ex, ranking).evidence
    for side in ev.sides:
        assert side.output.startswith("returns value #")
        assert side.output.endswith("(a digest: the run that says it in words was lost)")


def test_sides_that_differ_beyond_the_clip_are_said_whole(monkeypatch):
    """Two outputs that differ only after the first 60 characters would read alike once clipped: both are said
    whole, so the evidence shows where they differ."""
    import coderank_evalplus.engine.execution.probe as probe

    problem = problem_from_prompt(PROMPT, None, "toy/add")
    work, ex, ranking = _ranked(problem, [RIGHT] * 4 + [RIGHT2] * 3 + [LOOKALIKE] * 3)
    long = "x" * 70
    monkeypatch.setattr(probe, "probe_all", lambda probes, *a, **k: [
        ("returned", "add(11, 1)", f"'{long}{end}'") for end in "ab"])
    (ev,) = _select(work, ex, ranking).evidence
    assert [s.output for s in ev.sides] == [f"returns '{long}a'", f"returns '{long}b'"]


@pytest.mark.slow
def test_rankings_jsonl_says_the_steps_evidence_in_words_on_every_shape(tmp_path):
    """``rerank`` of the own-format file of the look-alike problem in every shape, ``recommended`` on the default
    tests (examples+mutate): each problem's row of ``rankings.jsonl`` says what each side did on the deciding input, in
    words (where it used to show digests: "returns value #194f01")."""
    import json

    import coderank_evalplus as cr

    out = cr.rerank(LOOKALIKE_DIR / "samples.jsonl", "examples+mutate", dataset=str(LOOKALIKE_DIR / "problems.jsonl"),
                    methods="recommended", workers=2, progress=False, output=str(tmp_path / "out"))
    assert out.pass_at("recommended") == 100.0
    rows = {r["task_id"]: r for r in map(json.loads, (tmp_path / "out" / "rankings.jsonl").read_text().splitlines())}
    changed = {tid for tid in LOOKALIKE_DOES if rows[tid]["steps"][0]["changed"]}
    assert {"look/function", "look/stdin"} <= changed  # (the method's grown inputs already split its ranking)
    for tid in changed:
        does = LOOKALIKE_DOES[tid]
        (ev,) = rows[tid]["steps"][0]["evidence"]
        assert [s["output"] for s in ev["sides"]] == [f"{does} True", f"{does} False"], tid
        assert [s["candidates"] for s in ev["sides"]] == [list(range(7)), [7, 8, 9]], tid
