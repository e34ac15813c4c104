"""The leaderboard: one row per (model, test pool) results folder, every method's pass@1 with bootstrap
intervals, paired comparisons, budget curves and test-pool quality — all recomputed from the folders alone.

Output folder: ``leaderboard.json`` / ``.md`` / ``.csv``, ``curves.json``, ``test_quality.json``, ``figures/*.png``
and ``index.html`` (one self-contained page).
"""

from __future__ import annotations

import csv
import io
import json
import time
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from coderank_evalplus.io.results_folder import StoredRun, atomic_write_text, load_folder
from coderank_evalplus.rankers import uses_prompt_examples
from coderank_evalplus.report import curves as curves_mod
from coderank_evalplus.report import figures, page
from coderank_evalplus.report import models as models_mod
from coderank_evalplus.report.board import DEFAULT_COMPARE_TO, Entry, Leaderboard, LeaderboardConfig  # noqa: F401
from coderank_evalplus.report.calibration import folder_calibration
from coderank_evalplus.report.run_names import tell_apart
from coderank_evalplus.report.scores import BASELINES, leaderboard_methods, problem_scores, splits_of
from coderank_evalplus.report.test_quality import run_quality
from coderank_evalplus.report.text import (
    SETTING_NOTE,
    SMALL_N_NOTE,
    confidence_cells,
    confidence_shown,
    confidence_withheld,
    fmt_diff,
    fmt_estimate,
    method_headers,
    models_markdown,
    same_names_lines,
    splits_in,
    tests_cell,
)
from coderank_evalplus.stats import CI_LEVEL, MIN_PROBLEMS, mean_estimate, paired_difference, resample_indices


def _samples_per_problem(run: StoredRun) -> int | dict:
    n = [p.executions.n_candidates for p in run.problems]
    if not n:
        return 0
    return n[0] if min(n) == max(n) else {"min": min(n), "median": int(np.median(n)), "max": max(n)}


def build_row(entry: Entry, run: StoredRun, methods: Sequence[str], compare_to: Sequence[str],
              n_resamples: int, seed: int) -> tuple[dict, dict]:
    """The row's JSON and its per-problem scores ({method: {split: array}})."""
    scores = problem_scores(run, methods)
    splits = splits_of(run)
    idx = resample_indices(len(run.problems), n_resamples, seed)
    row: dict = {"name": entry.name, "tests_label": entry.tests_label, "pool": entry.pool, "dataset": run.dataset,
                 "folder": str(entry.folder), "n_problems": len(run.problems),
                 "samples_per_problem": _samples_per_problem(run), "splits": list(splits),
                 "tests_from_examples": run.tests_from_examples, "methods": {},
                 "comparisons": {}, "suspicious": len(run.summary.get("suspicious") or [])}
    for m in methods:
        row["methods"][m] = {s: mean_estimate(scores[m][s], idx).to_json() for s in splits}
        if "plus" not in splits:
            row["methods"][m]["plus"] = None
        row["methods"][m]["uses_prompt_examples"] = uses_prompt_examples(m, run.tests_from_examples)
    for base in compare_to:
        row["comparisons"][base] = {
            m: {s: paired_difference(scores[m][s], scores[base][s], idx).to_json() for s in splits}
            for m in methods if m != base}
    # the pick's confidence (rankers/confidence.py): calibration and selective pass@1 per ranked method
    row["confidence"] = folder_calibration(run, [m for m in methods if m not in BASELINES])
    return row, scores


