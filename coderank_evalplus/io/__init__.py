"""Everything read from or written to disk about a benchmark: datasets, sample files, results folders.

``problems`` loads the evalplus datasets (local overrides, ``--data-dir``, ``CODERANK_DATA``), your own problem files
(``--dataset PATH.jsonl``) and problems given only as a prompt; ``candidates`` reads one prompt's candidates
(``pick``); ``samples`` is the
one place that decides a samples file's format and hands it to that format's reader beside it (``evalplus_samples``,
``codet``, ``bigcode``, ``lm_eval_log``), all raising ``jsonl.SampleFileError`` with file and line; ``results_folder``
reads and writes the stored matrices of a run; ``eval_results`` reads evalplus's ``*_eval_results.json`` verdicts;
``progress`` is every stage's progress bar (tqdm's on a terminal, plain lines now and then in a log file).
Modules here may import ``types``, ``storage``, ``testgen`` (truncation, assert parsing), the engine's call shapes
(``engine.shapes``, ``engine.lcb``: ``problem_fields``) and each other; never the rankers, the selection, the
pipeline or anything above them.
"""
