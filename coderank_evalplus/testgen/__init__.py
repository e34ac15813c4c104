"""Prompts and test extraction: the prompts a model gets for solutions and for tests, trial tests from the
docstring's examples (``prompts``), stop-sequence truncation, assert extraction and call parsing (``extract``).

Pure text functions over ``types``; modules here import nothing else of the package.
"""
