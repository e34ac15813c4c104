"""The rankers: one module per family, each registering its functions with ``@register_ranker("name")``.

A ranker is a function ``rank(ctx: RankContext) -> Ranking`` over one problem's execution matrices (plain data,
``context``); ``registry`` finds one by name (``get_ranker``), including the composed names ``filter+<name>`` and
``<feature>+<name>``; ``grouping`` holds the helpers every family uses to form and order groups. Modules here
import only ``types`` (and numpy/scipy); the registry imports the ranker modules on first lookup.
"""

from coderank_evalplus.rankers.context import RankContext, RankFn
from coderank_evalplus.rankers.registry import (
    alias_of,
    describe_ranker,
    get_ranker,
    is_log_score,
    list_rankers,
    rank_problem,
    register_ranker,
    split_selection,
    uses_prompt_examples,
    validate_methods,
)

__all__ = ["RankContext", "RankFn", "alias_of", "describe_ranker", "get_ranker", "is_log_score", "list_rankers",
           "rank_problem", "register_ranker", "split_selection", "uses_prompt_examples", "validate_methods"]
