"""matplotlib figures of a leaderboard: pass@1 with intervals, budget curves, test-pool quality (PNG files)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from coderank_evalplus.report.text import block_key, model_blocks, splits_in, too_few
from coderank_evalplus.stats import MIN_PROBLEMS, has_interval

if TYPE_CHECKING:
    from coderank_evalplus.report.board import Leaderboard

DPI = 110
WIDTH_IN = 10.0  # fits the page's column without sideways scrolling


def _plt():
    import matplotlib

    matplotlib.use("Agg")  # no display; files only
    import matplotlib.pyplot as plt

    return plt


def _colors(methods: list[str]) -> dict[str, str]:
    special = {"random": "#888888", "oracle": "#222222"}
    cycle = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#bcbd22"]
    others = [m for m in methods if m not in special]
    return {**{m: cycle[i % len(cycle)] for i, m in enumerate(others)}, **special}


def _label(row: dict) -> str:
    return f"{row['name']}\n{row['tests_label']}" if row.get("tests_label") else row["name"]


def _save(fig, path: Path) -> Path:
    from coderank_evalplus.storage import atomic_open

    with atomic_open(path, "wb") as fh:
        fig.savefig(fh, format=path.suffix.lstrip(".") or "png", dpi=DPI, bbox_inches="tight")
    _plt().close(fig)
    return path


def pass1_figure(lb: "Leaderboard", split: str, path: Path) -> Path:
    """Horizontal interval plot: one band per row, one bar per method."""
    plt = _plt()
    methods = lb.config["methods"]
    colors = _colors(methods)
    rows = [r for r in lb.rows if split in r["splits"]]
    per = len(methods) + 1
    fig, ax = plt.subplots(figsize=(WIDTH_IN, max(2.5, 0.22 * per * len(rows) + 1.2)))
    ticks = []
    for i, r in enumerate(rows):
        base_y = (len(rows) - 1 - i) * per
        ticks.append((base_y + (len(methods) - 1) / 2, _label(r)))
        for j, m in enumerate(methods):
            e = (r["methods"].get(m) or {}).get(split)
            if not e:
                continue
            y = base_y + len(methods) - 1 - j
            v, ci = e["pass@1"], e["ci95"]  # no interval under MIN_PROBLEMS problems: the point alone
            ax.errorbar(v, y, xerr=None if ci is None else [[v - ci[0]], [ci[1] - v]], fmt="o", color=colors[m],
                        capsize=3, ms=4, label=m if i == 0 else None)
    ax.set_yticks([t for t, _ in ticks], [label for _, label in ticks], fontsize=8)
    ax.set_xlabel(f"pass@1 on {split} tests (%), 95 % bootstrap interval over problems (none under "
                  f"{MIN_PROBLEMS} problems)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=min(6, len(methods)), fontsize=8, frameon=False)
    return _save(fig, path)


def _grid(n: int):
    cols = min(3, max(1, n))
    return math.ceil(n / cols), cols


def curve_figure(lb: "Leaderboard", kind: str, split: str, path: Path) -> Path | None:
    """One panel per row: pass@1 against the budget (N candidates or M test samples), mean and 95 % of draws."""
    plt = _plt()
    panels = [c for c in lb.curves if c[kind]["budgets"] and split in c[kind]["curves"]]
    if not panels:
        return None
    methods = lb.config["methods"]
    colors = _colors(methods)
    nr, nc = _grid(len(panels))
    fig, axes = plt.subplots(nr, nc, figsize=(WIDTH_IN, 2.9 * nr), squeeze=False, sharey=True)
    for ax, c in zip(axes.flat, panels):
        budgets = c[kind]["budgets"]
        for m in methods:
            pts = c[kind]["curves"][split].get(m)
            if not pts:
                continue
            ax.plot(budgets, [p["mean"] for p in pts], marker="o", ms=3, color=colors[m], label=m)
            ax.fill_between(budgets, [p["lo"] for p in pts], [p["hi"] for p in pts], color=colors[m], alpha=0.15)
        ax.set_xscale("log")
        ax.set_xticks(budgets, [str(b) for b in budgets], fontsize=7)
        ax.minorticks_off()
        ax.set_title(_label(c).replace("\n", " · "), fontsize=8)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    what = "candidates per problem (N)" if kind == "candidates" else "test samples per problem (M)"
    fig.supxlabel(what, fontsize=9)
    fig.supylabel(f"pass@1 on {split} tests (%)", fontsize=9)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / (2.9 * nr)))
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 1.0), ncol=min(6, len(labels)),
               fontsize=8, frameon=False)
    return _save(fig, path)


def confidence_method(row: dict) -> str | None:
    """The ranked method whose confidence the page shows for a row: ``recommended`` when there, else the first."""
    conf = row.get("confidence") or {}
    from coderank_evalplus.rankers.registry import RECOMMENDED

    return RECOMMENDED if RECOMMENDED in conf else next(iter(conf), None)


def confidence_figure(lb: "Leaderboard", split: str, path: Path) -> Path | None:
    """Left: reliability diagram (mean outcome against mean confidence per bin, marker area ~ count). Right:
    accuracy–coverage curve (pass@1 over the most confident share of problems). One line per row."""
    plt = _plt()
    rows = [r for r in lb.rows if confidence_method(r) and split in r["confidence"][confidence_method(r)].get(
        "reliability", {})]
    if not rows:
        return None
    fig, (left, right) = plt.subplots(1, 2, figsize=(WIDTH_IN, 4.2))
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, r in enumerate(rows):
        rep = r["confidence"][confidence_method(r)]
        color = cycle[i % len(cycle)]
        bins = rep["reliability"][split]
        n = sum(b["count"] for b in bins) or 1
        left.plot([b["confidence"] for b in bins], [b["accuracy"] for b in bins], color=color, lw=1, alpha=0.8)
        left.scatter([b["confidence"] for b in bins], [b["accuracy"] for b in bins], color=color,
                     s=[8 + 200 * b["count"] / n for b in bins], alpha=0.7, label=_label(r).replace("\n", " · "))
        curve = rep["coverage_curve"][split]
        right.plot([c["coverage"] for c in curve], [c["pass@1"] for c in curve], color=color, lw=1.2)
    left.plot([0, 1], [0, 1], color="#888888", ls="--", lw=1)
    left.set_xlabel("confidence of the pick (bin mean)", fontsize=9)
    left.set_ylabel(f"share of picks passing {split} tests", fontsize=9)
    left.set_xlim(0, 1)
    left.set_ylim(0, 1)
    right.set_xlabel("coverage (share of problems answered, most confident first)", fontsize=9)
    right.set_ylabel(f"pass@1 on {split} tests (%)", fontsize=9)
    for ax in (left, right):
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.legend(*left.get_legend_handles_labels(), loc="upper center", bbox_to_anchor=(0.5, 1.0 + 0.03 * (
        1 + len(rows) // 3)), ncol=3, fontsize=7, frameon=False)
    return _save(fig, path)


def adaptive_figure(lb: "Leaderboard", split: str, path: Path) -> Path | None:
    """One panel per row: pass@1 against the mean samples per problem, fixed N (the budget curve) beside the
    adaptive rule's τ sweep (the recorded τ marked)."""
    plt = _plt()
    panels = [c for c in lb.curves if c.get("adaptive") and c["adaptive"]["adaptive"]
              and split in c["adaptive"]["fixed"][0]]
    if not panels:
        return None
    nr, nc = _grid(len(panels))
    fig, axes = plt.subplots(nr, nc, figsize=(WIDTH_IN, 2.9 * nr), squeeze=False, sharey=False)
    for ax, c in zip(axes.flat, panels):
        a = c["adaptive"]
        fx = a["fixed"]
        ax.plot([f["n"] for f in fx], [f[split] for f in fx], marker="o", ms=3, color="#1f77b4", label="fixed N")
        sweep = sorted(a["adaptive"], key=lambda r: r["mean_samples"])
        ax.plot([r["mean_samples"] for r in sweep], [r[split] for r in sweep], marker="s", ms=3, color="#d62728",
                label="adaptive (τ sweep)")
        if all(r[f"{split}_ci95"] is not None for r in sweep):  # none under MIN_PROBLEMS problems
            ax.fill_between([r["mean_samples"] for r in sweep], [r[f"{split}_ci95"][0] for r in sweep],
                            [r[f"{split}_ci95"][1] for r in sweep], color="#d62728", alpha=0.1)
        ax.plot([a["at_tau"]["mean_samples"]], [a["at_tau"][split]], marker="*", ms=10, color="#d62728",
                label=f"recorded τ = {a['tau']}")
        ax.set_xscale("log")
        ax.set_title(_label(c).replace("\n", " · ") + f" ({a['method']})", fontsize=8)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.supxlabel("samples per problem (fixed N, or the adaptive rule's mean)", fontsize=9)
    fig.supylabel(f"pass@1 on {split} tests (%)", fontsize=9)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / (2.9 * nr)))
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=8, frameon=False)
    return _save(fig, path)


