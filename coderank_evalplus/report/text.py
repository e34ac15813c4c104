"""Text a person reads: the markdown table of a rerank result, the line saying where its time went, and the small
formatting helpers the leaderboard's tables, figures and page share."""

from __future__ import annotations

from typing import Mapping, Optional, Sequence


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


def timing_line(timing: Mapping) -> str:
    """Where a run's time went (``RerankResult.timing``), in one line: seconds per phase, programs and items."""
    if not timing:
        return ""
    judge = (f"judge {timing['judge_s']:.1f} s ({timing['judged_samples']:,} samples judged)"
             if timing.get("verdicts_from", "judge") == "judge" else
             f"judge {timing['judge_s']:.1f} s (verdicts from {timing['verdicts_from']})")
    odd = timing.get("suspicious")
    flagged = (f"\nsuspicious: {odd:,} judged samples passed only because their own == said so (listed in "
               "rerank_results.json; --strict fails them)" if odd else "")
    return (f"time: load {timing['load_s']:.1f} s, execute {timing['execute_s']:.1f} s ({timing['programs']:,} "
            f"programs, {timing['items']:,} items, {timing['cached_items']:,} cached), rank {timing['rank_s']:.1f} s, "
            f"{judge}, metrics {timing['metrics_s']:.1f} s; total {timing['total_s']:.1f} s" + flagged)


def fmt_p(p: float) -> str:
    return "p<0.001" if p < 0.001 else f"p={p:.3f}"


def splits_in(rows: Sequence[dict]) -> list[str]:
    return [s for s in ("base", "plus") if any(s in r["splits"] for r in rows)]
