"""Inputs grown for stdin programs: tokens change, the format (counts, line structure, stated lengths) holds."""

from __future__ import annotations

import random

from coderank_evalplus.testgen.mutate import MutateSpec, add_generated_inputs
from coderank_evalplus.testgen.stdin_inputs import grow
from coderank_evalplus.types import STDIN, STDIN_CALLEE, Problem
from coderank_evalplus.types import TestSuite as Suite


def test_counts_and_line_structure_hold():
    seeds = ["3\n1 2 3\n", "4\n10 -4 7 7\n"]
    grown = grow(seeds, 30, random.Random(0))
    assert len(grown) == 30 and len(set(grown)) == 30 and not set(grown) & set(seeds)
    for text in grown:
        lines = text.split("\n")
        assert len(lines) == 3 and lines[2] == ""
        assert int(lines[0]) == len(lines[1].split())  # N is still the number of values


def test_a_grid_keeps_its_shape_and_alphabet():
    seeds = ["2 3\n#.#\n..#\n"]
    for text in grow(seeds, 20, random.Random(1)):
        head, *rows = text.rstrip("\n").split("\n")
        h, w = map(int, head.split())
        assert (h, w) == (2, 3) and len(rows) == 2
        assert all(len(r) == 3 and set(r) <= {"#", "."} for r in rows)


def test_seeded_and_from_the_public_tests_only():
    problem = Problem("abc/x", "livecodebench", "", STDIN_CALLEE, shape=STDIN,
                      trial_tests=("assert run_stdin('5\\n1 2 3 4 5\\n') == '15\\n'",))
    a = add_generated_inputs(Suite(), problem, MutateSpec(8), seed=0)[1]
    b = add_generated_inputs(Suite(), problem, MutateSpec(8), seed=0)[1]
    assert a.calls == b.calls and len(a.calls) == 8
    assert a.seeds == ["run_stdin('5\\n1 2 3 4 5\\n')"]
    assert all(c.startswith("run_stdin('5\\n") for c in a.calls)
