"""Metrics: unbiased pass@k, ranked pass@k under a named rule, oracle pass, and aggregation.

Ranked pass@k is the probability that k picks guided by a ranking include a correct candidate. Two rules answer
it (``PASS_AT_K_RULES``; ``ranked_pass_at_k`` is the one function that applies either; docs/usage.md works an
example of both by hand):

``ranked`` (the default): k picks in rank order without replacement. The merged groups are taken best first, each
drawn uniformly inside, one group used up before the next; the pick where the k-th falls is a uniform draw of the
picks left from its group (hypergeometric). A ranking that ranked nothing is the uniform draw from ``pick_pool``
first (the trial filter's survivors, else every candidate); candidates in no group come after every group, as one
last group. So pass@1 is the top group's share of correct candidates, pass@k grows with k and never exceeds the
oracle, and pass@n is the oracle: taking every candidate cannot miss a correct one.

``codet``: CodeT's published rule, kept to reproduce CodeT's and SRank's tables (pass@2, pass@10). It follows
microsoft/CodeT, CodeT/src/evaluation.py (``_turn_solution_scores_into_choose_count`` and
``get_result_of_sorted_solutions``): each of the top k merged groups gets one pick; with fewer groups than k the
extra picks go round-robin from the top (``intial_choose_count[i % len(result)] += 1``); a group picked m times
misses with probability ``((n-c)/n) ** m`` (``pow(_estimator(n, c, 1), choose_count)``: independent picks, i.e.
WITH replacement); the problem's score is 1 − Π P(miss). A problem with no ranked group gets the random pass@k of
its ``pick_pool`` (``pass_at_K_by_task``). Drawing with replacement can miss where k picks cannot: with one group
of 4 candidates, 1 correct, its pass@4 is 1 − (3/4)⁴ ≈ 0.68, not 1.

At k = 1 the two rules are the same number: one pick from the top group (else the pool).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Optional

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


# the rules of ranked pass@k, by name (the option ``pass_at_k_rule`` chooses one; the module's docstring says why)
PASS_AT_K_RULES: dict[str, str] = {
    "ranked": "k picks in rank order without replacement (the top group first, then the next): pass@n is the oracle",
    "codet": "CodeT's published rule: one pick per top group, picks inside a group with replacement (reproduces "
             "CodeT's and SRank's pass@2 and pass@10)",
}
DEFAULT_PASS_AT_K_RULE = "ranked"


def ranked_pass_at_k(ranking: Ranking, correct: np.ndarray, k: int, rule: str = DEFAULT_PASS_AT_K_RULE) -> float:
    """Probability that k picks guided by ``ranking`` include a correct candidate, under ``rule`` (a name in
    ``PASS_AT_K_RULES``). ``correct`` is a bool per candidate. At k = 1 every rule gives the same value, so a
    pass@1 need not name one."""
    correct = np.asarray(correct, dtype=bool)
    if check_rule(rule) == "ranked":
        return _in_rank_order(ranking, correct, k)
    return _codet_rule(ranking, correct, k)


def recorded_rule(config: Mapping[str, Any]) -> str:
    """The rule a run's pass@k table used: its config's ``pass_at_k_rule``; a run recorded before the rule was a
    setting used CodeT's."""
    return str(config.get("pass_at_k_rule") or "codet")


def check_rule(rule: str) -> str:
    """``rule`` if it names a rule of ``PASS_AT_K_RULES``, else ValueError saying which there are."""
    if rule not in PASS_AT_K_RULES:
        raise ValueError(f"pass@k rule {rule!r}: choose {' or '.join(PASS_AT_K_RULES)}")
    return rule


def pick_order(ranking: Ranking, n_candidates: int) -> Iterator[list[int]]:
    """The groups k picks take in turn under the ``ranked`` rule: the merged groups best first (a ranking with
    none: ``pick_pool``), then every other candidate as one last group. Lazy: pass@1 reads the top group alone."""
    groups = merged_groups(ranking)
    placed: set[int] = set()
    for tier in ([list(g.candidates) for g in groups] if groups else [pick_pool(ranking, n_candidates)]):
        if tier:
            yield tier
        placed.update(int(c) for c in tier)
    rest = [c for c in range(int(n_candidates)) if c not in placed]
    if rest:
        yield rest


