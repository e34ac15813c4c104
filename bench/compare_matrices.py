"""Count the cells that differ between two saved matrix files (``bench_execution.py --save-matrix``).

    python bench/compare_matrices.py a.npz b.npz

Files with '<task>|<name>' arrays are compared per matrix name (pass, output, output kind, trial, compiled...);
older files of pass matrices alone (one array per task) as before.
"""

from __future__ import annotations

import sys

import numpy as np


def main() -> None:
    a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
    if set(a.files) != set(b.files):
        sys.exit(f"the files hold different arrays ({len(set(a.files) ^ set(b.files))} not in both)")
    totals: dict[str, list[int]] = {}
    for key in a.files:
        x, y = a[key], b[key]
        name = key.split("|", 1)[1] if "|" in key else "pass_matrix"
        if x.shape != y.shape:
            sys.exit(f"{key}: shapes {x.shape} and {y.shape} differ")
        t = totals.setdefault(name, [0, 0, 0])
        t[0] += x.size
        t[1] += int((x != y).sum())
        t[2] += int(((x == 0) != (y == 0)).sum())  # pass ↔ not pass (pass matrices)
    for name, (total, differ, flipped) in totals.items():
        extra = (f", pass/fail verdict flips {flipped} ({100 * flipped / max(total, 1):.4f} %)"
                 if name in ("pass_matrix", "trial_matrix") else "")
        print(f"{name}: cells {total}, differing {differ}{extra}")


if __name__ == "__main__":
    main()
