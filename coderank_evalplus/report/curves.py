"""Budget curves: pass@1 against the number of candidates N, and against the number of test samples M.

Each point sub-samples, per problem, N of the stored candidates (or M of the raw test samples) without
replacement, ranks the subset again on the stored matrices and scores it with the stored verdicts: nothing is
executed again. Every method sees the same subsets (seeded per draw), so the curves are paired like the table.

A method with a step after ranking (``recommended``, ``<method>+select``) cannot be ranked from the matrices alone:
the step runs programs on inputs of its own. Its subsets are handed to the caller's ``subset_steps`` (a ``SubsetSteps``:
all of a folder's subsets at once, so that it can batch their work; the per-problem path replayed on the stored
executions and the execution cache, ``selection.stored``), which ranks them, runs the step and returns the final
rankings; without one, such a method is refused.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import numpy as np

from coderank_evalplus.io.results_folder import MATRICES_FILE, PROBLEMS_FILE, StoredProblem, StoredRun
from coderank_evalplus.rankers import get_ranker, split_selection
from coderank_evalplus.rankers.filtering import restrict
from coderank_evalplus.report.scores import BASELINES, pass_at_1, rank
from coderank_evalplus.types import Executions, Ranking, TestSuite

CANDIDATE_BUDGETS = (1, 2, 5, 10, 20, 50, 100, 200)
TEST_BUDGETS = (1, 2, 5, 10, 20, 50, 100)
DEFAULT_DRAWS = 20
CACHE_VERSION = 3  # bump when a change here changes the figures (2: recommended runs the selection step; 3: random
# at a matched budget is its exact expectation)


@dataclass
class SubsetItem:
    """A sub-sample for a stepped method, to be replayed (ranked, stepped) on the per-problem path: the stored
    problem, the stored candidates it holds (None: all of them, on a subset of the tests), its executions, the
    method, the benchmark's outputs of its candidates, ``key``: the sub-sample it is (the items of every method on
    one draw share it) and ``options``: more ranker options."""

    problem: StoredProblem
    candidates: Optional[np.ndarray]
    executions: Executions
    method: str
    hidden: Optional[tuple[np.ndarray, np.ndarray]] = None
    key: Optional[tuple] = None
    options: Optional[dict] = None  # more ranker options (a study's held-out weights)


def candidate_subset(sp: StoredProblem, ex: Executions, chosen: np.ndarray
                     ) -> tuple[Executions, Optional[tuple[np.ndarray, np.ndarray]]]:
    """The executions of the ``chosen`` candidates (``rankers.filtering.restrict``) and their benchmark outputs."""
    sub, rows = restrict(ex, chosen)
    return sub, None if sp.hidden is None else (sp.hidden[0][rows], sp.hidden[1][rows])


# The step after ranking on a folder's sub-samples: (the folder, its items) → one reordered ranking per item, in order.
SubsetSteps = Callable[[StoredRun, Sequence[SubsetItem]], list[Ranking]]


def stepped(methods: Sequence[str]) -> dict[str, str]:
    """{method: its ranker} for the methods with a step after ranking."""
    return {m: base for m in methods if m not in BASELINES for base, step in [split_selection(m)] if step}


def stepped_rankings(run: StoredRun, items: Sequence[SubsetItem], subset_steps: Optional[SubsetSteps]) -> list[Ranking]:
    """``subset_steps``'s rankings of ``items`` (none: nothing to reorder); ValueError when there are items and no
    ``subset_steps``."""
    if not items:
        return []
    if subset_steps is None:
        methods = sorted({it.method for it in items})
        raise ValueError(f"{run.path}: {', '.join(methods)} end(s) with a step after ranking, which runs programs: "
                         f"its sub-samples need the step again (give the run's execution cache, --cache-dir), or "
                         f"leave the method out")
    return subset_steps(run, items)


def budgets_for(available: int, grid: Sequence[int]) -> list[int]:
    """The grid's budgets that exist (≤ ``available``), and ``available`` itself when it is not on the grid."""
    out = [b for b in grid if b <= available]
    if available > 0 and (not out or out[-1] != available) and available <= max(grid):
        out.append(available)
    return out


