"""Count the cells that differ between two saved pass-matrix files (``bench_execution.py --save-matrix``).

    python bench/compare_matrices.py a.npz b.npz
"""

from __future__ import annotations

import sys

import numpy as np


def main() -> None:
    a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
    total = differ = flipped = 0
    for key in a.files:
        x, y = a[key], b[key]
        total += x.size
        differ += int((x != y).sum())
        flipped += int(((x == 0) != (y == 0)).sum())  # pass ↔ not pass
    print(f"cells {total}, differing outcome codes {differ}, pass/fail verdict flips {flipped} "
          f"({100 * flipped / max(total, 1):.4f} %)")


if __name__ == "__main__":
    main()