def _in_rank_order(ranking: Ranking, correct: np.ndarray, k: int) -> float:
    """The ``ranked`` rule: groups used up in ``pick_order``; the group where the k-th pick falls is drawn without
    replacement (the chance that r draws from n with c correct all miss: Π_{i<r} (n−c−i)/(n−i))."""
    miss, left = 1.0, int(k)
    for tier in pick_order(ranking, len(correct)) if left > 0 else ():
        n, c = len(tier), int(correct[tier].sum())
        draws = min(left, n)
        for i in range(draws):
            miss *= (n - c - i) / (n - i)
        left -= draws
        if left == 0 or miss == 0.0:
            break
    return 1.0 - miss


def _codet_rule(ranking: Ranking, correct: np.ndarray, k: int) -> float:
    """The ``codet`` rule (the module's docstring): one pick per top merged group, round-robin from the top when
    there are fewer groups than k, a group picked m times missing with ((n−c)/n)^m."""
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


# reported beside every method, always: scored from the verdicts alone, never through a ranker
BASELINES = ("random", "oracle")


def problem_pass_at_k(method: str, correct: np.ndarray, ranking: Optional[Ranking], k: int = 1,
                      rule: str = DEFAULT_PASS_AT_K_RULE) -> float:
    """One problem's pass@k under ``method``: ``random``, the unbiased estimate over every candidate; ``oracle``,
    whether any candidate is correct; else ``ranking``'s k picks taken by ``rule``. ``correct``: a bool per
    candidate. The one rule that scores a problem: a run's table, the reports, the harnesses and self-debug call it."""
    correct = np.asarray(correct, dtype=bool)
    if method == "random":
        return pass_at_k(len(correct), int(correct.sum()), k)
    if method == "oracle":
        return oracle_pass(correct)
    if ranking is None:
        raise ValueError(f"{method}: a ranked method needs its ranking to be scored")
    return ranked_pass_at_k(ranking, correct, k, rule)


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


TIE = "tie"  # Ranking.info: the parts of the top group a step after ranking told apart and could not order


def pool_parts(ranking: Ranking, n_candidates: int) -> list[list[int]]:
    """The pick's pool (``pick_pool``) split into the parts a step after ranking told apart (they differ on an input
    it grew, so at most one of them can be right) but could not order: ``info['tie']`` kept to the pool, the
    pool's candidates in none of them one part more. One part: the pool is one behaviour as far as anything ran.

    The one rule for a pick drawn from a tie: the confidence divides by the number of parts, ``pick``'s reasons
    call it a tie."""
    pool = pick_pool(ranking, n_candidates)
    inside = set(pool)
    parts = [p for p in (sorted(int(c) for c in part if int(c) in inside) for part in ranking.info.get(TIE) or ()) if p]
    rest = sorted(inside - {c for p in parts for c in p})
    return parts + [rest] if rest else parts


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


def needed_candidates(ranking: Ranking, k_max: int, n_candidates: Optional[int] = None,
                      rule: str = DEFAULT_PASS_AT_K_RULE) -> list[int]:
    """Candidates whose correctness ``ranked_pass_at_k`` needs under ``rule`` for every k ≤ k_max (sorted).

    ``ranked``: the groups of ``pick_order`` until they hold k_max candidates. ``codet``: the members of the top
    k_max merged groups, or with no group the ``pick_pool``. Without ``n_candidates`` a ranking with no group and
    no fallback pool needs none, and ``ranked`` looks no further than the ranked groups.
    """
    if check_rule(rule) == "ranked":
        needed: list[int] = []
        for tier in pick_order(ranking, n_candidates or 0):
            if len(needed) >= k_max:
                break
            needed += tier
        return sorted(needed)
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
