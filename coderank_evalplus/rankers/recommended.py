"""``recommended``: the alias to pick when you do not know which ranker to use — the default answer.

It points at ``learned_examples`` (issue 40): the ranker on all the evidence a user has — the model's pool when
there is one, the inputs grown from the prompt's examples, and the examples themselves as trial tests. The model saw
those examples in its prompt, so using them is fair in the setting a user deploys; it is not CodeT's published
setting, which removes them, so every result marks ``recommended`` with ``uses_prompt_examples: true``. To compare
with published CodeT / SRank / B4 numbers use ``learned`` (the best ranker without the examples) or the
``*_reference`` methods. Problems whose prompt shows no example get constant trial features, so the agreement
features decide there. Judged leave one set out on every real folder (56 folders, 7 model families; each scored by
weights that never saw its family), its mean over families is 76.22 base / 67.16 plus against 76.08 / 67.04 for
the best fixed composition (``filter+overlap_agreement``) and 71.51 / 63.21 for ``learned`` (docs/methods.md,
"The default pick"; ``bench/recommended_loso.py``).
"""

from __future__ import annotations

from coderank_evalplus.rankers.context import RankContext
from coderank_evalplus.rankers.registry import get_ranker, register_ranker, uses_prompt_examples
from coderank_evalplus.types import Ranking

TARGET = "learned_examples"


@register_ranker("recommended", f"the project's default pick, for when you do not know which ranker to use "
                                f"(now: {TARGET}; uses the prompt's examples)",
                 uses_examples=uses_prompt_examples(TARGET))
def rank_recommended(ctx: RankContext) -> Ranking:
    """The ranking of ``TARGET``, with ``info['alias_of']`` naming it."""
    ranking = get_ranker(TARGET)(ctx)
    ranking.info["alias_of"] = TARGET
    ranking.info["method"] = "recommended"
    return ranking
