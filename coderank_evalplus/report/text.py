"""Text a person reads: the markdown table of a rerank result, the line saying where its time went, and the small
formatting helpers the leaderboard's tables, figures and page share."""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

from coderank_evalplus.rankers import uses_prompt_examples
from coderank_evalplus.stats import MIN_PROBLEMS, has_interval

EXAMPLES_MARK = "†"  # marks a method that ranks with the prompt's own examples (``uses_prompt_examples``)
EXAMPLES_NOTE = (f"{EXAMPLES_MARK} uses the prompt's own examples (trial tests, or a pool grown from them): the "
                 f"setting a user deploys, not CodeT's published one")


def method_label(name: str, entry: Optional[Mapping] = None) -> str:
    """The method's name, marked when its entry says it ranks with the prompt's examples."""
    return f"{name} {EXAMPLES_MARK}" if entry and entry.get("uses_prompt_examples") else name


SETTING_NOTE = (f"{EXAMPLES_MARK} uses the prompt's own examples, which the model saw: a marked method always (trial "
                f"tests), every method that reads the tests on a marked pool (grown from the examples). The setting "
                f"a user deploys; CodeT's published setting removes the examples (unmarked cells on unmarked rows).")


def method_headers(methods: Sequence[str]) -> list[str]:
    """Column headers: a method that ranks with the prompt's examples whatever the pool is marked."""
    return [method_label(m, {"uses_prompt_examples": uses_prompt_examples(m)}) for m in methods]


def tests_cell(row: dict) -> str:
    """The row's pool, marked when it was grown from the prompt's examples."""
    label = row["tests_label"] or "–"
    return f"{label} {EXAMPLES_MARK}" if row.get("tests_from_examples") else label


def rule_line(rule: str) -> str:
    """What a pass@k table says of its rule (``metrics.PASS_AT_K_RULES``)."""
    from coderank_evalplus.metrics import PASS_AT_K_RULES

    return f"pass@k rule: {rule} — {PASS_AT_K_RULES[rule]} (docs/usage.md)"


def markdown_table(methods: Mapping[str, Mapping[str, object]], title: str = "", rule: Optional[str] = None) -> str:
    """One row per method; columns pass@k on base tests, then on plus tests where present; methods that use the
    prompt's examples marked, with a note under the table; the pass@k ``rule`` (a name in ``metrics.PASS_AT_K_RULES``)
    said under it when given."""
    splits = [s for s in ("base", "plus") if any(v.get(s) for v in methods.values())]
    ks: list[str] = []
    for v in methods.values():
        for s in splits:
            for k in _split_table(v, s):
                if k not in ks:
                    ks.append(k)
    header = ["method"] + [f"{k} ({s})" for s in splits for k in ks]
    lines = [f"### {title}"] if title else []
    lines += ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    for name, per_split in methods.items():
        cells = [method_label(name, per_split)]
        for s in splits:
            for k in ks:
                val = _split_table(per_split, s).get(k)
                cells.append("–" if val is None else f"{val:.2f}")
        lines.append("| " + " | ".join(cells) + " |")
    if rule is not None:
        lines += ["", rule_line(rule)]
    if any(v.get("uses_prompt_examples") for v in methods.values()):
        lines += ["", EXAMPLES_NOTE]
    return "\n".join(lines)


PLUS_NOTE = ("plus: base tests + evalplus's plus tests (evalplus's \"plus\"); a problem without plus inputs is "
             "judged on its base tests there")
CONFIDENCE_LEGEND = ("ECE: expected calibration error of the confidence (0 is perfect); Brier: its mean squared "
                     "error; AUROC: how well it ranks right picks above wrong ones (0.5: chance; – when every pick "
                     "is right or every one wrong); at 90 %: pass@1 of the 90 % of problems whose picks are the "
                     "most confident (abstaining on the rest)")


def result_lines(result, title: str) -> list[str]:
    """What a run prints: the pass@k table (with what "plus" means and how many problems it rests on), the
    confidence table with its legend, and the timing line."""
    from coderank_evalplus.metrics import recorded_rule

    n = result.n_problems
    lines = [markdown_table(result.methods, f"{title}: {n} problem{'s' if n != 1 else ''}, reranked pass@k (%)",
                            recorded_rule(result.config))]
    plus = (result.extra.get("splits") or {}).get("plus")
    if plus:
        lines.append(f"{PLUS_NOTE} ({plus['problems_with_plus_tests']} of {plus['problems']} problems have plus "
                     f"inputs)")
    lines += _calibration_lines(result)
    lines += ["", timing_line(result.timing)]
    return lines


