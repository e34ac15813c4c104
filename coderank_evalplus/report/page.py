"""``index.html``: the leaderboard as one self-contained static page (figures embedded; no network at view time)."""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from coderank_evalplus.report.text import fmt_p, splits_in

if TYPE_CHECKING:
    from coderank_evalplus.report.board import Leaderboard

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1100px;padding:1rem 1.2rem;
color:#222;line-height:1.4}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}h3{font-size:1rem}
.scroll{max-width:100%}
table{border-collapse:collapse;font-size:.78rem;width:100%;table-layout:auto;margin:.5rem 0 1rem}
th,td{border:1px solid #ddd;padding:.25rem .35rem;vertical-align:top;overflow-wrap:anywhere}
th{background:#f4f4f4;text-align:left}td.num{text-align:right;white-space:normal}
td .ci{color:#666;font-size:.7rem;display:block}td .p{color:#666;font-size:.7rem}
tr.row:hover{background:#fafafa}.best{font-weight:600}
figure{margin:1rem 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.8rem;color:#555}.note{font-size:.8rem;color:#555}
"""


def _e(text: object) -> str:
    return html.escape(str(text))


def _img(path: Path, alt: str, caption: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (f'<figure id="fig-{_e(path.stem)}"><img src="data:image/png;base64,{data}" alt="{_e(alt)}">'
            f"<figcaption>{_e(caption)}</figcaption></figure>")


def _estimate_cell(e: dict | None, best: bool) -> str:
    if not e:
        return '<td class="num">–</td>'
    cls = ' class="num best"' if best else ' class="num"'
    return (f"<td{cls}>{e['pass@1']:.2f}<span class=\"ci\">[{e['ci95'][0]:.1f}, {e['ci95'][1]:.1f}]</span></td>")


def _diff_cell(d: dict | None) -> str:

    if not d:
        return '<td class="num">–</td>'
    return (f"<td class=\"num\">{d['diff']:+.2f}<span class=\"ci\">[{d['ci95'][0]:+.1f}, {d['ci95'][1]:+.1f}]"
            f"</span><span class=\"p\">{_e(fmt_p(d['p_value']))}</span></td>")


def _pass_table(lb: "Leaderboard", split: str) -> str:
    methods = lb.config["methods"]
    head = "".join(f"<th>{_e(h)}</th>" for h in ["model", "tests", "problems", "samples", *methods])
    body = []
    for r in lb.rows:
        if split not in r["splits"]:
            continue
        ranked = [m for m in methods if m != "oracle" and (r["methods"].get(m) or {}).get(split)]
        top = max((r["methods"][m][split]["pass@1"] for m in ranked), default=None)
        s = r["samples_per_problem"]
        cells = [f"<td>{_e(r['name'])}</td>", f"<td>{_e(r['tests_label'] or '–')}</td>",
                 f'<td class="num">{r["n_problems"]}</td>',
                 f'<td class="num">{_e(s if isinstance(s, int) else str(s["min"]) + "–" + str(s["max"]))}</td>']
        for m in methods:
            e = (r["methods"].get(m) or {}).get(split)
            cells.append(_estimate_cell(e, bool(e) and m in ranked and e["pass@1"] == top))
        body.append(f'<tr class="row">{"".join(cells)}</tr>')
    return f'<div class="scroll"><table class="leaderboard" data-split="{split}"><thead><tr>{head}</tr></thead>' \
           f'<tbody>{"".join(body)}</tbody></table></div>'


def _diff_table(lb: "Leaderboard", base: str, split: str) -> str:
    methods = [m for m in lb.config["methods"] if m != base and not (base == "random" and m == "oracle")]
    head = "".join(f"<th>{_e(h)}</th>" for h in ["model", "tests", *methods])
    body = []
    for r in lb.rows:
        if split not in r["splits"]:
            continue
        cmp = r["comparisons"].get(base, {})
        cells = [f"<td>{_e(r['name'])}</td>", f"<td>{_e(r['tests_label'] or '–')}</td>"]
        cells += [_diff_cell(cmp.get(m, {}).get(split)) for m in methods]
        body.append(f"<tr>{''.join(cells)}</tr>")
    return f'<div class="scroll"><table class="comparison"><thead><tr>{head}</tr></thead>' \
           f'<tbody>{"".join(body)}</tbody></table></div>'


def _quality_table(lb: "Leaderboard") -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in ["model", "tests", "asserts / problem", "inputs / problem",
                                                   "accuracy %", "toxic %", "gain vs accuracy (Spearman ρ)"])
    body = []
    for q in lb.quality:
        s = q["summary"]
        rho = "; ".join(f"{m}: {'–' if g['spearman_rho'] is None else g['spearman_rho']}"
                        for m, g in s["gain_vs_accuracy"].items())
        vals = [q["name"], q["tests_label"] or "–", s["asserts_per_problem"], s["inputs_per_problem"],
                "–" if s["accuracy"] is None else s["accuracy"], "–" if s["toxic"] is None else s["toxic"], rho]
        body.append("<tr>" + "".join(f"<td>{_e(v)}</td>" for v in vals) + "</tr>")
    return f'<div class="scroll"><table class="quality"><thead><tr>{head}</tr></thead>' \
           f'<tbody>{"".join(body)}</tbody></table></div>'


def render(lb: "Leaderboard", figures: Mapping[str, Path]) -> str:
    """The whole page as a string."""

    cfg = lb.config
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>coderank_evalplus leaderboard</title>", f"<style>{_CSS}</style></head><body>",
             "<h1>Leaderboard: reranked pass@1</h1>",
             f'<p class="note">pass@1 in %, mean over problems; in brackets the 95 % percentile-bootstrap interval '
             f"over problems ({cfg['n_resamples']} resamples, seed {cfg['seed']}). Differences are paired: the same "
             f"problems and resamples for every method of a row. Bold: the best ranked method of the row.</p>"]
    for split in splits_in(lb.rows):
        parts += [f"<h2>pass@1 on {split} tests</h2>", _pass_table(lb, split)]
        for base in cfg["compare_to"]:
            title = "Gain over random" if base == "random" else f"Difference to {base}"
            parts += [f"<h3>{_e(title)} ({split} tests, points)</h3>", _diff_table(lb, base, split)]
        if f"pass1_{split}" in figures:
            parts.append(_img(figures[f"pass1_{split}"], f"pass@1 on {split} tests with intervals",
                              f"pass@1 on {split} tests, 95 % bootstrap intervals."))
    parts.append("<h2>Budget curves</h2>")
    parts.append(f'<p class="note">pass@1 when each problem keeps only N of its candidates (or M of its test '
                 f"samples), drawn without replacement; lines: mean of {cfg['draws']} seeded draws, bands: 2.5–97.5 % "
                 f"of the draws. Computed from the stored matrices, nothing executed again.</p>")
    for key, caption in (("budget_candidates", "pass@1 against the number of candidates N"),
                         ("budget_tests", "pass@1 against the number of test samples M")):
        for split in splits_in(lb.rows):
            if f"{key}_{split}" in figures:
                parts.append(_img(figures[f"{key}_{split}"], caption, f"{caption} ({split} tests)."))
    parts += ["<h2>Generated-test quality</h2>",
              '<p class="note">Per problem, over the pool\'s distinct asserts: accuracy = share the reference '
              "solution passes; toxic = share the reference fails but some wrong candidate passes. Means over "
              "problems; Spearman's ρ between a problem's test accuracy and its gain (method − random, base tests).</p>",
              _quality_table(lb)]
    if "test_quality" in figures:
        parts.append(_img(figures["test_quality"], "test quality", "Test accuracy and toxic share per row; "
                                                                    "per-problem gain against test accuracy."))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
