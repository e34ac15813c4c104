"""Selection after ranking: new evidence aimed at the programs still in contention (issue 54).

``base``: what every strategy returns (``Selection``: the new order and its evidence) and the registry of
strategies; ``differential``: the model-free strategy (inputs grown for the leading programs, kept where they
disagree, the leaders regrouped by what they return there); ``sstar``: model-assisted selection (S*).
"""

from coderank_evalplus.selection.base import (
    SelectEnv,
    Selection,
    SelectionCost,
    SelectionEvidence,
    Side,
    get_strategy,
    list_strategies,
    register_strategy,
)

__all__ = ["Selection", "SelectionCost", "SelectionEvidence", "SelectEnv", "Side", "get_strategy",
           "list_strategies", "register_strategy"]