def evalplus_style_lines(result, title: str, methods: Optional[Mapping] = None) -> list[str]:
    """The reranked pass@1 as ``evalplus.evaluate`` prints its own (fractions, three decimals, base then base +
    extra tests), one line per method, then the confidence table with its legend."""
    methods = methods if methods is not None else result.methods
    name = str(result.dataset)
    lines = [f"{title} (coderank_evalplus; † uses the prompt's own examples)"]
    width = max(len(method_label(m, row)) for m, row in methods.items())
    for split, heading in (("base", f"{name} (base tests)"), ("plus", f"{name}+ (base + extra tests)")):
        if not any(row.get(split) for row in methods.values()):
            continue
        lines.append(heading)
        for m, row in methods.items():
            value = (row.get(split) or {}).get("pass@1")
            shown = "–" if value is None else f"{value / 100:.3f}"
            lines.append(f"  {method_label(m, row):<{width}}  pass@1:\t{shown}")
    if methods is result.methods:
        lines += _calibration_lines(result)
    lines += ["", timing_line(result.timing)]
    return lines


def _calibration_lines(result) -> list[str]:
    """The run's confidence table (``rerank_results.json``'s ``confidence.calibration``) with its legend, or the
    line saying it rests on too few problems."""
    cal = (result.extra.get("confidence") or {}).get("calibration") or {}
    if not cal:
        return []
    legend = ["", CONFIDENCE_LEGEND] if all(confidence_shown(rep) for rep in cal.values()) else []
    return ["", calibration_markdown(cal)] + legend


CONFIDENCE_STATS = "ECE, Brier, AUROC or selective pass@1"
TOO_FEW_TO_MEAN = "too few problems for them to mean anything"
# the tables' and the page's heading note: the one minimum (``metrics.MIN_PROBLEMS``) and what it withholds
SMALL_N_NOTE = (f"n: the problems each statistic rests on; under {MIN_PROBLEMS} problems no interval, p-value, τ, "
                f"Spearman's ρ, {CONFIDENCE_STATS} is given ({TOO_FEW_TO_MEAN})")


def confidence_shown(rep: Mapping) -> bool:
    """Whether a calibration summary (``rankers.calibration.summary``) rests on enough problems to be printed."""
    return has_interval(int(rep.get("n_problems", 0)))


def confidence_cells(rep: Mapping, split: str) -> list[str]:
    """ECE, Brier, AUROC, pass@1 (all), at 90 %, at 80 %, at 50 % of a calibration summary on ``split`` ("–" where
    one is not defined: AUROC when every pick is right or every one wrong)."""
    c = rep["calibration"][split]
    sel = {x["coverage"]: x.get(split) for x in rep["selective"]}
    return ["–" if x is None else str(x) for x in (c["ece"], c["brier"], c["auroc"], rep["all"].get(split),
                                                   sel.get(0.9), sel.get(0.8), sel.get(0.5))]


def confidence_withheld(named: Sequence[tuple[str, Mapping]]) -> str:
    """The line naming the rows (name, calibration summary) whose confidence figures rest on too few problems to be
    printed ("" when none)."""
    if not named:
        return ""
    return "; ".join(f"{name}: {too_few(rep['n_problems'], CONFIDENCE_STATS)}" for name, rep in named) \
        + f" ({TOO_FEW_TO_MEAN})."


