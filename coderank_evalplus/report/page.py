"""``index.html``: the leaderboard as one self-contained static page (figures embedded; no network at view time)."""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from coderank_evalplus.report.text import (
    SETTING_NOTE,
    SMALL_N_NOTE,
    block_key,
    block_note,
    confidence_cells,
    confidence_shown,
    confidence_withheld,
    flips_text,
    fmt_p,
    fmt_rank,
    method_headers,
    model_blocks,
    same_names_lines,
    splits_in,
    summary_pools,
    taus_text,
    tests_cell,
    too_few,
)
from coderank_evalplus.stats import MIN_PROBLEMS

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
table.sortable th{cursor:pointer;user-select:none}table.sortable th[data-dir=desc]::after{content:" ▼"}
table.sortable th[data-dir=asc]::after{content:" ▲"}
"""
# Sort a models table by the clicked column (numbers by value, text alphabetically); first click: descending.
# Written by hand: a few lines, so that the page needs no library and no network.
_SORT_JS = """<script>
document.querySelectorAll('table.sortable').forEach(t => t.querySelectorAll('thead th').forEach((th, i) =>
  th.addEventListener('click', () => {
    const dir = th.dataset.dir === 'desc' ? 1 : -1;
    t.querySelectorAll('thead th').forEach(h => delete h.dataset.dir);
    th.dataset.dir = dir < 0 ? 'desc' : 'asc';
    const key = r => r.cells[i].dataset.v, rows = [...t.tBodies[0].rows];
    rows.sort((a, b) => { const x = parseFloat(key(a)), y = parseFloat(key(b));
      return dir * (isNaN(x) || isNaN(y) ? key(a).localeCompare(key(b)) : x - y); });
    rows.forEach(r => t.tBodies[0].appendChild(r));
  })));
