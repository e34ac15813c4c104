"""Inputs at the edges: boundary inputs derived from the types of the prompt's examples' arguments, no model.

evalplus's plus inputs probe the edges of what a statement allows (empty and singleton collections, zero,
negatives, large values, duplicates, sorted and unsorted orders, the empty string); inputs grown by random mutation
from the examples (``mutate.mutate_inputs``) rarely reach them. Here each argument of an example is moved to the
boundaries of its type, one argument at a time so that the arity stays the example's and the other arguments keep
their values (``edge_values``); the inputs of all the examples are interleaved, most common edge first, so that
the first ``n`` cover every argument. A shape may derive its edges its own way (``Shape.edge_inputs``: a stdin
program's numbers moved to boundaries with its layout kept, ``stdin_inputs.edges``).

Deterministic (no random draw): the same examples give the same inputs in every process. Nothing here knows the
problem's constraints; an input that every candidate raises on the same way says nothing (the search's validity
rule, ``selection.search.column_masks``).
"""

from __future__ import annotations

from typing import Any

from coderank_evalplus.engine.shapes import shape_of
from coderank_evalplus.testgen.extract import literal_repr
from coderank_evalplus.testgen.mutate import call_text
from coderank_evalplus.testgen.stdin_inputs import interleave
from coderank_evalplus.types import FUNCTION

EDGE_INPUTS = 10  # edge inputs per problem at most: as many as a round of the search grows by mutation
LARGE = 1000  # a "large" number: past the examples' small values, short of a timeout in a loop up to it


def _large(v: int) -> int:
    return LARGE if abs(v) < LARGE else abs(v) * 10


def _number_edges(v: Any) -> list[Any]:
    kind = type(v)
    if kind is bool:
        return [not v]
    return [kind(0), kind(1), kind(-1), kind(-abs(v)), kind(_large(int(v)))]


def _sequence_edges(v: list) -> list[list]:
    out: list[list] = [[], v[:1], v + v[:1], v[:1] * max(len(v), 2), v[::-1]]
    try:
        out += [sorted(v), sorted(v, reverse=True)]
    except TypeError:  # elements that do not compare (mixed types)
        pass
    if v and all(type(x) in (int, float) for x in v):
        out += [[-x for x in v], [0] + v]
    if v and all(type(x) in (list, tuple, str) for x in v):
        out.append([x[:0] for x in v[:1]])  # one empty element
    return out


def _string_edges(v: str) -> list[str]:
    return ["", v[:1], v[:1] * max(len(v), 2), v[::-1], v.swapcase(), v + v[:1], " "]


def edge_values(v: Any) -> list[Any]:
    """The boundary values of ``v``'s type, most common edge first (``v`` itself may be among them: callers drop
    inputs already seen)."""
    if isinstance(v, (bool, int, float)):
        return _number_edges(v)
    if isinstance(v, str):
        return _string_edges(v)
    if isinstance(v, (list, tuple)):
        return [type(v)(x) for x in _sequence_edges(list(v))]
    if isinstance(v, (set, frozenset)):
        items = sorted(v, key=literal_repr)
        return [type(v)(x) for x in ([], items[:1])]
    if isinstance(v, dict):
        return [{}, dict(list(v.items())[:1])]
    return []


def edge_inputs(seeds: list[list], n: int, entry_point: str, shape: str = FUNCTION) -> list[list]:
    """Up to ``n`` distinct argument lists at the edges, none of them a seed: level by level (the first edge of
    every argument of every seed, then the second, ...), each with one argument of a seed moved to an edge."""
    if n <= 0 or not seeds:
        return []
    own = shape_of(shape).edge_inputs(seeds, n)
    if own is not None:
        return own
    # one list per argument of every seed: the seed with that argument moved to each of its edges in turn
    moved = [[[*seed[:i], v, *seed[i + 1:]] for v in edge_values(a)] for seed in seeds for i, a in enumerate(seed)]
    return interleave(moved, n, lambda args: call_text(entry_point, args), {call_text(entry_point, s) for s in seeds})
