"""The selection step's leave-one-family-out study (study/select_loso.py): the ceilings of an ideal decision."""

from __future__ import annotations

import numpy as np

from coderank_evalplus.study.select_loso import ceiling


def test_the_ceilings_keep_the_best_part_or_any_right_contender():
    correct = np.asarray([False, True, True, False, True])
    split = {"contenders": [[0, 1, 2], [3]], "parts": [[0, 3], [1, 2]]}
    assert ceiling(split, correct, 0.25, "ideal_part") == 1.0
    assert ceiling({**split, "parts": [[0, 1, 3], [2]]}, correct, 0.25, "ideal_part") == 1.0
    assert ceiling({**split, "parts": [[0, 1], [3]]}, correct, 0.25, "ideal_part") == 0.5
    assert ceiling({"contenders": [[0], [3]], "parts": []}, correct, 0.25, "ideal_part") == 0.25  # nothing split
    assert ceiling({"contenders": [[0], [3]], "parts": []}, correct, 0.25, "ideal_contender") == 0.0
    assert ceiling(split, correct, 0.25, "ideal_contender") == 1.0
    assert ceiling({}, correct, 0.4, "ideal_contender") == ceiling({}, correct, 0.4, "ideal_part") == 0.4


def test_part_outputs_keep_one_row_per_part_with_the_search_masks():
    from coderank_evalplus.io.problems import problem_from_prompt
    from coderank_evalplus.selection import SelectEnv, search
    from coderank_evalplus.selection.contenders import Contenders
    from coderank_evalplus.selection.differential import Decision, parts_of
    from coderank_evalplus.study.select_loso import part_outputs
    from coderank_evalplus.types import RETURNED
    from tests.selection.test_search import LARGEST, RIGHT_MAX, WRONG_MAX

    problem = problem_from_prompt(LARGEST, None, "T/outputs")
    wrong, right = problem.prompt + WRONG_MAX, problem.prompt + RIGHT_MAX
    found = search.search(problem, [wrong, right], SelectEnv(workers=1), step=4, max_rounds=1, edges="returned")
    contenders = Contenders([[0, 1, 2], [3]], programs=[wrong, right], runs_as={0: wrong, 1: wrong, 2: wrong, 3: right})
    samples = [wrong] * 3 + [right]
    parts = parts_of(contenders, found, samples)
    assert sorted(map(sorted, parts)) == [[0, 1, 2], [3]]
    out = part_outputs(Decision(contenders, found, parts, samples))
    n = len(found.calls)
    assert out["calls"] == found.calls and sorted(out["programs"]) == sorted([wrong, right])
    assert len(out["valid"]) == len(out["separating"]) == len(out["edge"]) == n and any(out["edge"])
    assert len(out["kinds"]) == len(out["outs"]) == 2 and all(len(row) == n for row in out["outs"])
    right_row = [i for i, p in enumerate(parts) if p == [3]][0]
    sep = [j for j in range(n) if out["separating"][j]]
    assert sep and all(out["kinds"][right_row][j] == RETURNED for j in sep)  # the right one returns where they differ
    assert all(out["outs"][0][j] != out["outs"][1][j] or out["kinds"][0][j] != out["kinds"][1][j] for j in sep)
    assert all(isinstance(v, str) and str(int(v)) == v for v in out["outs"][0])  # digests as text for JSON


def test_leaving_one_family_out_needs_two_families(tmp_path):
    import pytest

    from coderank_evalplus.study.select_loso import heldout_folders

    with pytest.raises(ValueError, match=r"0 complete results folders .* among .*nowhere.*: leaving one family out"):
        heldout_folders([str(tmp_path / "nowhere" / "*")])
