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
