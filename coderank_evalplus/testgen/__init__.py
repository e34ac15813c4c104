"""Tests from text, one job a module: the prompts a model gets for solutions and for tests (``prompts``), a
prompt's examples stripped and read as trial tests (``prompt_examples``), a chat model's replies read back
(``replies``), stop-sequence truncation, assert extraction and call parsing (``extract``), inputs grown from the
examples (``mutate``, ``stdin_inputs``) and at the edges of their types (``edges``), input/output tests
(``io_tests``) and LeetCode-style prompts (``leetcode``).

Pure text functions over ``types``; a chat reply's code blocks and program are read by ``io.sanitize``.
"""
