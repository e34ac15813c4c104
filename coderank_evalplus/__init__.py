"""Execution-based reranking of sampled code solutions, as a plugin for EvalPlus and lm-eval.

From Python (``api``, re-exported here and imported on first use, so that ``import coderank_evalplus`` stays
cheap for the start-up hooks): ``rerank`` (a benchmark's samples, as ``coderank-evalplus rerank``), ``pick`` (the
candidate to keep for a prompt no benchmark has), ``Picker`` (the same, with workers kept for problem after
problem), ``RerankOptions`` (every option, checked), ``example_path`` (the bundled samples), and the errors
``CoderankError`` / ``InputNotFound``.

The package by concern: ``io`` (datasets, sample files, results folders), ``testgen`` (prompts, test extraction),
``engine`` (three packages: ``sandbox``, ``execution``, ``judging``), ``rankers``, ``selection`` (the per-problem
path, the steps after ranking), ``pipeline`` (a benchmark's rerank stage), ``api`` (the one path every entry point
takes, suites, and the library's functions), ``report`` (tables, leaderboard: reads results, runs nothing),
``generation`` (model backends), ``doce`` (self-debug), ``integrations`` (evalplus, lm-eval) and ``cli``.
Dependencies run down the layers (docs/contributing.md): cli → integrations, report, doce, study → api → pipeline
→ selection → engine, rankers, io, testgen, generation → types, storage, metrics, stats.
"""

__version__ = "0.2.0"
_API = ("rerank", "pick", "Picker", "Pick", "RerankOutput", "RerankOptions", "example_path", "CoderankError",
        "InputNotFound")
__all__ = [*_API, "__version__"]


def __getattr__(name: str):
    """The public API (``api``), imported when first asked for."""
    if name in _API:
        from coderank_evalplus import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API))