</script>"""


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
    if e.get("ci95") is None:  # under MIN_PROBLEMS problems
        few = _e(too_few(e.get("n_problems", 0), "interval"))
        return f'<td{cls}>{e["pass@1"]:.2f}<span class="ci few">{few}</span></td>'
    return (f"<td{cls}>{e['pass@1']:.2f}<span class=\"ci\">[{e['ci95'][0]:.1f}, {e['ci95'][1]:.1f}]</span></td>")


def _diff_cell(d: dict | None) -> str:

    if not d:
        return '<td class="num">–</td>'
    if d.get("ci95") is None or d.get("p_value") is None:  # under MIN_PROBLEMS problems
        return (f'<td class="num">{d["diff"]:+.2f}<span class="ci few">{_e(too_few(d.get("n_problems", 0)))}'
                f"</span></td>")
    return (f"<td class=\"num\">{d['diff']:+.2f}<span class=\"ci\">[{d['ci95'][0]:+.1f}, {d['ci95'][1]:+.1f}]"
            f"</span><span class=\"p\">{_e(fmt_p(d['p_value']))}</span></td>")


def _pass_table(lb: "Leaderboard", split: str, dataset: str) -> str:
    methods = lb.config["methods"]
    head = "".join(f"<th>{_e(h)}</th>" for h in ["model", "tests", "problems (n)", "samples",
                                                   *method_headers(methods)])
    body = []
    for r in lb.rows:
        if split not in r["splits"] or r["dataset"] != dataset:
            continue
        ranked = [m for m in methods if m != "oracle" and (r["methods"].get(m) or {}).get(split)]
        top = max((r["methods"][m][split]["pass@1"] for m in ranked), default=None)
        s = r["samples_per_problem"]
        cells = [f"<td>{_e(r['name'])}</td>", f"<td>{_e(tests_cell(r))}</td>",
                 f'<td class="num">{r["n_problems"]}</td>',
                 f'<td class="num">{_e(s if isinstance(s, int) else str(s["min"]) + "–" + str(s["max"]))}</td>']
        for m in methods:
            e = (r["methods"].get(m) or {}).get(split)
            cells.append(_estimate_cell(e, e is not None and m in ranked and e["pass@1"] == top))
        body.append(f'<tr class="row">{"".join(cells)}</tr>')
    return f'<div class="scroll"><table class="leaderboard" data-split="{split}"><thead><tr>{head}</tr></thead>' \
           f'<tbody>{"".join(body)}</tbody></table></div>'


def _diff_table(lb: "Leaderboard", base: str, split: str, dataset: str) -> str:
    methods = [m for m in lb.config["methods"] if m != base and not (base == "random" and m == "oracle")]
    head = "".join(f"<th>{_e(h)}</th>" for h in ["model", "tests", "n", *method_headers(methods)])
    body = []
    for r in lb.rows:
        if split not in r["splits"] or r["dataset"] != dataset:
            continue
        cmp = r["comparisons"].get(base, {})
        cells = [f"<td>{_e(r['name'])}</td>", f"<td>{_e(r['tests_label'] or '–')}</td>",
                 f'<td class="num">{r["n_problems"]}</td>']
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


def _models_table(block: list[dict]) -> str:
    """One block (dataset, pool, split, budget): a row per model, a column per method (pass@1, rank interval);
    click a header to sort."""
    order = [r["name"] for r in next((e for e in block if e["method"] == "random"), block[0])["ranking"]]
    head = "".join(f"<th>{_e(h)}</th>" for h in ["model", "samples", *method_headers([e["method"] for e in block])])
    body = []
    for name in order:
        s = block[0]["samples"][name]
        cells = [f'<td data-v="{_e(name)}">{_e(name)}</td>',
                 f'<td class="num" data-v="{s if isinstance(s, int) else s[1]}">'
                 f'{_e(s if isinstance(s, int) else "–".join(map(str, s)))}</td>']
        for e in block:
            r = next(x for x in e["ranking"] if x["name"] == name)
            cls = ' class="num best"' if r["rank"] == 1 else ' class="num"'
            cells.append(f'<td{cls} data-v="{r["pass@1"]}">{r["pass@1"]:.2f}<span class="ci">{_e(fmt_rank(r))}'
                         f"</span></td>")
        body.append(f'<tr class="row">{"".join(cells)}</tr>')
    return (f'<div class="scroll"><table class="models sortable" data-block="{_e(block_key(block[0]))}"><thead><tr>'
            f'{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>')


def _agreement_note(block: list[dict]) -> str:
    return (f'<p class="note">Kendall\'s τ with the random-pick order: {_e(taus_text(block))}. '
            f"Significant flips: {_e(flips_text(block))}.</p>")


def _summary_table(lb: "Leaderboard") -> str:
    methods = lb.config["methods"]
    pools = summary_pools(lb.models_summary)
    datasets = list(pools)
    head = "".join(f"<th>{_e(h)}</th>" for h in ["model", *[f"{ds} {m}" for ds in datasets
                                                             for m in method_headers(methods)]])
    body = []
    for model in lb.models_summary:
        cells = [f'<td data-v="{_e(model["name"])}">{_e(model["name"])}</td>']
        for ds in datasets:
            bench = model["benchmarks"].get(ds, {"methods": {}})
            for m in methods:
                v = [x for x in (bench["methods"].get(m) or {}).values() if x is not None]
                cells.append(f'<td class="num" data-v="{v[0] if v else -1}">'
                             f'{_e(" / ".join(f"{x:.2f}" for x in v) or "–")}</td>')
        body.append(f"<tr>{''.join(cells)}</tr>")
    shown = "; ".join(f"{ds}: {p}" for ds, p in pools.items())
    return (f'<p class="note">Each model at its full budget, pass@1 (%) base / plus; rerankers with each '
            f"benchmark's most shared pool ({_e(shown)}).</p>"
            f'<div class="scroll"><table class="summary sortable"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


def _models_section(lb: "Leaderboard", figures: Mapping[str, Path]) -> list[str]:
    if not lb.models:
        return []
    parts = ["<h2>Which model wins?</h2>",
             '<p class="note">Rows with the same dataset and test pool, compared as models, at the matched budget (the '
             "smallest samples/problem of the pool's rows; larger rows sub-sampled with the budget curves' seeded "
             "draws) and at each row's full budget. Cells: pass@1 on the problems every model of the pool has, "
             "#rank [95 % bootstrap rank interval]; overlapping intervals: models the data cannot separate. τ's "
             f"interval: τ ± 1.96 bootstrap standard errors, ends moved out to values τ takes. Under {MIN_PROBLEMS} "
             "problems (n) no interval, p-value or τ is given. Click a column to sort.</p>"]
    for block in model_blocks(lb.models):
        first = block[0]
        budget = "each row's full budget" if first["budget"] == "full" else f"N = {first['budget']}"
        parts.append(f"<h3>{_e(first['dataset'])} · {_e(first['pool'])} · {_e(first['split'])} tests · {_e(budget)} "
                     f"(n = {first['n_problems']} problems)</h3>")
        if block_note(first):
            parts.append(f'<p class="note few">{_e(block_note(first))}</p>')
        parts += [_models_table(block), _agreement_note(block)]
        key = block_key(first)
        pairs = (f"Pairwise differences, row − column (points); * p < 0.05 (paired bootstrap over the problems both "
                 f"rows have; no p-value under {MIN_PROBLEMS}).")
        for kind, caption in (("ranks", "Rank and 95 % bootstrap rank interval per method (1 = best)."),
                              ("pairs", pairs)):
            if f"{kind}_{key}" in figures:
                parts.append(_img(figures[f"{kind}_{key}"], f"{kind} {key}", caption))
    parts += ["<h3>Models summary</h3>", _summary_table(lb)]
    return parts


def _confidence_section(lb: "Leaderboard", figures: Mapping[str, Path]) -> list[str]:
    """Calibration of the pick's confidence per row (rankers/confidence.py) and its two figures."""
    from coderank_evalplus.report.figures import confidence_method

    rows = [r for r in lb.rows if confidence_method(r)]
    if not rows:
        return []
    parts = ["<h2>Confidence of the pick</h2>",
             '<p class="note">The probability that the reranked pick passes, from the ranking\'s own outcome (the '
             "pick's share of the samples, its margin over the runner-up, distinct behaviours, tests passed, N). ECE: "
             "expected calibration error over 10 bins; AUROC of “the pick is right”; selective pass@1: pass@1 over "
             "the most confident share of problems (abstaining on the rest).</p>"]
    body: list[str] = []
    few: list[tuple[str, dict]] = []
    for r in rows:
        m = confidence_method(r)
        rep = r["confidence"][m]
        if not confidence_shown(rep):
            few.append((r["name"], rep))
            continue
        for split in rep["calibration"]:
            body.append("<tr>" + "".join(f"<td>{_e(x)}</td>" for x in [r["name"], r["tests_label"] or "–", m, split])
                        + "".join(f'<td class="num">{_e(x)}</td>' for x in confidence_cells(rep, split)) + "</tr>")
    if body:
        parts += ["<table><tr><th>model</th><th>tests</th><th>method</th><th>split</th><th>ECE</th><th>Brier</th>"
                  "<th>AUROC</th><th>pass@1 (all)</th><th>at 90 %</th><th>at 80 %</th><th>at 50 %</th></tr>",
                  *body, "</table>"]
    if few:
        parts.append(f'<p class="note few">{_e(confidence_withheld(few))}</p>')
    for split in splits_in(lb.rows):
        if f"adaptive_{split}" in figures:
            parts.append(_img(figures[f"adaptive_{split}"], f"adaptive budget ({split})",
                              f"Adaptive budget: stop a problem once the pick's confidence reaches τ; pass@1 against "
                              f"the mean samples per problem beside fixed N, on the budget curves' draws ({split} "
                              f"tests)."))
        if f"confidence_{split}" in figures:
            parts.append(_img(figures[f"confidence_{split}"], f"reliability diagram and accuracy–coverage ({split})",
                              f"Reliability diagram (left; diagonal: perfect calibration) and accuracy–coverage "
                              f"curve (right), {split} tests."))
    return parts