def restrict_tests(ex: Executions, samples: Sequence[int] | np.ndarray) -> Executions:
    """``ex`` as if only the given raw test samples had been drawn: their asserts, recounted, and the inputs
    those asserts call (columns of the stored matrices, no execution)."""
    suite = ex.suite
    per_sample = suite.sample_asserts or []  # a pool without per-sample records has no samples to draw
    counts = np.zeros(len(suite.asserts), dtype=np.int64)
    for s in samples:
        for a in per_sample[s]:
            counts[a] += 1
    kept = np.flatnonzero(counts)
    inputs = sorted({suite.assert_input[a] for a in kept if suite.assert_input[a] >= 0})
    new_input = {old: new for new, old in enumerate(inputs)}
    sub = TestSuite(asserts=[suite.asserts[a] for a in kept], counts=[int(counts[a]) for a in kept],
                    inputs=[suite.inputs[i] for i in inputs],
                    assert_input=[new_input.get(suite.assert_input[a], -1) for a in kept],
                    expected=[suite.expected[a] for a in kept], comparisons=[suite.comparisons[a] for a in kept],
                    sample_asserts=None)
    return dataclasses.replace(ex, pass_matrix=ex.pass_matrix[:, kept], assert_counts=counts[kept],
                               output_matrix=ex.output_matrix[:, inputs], output_kind=ex.output_kind[:, inputs],
                               suite=sub)


def draw_subset(total: int, size: int, seed: int, draw: int, budget: int, kind: str = "candidates") -> np.ndarray:
    """The sorted indices one draw of a budget point takes (seeded by seed, draw, budget and kind): every curve
    and the adaptive budget's simulation (``report/adaptive.py``) take the same subsets."""
    rng = np.random.default_rng([seed, draw, budget, 0 if kind == "candidates" else 1])
    return np.sort(rng.choice(total, size=size, replace=False))


def _problem_points(args: tuple) -> tuple[np.ndarray, list[tuple]]:
    """One problem's pass@1 for every (budget, draw, method, split): shape (budgets, draws, methods, splits); the
    stepped methods' points are left to their step: the draws they need, (budget, draw, the subset drawn) each (None:
    a draw that took everything, the first draw's point). A draw is restricted here only for a method ranked here:
    the stepped methods' sub-samples are built once, where the folder's items are (``_stepped_points``)."""
    sp, kind, budgets, draws, methods, splits, seed, rank_seed = args
    ex = sp.executions
    n = ex.n_candidates
    n_samples = len(ex.suite.sample_asserts or [])
    out = np.full((len(budgets), draws, len(methods), len(splits)), np.nan)
    correct = [sp.correct(s) for s in splits]
    steps = stepped(methods)
    rankers = {m: get_ranker(m) for m in methods if m not in BASELINES and m not in steps}  # ranked here
    ranked_here = any(m not in steps and m not in BASELINES for m in methods)
    pending: list[tuple] = []  # the stepped methods' draws: replayed on the path (``_stepped_points``)
    for b, budget in enumerate(budgets):
        total = n if kind == "candidates" else n_samples
        if total == 0:
            continue
        size = min(budget, total)
        for d in range(draws):
            if size == total and d > 0:  # every draw takes everything: same result
                out[b, d] = out[b, 0]
                if steps:
                    pending.append((b, d, None))
                continue
            chosen = draw_subset(total, size, seed, d, budget, kind)
            if kind == "candidates" and size == 1:  # one candidate: every method picks it (ranked or fallback)
                out[b, d] = [[float(c[chosen[0]]) for c in correct]] * len(methods)
                continue
            if steps:
                pending.append((b, d, chosen))
            sub_correct, cands = ([c[chosen] for c in correct], chosen) if kind == "candidates" else (correct, None)
            sub, hidden = _subset(sp, kind, chosen) if ranked_here else (ex, None)  # read by a ranker only
            for m, method in enumerate(methods):
                if method in steps:
                    continue
                ranking = None if method in BASELINES else rank(sp, rankers[method], rank_seed, sub, hidden, cands)
                for s in range(len(splits)):
                    out[b, d, m, s] = pass_at_1(method, sub_correct[s], ranking)
    return out, pending