def calibration_markdown(cal: Mapping[str, Mapping], title: str = "confidence of the pick") -> str:
    """One line per method and split: ECE, Brier, AUROC, selective pass@1 against no abstention; under the
    minimum of problems one line saying why there is none."""
    if not cal:
        return ""
    few = next((rep for rep in cal.values() if not confidence_shown(rep)), None)
    if few is not None:
        return f"### {title}\n\n{too_few(few.get('n_problems', 0), CONFIDENCE_STATS)} ({TOO_FEW_TO_MEAN})"
    lines = [f"### {title}", "",
             "| method | split | ECE | Brier | AUROC | pass@1 (all) | at 90 % | at 80 % | at 50 % |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for m, rep in cal.items():
        for s in rep["calibration"]:
            lines.append("| " + " | ".join([m, s, *confidence_cells(rep, s)]) + " |")
    return "\n".join(lines)


def print_result(result, title: str) -> None:
    """Print ``result_lines``."""
    print("\n".join(result_lines(result, title)))


def _split_table(entry: Mapping[str, object], split: str) -> Mapping[str, float]:
    table = entry.get(split)
    return table if isinstance(table, Mapping) else {}


def timing_line(timing: Mapping) -> str:
    """Where a run's time went (``RerankResult.timing``), in one line: seconds per phase, programs and items."""
    if not timing:
        return ""
    samples = timing.get("judged_samples", 0)
    programs = timing.get("judged_programs", samples)  # results written before programs were counted
    cached = timing.get("judge_cached", 0)
    judged = f"{programs:,} programs judged" + (f" for {samples:,} samples" if samples else "")
    if cached:
        judged += f", {cached:,} of them from the cache"
    if timing.get("verdicts_from", "judge") != "judge":
        judged += f"; verdicts from {timing['verdicts_from']}"
    judge = f"judge {timing['judge_s']:.1f} s ({judged})"
    odd = timing.get("suspicious")
    flagged = (f"\nsuspicious: {odd:,} judged samples passed only because their own == said so (listed in "
               "rerank_results.json; --strict fails them)" if odd else "")
    select = ""
    if "select_problems" in timing:  # <method>+select (issue 54): what the selection step ran
        select = (f"select {timing.get('select_s', 0.0):.1f} s ({timing['select_problems']:,} problems in doubt, "
                  f"{timing['select_programs']:,} programs × {timing['select_inputs']:,} inputs, "
                  f"{timing['select_executed_items']:,} items run, {timing['select_changed']:,} picks changed), ")
    sstar = (f"S* {timing.get('select_model_s', 0.0):.1f} s "
             f"({timing['select_model_calls']:,} model calls), " if "select_model_calls" in timing else "")
    return (f"time: load {timing['load_s']:.1f} s, execute {timing['execute_s']:.1f} s ({timing['programs']:,} "
            f"programs, {timing['items']:,} items, {timing['cached_items']:,} cached), rank {timing['rank_s']:.1f} s, "
            f"{select}{sstar}{judge}, metrics {timing['metrics_s']:.1f} s; total {timing['total_s']:.1f} s"
            + _stream_part(timing) + flagged)


def _stream_part(timing: Mapping) -> str:
    """A streamed run's generation beside the rest (the stage's busy seconds), the stream's wall, and how much of
    the two ran at once, or that the rest waited for the model ("" for a run that did not stream)."""
    if "stream_s" not in timing:
        return ""
    if timing.get("stage_held"):
        return (f"; stream: generation {timing['generate_s']:.1f} s, then the rest {timing['stage_s']:.1f} s in "
                f"{timing['stream_s']:.1f} s (held until sampling ended: the model runs on this CPU)")
    return (f"; stream: generation {timing['generate_s']:.1f} s beside the rest {timing['stage_s']:.1f} s in "
            f"{timing['stream_s']:.1f} s: {timing['overlap_s']:.1f} s overlapped")


def fmt_p(p: float) -> str:
    return "p<0.001" if p < 0.001 else f"p={p:.3f}"


def too_few(n_problems: int, what: str = "interval or p-value") -> str:
    """What a table prints instead of an interval / p-value over fewer than ``stats.MIN_PROBLEMS`` problems."""
    return f"n = {n_problems} < {MIN_PROBLEMS}: no {what}"


def fmt_estimate(e: Optional[Mapping]) -> str:
    """``37.85 [31.1, 44.7]``; below the minimum ``37.85 (n = 3 < 20: no interval)``."""
    if not e:
        return "–"
    if e.get("ci95") is None:
        return f"{e['pass@1']:.2f} ({too_few(e.get('n_problems', 0), 'interval')})"
    return f"{e['pass@1']:.2f} [{e['ci95'][0]:.1f}, {e['ci95'][1]:.1f}]"


def fmt_diff(d: Optional[Mapping]) -> str:
    """``+15.62 [+9.8, +21.5] p<0.001``; below the minimum ``+56.48 (n = 3 < 20: no interval or p-value)``."""
    if not d:
        return "–"
    if d.get("ci95") is None or d.get("p_value") is None:
        return f"{d['diff']:+.2f} ({too_few(d.get('n_problems', 0))})"
    return f"{d['diff']:+.2f} [{d['ci95'][0]:+.1f}, {d['ci95'][1]:+.1f}] {fmt_p(d['p_value'])}"


def fmt_tau(entry: Mapping) -> str:
    """A method's Kendall τ with random: ``codet +0.80 [+0.45, +0.95]``."""
    t = entry["kendall_tau"]
    return f"{entry['method']} {t['tau']:+.2f} [{t['ci95'][0]:+.2f}, {t['ci95'][1]:+.2f}]"


def taus_text(block: Sequence[Mapping]) -> str:
    """Kendall τ of every method but random in one model-comparison block, or why there is none (too few
    problems: ``models.compare_group`` gives none)."""
    if block and not has_interval(block[0]["n_problems"]):
        return f"– ({too_few(block[0]['n_problems'], 'τ')})"
    return "; ".join(fmt_tau(e) for e in block if e["method"] != "random" and e["kendall_tau"]) or "–"


def flips_text(block: Sequence[Mapping]) -> str:
    """The block's significant flips, "none", or why there can be none (no p-value below the minimum)."""
    if block and not has_interval(block[0]["n_problems"]):
        return f"– ({too_few(block[0]['n_problems'], 'p-value')})"
    return "; ".join(f"{e['method']}: " + ", ".join(f"{a} over {b}" for a, b in e["flips"])
                     for e in block if e["flips"]) or "none"


def block_note(entry: Mapping) -> str:
    """The line a model-comparison block carries when it rests on too few problems for intervals."""
    n = entry["n_problems"]
    return "" if has_interval(n) else (f"{too_few(n, 'rank interval, τ or p-value')}: too few problems "
                                         f"for the bootstrap to be meaningful (docs/leaderboard.md).")


def splits_in(rows: Sequence[dict]) -> list[str]:
    return [s for s in ("base", "plus") if any(s in r["splits"] for r in rows)]


def _budget_title(budget) -> str:
    return "each row's full budget" if budget == "full" else f"matched budget N = {budget} candidates per problem"


def model_blocks(models: Sequence[dict]) -> list[list[dict]]:
    """The model-comparison entries grouped per (dataset, pool, split, budget), each block one entry per method;
    a full-budget block equal to the matched one (every row has N candidates) is left out."""
    blocks: dict[tuple, list[dict]] = {}
    for e in models:
        blocks.setdefault((e["dataset"], e["pool"], e["split"], str(e["budget"])), []).append(e)
    out = []
    for key, block in blocks.items():
        if key[3] == "full":
            matched = [b for k, b in blocks.items() if k[:3] == key[:3] and k[3] != "full"]
            if matched and all(s == matched[0][0]["budget"] for s in block[0]["samples"].values()):
                continue
        out.append(block)
    return out


def fmt_rank(r: Mapping) -> str:
    """``#2 [1–4]``; ``#2`` where the rank interval is not reported (too few problems)."""
    if r.get("rank_ci95") is None:
        return f"#{r['rank']}"
    lo, hi = r["rank_ci95"]
    return f"#{r['rank']} [{lo}–{hi}]" if lo != hi else f"#{r['rank']} [{lo}]"


def models_markdown(models: Sequence[dict], summary: Sequence[dict], methods: Sequence[str]) -> str:
    """"Which model wins?": per dataset, pool, split and budget, each model's pass@1 and rank interval under every
    method, Kendall's τ against random, the significant flips, and every pair's paired difference."""
    if not models:
        return ""
    out = ["## Which model wins?", "",
           "Rows with the same dataset and test pool, compared as models. Cells: pass@1 (%) on the n problems every "
           "model of the pool has, then #rank [95 % bootstrap rank interval]. τ: Kendall's τ-b between the "
           "random-pick order and the method's order [95 % interval: τ ± 1.96 bootstrap standard errors, ends moved "
           "out to values τ takes]; "
           "flips: pairs whose order is significant (p < 0.05) under random and reversed, again with p < 0.05, under "
           f"the method (winner under the method first). Under {MIN_PROBLEMS} problems no interval, p-value or τ is "
           "given.", ""]
    for block in model_blocks(models):
        first = block[0]
        names = [r["name"] for r in next((e for e in block if e["method"] == "random"), first)["ranking"]]
        out += [f"### {first['dataset']} · {first['pool']} · {first['split']} tests · {_budget_title(first['budget'])}"
                f" (n = {first['n_problems']} problems)", ""]
        if block_note(first):
            out += [block_note(first), ""]
        out += ["| model | samples | " + " | ".join(method_headers([e["method"] for e in block])) + " |",
                "|---|---:|" + "---:|" * len(block)]
        for n in names:
            cells = []
            for e in block:
                r = next(x for x in e["ranking"] if x["name"] == n)
                cells.append(f"{r['pass@1']:.2f} {fmt_rank(r)}")
            s = first["samples"][n]
            out.append(f"| {n} | {s if isinstance(s, int) else '–'.join(map(str, s))} | " + " | ".join(cells) + " |")
        marked = any(uses_prompt_examples(e["method"]) for e in block)
        out += ["", f"τ with random: {taus_text(block)}. Flips: {flips_text(block)}."
                + (f" {EXAMPLES_MARK} uses the prompt's own examples." if marked else ""), "",
                "| a − b (points) | n | " + " | ".join(method_headers([e["method"] for e in block])) + " |",
                "|---|---:|" + "---:|" * len(block)]
        for k, p in enumerate(first["pairs"]):
            cells = [fmt_diff(e["pairs"][k]) for e in block]
            out.append(f"| {p['a']} − {p['b']} | {p['n_problems']} | " + " | ".join(cells) + " |")
        out.append("")
    out += summary_markdown(summary, methods)
    return "\n".join(out)


def summary_pools(summary: Sequence[dict]) -> dict[str, str]:
    """{benchmark: the pool its models summary shows the rerankers with}, benchmarks in order."""
    datasets = list(dict.fromkeys(ds for m in summary for ds in m["benchmarks"]))
    return {ds: next((m["benchmarks"][ds]["pool"] for m in summary
                      if ds in m["benchmarks"] and m["benchmarks"][ds]["pool"]), "–") for ds in datasets}


def summary_markdown(summary: Sequence[dict], methods: Sequence[str]) -> list[str]:
    """Each model's full-budget pass@1 per benchmark and method (base / plus)."""
    if not summary:
        return []
    pools = summary_pools(summary)
    datasets = list(pools)
    out = ["### Models summary", "",
           "Full budget, pass@1 (%) base / plus; the rerankers with each benchmark's most shared pool ("
           + "; ".join(f"{ds}: {p}" for ds, p in pools.items()) + ").", "",
           "| model | " + " | ".join(f"{ds} {m}" for ds in datasets for m in method_headers(methods)) + " |",
           "|---|" + "---:|" * (len(datasets) * len(methods))]
    for model in summary:
        cells = []
        for ds in datasets:
            bench = model["benchmarks"].get(ds, {"methods": {}})
            for m in methods:
                v = bench["methods"].get(m)
                cells.append(" / ".join(f"{x:.2f}" for x in v.values() if x is not None) if v else "–")
        out.append(f"| {model['name']} | " + " | ".join(cells) + " |")
    out.append("")
    return out


def block_key(entry: Mapping) -> str:
    """A file-name-safe key of a model-comparison block (dataset, pool, split, budget): its figures' names."""
    import re

    raw = f"{entry['dataset']}_{entry['pool']}_{entry['split']}_n{entry['budget']}"
    return re.sub(r"[^A-Za-z0-9.+-]+", "_", raw).strip("_")


def same_names_lines(same_names: Sequence[Mapping]) -> list[str]:
    """One line per name that several runs would have shown (``report.run_names``): which rows now show it, told
    apart how, and how a run is given a name of its own."""
    return [f"Told apart: {len(n['rows'])} runs on {n['dataset']} are named {n['name']} ({n['why']}); their rows "
            f"show their {n['by']}s: {', '.join(n['rows'])}. Give each run a model name of its own (rerank and "
            f"evalplus.evaluate: --model NAME; lm-eval: pretrained=NAME)." for n in same_names]
