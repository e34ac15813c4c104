"""lm-eval's own code tasks' functions, for the ``*_rerank`` variants beside this file (``!function
lm_eval_code.<name>``, which every lm-eval 0.4.x resolves as this file beside the YAML).

The variants keep their task's metric: lm-eval's ``pass_at_k`` over Hugging Face's ``code_eval`` (it loads the metric
from the hub when first imported, and runs programs only with ``HF_ALLOW_CODE_EVAL=1``) and its prediction builders;
they are imported from lm-eval when a variant first calls them, never copied. Importing this file (lm-eval does
when it reads a variant's YAML) registers the ``rerank`` filter, so the variants work without the start-up hook.
"""

from __future__ import annotations

import coderank_evalplus.integrations.lm_eval_filter  # noqa: F401 - registers the rerank filter


def pass_at_k(references: list[str], predictions: list[list[str]], k: list[int] | int | None = None) -> dict:
    """lm-eval's humaneval ``pass_at_k``: ``code_eval``'s pass@k of each k the kept responses are enough for."""
    from lm_eval.tasks.humaneval.utils import pass_at_k as theirs

    return theirs(references, predictions, k)


def build_predictions(resps: list[list[str]], docs: list[dict]) -> list[list[str]]:
    """lm-eval's humaneval ``build_predictions``: the prompt followed by each completion."""
    from lm_eval.tasks.humaneval.utils import build_predictions as theirs

    return theirs(resps, docs)


def build_predictions_instruct(resps: list[list[str]], docs: list[dict]) -> list[list[str]]:
    """lm-eval's humaneval_instruct ``build_predictions_instruct``: the prompt and the reply up to its fence."""
    from lm_eval.tasks.humaneval.utils import build_predictions_instruct as theirs

    return theirs(resps, docs)


def list_fewshot_samples() -> list[dict]:
    """lm-eval's mbpp ``list_fewshot_samples``: the three worked examples its prompt opens with."""
    from lm_eval.tasks.mbpp.utils import list_fewshot_samples as theirs

    return theirs()