def build(entries: Sequence[Entry], cfg: LeaderboardConfig) -> Leaderboard:
    """Load every folder, score every method, compare, and (unless switched off) compute the curves."""
    methods = leaderboard_methods([*cfg.methods, *[m for m in cfg.compare_to if m != "random"]])
    lb = Leaderboard(config={"methods": methods, "compare_to": list(cfg.compare_to), "n_resamples": cfg.n_resamples,
                             "seed": cfg.seed, "ci_level": CI_LEVEL, "min_problems": MIN_PROBLEMS,
                             "draws": cfg.draws,
                             "metric": "pass@1 (%), mean over problems; intervals: percentile bootstrap over "
                                       "problems, paired across methods"})
    entries, lb.same_names = tell_apart(entries)  # every row one run, under a name no other row shows
    t_load = t_score = t_curves = 0.0
    model_rows = []
    for k, entry in enumerate(entries):
        t0 = time.monotonic()
        run = load_folder(entry.folder)
        t1 = time.monotonic()
        row, scores = build_row(entry, run, methods, cfg.compare_to, cfg.n_resamples, cfg.seed)
        lb.rows.append(row)
        model_rows.append(models_mod.ModelRow(
            entry.name, run.dataset, entry.pool, entry.tests_label, [p.problem.task_id for p in run.problems],
            splits_of(run), scores, [p.executions.n_candidates for p in run.problems], Path(entry.folder)))
        quality = run_quality(run, scores, methods)
        quality.update(name=entry.name, tests_label=entry.tests_label)
        lb.quality.append(quality)
        t2 = time.monotonic()
        if cfg.curves:
            cand, tests = _curves(run, methods, cfg, entry.name)
            lb.curves.append({"name": entry.name, "tests_label": entry.tests_label, "candidates": cand,
                              "tests": tests, "adaptive": _adaptive(run, row, cfg, entry.name)})
        t3 = time.monotonic()
        t_load, t_score, t_curves = t_load + t1 - t0, t_score + t2 - t1, t_curves + t3 - t2
        if cfg.progress:
            print(f"[{k + 1}/{len(entries)}] {entry.name} ({entry.tests_label or 'tests'}): scored "
                  f"{len(run.problems)} problems in {t2 - t1:.1f} s" + (f", curves {t3 - t2:.1f} s" if cfg.curves
                                                                         else ""), flush=True)
    t0 = time.monotonic()
    lb.models = models_mod.compare_models(model_rows, methods, cfg.n_resamples, cfg.seed,
                                          lambda r, n: _scores_at_budget(r, n, methods, cfg))
    lb.models_summary = models_mod.summary(lb.rows, methods)
    lb.timing.update(load_s=round(t_load, 2), score_s=round(t_score, 2), curves_s=round(t_curves, 2),
                     models_s=round(time.monotonic() - t0, 2))
    return lb


def _scores_at_budget(row: "models_mod.ModelRow", budget: int, methods: Sequence[str],
                      cfg: LeaderboardConfig) -> dict:
    """A row's per-problem scores sub-sampled to ``budget`` candidates (the budget curves' draws), read from
    ``cfg.cache_dir`` when computed before for the same folder content and settings."""
    if row.folder is None:
        raise ValueError(f"{row.name} ({row.tests_label}): no results folder to sub-sample to {budget} candidates")
    path = None
    if cfg.cache_dir is not None:
        h = curves_mod.folder_hash(row.folder)
        h.update(json.dumps(["matched", list(methods), budget, cfg.draws, cfg.seed, list(row.splits),
                             curves_mod.CACHE_VERSION]).encode())
        path = Path(cfg.cache_dir) / "report" / f"budget-{h.hexdigest()[:32]}.json"
        try:
            cached = json.loads(path.read_text())
            return {m: {s: np.asarray(v, dtype=float) for s, v in per.items()} for m, per in cached.items()}
        except (OSError, ValueError, KeyError):
            pass
    t0 = time.monotonic()
    run = load_folder(row.folder)
    scores = curves_mod.scores_at_budget(run, methods, budget, cfg.draws, cfg.seed, row.splits, cfg.workers,
                                         cfg.progress, row.name, cfg.subset_steps)
    if cfg.progress:
        print(f"{row.name} ({row.tests_label or 'tests'}): sub-sampled to {budget} candidates in "
              f"{time.monotonic() - t0:.1f} s", flush=True)
    if path is not None:
        try:
            atomic_write_text(path, json.dumps({m: {s: v.tolist() for s, v in per.items()}
                                                for m, per in scores.items()}))
        except OSError:
            pass  # a cache that cannot be written costs time next run, nothing else
    return scores


def _curves(run: StoredRun, methods: Sequence[str], cfg: LeaderboardConfig, label: str) -> tuple[dict, dict]:
    """Both budget curves of a run; read from ``cfg.cache_dir`` when the same folder content and settings were
    computed before (the curves are a deterministic function of them)."""
    splits = splits_of(run)
    path = None
    if cfg.cache_dir is not None:
        h = curves_mod.folder_hash(run.path)
        h.update(json.dumps([list(methods), cfg.draws, cfg.seed, list(splits), curves_mod.CACHE_VERSION]).encode())
        path = Path(cfg.cache_dir) / "report" / f"curves-{h.hexdigest()[:32]}.json"
        try:
            cached = json.loads(path.read_text())
            return cached["candidates"], cached["tests"]
        except (OSError, ValueError, KeyError):
            pass
    cand, tests = (curves_mod.budget_curve(run, methods, kind, cfg.draws, cfg.seed, workers=cfg.workers, splits=splits,
                                           progress=cfg.progress, label=label, subset_steps=cfg.subset_steps)
                   for kind in ("candidates", "tests"))
    if path is not None:
        try:
            atomic_write_text(path, json.dumps({"candidates": cand, "tests": tests}))
        except OSError:
            pass  # a cache that cannot be written costs time next run, nothing else
    return cand, tests


