"""evalplus's Python-level guard (``reliability_guard``, ``swallow_io``) as the sandbox uses it.

A worker that forks test children applies ``reliability_guard`` to itself once (``guard_worker``), so that each
child inherits it instead of paying for it; the worker's own chores lift it for a moment (``guard_lifted``) and its
own fork/kill/chdir use references taken at import. Candidates get a private copy of ``builtins``
(``candidate_builtins``). The kernel-level rules are in ``confine.py``.
"""

from __future__ import annotations

import builtins
import importlib.util
import os
import shutil
import sys
import types
from typing import Optional

_EVALPLUS_UTILS: list = []

# Our own references to what ``reliability_guard`` sets to None, taken at import: a worker that forks test
# children applies the guard to itself once (``guard_worker``) and must still fork, signal and chdir.
os_fork, os_kill, os_killpg, os_chdir = os.fork, os.kill, os.killpg, os.chdir


def evalplus_utils() -> types.ModuleType:
    """evalplus's ``evalplus/eval/utils.py`` (``reliability_guard``, ``swallow_io``, ``create_tempdir``).

    Imported normally when the ``evalplus.eval`` package is loaded already. Otherwise the file is loaded on its
    own: it needs only the standard library, whereas the package's ``__init__`` pulls in numpy and psutil.
    A worker that forks a child per program pays for every page of its own memory in each fork and exit
    (about 1.4 ms per program here, ~17 CPU-seconds over the CodeGen-16B benchmark), so it stays small."""
    loaded = sys.modules.get("evalplus.eval.utils")
    if loaded is not None:
        return loaded
    if not _EVALPLUS_UTILS:
        spec = importlib.util.find_spec("evalplus")
        path = os.path.join(os.path.dirname(spec.origin), "eval", "utils.py") if spec and spec.origin else ""
        if not os.path.isfile(path):
            import evalplus.eval.utils as mod  # an unusual layout: take the package route

            _EVALPLUS_UTILS.append(mod)
        else:
            file_spec = importlib.util.spec_from_file_location("coderank_evalplus._evalplus_eval_utils", path)
            assert file_spec is not None and file_spec.loader is not None  # a .py file that exists
            mod = importlib.util.module_from_spec(file_spec)
            file_spec.loader.exec_module(mod)
            _EVALPLUS_UTILS.append(mod)
    return _EVALPLUS_UTILS[0]


GUARDED_BUILTINS = ("open", "exit", "quit", "help")  # what reliability_guard sets to None in builtins
_BUILTINS_COPY: list = []


def candidate_builtins() -> types.ModuleType:
    """A private ``builtins`` module for the candidates of this process, made once (each child has its own
    copy-on-write view of it, so what one candidate changes no other sees)."""
    if not _BUILTINS_COPY:
        mod = types.ModuleType("builtins")
        mod.__dict__.update(builtins.__dict__)
        _BUILTINS_COPY.append(mod)
    return _BUILTINS_COPY[0]


def guard_worker(mem: Optional[int]) -> None:
    """Apply evalplus's ``reliability_guard`` to this worker itself, once, so that its children inherit it.

    Guarding each child cost ~1 ms of copy-on-write page faults (~12 CPU-seconds over the CodeGen-16B matrix);
    the guard is the same for every child, so it is applied where they are forked from. What the guard
    replaces is remembered, so that the worker's own chores can lift it for a moment (``guard_lifted``); the
    worker's own fork/kill/chdir use references taken at import."""
    import subprocess

    utils = evalplus_utils()
    watched = (os, shutil, subprocess, builtins)
    before = [dict(vars(mod)) for mod in watched]
    modules_before = dict(sys.modules)
    utils.reliability_guard(maximum_memory_bytes=mem)
    changed = []
    for mod, old in zip(watched, before):
        for name, value in old.items():
            if vars(mod).get(name, value) is not value:
                changed.append((mod, name, value))
    dropped = {k: modules_before[k] for k, v in sys.modules.items()
               if v is None and modules_before.get(k) is not None}
    _LIFT[:] = [changed, dropped, mem]
    own = candidate_builtins().__dict__  # the candidates' builtins lose what the guard took away, as in a child
    for name in GUARDED_BUILTINS:
        own[name] = builtins.__dict__.get(name)


# Set once the worker guarded itself: [(module, name, original value) the guard replaced, {module name: original}
# the guard set to None in sys.modules, memory cap of the guard]; its children skip a guard with the same cap.
_LIFT: list = []


class guard_lifted:
    """``with guard_lifted():`` the worker's guard is off inside (importing numpy needs ``os.putenv``, cleaning
    the temp dir ``os.unlink``); a no-op where the worker is not guarded. Never around a fork."""

    def __enter__(self) -> None:
        if _LIFT:
            changed, dropped, _ = _LIFT
            for mod, name, value in changed:
                setattr(mod, name, value)
            for name, module in dropped.items():
                sys.modules[name] = module

    def __exit__(self, *exc) -> None:
        if _LIFT:
            evalplus_utils().reliability_guard(maximum_memory_bytes=_LIFT[2])


def worker_guarded_with(mem: Optional[int]) -> bool:
    """Whether this process applied ``reliability_guard`` with cap ``mem`` to itself (its children need not)."""
    return bool(_LIFT) and _LIFT[2] == mem
