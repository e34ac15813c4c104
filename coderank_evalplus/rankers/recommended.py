"""``recommended``: the method to pick when you do not know which to use — the default answer.

It is ``learned_examples`` followed by the model-free selection step (``learned_examples+select``): the ranker on
all the evidence a user has — the model's pool when there is one, the inputs grown from the prompt's examples, and
the examples themselves as trial tests — then, where its leading programs are in doubt, inputs grown for them to
set look-alikes apart (``selection/differential.py``). The model saw the examples in its prompt, so using them is
fair in the setting a user deploys; it is not CodeT's published setting, which removes them, so every result marks
``recommended`` with ``uses_prompt_examples: true``. To compare with published CodeT / SRank / B4 numbers use
``learned`` (the best ranker without the examples) or the ``*_reference`` methods. The pick without the step keeps
its ranker's name, ``learned_examples`` (what ``recommended`` was before the step joined it: results folders written
then read ``recommended`` so, ``report.scores.stored_method``). Both judged leave one family out on every real
folder: docs/methods.md, "The default pick" (``bench/recommended_loso.py``, ``bench/select_loso.py``).
"""

from __future__ import annotations

from coderank_evalplus.rankers.registry import RECOMMENDED, register_alias

RANKER = "learned_examples"  # the ranking the step reorders: the default pick without the step
TARGET = f"{RANKER}+select"
BEFORE_STEP = {RECOMMENDED: RANKER}  # what the alias meant in results folders written before the step joined it

register_alias(RECOMMENDED, TARGET, f"the project's default pick, for when you do not know which method to use "
                                      f"(now: {TARGET}, the selection step after {RANKER}; uses the prompt's "
                                      f"examples)")