def _adaptive(run: StoredRun, row: dict, cfg: LeaderboardConfig, label: str) -> Optional[dict]:
    """The adaptive budget of the row's confidence method (``budget --adaptive``'s entry, on the curves' draws and
    the shipped confidence model), cached like the curves."""
    from coderank_evalplus.rankers.confidence import default_model
    from coderank_evalplus.report.adaptive import method_report, round_tables
    from coderank_evalplus.report.calibration import final_picks
    from coderank_evalplus.report.figures import confidence_method

    method = confidence_method(row)
    if method is None or not run.problems:
        return None
    model = default_model()
    path = None
    if cfg.cache_dir is not None:
        h = curves_mod.folder_hash(run.path)
        h.update(json.dumps([method, cfg.draws, cfg.seed, model.get("digest"), curves_mod.CACHE_VERSION,
                             MIN_PROBLEMS]).encode())  # the sweep's intervals are null under MIN_PROBLEMS
        path = Path(cfg.cache_dir) / "report" / f"adaptive-{h.hexdigest()[:32]}.json"
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            pass
    table = round_tables(run, [method], cfg.draws, cfg.seed, workers=cfg.workers, progress=cfg.progress,
                         label=label, subset_steps=cfg.subset_steps)[method]
    X, y = final_picks(run, method)
    splits = splits_of(run)
    from coderank_evalplus.rankers.confidence import predict

    rep = method_report(table, model, float(model.get("tau", 1.0)), {s: predict(model, X, s) for s in splits},
                        {s: y[s] for s in splits}, n_resamples=cfg.n_resamples)
    out = {"method": method, **{k: rep[k] for k in ("fixed", "adaptive", "tau", "at_tau")}}
    if path is not None:
        try:
            atomic_write_text(path, json.dumps(out))
        except OSError:
            pass
    return out


# --- writers ------------------------------------------------------------------------------------------

def _label(row: dict) -> str:
    return f"{row['name']} · {row['tests_label']}" if row["tests_label"] else row["name"]


def _samples_text(row: dict) -> str:
    s = row["samples_per_problem"]
    return str(s) if isinstance(s, int) else f"{s['min']}–{s['max']}"


def datasets_in(rows: Sequence[dict]) -> list[str]:
    return list(dict.fromkeys(r["dataset"] for r in rows))


def to_markdown(lb: Leaderboard) -> str:
    """The models comparison first, then per dataset and split every row's methods and paired comparisons."""
    methods = lb.config["methods"]
    out = ["# Leaderboard: reranked pass@1", "",
           f"pass@1 in %, mean over problems; [95 % bootstrap interval over problems, {lb.config['n_resamples']} "
           f"resamples, seed {lb.config['seed']}]. Differences are paired (same problems, same resamples); "
           f"p: two-sided bootstrap p-value. {SMALL_N_NOTE}.", ""]
    out += [*same_names_lines(lb.same_names), ""] if lb.same_names else []
    models = models_markdown(lb.models, lb.models_summary, methods)
    if models:
        out += [models, ""]
    head = ["model", "tests", "dataset", "problems (n)", "samples"]
    several = len(datasets_in(lb.rows)) > 1
    for dataset in datasets_in(lb.rows):
        rows = [r for r in lb.rows if r["dataset"] == dataset]
        on = f" ({dataset})" if several else ""
        for split in splits_in(rows):
            out += [f"## pass@1 on {split} tests{on}", "", "| " + " | ".join(head + method_headers(methods)) + " |",
                    "|" + "|".join(["---"] * 3 + ["---:"] * (2 + len(methods))) + "|"]
            for r in rows:
                name = r["name"] + (f" (⚠ {r['suspicious']} suspicious)" if r.get("suspicious") else "")
                cells = [name, tests_cell(r), r["dataset"], str(r["n_problems"]), _samples_text(r)]
                cells += [fmt_estimate((r["methods"][m] or {}).get(split)) for m in methods]
                out.append("| " + " | ".join(cells) + " |")
            out.append("")
            if any(uses_prompt_examples(m) for m in methods) or any(r.get("tests_from_examples") for r in rows):
                out += [SETTING_NOTE, ""]
            conf = _confidence_lines(rows, split, on)
            if conf:
                out += conf
            for base in lb.config["compare_to"]:
                others = [m for m in methods if m != base and not (base == "random" and m == "oracle")]
                title = "gain over random" if base == "random" else f"difference to {base}"
                out += [f"### {title} on {split} tests{on} (points)", "",
                        "| " + " | ".join(["model", "tests", "n"] + method_headers(others)) + " |",
                        "|" + "|".join(["---"] * 2 + ["---:"] * (1 + len(others))) + "|"]
                for r in rows:
                    cmp = r["comparisons"].get(base, {})
                    out.append("| " + " | ".join([r["name"], r["tests_label"] or "–", str(r["n_problems"])] +
                                                 [fmt_diff(cmp.get(m, {}).get(split)) for m in others]) + " |")
                out.append("")
    return "\n".join(out)


