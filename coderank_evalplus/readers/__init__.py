"""Readers for sample files written by other harnesses (the evalplus and CodeT readers live in ``artifacts``).

* :mod:`~coderank_evalplus.readers.bigcode`: bigcode-evaluation-harness ``generations_<task>.json``;
* :mod:`~coderank_evalplus.readers.lm_eval_log`: lm-evaluation-harness ``--log_samples`` files of this package's
  tasks.

``artifacts.read_solutions`` / ``artifacts.read_test_samples`` recognise each format by its content and call these.
"""
