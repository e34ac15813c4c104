"""Which candidates are in contention for a problem's pick (one rule, every step), and which problems the model-free
step looks at.

In contention (``contenders_of``): the pick's pool (``metrics.pick_pool``: the ranking's top group, else its fallback
pool, else every candidate) and the group ranked after it, when the pool is a group of the ranking and one follows.
S* compares the pick with its rival among them; the model-free step takes them in as its rule says
(``contenders_to_split``).

A problem is in doubt for the model-free step when the leading programs may still be told apart by new inputs:

- the pool holds two or more distinct programs (they behave alike on every input of the tests, but they are not
  the same code: a right and a wrong program can hide there; texts that differ only in comments, layout and
  docstrings are one program, ``program_key``, and run once), or
- the pool and the group after it are close: the confidence model (``rankers.confidence``, the number the pick
  reports) gives the pick less than ``CLOSE_CONFIDENCE`` on base tests, and that group passes as many of the
  prompt's examples as the pool (a group that fails an example the pick passes is not its rival).

Its contenders are the pool's candidates, with the next group's when they are close; at most ``MAX_PROGRAMS``
distinct programs run (the most sampled first; each as the text most sampled among its copies): a bound on the
cost, fixed before any evaluation.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field
from typing import Optional, Sequence

from coderank_evalplus.metrics import merged_groups, pick_pool
from coderank_evalplus.rankers.confidence import confidence
from coderank_evalplus.testgen.prompt_examples import tree_without_docs
from coderank_evalplus.types import PASS, Executions, Ranking

CLOSE_CONFIDENCE = 0.5  # the pick is more likely wrong than right: a priori, not fitted
MAX_PROGRAMS = 16  # distinct programs run per problem (the most sampled first)


@dataclass
class Contenders:
    """Candidates in contention for one problem's pick: ``groups[0]`` the pick's pool, ``groups[1]`` (when there)
    the group ranked after it. A step that narrows it says why (``reason``), which distinct programs run
    (``programs``, most sampled first) and which of them runs for each contender (``runs_as``)."""

    groups: list[list[int]]
    reason: str = ""
    programs: list[str] = field(default_factory=list)
    runs_as: dict[int, str] = field(default_factory=dict)  # contender → the text of ``programs`` that runs for it

    @property
    def pool(self) -> list[int]:
        return self.groups[0]

    @property
    def runner_up(self) -> list[int]:
        return self.groups[1] if len(self.groups) > 1 else []

    @property
    def candidates(self) -> list[int]:
        return sorted({c for g in self.groups for c in g})


def contenders_of(ranking: Ranking, n_candidates: int) -> Contenders:
    """The candidates in contention (the module's rule): the pick's pool, and the next group of the ranking when
    the pool is its top group."""
    pool = pick_pool(ranking, n_candidates)
    groups = merged_groups(ranking)
    runner_up = [sorted(int(c) for c in groups[1].candidates)] if groups and len(groups) > 1 else []
    return Contenders([pool, *runner_up])


def trial_passes(ex: Executions, candidate: int) -> int:
    """How many of the prompt's examples (trial tests) a candidate passes."""
    row = int(ex.program_of_candidate[candidate])
    return int((ex.trial_matrix[row] == PASS).sum()) if ex.trial_matrix.ndim == 2 else 0


def contenders_to_split(ranking: Ranking, ex: Executions, programs: Sequence[str], close: float = CLOSE_CONFIDENCE,
             max_programs: int = MAX_PROGRAMS) -> Optional[Contenders]:
    """The model-free step's contenders of a problem in doubt (see the module's doc), or None when its leading
    programs are not in doubt."""
    contenders = contenders_of(ranking, ex.n_candidates)
    pool, runner_up = contenders.pool, contenders.runner_up
    keys = {t: program_key(t) for t in {programs[c] for g in contenders.groups for c in g}}  # each text parsed once
    key = {c: keys[programs[c]] for g in contenders.groups for c in g}
    groups_in = [pool]
    reasons = []
    if len({key[c] for c in pool}) >= 2:
        reasons.append("the top group holds several distinct programs")
    if runner_up and confidence(ranking, ex)["base"] < close and trial_passes(ex, runner_up[0]) >= trial_passes(
            ex, pool[0]):
        groups_in.append(runner_up)
        reasons.append("the top two groups are close")
    if not reasons:
        return None
    mass: dict[str, int] = {}
    copies: dict[str, dict[str, int]] = {}
    for g in groups_in:
        for c in g:
            mass[key[c]] = mass.get(key[c], 0) + 1
            texts = copies.setdefault(key[c], {})
            texts[programs[c]] = texts.get(programs[c], 0) + 1
    ordered = sorted(mass, key=lambda k: -mass[k])[:max_programs]
    if len(ordered) < 2:
        return None
    runs = {k: max(copies[k], key=lambda t: copies[k][t]) for k in ordered}  # the most sampled text (first on a tie)
    kept = [[c for c in g if key[c] in runs] for g in groups_in]
    return Contenders(kept, "; ".join(reasons), [runs[k] for k in ordered], {c: runs[key[c]] for g in kept for c in g})


@functools.lru_cache(maxsize=8192)  # a report asks again for every sub-sample that holds the text
def program_key(text: str) -> str:
    """What makes two program texts one program: their syntax tree without docstrings (so comments and layout do
    not count either); the text itself when it does not parse."""
    tree = tree_without_docs(text)
    if tree is None:
        return text
    try:
        return ast.dump(tree)
    except RecursionError:
        return text
