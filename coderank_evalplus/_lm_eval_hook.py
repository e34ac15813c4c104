"""Start-up hook for lm-evaluation-harness: lm-eval finds this package's tasks with no ``--include_path``.

``install_lm_eval_hook()`` is called at interpreter start (from the ``.pth`` hook). It is cheap: it imports nothing
from lm-eval and puts one finder at the front of ``sys.meta_path`` that answers only for ``lm_eval.tasks.manager``
and ``lm_eval.tasks`` (where ``TaskManager`` is defined before lm-eval 0.4.12; for every other import it returns
None at once). When lm-eval imports them, the finder hands back the real spec with a loader that, after running the
module, wraps ``TaskManager.__init__`` so that the folder of our task
YAMLs (``coderank_evalplus/lm_eval_tasks``) is scanned after lm-eval's own tasks and before any user
``include_path`` (a user's task of the same name still wins), and registers the ``rerank`` filter
(``integrations/lm_eval_filter.py``) that any task's ``filter_list`` may then name. ``lm-eval ls tasks``,
``lm_eval run --tasks humaneval_codet`` and ``lm_eval.simple_evaluate`` all build a ``TaskManager``, so all of them
see the tasks.

An lm-eval older than the tasks need (``integrations.versions.LM_EVAL_MIN``) is left alone, with one line on stderr
naming the version needed. Set ``CODERANK_LM_EVAL_HOOK=0`` to turn it off.
"""

from __future__ import annotations

import os
import sys
from contextvars import ContextVar
from typing import Optional

# the metadata (--metadata, model args) of the TaskManager now loading tasks: lm-eval 0.4.9–0.4.11 merge it into
# YAML tasks' configs but not into those of a ``class:`` task like ours, which then reads it from here
LOADING_METADATA: ContextVar[Optional[dict]] = ContextVar("coderank_lm_eval_metadata", default=None)

TARGET = "lm_eval.tasks.manager"  # lm-eval >= 0.4.12
TARGETS = (TARGET, "lm_eval.tasks")  # before 0.4.12 TaskManager is defined in lm_eval/tasks/__init__.py
_MARK = "__coderank_patched__"


def tasks_dir() -> str:
    """Folder of the task YAMLs shipped inside the package."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "lm_eval_tasks")


def _with_our_tasks(include_path):
    ours = tasks_dir()
    if include_path is None:
        paths = []
    elif isinstance(include_path, (list, tuple)):
        paths = list(include_path)
    else:
        paths = [include_path]
    real = {os.path.realpath(os.fspath(p)) for p in paths}
    if os.path.realpath(ours) in real or not os.path.isdir(ours):
        return include_path
    return [ours, *paths]


def patch_task_manager(module) -> None:
    """Wrap ``module.TaskManager.__init__`` (idempotent)."""
    import functools
    import inspect

    cls = getattr(module, "TaskManager", None)
    if cls is None or getattr(cls.__init__, _MARK, False):
        return
    if _refuse_old_lm_eval(cls):
        return
    original = cls.__init__
    signature = inspect.signature(original)
    if "include_path" not in signature.parameters:
        return  # an lm-eval whose TaskManager we do not know: leave it alone

    @functools.wraps(original)
    def __init__(self, *args, **kwargs):
        try:
            bound = signature.bind(self, *args, **kwargs)
            if bound.arguments.get("include_defaults", True) is not False:
                bound.arguments["include_path"] = _with_our_tasks(bound.arguments.get("include_path"))
            args, kwargs = bound.args[1:], bound.kwargs
        except Exception:  # noqa: BLE001 - let lm-eval report its own argument errors
            pass
        original(self, *args, **kwargs)

    setattr(__init__, _MARK, True)
    cls.__init__ = __init__
    if _passes_no_metadata_to_class_tasks():
        _relay_metadata(cls)
    register_rerank_filter()


def register_rerank_filter() -> bool:
    """Put the ``rerank`` filter in lm-eval's filter registry (importing its module registers it), so that any
    task's ``filter_list`` may name it; False, and lm-eval untouched, where that import fails."""
    try:
        import coderank_evalplus.integrations.lm_eval_filter  # noqa: F401 - registers on import
    except Exception:  # noqa: BLE001 - never break lm-eval
        return False
    return True