def render(lb: "Leaderboard", figures: Mapping[str, Path]) -> str:
    """The whole page as a string."""

    cfg = lb.config
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>coderank_evalplus leaderboard</title>", f"<style>{_CSS}</style></head><body>",
             "<h1>Leaderboard: reranked pass@1</h1>",
             f'<p class="note">pass@1 in %, mean over problems; in brackets the 95 % percentile-bootstrap interval '
             f"over problems ({cfg['n_resamples']} resamples, seed {cfg['seed']}). Differences are paired: the same "
             f"problems and resamples for every method of a row. {_e(SMALL_N_NOTE)}. Bold: the best ranked "
             f"method of the row.</p>"]
    parts += [f'<p class="note same-names">{_e(line)}</p>' for line in same_names_lines(lb.same_names)]
    parts += _models_section(lb, figures)
    datasets = list(dict.fromkeys(r["dataset"] for r in lb.rows))
    for dataset in datasets:
        on = f" ({dataset})" if len(datasets) > 1 else ""
        for split in splits_in([r for r in lb.rows if r["dataset"] == dataset]):
            parts += [f"<h2>pass@1 on {split} tests{_e(on)}</h2>", _pass_table(lb, split, dataset),
                      f'<p class="note">{_e(SETTING_NOTE)}</p>']
            for base in cfg["compare_to"]:
                title = "Gain over random" if base == "random" else f"Difference to {base}"
                parts += [f"<h3>{_e(title)} ({split} tests{_e(on)}, points)</h3>",
                          _diff_table(lb, base, split, dataset)]
    for split in splits_in(lb.rows):
        if f"pass1_{split}" in figures:
            parts.append(_img(figures[f"pass1_{split}"], f"pass@1 on {split} tests with intervals",
                              f"pass@1 on {split} tests, 95 % bootstrap intervals."))
    parts.append("<h2>Budget curves</h2>")
    parts.append(f'<p class="note">pass@1 when each problem keeps only N of its candidates (or M of its test '
                 f"samples), drawn without replacement; lines: mean of {cfg['draws']} seeded draws, bands: 2.5–97.5 % "
                 f"of the draws — the spread of the draws on the row's problems (n in the tables above), not an "
                 f"interval over problems. Computed from the stored matrices, nothing executed again.</p>")
    for key, caption in (("budget_candidates", "pass@1 against the number of candidates N"),
                         ("budget_tests", "pass@1 against the number of test samples M")):
        for split in splits_in(lb.rows):
            if f"{key}_{split}" in figures:
                parts.append(_img(figures[f"{key}_{split}"], caption, f"{caption} ({split} tests)."))
    parts += _confidence_section(lb, figures)
    parts += ["<h2>Generated-test quality</h2>",
              '<p class="note">Per problem, over the pool\'s distinct asserts: accuracy = share the reference '
              "solution passes; toxic = share the reference fails but some wrong candidate passes. Means over "
              "problems; Spearman's ρ between a problem's test accuracy and its gain "
              "(method − random, base tests).</p>",
              _quality_table(lb)]
    if "test_quality" in figures:
        parts.append(_img(figures["test_quality"], "test quality", "Test accuracy and toxic share per row; "
                                                                    "per-problem gain against test accuracy."))
    if lb.models:
        parts.append(_SORT_JS)
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
