"""The part features of the selection step (selection/parts.py): what a part does on the edge inputs."""

from __future__ import annotations

import numpy as np

from coderank_evalplus.io.problems import problem_from_prompt
from coderank_evalplus.selection import SelectEnv, search
from coderank_evalplus.selection.parts import EDGE_FEATURES, EDGE_SPEC, PART_FEATURES, edge_features
from tests.selection.test_search import LARGEST, RIGHT_MAX, WRONG_MAX

PRINTS = "    print(max(xs))\n"  # returns None where the others return the number


def test_edge_features_tell_a_minority_that_survives_the_edges_from_the_majority_that_raises():
    problem = problem_from_prompt(LARGEST, None, "T/parts")
    wrong, right, prints = (problem.prompt + b for b in (WRONG_MAX, RIGHT_MAX, PRINTS))
    found = search.search(problem, [wrong, right, prints], SelectEnv(workers=1), step=4, max_rounds=1,
                          edges="returned")
    samples = [wrong] * 3 + [right, prints]
    X = edge_features(found, [[0, 1, 2], [3], [4]], samples)
    col = {f: X[:, i] for i, f in enumerate(EDGE_FEATURES)}
    assert col["edge_returned"][1] == 1.0 and col["edge_returned"][0] < 1.0  # the right one returns on every edge
    assert col["lone_none"][2] > 0.5 and col["lone_none"][0] == col["lone_none"][1] == 0.0
    assert col["lone_failure"][1] == 0.0
    assert np.all((X >= 0) & (X <= 1))
    assert EDGE_SPEC.features[:len(PART_FEATURES)] == PART_FEATURES  # a part model without them reads the first


def test_edge_first_puts_the_part_that_returns_on_the_edges_before_a_larger_one():
    from coderank_evalplus.selection.parts import edge_first, order

    raw = np.zeros((3, len(EDGE_SPEC.features)))
    share, returned = PART_FEATURES.index("share"), EDGE_SPEC.features.index("edge_returned")
    raw[:, share] = [0.6, 0.3, 0.1]
    raw[:, returned] = [0.5, 1.0, 1.0]  # the largest part raises on half of the edge inputs
    parts, _ = order([[0, 1, 2, 3, 4, 5], [6, 7, 8], [9]], edge_first(raw))
    assert parts == [[6, 7, 8], [9], [0, 1, 2, 3, 4, 5]]
    raw[:, returned] = 1.0  # alike on the edges: the size rule
    assert order([[0], [1], [2]], edge_first(raw))[0] == [[0], [1], [2]]
    raw[1, share] = 0.6  # equal on both: a tie, scored alike
    scores = edge_first(raw)
    assert scores[0] == scores[1] > scores[2]
