"""Execution-based reranking of sampled code solutions, as a plugin for EvalPlus and lm-eval.

From Python (``api``, re-exported here and imported on first use, so that ``import coderank_evalplus`` stays
cheap for the start-up hooks): ``rerank`` (a benchmark's samples, as ``coderank-evalplus rerank``), ``pick`` (the
candidate to keep for a prompt no benchmark has), ``Picker`` (the same, with workers kept for problem after problem).

The package by concern: ``io`` (datasets, sample files, results folders), ``testgen`` (prompts, test extraction),
``engine`` (sandbox, workers, executors, cache, execution, judge), ``rankers``, ``pipeline`` (the rerank stage),
``report`` (tables, leaderboard, suites), ``generation`` (model backends), ``doce`` (self-debug),
``integrations`` (evalplus, lm-eval) and ``cli``. Dependencies run one way:
cli → api, integrations, report, doce → pipeline → engine, rankers, io, testgen → types, storage.

Module paths of the flat layout before 0.2 (``coderank_evalplus.judge``, ``.artifacts``, ``.sandbox.child``…)
still import, as aliases of their new modules, with a DeprecationWarning; they go in the next release.
"""

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

__version__ = "0.1.0"
__all__ = ["rerank", "pick", "Picker", "Pick", "RerankOutput", "__version__"]
_API = frozenset(__all__) - {"__version__"}


def __getattr__(name: str):
    """The public API (``api``), imported when first asked for."""
    if name in _API:
        from coderank_evalplus import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _API)

# old module path (under coderank_evalplus.) -> new one; a package maps its submodules too
_MOVED = {
    "artifacts": "io.samples", "readers": "io", "results_folder": "io.results_folder",
    "eval_results": "io.eval_results", "problems": "io.problems", "cache": "engine.cache",
    "canonical": "engine.canonical", "outcomes": "engine.outcomes", "execution": "engine.execution",
    "executors": "engine.executors", "executors_ray": "engine.ray_executor", "judge": "engine.judge",
    "workers": "engine.workers", "sandbox": "engine.sandbox", "prompts": "testgen.prompts",
    "extract": "testgen.extract", "selfdebug": "doce.selfdebug", "feedback": "doce.feedback",
    "suite": "report.suite", "cli_options": "cli.options", "generation_cli": "cli.run",
    "leaderboard_cli": "cli.leaderboard",
}


class _MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers only for the old paths in ``_MOVED``: a small module under the old name whose attributes are
    looked up on the moved module (which keeps its own name)."""

    def find_spec(self, name, path=None, target=None):
        prefix, _, rest = name.partition(".")
        if prefix != __name__ or rest.partition(".")[0] not in _MOVED:
            return None
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec):
        return None  # the default module

    def exec_module(self, module):
        head, _, tail = module.__name__.split(".", 1)[1].partition(".")
        new = importlib.import_module(f"{__name__}.{_MOVED[head]}" + (f".{tail}" if tail else ""))
        warnings.warn(f"{module.__name__} moved to {new.__name__}; the old path goes in the next release",
                      DeprecationWarning, stacklevel=2)
        module.__getattr__ = lambda attr: getattr(new, attr)
        module.__doc__ = new.__doc__
        if hasattr(new, "__path__"):
            module.__path__ = []  # a package: its old submodule paths resolve through this finder too


if not any(isinstance(f, _MovedModuleFinder) for f in sys.meta_path):
    sys.meta_path.append(_MovedModuleFinder())