def quality_figure(lb: "Leaderboard", path: Path) -> Path | None:
    """Left: each row's mean test accuracy and toxic share. Right: per-problem gain over random against accuracy."""
    plt = _plt()
    runs = [q for q in lb.quality if q["summary"]["accuracy"] is not None]
    if not runs:
        return None
    method = next((m for m in lb.config["methods"] if m not in ("random", "oracle")), None)
    fig, (left, right) = plt.subplots(1, 2, figsize=(WIDTH_IN, max(3.2, 0.32 * len(runs) + 1.5)))
    names = [f"{q['name']} · {q['tests_label']}" if q["tests_label"] else q["name"] for q in runs]
    ys = list(range(len(runs)))[::-1]
    left.barh([y + 0.2 for y in ys], [q["summary"]["accuracy"] for q in runs], height=0.4, color="#2ca02c",
              label="accuracy (reference solution passes)")
    left.barh([y - 0.2 for y in ys], [q["summary"]["toxic"] for q in runs], height=0.4, color="#d62728",
              label="toxic (reference fails, a wrong candidate passes)")
    left.set_yticks(ys, names, fontsize=7)
    left.set_xlabel("share of distinct asserts (%), mean over problems", fontsize=8)
    left.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.15), frameon=False)
    if method:
        colors = _colors([f"r{i}" for i in range(len(runs))])
        for i, q in enumerate(runs):
            pts = [(p["accuracy"], p["gain"][method]) for p in q["problems"]
                   if p["accuracy"] is not None and method in p.get("gain", {})]
            if pts:
                right.scatter([100 * a for a, _ in pts], [g for _, g in pts], s=8, alpha=0.5,
                              color=colors[f"r{i}"], label=names[i])
        right.axhline(0, color="#444444", lw=0.8)
        right.set_xlabel("test accuracy of the problem's pool (%)", fontsize=8)
        right.set_ylabel(f"{method} − random, pass@1 (points)", fontsize=8)
        right.grid(alpha=0.3)
        right.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.15), frameon=False, ncol=2)
    fig.tight_layout()
    return _save(fig, path)


