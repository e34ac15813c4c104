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
