"""Adaptive budget, simulated on a results folder: draw candidates in rounds, rerank after each round, stop a
problem once the pick's confidence (``rankers/confidence.py``) reaches τ or the round reaches the cap.

Nothing is generated or executed: round n of draw d takes exactly the subset the budget curve's point n takes in
draw d (``curves.draw_subset``, same seeds), ranks it on the stored matrices and scores the pick with the stored
verdicts — so the simulation's fixed-N point is the curve's point. A curve draws each budget's subset afresh
(round n's subset is not round n−1's plus one), so the simulation sees each round as the curve does: a uniform
draw of n of the problem's samples.

``round_table`` holds, per problem × round × draw, the pick's confidence features and its expected pass; any
confidence model and any τ are then applied without ranking again (``simulate``, ``sweep``, ``choose_tau``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from coderank_evalplus.io.results_folder import StoredRun
from coderank_evalplus.rankers import get_ranker
from coderank_evalplus.rankers.confidence import FEATURES, pick_features, predict
from coderank_evalplus.report.curves import (
    DEFAULT_DRAWS,
    SubsetItem,
    SubsetSteps,
    _map_problems,
    budgets_for,
    candidate_subset,
    draw_subset,
    stepped,
    stepped_rankings,
)
from coderank_evalplus.report.scores import pass_at_1, rank, splits_of
from coderank_evalplus.stats import mean_estimate, resample_indices

ROUNDS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 30, 50, 75, 100, 150, 200)
TAUS = (0.0, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.925, 0.95, 0.975, 0.99, 1.0)
# reading pass@1 at a given mean budget off a sweep: TAUS's gap between 0 (one sample) and 0.5 is too wide to
# interpolate across (on CodeGen-16B it put the mean of 10 samples 6.5 points too low), so such reads use this grid
FINE_TAUS = tuple(round(0.025 * k, 3) for k in range(41))
STOP_SPLIT = "base"  # the confidence the rule reads (fixed a priori)
TAU_TOLERANCE = 0.5  # τ's rule: lose at most this many points of pass@1 (mean over training sets), fixed a priori


@dataclass
class RoundTable:
    """One folder × method: ``features`` (problems × rounds × draws × FEATURES), ``passed`` (problems × rounds ×
    draws × splits, the pick's expected pass, 0..1) at each round's budget ``rounds``."""

    rounds: list[int]
    draws: int
    splits: tuple[str, ...]
    features: np.ndarray
    passed: np.ndarray


def _problem_rounds(args: tuple) -> tuple[np.ndarray, np.ndarray, list[tuple]]:
    """One problem's features and passes at every (method, round, draw); the stepped methods' are left to their step
    (``curves.SubsetSteps``): the draws they need, (round, draw, the subset drawn) each (None: a draw that took
    everything, the first draw's). A draw is restricted here only for a method ranked here: the stepped methods'
    sub-samples are built once, where the folder's items are (``_stepped_rounds``)."""
    sp, rounds, draws, methods, splits, seed, rank_seed, options = args
    ex = sp.executions
    total = ex.n_candidates
    feats = np.zeros((len(methods), len(rounds), draws, len(FEATURES)))
    passed = np.zeros((len(methods), len(rounds), draws, len(splits)))
    correct = [sp.correct(s) for s in splits]
    steps = stepped(methods)
    rankers = {m: get_ranker(steps.get(m, m)) for m in methods}
    pending: list[tuple] = []  # the stepped methods' draws: replayed on the path (``_stepped_rounds``)
    for r, budget in enumerate(rounds):
        size = min(budget, total)
        for d in range(draws):
            if size == total and d > 0:  # every draw takes everything (as in the curve)
                feats[:, r, d], passed[:, r, d] = feats[:, r, 0], passed[:, r, 0]
                if steps:
                    pending.append((r, d, None))
                continue
            chosen = draw_subset(total, size, seed, d, budget)
            here = [m for m, method in enumerate(methods) if method not in steps or size == 1]
            if steps and size > 1:
                pending.append((r, d, chosen))
            if not here:
                continue
            sub, hidden = candidate_subset(sp, ex, chosen)
            for m in here:
                method = methods[m]
                ranking = rank(sp, rankers[method], rank_seed, sub, hidden, chosen, options)
                feats[m, r, d] = pick_features(ranking, sub)
                for s in range(len(splits)):
                    # one candidate: the curve scores it directly (every method picks it)
                    passed[m, r, d, s] = float(correct[s][chosen[0]]) if size == 1 else \
                        pass_at_1(method, correct[s][chosen], ranking)
    return feats, passed, pending


def _stepped_rounds(run: StoredRun, methods: Sequence[str], splits: Sequence[str], out: list[tuple],
                    subset_steps: Optional[SubsetSteps], options: Optional[dict] = None) -> None:
    """Fill in the stepped methods' features and passes of every problem (``out``: ``_problem_rounds``'s), from
    their reordered rankings (one ``subset_steps`` call for the folder): each draw's sub-sample built once, shared by
    the items of every stepped method."""
    steps = stepped(methods)
    on = [m for m, method in enumerate(methods) if method in steps]
    items, where = [], []
    for p, (sp, (_, _, pending)) in enumerate(zip(run.problems, out)):
        for r, d, chosen in pending:
            if chosen is not None:
                sub, hidden = candidate_subset(sp, sp.executions, chosen)
                for m in on:
                    items.append(SubsetItem(sp, chosen, sub, methods[m], hidden, (p, r, d), options))
                    where.append((p, m, r, d))
    for (p, m, r, d), it, ranking in zip(where, items, stepped_rankings(run, items, subset_steps)):
        feats, passed, _ = out[p]
        feats[m, r, d] = pick_features(ranking, it.executions)
        for s, split in enumerate(splits):
            passed[m, r, d, s] = pass_at_1(methods[m], run.problems[p].correct(split)[it.candidates], ranking)
    for feats, passed, pending in out:
        for r, d, chosen in pending:
            if chosen is None:
                feats[on, r, d], passed[on, r, d] = feats[on, r, 0], passed[on, r, 0]


def round_tables(run: StoredRun, methods: Sequence[str], draws: int = DEFAULT_DRAWS, seed: int = 0,
                 grid: Sequence[int] = ROUNDS, workers: Optional[int] = None, progress: bool = False,
                 label: str = "", options: Optional[dict] = None,
                 subset_steps: Optional[SubsetSteps] = None) -> dict[str, RoundTable]:
    """{method: RoundTable} of a folder; rounds: the grid's budgets up to the folder's fewest samples per problem
    (and that number itself), as the budget curve's; ``options``: ranker options (e.g. a learned model to rank
    with instead of the shipped one); ``subset_steps``: the step of a method with a step after ranking on each round's
    subset (``curves.SubsetSteps``; such a method is refused without one)."""
    available = min((p.executions.n_candidates for p in run.problems), default=0)
    rounds = budgets_for(available, grid)
    splits = splits_of(run)
    jobs = [(sp, rounds, draws, list(methods), splits, seed, run.seed, options) for sp in run.problems]
    out = _map_problems(jobs, workers, f"{label} adaptive rounds".strip(), progress, fn=_problem_rounds)
    _stepped_rounds(run, methods, splits, out, subset_steps, options)
    F = np.stack([o[0] for o in out], axis=1) if out else np.zeros((len(methods), 0, len(rounds), draws, len(FEATURES)))
    P = np.stack([o[1] for o in out], axis=1) if out else np.zeros((len(methods), 0, len(rounds), draws, len(splits)))
    return {m: RoundTable(rounds, draws, splits, F[k], P[k]) for k, m in enumerate(methods)}


def confidences(table: RoundTable, model: dict, split: str = STOP_SPLIT) -> np.ndarray:
    """The model's confidence at every problem × round × draw."""
    shape = table.features.shape[:-1]
    return predict(model, table.features.reshape(-1, len(FEATURES)), split).reshape(shape)


def first_stop(hit: np.ndarray) -> np.ndarray:
    """Index of the round each problem × draw stops at, given where a rule says stop (problems × rounds × draws):
    the first such round, else the last."""
    hit = hit.copy()
    hit[:, -1, :] = True
    return hit.argmax(axis=1)  # problems × draws


def stop_round(conf: np.ndarray, tau: float) -> np.ndarray:
    """Index of the round each problem × draw stops at: the first whose confidence is ≥ τ, else the last."""
    return first_stop(conf >= tau)


def simulate(table: RoundTable, conf: np.ndarray, tau: float) -> dict[str, np.ndarray]:
    """Per problem (mean over draws): ``samples`` used and pass (0..1) per split, with the rule at ``tau``."""
    return outcome(table, stop_round(conf, tau))


def outcome(table: RoundTable, stop: np.ndarray) -> dict[str, np.ndarray]:
    """Per problem (mean over draws): ``samples`` used and pass (0..1) per split when each problem × draw stops at
    round index ``stop``."""
    p_idx, d_idx = np.indices(stop.shape)
    used = np.asarray(table.rounds, dtype=float)[stop]
    out = {"samples": used.mean(axis=1)}
    for s, split in enumerate(table.splits):
        out[split] = table.passed[p_idx, stop, d_idx, s].mean(axis=1)
    return out


def fixed(table: RoundTable) -> list[dict]:
    """pass@1 (%) at each round's budget for every problem: the budget curve's means."""
    per = 100.0 * table.passed.mean(axis=(0, 2))  # rounds × splits
    return [{"n": int(n), **{s: round(float(per[r, k]), 2) for k, s in enumerate(table.splits)}}
            for r, n in enumerate(table.rounds)]


def sweep(table: RoundTable, conf: np.ndarray, taus: Sequence[float] = TAUS, n_resamples: int = 1000,
          seed: int = 0) -> list[dict]:
    """The rule at each τ: mean samples per problem and pass@1 (%) per split with its 95 % bootstrap interval
    over problems (None under ``stats.MIN_PROBLEMS`` problems)."""
    idx = resample_indices(table.passed.shape[0], n_resamples, seed)
    rows = []
    for tau in taus:
        sim = simulate(table, conf, tau)
        row: dict = {"tau": tau, "mean_samples": round(float(sim["samples"].mean()), 3)}
        for split in table.splits:
            est = mean_estimate(sim[split], idx).to_json()
            row[split] = est["pass@1"]
            row[f"{split}_ci95"] = est["ci95"]
        rows.append(row)
    return rows


def at_budget(rows: Sequence[dict], budget: float, split: str = "base") -> Optional[float]:
    """pass@1 of the sweep at ``budget`` mean samples, linearly between the two nearest τ (None outside the
    sweep's range). Mean samples use no verdict, so reading a budget off a scored set uses none of its labels."""
    pts = sorted({(r["mean_samples"], r[split]) for r in rows})
    xs = np.asarray([p[0] for p in pts])
    if not len(xs) or budget < xs[0] or budget > xs[-1]:
        return None
    return round(float(np.interp(budget, xs, [p[1] for p in pts])), 2)


def budget_with_cap(table: RoundTable, conf: np.ndarray, budget: float, cap: Optional[int] = None,
                    taus: Sequence[float] = FINE_TAUS, split: str = "base") -> Optional[float]:
    """pass@1 (%) of the rule "stop at confidence ≥ τ, or once ``cap`` samples are drawn" at a mean of ``budget``
    samples per problem, interpolated over ``taus`` (cap None: the folder's samples; None outside the range)."""
    capped = (np.asarray(table.rounds) >= (np.inf if cap is None else cap))[None, :, None]
    rows = []
    for tau in taus:
        sim = outcome(table, first_stop((conf >= tau) | capped))
        rows.append({"mean_samples": float(sim["samples"].mean()), split: 100.0 * float(sim[split].mean())})
    return at_budget(rows, budget, split)


def samples_to_match(rows: Sequence[dict], target: float, split: str = "base", within: float = 1.0) -> Optional[float]:
    """The fewest mean samples at which the sweep's pass@1 is within ``within`` points of ``target``."""
    ok = [r["mean_samples"] for r in rows if r[split] >= target - within]
    return min(ok) if ok else None


def choose_tau(tables: Sequence[RoundTable], model: dict, taus: Sequence[float] = TAUS,
               tolerance: float = TAU_TOLERANCE) -> tuple[float, str]:
    """τ from training folders only: the one with the fewest samples (mean over folders of samples / cap) whose
    base pass@1 is, on average over the folders, at most ``tolerance`` points below the cap's."""
    confs = [confidences(t, model) for t in tables]
    best: tuple[float, float] = (1.0, 1.0)
    for tau in taus:
        fracs, losses = [], []
        for t, c in zip(tables, confs):
            sim = simulate(t, c, tau)
            fracs.append(sim["samples"].mean() / t.rounds[-1])
            losses.append(100.0 * (t.passed[:, -1, :, 0].mean() - sim["base"].mean()))
        if np.mean(losses) <= tolerance and np.mean(fracs) < best[1]:
            best = (tau, float(np.mean(fracs)))
    how = (f"fewest samples (mean over {len(tables)} training folders of samples / cap) among τ in {list(taus)} "
           f"losing at most {tolerance} points of base pass@1 on average against the cap")
    return best[0], how


def method_report(table: RoundTable, model: dict, tau: float, final_conf: dict[str, np.ndarray],
                  final_pass: dict[str, np.ndarray], n_resamples: int = 1000) -> dict:
    """The ``budget --json`` entry of one method: fixed curve, τ sweep, the recorded τ, calibration and
    selective pass@1 of the full-folder pick."""
    from coderank_evalplus.rankers.calibration import summary

    conf = confidences(table, model)
    rows = sweep(table, conf, n_resamples=n_resamples)
    sim = simulate(table, conf, tau)
    cal = summary(final_conf, final_pass)
    return {"n_problems": int(table.passed.shape[0]), "fixed": fixed(table), "adaptive": rows, "tau": tau,
            "at_tau": {"mean_samples": round(float(sim["samples"].mean()), 3),
                       **{s: round(100.0 * float(sim[s].mean()), 2) for s in table.splits}},
            "calibration": cal["calibration"], "selective": cal["selective"], "no_abstention": cal["all"]}