def _passes_no_metadata_to_class_tasks() -> bool:
    """lm-eval before 0.4.12 gives ``--metadata`` to YAML tasks only, not to ``class:`` tasks."""
    from coderank_evalplus.integrations.versions import installed_version, parse_version

    version = installed_version("lm-eval")
    try:
        return version is not None and parse_version(version) < (0, 4, 12)
    except ValueError:
        return False


def _relay_metadata(cls) -> None:
    """While ``cls.load_task_or_group`` runs, ``LOADING_METADATA`` holds the manager's metadata."""
    import functools

    load = getattr(cls, "load_task_or_group", None)
    if load is None:
        return

    @functools.wraps(load)
    def load_task_or_group(self, *args, **kwargs):
        token = LOADING_METADATA.set(getattr(self, "metadata", None))
        try:
            return load(self, *args, **kwargs)
        finally:
            LOADING_METADATA.reset(token)

    cls.load_task_or_group = load_task_or_group


def manager_metadata() -> dict:
    """The metadata of the TaskManager loading tasks now (lm-eval < 0.4.12; else empty: lm-eval passes it itself)."""
    meta = LOADING_METADATA.get()
    return dict(meta) if isinstance(meta, dict) else {}


def _refuse_old_lm_eval(cls) -> bool:
    """True (after one line on stderr) when the installed lm-eval is older than our tasks need."""
    from coderank_evalplus.integrations.versions import lm_eval_too_old

    message = lm_eval_too_old()
    if not message:
        return False
    if not getattr(cls, "__coderank_refused__", False):
        sys.stderr.write(f"{message} (the coderank tasks are not added to lm-eval)\n")
        cls.__coderank_refused__ = True
    return True


class _PatchingLoader:
    """Runs the real loader, then patches the module; everything else is the real loader's."""

    def __init__(self, loader) -> None:
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        try:
            patch_task_manager(module)
        except Exception:  # noqa: BLE001 - never break lm-eval
            pass

    def __getattr__(self, name):
        return getattr(self._loader, name)


class LmEvalFinder:
    """Meta-path finder that acts only for ``lm_eval.tasks.manager`` and ``lm_eval.tasks``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in TARGETS:
            return None
        for other in sys.meta_path:
            if (other is self or isinstance(other, LmEvalFinder) or type(other).__name__ == "CoderankEvalplusFinder"
                    or not hasattr(other, "find_spec")):
                continue
            spec = other.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    proxy = _PatchingLoader(spec.loader)
                    spec.loader = proxy  # type: ignore[assignment]  # duck-typed; typeshed wants an abc.Loader
                return spec
        return None

    def invalidate_caches(self) -> None:
        pass


def find_manager_spec(fullname, path=None, target=None):
    """Called by the start-up hook's finder when ``lm_eval.tasks(.manager)`` is imported: the patched spec."""
    if os.environ.get("CODERANK_LM_EVAL_HOOK", "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    try:
        return LmEvalFinder().find_spec(fullname, path, target)
    except Exception:  # noqa: BLE001 - never break lm-eval
        return None


def install_lm_eval_hook() -> None:
    """Make lm-eval see our tasks: patch now if lm-eval is already imported, else when it is."""
    if os.environ.get("CODERANK_LM_EVAL_HOOK", "1").strip().lower() in ("0", "false", "no", "off"):
        return
    loaded = [sys.modules[name] for name in TARGETS if name in sys.modules]
    for module in loaded:
        patch_task_manager(module)
    if loaded:
        return
    if not any(isinstance(f, LmEvalFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, LmEvalFinder())