def _subset(sp: StoredProblem, kind: str, chosen: np.ndarray
            ) -> tuple[Executions, Optional[tuple[np.ndarray, np.ndarray]]]:
    """The executions of one draw (of candidates, or of test samples) and the benchmark outputs of its candidates."""
    if kind == "candidates":
        return candidate_subset(sp, sp.executions, chosen)
    return restrict_tests(sp.executions, chosen), sp.hidden


def _stepped_points(run: StoredRun, kind: str, methods: Sequence[str], splits: Sequence[str],
                    per_problem: list[tuple[np.ndarray, list[tuple]]],
                    subset_steps: Optional[SubsetSteps]) -> np.ndarray:
    """The points of every problem, the stepped methods' filled in by ``subset_steps`` (one call for the folder):
    each draw's sub-sample built once, shared by the items of every stepped method."""
    steps = stepped(methods)
    on = [m for m, method in enumerate(methods) if method in steps]
    items, where = [], []
    for p, (sp, (_, pending)) in enumerate(zip(run.problems, per_problem)):
        for b, d, chosen in pending:
            if chosen is None:  # a draw that took everything: the first draw's point
                continue
            sub, hidden = _subset(sp, kind, chosen)
            for m in on:
                items.append(SubsetItem(sp, chosen if kind == "candidates" else None, sub, methods[m], hidden,
                                        (p, b, d)))
                where.append((p, b, d, m))
    stacked = np.stack([o for o, _ in per_problem])  # problems × budgets × draws × methods × splits
    for (p, b, d, m), it, ranking in zip(where, items, stepped_rankings(run, items, subset_steps)):
        correct = [run.problems[p].correct(s) for s in splits]
        for s in range(len(splits)):
            stacked[p, b, d, m, s] = pass_at_1(methods[m], correct[s] if it.candidates is None
                                               else correct[s][it.candidates], ranking)
    for p, (_, pending) in enumerate(per_problem):
        for b, d, chosen in pending:
            if chosen is None:
                stacked[p, b, d, on] = stacked[p, b, 0, on]
    return stacked


