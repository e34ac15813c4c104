"""Execution-based reranking of sampled code solutions, as a plugin for EvalPlus and lm-eval."""

__version__ = "0.1.0"