def _method_panels(n_methods: int, height: float):
    plt = _plt()
    cols = min(3, n_methods)
    rows = math.ceil(n_methods / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(WIDTH_IN, height * rows), squeeze=False, layout="constrained")
    for ax in list(axes.flat)[n_methods:]:
        ax.axis("off")
    return fig, list(axes.flat)[:n_methods]


def rank_figure(block: list[dict], path: Path) -> Path:
    """One panel per method: each model's rank (dot) and 95 % bootstrap rank interval (bar), models in the order
    of the random pick; overlapping bars are models the data cannot separate."""
    order = [r["name"] for r in next((e for e in block if e["method"] == "random"), block[0])["ranking"]]
    m = len(order)
    fig, axes = _method_panels(len(block), max(1.8, 0.32 * m + 1.0))
    for ax, e in zip(axes, block):
        by_name = {r["name"]: r for r in e["ranking"]}
        for y, name in enumerate(reversed(order)):
            r = by_name[name]
            if r["rank_ci95"] is not None:  # none under MIN_PROBLEMS problems
                lo, hi = r["rank_ci95"]
                ax.plot([lo, hi], [y, y], color="#1f77b4", lw=5, alpha=0.35, solid_capstyle="round")
            ax.plot([r["rank"]], [y], "o", color="#1f77b4", ms=5)
        ax.set_yticks(range(m), list(reversed(order)), fontsize=7)
        ax.set_xticks(range(1, m + 1))
        ax.set_xlim(0.5, m + 0.5)
        ax.invert_xaxis()
        ax.set_title(e["method"], fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    first = block[0]
    n = first["n_problems"]
    what = f"95 % bootstrap rank interval, n = {n}" if has_interval(n) else too_few(n, "rank interval")
    fig.suptitle(f"{first['dataset']} · {first['pool']} · {first['split']} tests · N = {first['budget']}: rank "
                 f"(1 = best) and {what}", fontsize=9)
    return _save(fig, path)


def pairs_figure(block: list[dict], path: Path) -> Path:
    """One heatmap per method: pass@1 of the row's model minus the column's (points), * where p < 0.05."""
    order = [r["name"] for r in next((e for e in block if e["method"] == "random"), block[0])["ranking"]]
    m = len(order)
    pos = {n: i for i, n in enumerate(order)}
    fig, axes = _method_panels(len(block), max(2.6, 0.5 * m + 1.6))
    lim = max([abs(p["diff"]) for e in block for p in e["pairs"]] + [1.0])
    image = None
    for ax, e in zip(axes, block):
        diff = np.full((m, m), np.nan)
        marks = np.full((m, m), "", dtype=object)
        for p in e["pairs"]:
            i, j = pos[p["a"]], pos[p["b"]]
            diff[i, j], diff[j, i] = p["diff"], -p["diff"]
            star = "*" if p["p_value"] is not None and p["p_value"] < 0.05 else ""
            marks[i, j] = f"{p['diff']:+.1f}{star}"
            marks[j, i] = f"{-p['diff']:+.1f}{star}"
        image = ax.imshow(diff, cmap="RdBu", vmin=-lim, vmax=lim)
        for i in range(m):
            for j in range(m):
                if marks[i, j]:
                    ax.text(j, i, marks[i, j], ha="center", va="center", fontsize=6)
        short = [n if len(n) <= 14 else n[:13] + "…" for n in order]
        ax.set_xticks(range(m), short, fontsize=6, rotation=45, ha="right")
        ax.set_yticks(range(m), short, fontsize=6)
        ax.set_title(e["method"], fontsize=9)
    first = block[0]
    n = first["n_problems"]
    what = f"* p < 0.05 (paired bootstrap, n = {n})" if has_interval(n) else too_few(n, "p-value")
    fig.suptitle(f"{first['dataset']} · {first['pool']} · {first['split']} tests · N = {first['budget']}: row − "
                 f"column pass@1 (points), {what}", fontsize=9)
    if image is not None:
        fig.colorbar(image, ax=axes, shrink=0.6, label="points")
    return _save(fig, path)


def model_figures(lb: "Leaderboard", folder: Path) -> dict[str, Path]:
    """Rank intervals and pairwise differences of every model-comparison block at its matched budget."""
    figs: dict[str, Path] = {}
    for block in model_blocks(lb.models):
        if block[0]["budget"] == "full" or not block[0]["ranking"]:
            continue
        key = block_key(block[0])
        figs[f"ranks_{key}"] = rank_figure(block, folder / f"ranks_{key}.png")
        figs[f"pairs_{key}"] = pairs_figure(block, folder / f"pairs_{key}.png")
    return figs


def make_all(lb: "Leaderboard", folder: Path) -> dict[str, Path]:
    """Every figure of the leaderboard, by name."""

    figs: dict[str, Path] = model_figures(lb, folder)
    for split in splits_in(lb.rows):
        figs[f"pass1_{split}"] = pass1_figure(lb, split, folder / f"pass1_{split}.png")
    for kind in ("candidates", "tests"):
        for split in splits_in(lb.rows):
            p = curve_figure(lb, kind, split, folder / f"budget_{kind}_{split}.png")
            if p is not None:
                figs[f"budget_{kind}_{split}"] = p
    for split in splits_in(lb.rows):
        c = confidence_figure(lb, split, folder / f"confidence_{split}.png")
        if c is not None:
            figs[f"confidence_{split}"] = c
        a = adaptive_figure(lb, split, folder / f"adaptive_{split}.png")
        if a is not None:
            figs[f"adaptive_{split}"] = a
    q = quality_figure(lb, folder / "test_quality.png")
    if q is not None:
        figs["test_quality"] = q
    return figs
