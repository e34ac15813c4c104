"""Metrics: unbiased pass@k, ranked pass@k with CodeT's tie rule, oracle pass, and aggregation.

Ranked pass@k follows microsoft/CodeT, CodeT/src/evaluation.py (``_turn_solution_scores_into_choose_count``
and ``get_result_of_sorted_solutions``): consecutive groups with equal score are merged; each of the top k
merged groups gets one pick; with fewer groups than k the extra picks go round-robin from the top
(``intial_choose_count[i % len(result)] += 1``); a group picked m times misses with probability
``((n-c)/n) ** m`` (``pow(_estimator(n, c, 1), choose_count)``: independent picks, i.e. WITH replacement);
the problem's score is 1 − Π P(miss). A problem with no ranked group gets the random pass@k of all its
candidates (``pass_at_K_by_task``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Optional

import numpy as np
from evalplus.eval import estimate_pass_at_k

from coderank_evalplus.types import Group, Ranking


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one problem with n samples, c correct (evalplus' estimator)."""
    if n <= 0 or c <= 0:
        return 0.0  # evalplus' estimator returns 1.0 whenever n - c < k, even with c = 0
    return float(estimate_pass_at_k(int(n), [int(c)], int(k))[0])


def merged_groups(ranking: Ranking) -> list[Group]:
    """The ranking's non-empty groups with consecutive equal scores merged (CodeT's tie rule)."""
    merged: list[Group] = []
    for g in ranking.groups:
        if not g.candidates:
            continue
        if merged and g.score == merged[-1].score:
            merged[-1] = Group(merged[-1].candidates + list(g.candidates), g.score)
        else:
            merged.append(Group(list(g.candidates), g.score))
    return merged


def choose_counts(n_groups: int, k: int) -> list[int]:
    """How many picks each of the top groups gets: one each, extra picks round-robin from the top."""
    if n_groups == 0:
        return []
    if n_groups >= k:
        return [1] * k
    counts = [1] * n_groups
    for i in range(k - n_groups):
        counts[i % n_groups] += 1
    return counts


def ranked_pass_at_k(ranking: Ranking, correct: np.ndarray, k: int) -> float:
    """Probability that k picks guided by ``ranking`` include a correct candidate (CodeT's rule).

    ``correct`` is a bool per candidate. With no ranked group, the unbiased random pass@k over
    ``pick_pool`` (the trial filter's survivors, else every candidate).
    """
    correct = np.asarray(correct, dtype=bool)
    groups = merged_groups(ranking)
    if not groups:  # no ranked group: a uniform draw from the pick pool
        pool = pick_pool(ranking, len(correct))
        return pass_at_k(len(pool), int(correct[pool].sum()), k)
    miss = 1.0
    for group, picks in zip(groups, choose_counts(len(groups), k)):
        n = len(group.candidates)
        c = int(correct[group.candidates].sum())
        miss *= ((n - c) / n) ** picks
    return 1.0 - miss


def pick_pool(ranking: Ranking, n_candidates: int) -> list[int]:
    """The candidates a pick draws from, sorted: the ranking's first merged group; else, when it ranked nothing,
    its ``info['fallback_pool']`` (the candidates trial filtering kept); else every candidate.

    The one rule for it: pass@1's uniform draw, the pick the API, ``pick``, the harness tasks and self-debug
    report (the pool's first, lowest index), and the confidence model's features all read this function.
    """
    groups = merged_groups(ranking)
    if groups:
        return sorted(int(c) for c in groups[0].candidates)
    pool = sorted(int(c) for c in ranking.info.get("fallback_pool") or ())
    return pool if pool else list(range(int(n_candidates)))


def oracle_pass(correct: np.ndarray) -> float:
    """1.0 if any candidate is correct, else 0.0."""
    return float(np.asarray(correct, dtype=bool).any())


def reportable_ks(ks: Iterable[int], n_candidates: Iterable[int]) -> list[int]:
    """The k's a pass@k may be reported for: those no larger than every problem's number of candidates (evalplus's
    rule, ``if total.min() >= k``), ascending. pass@k from fewer than k candidates is not an estimate of anything."""
    counts = [int(n) for n in n_candidates]
    fewest = min(counts) if counts else 0
    return [k for k in sorted({int(k) for k in ks}) if k <= fewest]


def aggregate_percent(values: Iterable[float]) -> float:
    """Mean of per-problem values as a percentage rounded to two decimals (nan if there are none)."""
    vals = [float(v) for v in values]
    if not vals:
        return math.nan
    return round(100.0 * sum(vals) / len(vals), 2)


def needed_candidates(ranking: Ranking, k_max: int, n_candidates: Optional[int] = None) -> list[int]:
    """Candidates whose correctness ranked_pass_at_k needs for every k ≤ k_max (sorted).

    These are the members of the top k_max merged groups; a ranking with no group needs its ``pick_pool``
    (none if ``n_candidates`` is not given and there is no fallback pool).
    """
    groups = merged_groups(ranking)
    if not groups:
        return pick_pool(ranking, n_candidates or 0)
    return sorted({int(c) for g in groups[:k_max] for c in g.candidates})


# Below this many problems no statistic that rests on the problems is reported: no bootstrap interval, p-value,
# rank interval, Kendall τ, Spearman ρ, calibration (ECE, Brier, AUROC) or selective pass@1 (JSON null; the tables
# say "n = 3 < 20: …"). Over so few problems the percentile bootstrap's 95 % interval covers far less than 95 % (69 %
# at n = 3, 93 % at n = 20 on real per-problem pass@1) and its p-value reads p<0.001 where an exact paired test cannot
# go below 2 / 2^n (0.25 at n = 3); an ECE over 3 problems has 3 points in 10 bins, and "pass@1 of the 90 % most
# confident" is pass@1 of 3 problems again. bench/bootstrap_coverage.py; docs/leaderboard.md, "How many problems an
# interval needs". Decided here, beside ``reportable_ks``, because the rankers' confidence block and the reports
# both follow it (``enough_problems``).
MIN_PROBLEMS = 20


def enough_problems(n_problems: int) -> bool:
    """Whether a statistic over ``n_problems`` problems (an interval, a p-value, τ, calibration, selective pass@1)
    is reported (``MIN_PROBLEMS``)."""
    return n_problems >= MIN_PROBLEMS
