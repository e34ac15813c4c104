"""Inputs at the edges (testgen/edges.py, stdin_inputs.edges): by the examples' types, deterministic, the arity and
a stdin input's layout kept."""

from __future__ import annotations

from coderank_evalplus.testgen.edges import edge_inputs, edge_values
from coderank_evalplus.testgen.mutate import call_text
from coderank_evalplus.testgen.stdin_inputs import _lines, _protected, edges
from coderank_evalplus.types import METHOD, STDIN


def test_each_type_reaches_its_edges():
    assert {0, 1, -1, -7} <= set(edge_values(7)) and max(edge_values(7)) >= 1000
    assert edge_values(True) == [False]
    assert {"", "a", "aaa", "cba"} <= set(edge_values("abc"))
    lists = edge_values([3, 1, 2])
    assert [] in lists and [3] in lists  # empty and singleton
    assert [1, 2, 3] in lists and [3, 2, 1] in lists  # sorted both ways
    assert [3, 1, 2, 3] in lists and [3, 3, 3] in lists  # duplicates
    assert [-3, -1, -2] in lists  # negatives
    assert edge_values((1, 2))[0] == () and edge_values({"a": 1, "b": 2}) == [{}, {"a": 1}]
    assert edge_values({2, 1}) == [set(), {1}] and edge_values(["ab", "c"])[-1] == [""]


def test_one_argument_moved_at_a_time_with_the_arity_kept():
    seeds = [[[1, 2, 3], 2], [[5, 1], 0]]
    out = edge_inputs(seeds, 100, "f")
    assert len(out) > 10 and all(len(a) == 2 for a in out)
    calls = [call_text("f", a) for a in out]
    assert len(set(calls)) == len(calls) and not {call_text("f", s) for s in seeds} & set(calls)
    for a in out:  # each differs from some seed in one argument only
        assert any(sum(x != y for x, y in zip(a, s)) == 1 for s in seeds)
    assert [[], 2] in out and [[1, 2, 3], 0] in out and [[1, 2, 3], -1] in out


def test_deterministic_and_the_first_n_are_the_most_common_edges():
    seeds = [["hello", 3], ["a", 0]]
    assert edge_inputs(seeds, 6, "f") == edge_inputs(seeds, 30, "f")[:6]
    first = edge_inputs(seeds, 2, "f")
    assert first == [["", 3], ["hello", 0]]  # level 0 of each argument of the first seed
    assert edge_inputs([], 5, "f") == [] and edge_inputs(seeds, 0, "f") == []


def test_a_leetcode_method_gets_a_functions_edges():
    seeds = [[[2, 7, 11, 15], 9]]
    assert edge_inputs(seeds, 8, "Solution().twoSum", METHOD) == edge_inputs(seeds, 8, "f")
    assert [[], 9] in edge_inputs(seeds, 8, "Solution().twoSum", METHOD)


def test_stdin_numbers_move_to_boundaries_with_the_layout_kept():
    seeds = ["4\n10 -4 7 7\n", "2 3\n#.#\n..#\n"]
    out = edges(seeds, 50)
    assert out and len(set(out)) == len(out) and not set(out) & set(seeds)
    assert out == edges(seeds, 50) and edges(seeds, 3) == out[:3]
    for text in out:
        seed = next(s for s in seeds if len(_lines(s)) == len(_lines(text))
                    and [len(r) for r in _lines(s)] == [len(r) for r in _lines(text)])
        rows, orig = _lines(text), _lines(seed)
        for i, j in _protected(orig):  # the counts and stated lengths hold
            assert rows[i][j] == orig[i][j]
        assert [len(t) for r in rows for t in r if "#" in t or "." in t] in ([], [3, 3])
    values = [int(t) for text in out if text.startswith("4\n") for t in _lines(text)[1]]
    assert 0 in values and min(values) < -4 and max(values) >= 1000  # zero, negatives, large
    assert "4\n10 10 10 10\n" in out and "4\n-4 7 7 10\n" in out  # equal values; a line sorted


def test_a_stdin_problem_gets_its_shapes_edges():
    seeds = [["3\n1 2 3\n"]]
    assert edge_inputs(seeds, 5, "run_stdin", STDIN) == [[t] for t in edges(["3\n1 2 3\n"], 5)]
