"""Do targeted inputs that split the top cluster help the default pick? The prototype of issue 54's selection step,
now the package's (``selection/``): this script is bench/select_loso.py with ``--top-only`` (only a top group of
several distinct programs is in doubt; two close groups never are), measured leave one family out beside the
held-out ``learned_examples`` pick it reorders.

Its first figures (+0.34 base / +0.64 plus on the family mean, docs/methods.md) came from the prototype's own loop
(inputs grown in rounds of 10 up to 50 until the top group's programs disagree, the largest part kept); the package
grows them the same way, then one more round from the inputs where they disagree (``selection/search.py``).

    python bench/split_top.py 'runs/recommended/*/runs/*' --cache-dir C --json split_top.json
"""

from __future__ import annotations

import sys

from select_loso import main as select_loso  # bench/select_loso.py (run as python bench/…)

if __name__ == "__main__":
    sys.exit(select_loso([*sys.argv[1:], "--top-only"]))
