"""Choosing one candidate per problem after execution: the per-problem path and the steps after ranking.

``path``: the per-problem path (``ProblemPath``: execute → rank → steps after ranking → the pick and its confidence,
for a batch of problems; every entry point, ``pick``, the adaptive budget and self-debug go through it); ``base``: the
one protocol of a step after ranking (``Step``: a batch of ``StepItem`` in, a ``Selection`` each out: the new order, its
evidence and cost); ``contenders``: the one rule of who is in contention (``contenders_of``, on ``metrics.pick_pool``)
and the problems the model-free step looks at; ``differential`` (with ``search``): the model-free step
(``<method>+select``: inputs grown for the leading programs, kept where they disagree, the leaders regrouped by what
they return there); ``sstar``: model-assisted selection (S*, ``--select-model``). Steps are registered in
``rankers.registry.STEPS``.
"""

from coderank_evalplus.selection.base import (
    SelectEnv,
    Selection,
    SelectionCost,
    SelectionEvidence,
    Side,
    Step,
    StepItem,
)

__all__ = ["Selection", "SelectionCost", "SelectionEvidence", "SelectEnv", "Side", "Step", "StepItem"]
