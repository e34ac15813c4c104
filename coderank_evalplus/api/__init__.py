"""The Python API: the functions a notebook or a program calls; the CLI and the harness front ends call them too.

- ``rerank(solutions, tests, dataset=..., **options)``: a benchmark's samples reranked as ``coderank-evalplus
  rerank`` does (same options, names and defaults: ``options``), returned as ``RerankOutput`` (``output``):
  pass@k with bootstrap intervals, each problem's pick and its confidence, ``uses_prompt_examples``, provenance,
  timing; ``.write(folder)`` writes the results folder. Every entry point reaches the same path,
  ``evaluate.run_rerank(RerankOptions)``.
- ``pick(prompt, candidates)`` / ``Picker()`` (``picking``): the program to keep for a problem no benchmark has:
  its examples test the candidates in the sandbox, ``recommended`` ranks them, the confidence model says how
  likely the pick is right, and the reasons say why the others lost. Nothing is judged.
- Errors: ``CoderankError`` (a ``ValueError``) for bad input or usage, naming the option, file, line or task;
  ``InputNotFound`` (also a ``FileNotFoundError``) for a file or dataset that is not there. Messages go through
  ``logging`` (logger ``coderank_evalplus``), never straight to stderr.
- ``example_path(name)``: the sample files bundled with the package (``example_path("solutions")``), so the
  examples in the README run from any folder.

Submodules are imported on first use: ``import coderank_evalplus`` stays cheap for the start-up hooks.
"""

from __future__ import annotations

import importlib

_WHERE = {
    "rerank": "evaluate", "run_rerank": "evaluate", "RerankOutput": "output", "ProblemPick": "output",
    "RerankOptions": "options", "OptionError": "options", "pick": "picking", "Picker": "picking",
    "Pick": "picking", "Evidence": "picking", "NoCandidate": "picking", "example_path": "examples",
}
_TYPES = {"CoderankError", "InputNotFound"}
__all__ = sorted([*_WHERE, *_TYPES])


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    if name in _TYPES:
        from coderank_evalplus import types

        return getattr(types, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
