"""Human-readable output: the markdown table of a rerank result."""

from __future__ import annotations

from typing import Mapping, Optional


def markdown_table(methods: Mapping[str, Mapping[str, Optional[Mapping[str, float]]]], title: str = "") -> str:
    """One row per method; columns pass@k on base tests, then on plus tests where present."""
    splits = [s for s in ("base", "plus") if any(v.get(s) for v in methods.values())]
    ks = []
    for v in methods.values():
        for s in splits:
            for k in (v.get(s) or {}):
                if k not in ks:
                    ks.append(k)
    header = ["method"] + [f"{k} ({s})" for s in splits for k in ks]
    lines = [f"### {title}" if title else "", "| " + " | ".join(header) + " |",
             "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    for name, per_split in methods.items():
        cells = [name]
        for s in splits:
            for k in ks:
                val = (per_split.get(s) or {}).get(k)
                cells.append("–" if val is None else f"{val:.2f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(line for line in lines if line != "" or title)
