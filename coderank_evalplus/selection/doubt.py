"""Which problems a selection looks at, and which of their candidates are in contention.

A problem is in doubt when the leading programs may still be told apart by new inputs:

- the top group holds two or more distinct programs (they behave alike on every input of the pool, but they are
  not the same text: a right and a wrong program can hide there), or
- the top two groups are close: the confidence model (``rankers.confidence``, the number the pick reports) gives
  the pick less than ``CLOSE_CONFIDENCE`` on base tests, and the second group passes as many of the prompt's
  examples as the top group (a group that fails an example the pick passes is not its rival).

The contenders are the top group's candidates, with the second group's when they are close; at most
``MAX_PROGRAMS`` distinct programs run (the most sampled first): a bound on the cost, fixed before any evaluation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from coderank_evalplus.metrics import merged_groups
from coderank_evalplus.rankers.confidence import confidence
from coderank_evalplus.types import PASS, Executions, Ranking

CLOSE_CONFIDENCE = 0.5  # the pick is more likely wrong than right: a priori, not fitted
MAX_PROGRAMS = 16  # distinct programs run per problem (the most sampled first)


@dataclass
class Contest:
    """The candidates in contention: ``groups[g]`` the candidates of the ranking's g-th (merged) group among
    them, ``programs`` their distinct program texts (at most ``MAX_PROGRAMS``, most sampled first), ``doubt``
    why the problem is in doubt."""

    groups: list[list[int]]
    programs: list[str]
    doubt: str


def trial_passes(ex: Executions, candidate: int) -> int:
    """How many of the prompt's examples (trial tests) a candidate passes."""
    row = int(ex.program_of_candidate[candidate])
    return int((ex.trial_matrix[row] == PASS).sum()) if ex.trial_matrix.ndim == 2 else 0


def contest_of(ranking: Ranking, ex: Executions, programs: list[str], close: float = CLOSE_CONFIDENCE,
               max_programs: int = MAX_PROGRAMS) -> Optional[Contest]:
    """The contest of a problem in doubt, or None when its leading programs are not in doubt."""
    groups = merged_groups(ranking)
    if not groups:
        return None
    top = sorted(int(c) for c in groups[0].candidates)
    groups_in = [top]
    reasons = []
    if len({programs[c] for c in top}) >= 2:
        reasons.append("the top group holds several distinct programs")
    if len(groups) > 1 and confidence(ranking, ex)["base"] < close:
        second = sorted(int(c) for c in groups[1].candidates)
        if trial_passes(ex, second[0]) >= trial_passes(ex, top[0]):
            groups_in.append(second)
            reasons.append("the top two groups are close")
    if not reasons:
        return None
    mass: dict[str, int] = {}
    for g in groups_in:
        for c in g:
            mass[programs[c]] = mass.get(programs[c], 0) + 1
    ordered = sorted(mass, key=lambda p: -mass[p])[:max_programs]
    kept = set(ordered)
    groups_in = [[c for c in g if programs[c] in kept] for g in groups_in]
    if len(ordered) < 2:
        return None
    return Contest(groups_in, ordered, "; ".join(reasons))
