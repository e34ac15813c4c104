"""Ranker registry: ``@register_ranker("name")`` adds a ranker; ``get_ranker(name)`` finds one.

A ranker is a function ``rank(ctx: RankContext) -> Ranking``. It sees only plain data (the execution
matrices of one problem) and returns groups of candidate indices, best first. Candidates it does not
put in any group are unranked. Names of the form ``filter+<name>`` apply DOCE trial-test filtering first.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np

from coderank_evalplus.types import Executions, Problem, Ranking

RankFn = Callable[["RankContext"], Ranking]

_REGISTRY: dict[str, RankFn] = {}
_DESCRIPTIONS: dict[str, str] = {}
# Modules that hold rankers; imported on first lookup so that `import coderank_evalplus` stays cheap.
_RANKER_MODULES = ("baselines", "pass_count", "codet", "codet_iter", "srank", "mbr", "filtering")


@dataclass
class RankContext:
    """Everything a ranker may look at for one problem."""

    problem: Problem
    executions: Executions
    seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    # Optional: output digests of each unique program on the benchmark's own (hidden) inputs,
    # (output_matrix, output_kind) with the row layout of `executions`; only mbr_exec's hidden-input mode uses it.
    benchmark_outputs: Optional[tuple[np.ndarray, np.ndarray]] = None


def register_ranker(name: str, description: str = "") -> Callable[[RankFn], RankFn]:
    """Decorator that registers a ranker under ``name``."""

    def wrap(fn: RankFn) -> RankFn:
        if name in _REGISTRY and _REGISTRY[name] is not fn:
            raise ValueError(f"ranker {name!r} is registered twice")
        _REGISTRY[name] = fn
        _DESCRIPTIONS[name] = description or ((fn.__doc__ or "").strip().splitlines() or [""])[0]
        return fn

    return wrap


def _load_all() -> None:
    for module in _RANKER_MODULES:
        try:
            importlib.import_module(f"coderank_evalplus.rankers.{module}")
        except ModuleNotFoundError as exc:  # a ranker module not written yet must not break the others
            if exc.name != f"coderank_evalplus.rankers.{module}":
                raise


def list_rankers() -> list[str]:
    """Names of all registered rankers (without the ``filter+`` variants)."""
    _load_all()
    return sorted(_REGISTRY)


def describe_ranker(name: str) -> str:
    _load_all()
    return _DESCRIPTIONS.get(name, "")


def get_ranker(name: str) -> RankFn:
    """The ranker registered as ``name``; ``filter+X`` wraps ranker X with trial-test filtering."""
    _load_all()
    if name.startswith("filter+"):
        inner = get_ranker(name[len("filter+"):])
        from coderank_evalplus.rankers.filtering import with_trial_filter

        return with_trial_filter(inner)
    if name not in _REGISTRY:
        raise KeyError(f"unknown ranking method {name!r}; available: {', '.join(list_rankers())} "
                       f"(each also as filter+<name>)")
    return _REGISTRY[name]


def validate_methods(names: list[str]) -> list[str]:
    """Check every method name; raise ValueError listing the available ones if any is unknown."""
    bad = []
    for n in names:
        try:
            get_ranker(n)
        except KeyError:
            bad.append(n)
    if bad:
        raise ValueError(f"unknown ranking method(s): {', '.join(bad)}. Available: {', '.join(list_rankers())} "
                         f"(each also as filter+<name>)")
    return names
