"""The selection step's search (selection/search.py): inputs grown once whatever the batch that asks for them."""

from __future__ import annotations

from typing import Optional

from coderank_evalplus.io.problems import problem_from_prompt
from coderank_evalplus.selection import search
from tests.selection.test_differential import PROMPT


def test_inputs_grown_once_across_batches_equal_a_fresh_growth(monkeypatch):
    """A growth asked again by a later batch (a stored run's curve, then its round tables) comes from the memo: the
    same inputs as growing them afresh, and evalplus's mutation runs once."""
    problem = problem_from_prompt(PROMPT, None, "T/grow")
    pool = [[1, 2], [0, 0]]
    fresh = search._grow(problem, pool, 5, "select:0:T/grow:1", set(), None)
    calls = []
    real = search.mutate_inputs
    monkeypatch.setattr(search, "mutate_inputs", lambda *a, **k: calls.append(a) or real(*a, **k))
    monkeypatch.setattr(search, "_GROWN", {})
    first = search._grow(problem, pool, 5, "select:0:T/grow:1", set(), search._GROWN)
    again = search._grow(problem, pool, 5, "select:0:T/grow:1", set(), search._GROWN)
    assert first == again == fresh and len(fresh) == 5
    assert len(calls) == 1
    other = search._grow(problem, pool, 5, "select:0:T/grow:2", set(), search._GROWN)  # another round's salt
    assert len(calls) == 2 and other != first


def test_the_memo_keeps_at_most_its_bound(monkeypatch):
    problem = problem_from_prompt(PROMPT, None, "T/grow")
    monkeypatch.setattr(search, "_GROWN", {})
    monkeypatch.setattr(search, "_GROWN_MAX", 3)
    for k in range(6):
        search._grow(problem, [[k, 1]], 2, f"select:0:T/grow:{k}", set(), search._GROWN)
    assert len(search._GROWN) == 3


LARGEST = '''def largest(xs):
    """The largest number of the list, 0 for an empty list.
    >>> largest([1, 5, 2])
    5
    >>> largest([3, 3])
    3
    """
'''
RIGHT_MAX, WRONG_MAX = "    return max(xs) if xs else 0\n", "    return max(xs)\n"


def _edge_search(edges: str, budget: Optional[int] = None) -> search.Search:
    from coderank_evalplus.selection import SelectEnv

    problem = problem_from_prompt(LARGEST, None, "T/edges")
    programs = [problem.prompt + WRONG_MAX, problem.prompt + RIGHT_MAX]
    return search.search(problem, programs, SelectEnv(workers=1), step=2, max_rounds=1, budget=budget, edges=edges)


def test_edge_inputs_join_the_first_round_and_an_edge_only_the_right_program_survives_separates():
    """``largest([])``: the wrong program raises where the right one returns 0. Under the ``returned`` rule that edge
    input is evidence; under ``share`` it is not (half of the programs returned); without edges it is not grown."""
    off, share, returned = (_edge_search(e) for e in ("off", "share", "returned"))
    empty = "largest([])"
    assert empty not in off.calls and not off.edge.any()
    assert empty in share.calls and empty in returned.calls and returned.edge[returned.calls.index(empty)]
    k = share.calls.index(empty)
    assert not share.valid[k] and not share.separating[k]
    k = returned.calls.index(empty)
    assert returned.valid[k] and returned.separating[k]
    assert returned.cost.inputs == len(returned.calls) > len(off.calls)


def test_the_edge_inputs_stay_within_the_budget():
    """A budget of 2 programs × 5 inputs leaves room for 3 edge inputs beside the round's 2 grown ones."""
    found = _edge_search("returned", budget=10)
    assert 0 < found.edge[:5].sum() <= 3 and found.edge.sum() <= 3