def _map_problems(jobs: list[tuple], workers: Optional[int], desc: str, progress: bool,
                  fn: Callable[[tuple], Any] = _problem_points) -> list:
    """``fn`` (default ``_problem_points``) of every job, in order: in a process pool when there is more than one
    worker."""
    from coderank_evalplus.io.progress import progress_bar

    n_workers = min(len(jobs), workers or os.cpu_count() or 1)
    bar: dict[str, Any] = dict(total=len(jobs), desc=desc, unit="problem", leave=False)
    if n_workers > 1:
        with ProcessPoolExecutor(n_workers) as pool:
            return list(progress_bar(pool.map(fn, jobs, chunksize=max(1, len(jobs) // (8 * n_workers))),
                                     enabled=progress, **bar))
    return [fn(j) for j in progress_bar(jobs, enabled=progress, **bar)]


def scores_at_budget(run: StoredRun, methods: Sequence[str], budget: int, draws: int = DEFAULT_DRAWS,
                     seed: int = 0, splits: Sequence[str] = ("base",), workers: Optional[int] = None,
                     progress: bool = False, label: str = "", subset_steps: Optional[SubsetSteps] = None
                     ) -> dict[str, dict[str, np.ndarray]]:
    """{method: {split: per-problem pass@1 (0..1) with ``budget`` candidates}}: each problem's mean over the SAME
    seeded draws the budget curve uses (same seeds, same subsets), so the mean over problems equals the curve's
    point at ``budget``. ``random`` is its exact expectation instead, the full table's (a uniform pick from a uniform
    subset is a uniform pick of all), not an average of draws that would differ from it by chance. A problem with
    at most ``budget`` candidates keeps them all. ``subset_steps``: the step of the stepped methods (module doc)."""
    if not run.problems:
        return {m: {s: np.zeros(0) for s in splits} for m in methods}
    jobs = [(sp, "candidates", [budget], draws, list(methods), list(splits), seed, run.seed) for sp in run.problems]
    per_problem = _stepped_points(run, "candidates", methods, splits,
                                  _map_problems(jobs, workers, f"{label} {budget} candidates".strip(), progress),
                                  subset_steps)
    means = per_problem[:, 0].mean(axis=1)  # problems × methods × splits
    out = {m: {s: means[:, k, j] for j, s in enumerate(splits)} for k, m in enumerate(methods)}
    if "random" in out:
        out["random"] = {s: np.array([pass_at_1("random", sp.correct(s), None) for sp in run.problems])
                         for s in splits}
    return out


def folder_hash(folder: Path) -> "hashlib._Hash":
    """A sha256 that has read a results folder's stored matrices and problems (what every figure recomputed from
    the folder depends on); callers add their settings and take the digest to key a cache file."""
    h = hashlib.sha256()
    for name in (MATRICES_FILE, PROBLEMS_FILE):
        with open(Path(folder) / name, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    return h


def budget_curve(run: StoredRun, methods: Sequence[str], kind: str = "candidates", draws: int = DEFAULT_DRAWS,
                 seed: int = 0, grid: Optional[Sequence[int]] = None, workers: Optional[int] = None,
                 splits: Sequence[str] = ("base",), progress: bool = False, label: str = "",
                 subset_steps: Optional[SubsetSteps] = None) -> dict:
    """pass@1 (percent) per budget for each method and split: mean over draws, standard deviation, and the
    2.5–97.5 % range of the draws. ``kind`` is "candidates" (N) or "tests" (M raw test samples). ``subset_steps``: the
    step of the stepped methods (module doc)."""
    if kind == "candidates":
        available = min((p.executions.n_candidates for p in run.problems), default=0)
        budgets = budgets_for(available, grid or CANDIDATE_BUDGETS)
    else:
        counts = [len(p.executions.suite.sample_asserts or []) for p in run.problems]
        available = min((c for c in counts if c), default=0)
        budgets = budgets_for(available, grid or TEST_BUDGETS)
    curves: dict[str, dict[str, list[dict]]] = {}
    result = {"kind": kind, "budgets": budgets, "draws": draws, "seed": seed, "curves": curves}
    if not budgets or not run.problems:
        return result
    jobs = [(sp, kind, budgets, draws, list(methods), list(splits), seed, run.seed) for sp in run.problems]
    per_problem = _map_problems(jobs, workers, f"{label} curve over {kind}".strip(), progress)
    stacked = _stepped_points(run, kind, methods, splits, per_problem, subset_steps)  # problems × budgets × draws × …
    # problems whose pool has no test samples are left out of the test-budget curve
    per_draw = 100.0 * np.nanmean(stacked, axis=0)  # budgets × draws × methods × splits
    for s, split in enumerate(splits):
        curves[split] = {}
        for m, method in enumerate(methods):
            vals = per_draw[:, :, m, s]
            lo, hi = np.percentile(vals, [2.5, 97.5], axis=1)
            curves[split][method] = [
                {"n": int(budget), "mean": round(float(vals[b].mean()), 2), "std": round(float(vals[b].std()), 2),
                 "lo": round(float(lo[b]), 2), "hi": round(float(hi[b]), 2)} for b, budget in enumerate(budgets)]
    return result