def _confidence_lines(rows: Sequence[dict], split: str, on: str) -> list[str]:
    """Per row and ranked method: ECE, Brier, AUROC of the pick's confidence and selective pass@1; a row on too few
    problems is named under the table instead."""
    title = [f"### confidence of the pick on {split} tests{on}: calibration and selective pass@1", ""]
    lines = ["| model | tests | method | ECE | Brier | AUROC | pass@1 (all) | at 90 % | at 80 % | at 50 % |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    n = len(lines)
    few: list[tuple[str, dict]] = []
    for r in rows:
        for m, rep in (r.get("confidence") or {}).items():
            if split not in rep["calibration"]:
                continue
            if not confidence_shown(rep):
                few.append((r["name"], rep))
                break
            lines.append("| " + " | ".join([r["name"], r["tests_label"] or "–", m, *confidence_cells(rep, split)])
                         + " |")
    out = lines + [""] if len(lines) > n else []
    if few:
        out += [confidence_withheld(few), ""]
    return title + out if out else []


def to_csv(lb: Leaderboard) -> str:
    """Long format: one line per (row, method, split)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    compare = list(lb.config["compare_to"])
    head = ["name", "tests_label", "dataset", "n_problems", "samples_per_problem", "method", "uses_prompt_examples",
            "split", "pass@1", "ci95_lo", "ci95_hi"]
    for base in compare:
        head += [f"diff_vs_{base}", f"diff_vs_{base}_lo", f"diff_vs_{base}_hi", f"p_vs_{base}"]
    w.writerow(head)
    for r in lb.rows:
        for m, per_split in r["methods"].items():
            for split in r["splits"]:
                e = per_split[split]
                ci = e["ci95"] or ["", ""]  # empty under MIN_PROBLEMS problems
                line = [r["name"], r["tests_label"], r["dataset"], r["n_problems"], _samples_text(r), m,
                        bool(per_split.get("uses_prompt_examples")), split, e["pass@1"], ci[0], ci[1]]
                for base in compare:
                    d = r["comparisons"].get(base, {}).get(m, {}).get(split)
                    dci = (d or {}).get("ci95") or ["", ""]
                    line += [d["diff"], dci[0], dci[1], "" if d["p_value"] is None else d["p_value"]] if d else \
                        ["", "", "", ""]
                w.writerow(line)
    return buf.getvalue()


def write(lb: Leaderboard, out: Path) -> list[Path]:
    """Write the tables, the JSON files, the figures and the page into ``out``; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    written = []
    data = {"config": lb.config, "rows": lb.rows, "models": lb.models, "models_summary": lb.models_summary,
            "same_names": lb.same_names}
    for name, text in (("leaderboard.json", json.dumps(data, indent=2) + "\n"), ("leaderboard.md", to_markdown(lb)),
                       ("leaderboard.csv", to_csv(lb)),
                       ("curves.json", json.dumps({"config": lb.config, "curves": lb.curves}, indent=2) + "\n"),
                       ("test_quality.json", json.dumps({"runs": lb.quality}, indent=2) + "\n")):
        atomic_write_text(out / name, text)
        written.append(out / name)
    figs = figures.make_all(lb, out / "figures")
    written += list(figs.values())
    atomic_write_text(out / "index.html", page.render(lb, figs))
    written.append(out / "index.html")
    lb.timing["report_s"] = round(time.monotonic() - t0, 2)
    return written
