"""The task class for the YAMLs' ``class: !function coderank_task.CodeRankTask``.

A module next to the YAMLs, because lm-eval before 0.4.12 resolves ``!function a.b`` only as the file ``a.py``
beside the YAML (from 0.4.12 on it also imports installed modules); every lm-eval 0.4.x finds this one.
"""

from coderank_evalplus.integrations.lm_eval import CodeRankTask

__all__ = ["CodeRankTask"]
