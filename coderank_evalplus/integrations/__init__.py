"""The harnesses' front ends: ``evalplus`` adds ``--rerank`` (and its flags) to ``evalplus.evaluate``; ``lm_eval``
defines the lm-eval tasks (``{humaneval,mbpp}[_plus]_{codet,srank,mbr_exec}``) whose YAML files are in
``lm_eval_tasks/``; ``lm_eval_filter`` registers lm-eval's ``rerank`` filter, which those tasks and any other
code task's ``filter_list`` use. The start-up hooks (``_hook``, ``_lm_eval_hook``) import these only when the
harness loads.

May import the pipeline, report, doce, generation, io and the core types; nothing but the CLI and the hooks
imports them.
"""
