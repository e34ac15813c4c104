"""Studies: training the learned models and judging them leave one set out, from stored results folders.

``learned_loso``: the ``learned`` and ``learned_examples`` rankers — folders and model families, the licence rule for
shipped weights, held-out models per family, the rows of the leave-one-set-out tables. ``confidence_loso``: the
pick's confidence model and the adaptive budget's τ and cap — round tables per folder, held-out models, the
calibration and budget figures, and the helpers the adaptive-bound scripts share. The bench scripts
(``bench/learned_loso.py``, ``bench/recommended_loso.py``, ``bench/confidence_loso.py``, ``bench/adaptive_*_bound.py``)
print what these compute; ``--write-model`` there writes the shipped weights.

May import ``report`` (per-problem scores, statistics, the adaptive simulation, calibration), ``rankers``, ``io`` and
the core types. Nothing in the library imports it: rankers read only the weights files it writes.
"""
