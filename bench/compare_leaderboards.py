"""Every table cell, curve point and adaptive row of two leaderboard output folders, compared to the digit.

    python bench/compare_leaderboards.py OLD_FOLDER NEW_FOLDER [--show 20]

Reads each folder's ``leaderboard.json`` (table rows: pass@1, intervals, paired comparisons; models), ``curves.json``
(budget curves by candidates and by tests, the adaptive round tables) and ``test_quality.json``, walks both to their
leaves and prints, per part, how many leaves were compared and which differ (paths, old and new values). Leaves that
name a place or a time (folders, paths, seconds) are skipped; a leaf only one folder has counts as differing.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Iterator

SKIP = {"folder", "path", "output", "cache_dir", "timing", "samples_path", "tests_path", "solutions", "tests_file"}


def leaves(x: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(path, value) of every leaf, rows and curves keyed by their names so that an order change is not a diff."""
    if isinstance(x, dict):
        for k, v in x.items():
            if k in SKIP or k.endswith("_s"):
                continue
            yield from leaves(v, f"{path}/{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            key = f"{v.get('name')}·{v.get('tests_label')}" if isinstance(v, dict) and "name" in v else str(i)
            yield from leaves(v, f"{path}[{key}]")
    else:
        yield path, x


def part(path: str) -> str:
    """Which kind of figure a leaf is, for the counts."""
    if path.startswith("curves.json") and "/adaptive" in path:
        return "adaptive rows"
    if path.startswith("curves.json"):
        return "curve points"
    if path.startswith("leaderboard.json:/rows"):
        return "table cells" if "/comparisons" not in path else "paired comparisons"
    return path.split(":", 1)[0] + (" models" if "/models" in path else "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--show", type=int, default=20, help="differing leaves to print")
    args = ap.parse_args()
    counts: dict[str, list[int]] = {}
    diffs: list[tuple[str, Any, Any]] = []
    for name in ("leaderboard.json", "curves.json", "test_quality.json"):
        a = dict(leaves(json.loads((args.old / name).read_text())))
        b = dict(leaves(json.loads((args.new / name).read_text())))
        for key in sorted(a.keys() | b.keys()):
            full = f"{name}:{key}"
            c = counts.setdefault(part(full), [0, 0, 0])
            va, vb = a.get(key, "<absent>"), b.get(key, "<absent>")
            c[0] += 1
            c[1] += any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (va, vb))
            if va != vb:
                c[2] += 1
                diffs.append((full, va, vb))
    for k, (n, numbers, d) in counts.items():
        print(f"{k}: {n} leaves compared ({numbers} numbers), {d} differ")
    for full, va, vb in diffs[:args.show]:
        print(f"  {full}: {va!r} -> {vb!r}")
    if len(diffs) > args.show:
        print(f"  … {len(diffs) - args.show} more")


if __name__ == "__main__":
    main()
