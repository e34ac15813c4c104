"""What a selection strategy is given and returns, and the registry of strategies.

A strategy refines one problem's ranking after the rankers ran: ``strategy(work, executions, ranking, env) ->
Selection``. It may run programs (only through ``env``: the sandboxed engine and the execution cache), never reads
a verdict, a hidden input or an expected output, and says why it changed the order (``SelectionEvidence``: the
deciding input, what each side returned there, the rule that decided) and what it cost (``SelectionCost``).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from coderank_evalplus.engine.execution import ProblemWork, ResultCache
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.types import Executions, Ranking


@dataclass(frozen=True)
class Side:
    """One side of a deciding input: its candidates (indices into the problem's samples) and what they returned
    there (``output``: in words, e.g. "returns 3", or the output digest when no words were asked for)."""

    label: str
    candidates: tuple[int, ...]
    output: str

    def to_json(self) -> dict:
        return {"label": self.label, "candidates": list(self.candidates), "output": self.output}


@dataclass(frozen=True)
class SelectionEvidence:
    """Why the order changed: on ``input`` (a call expression), the ``sides`` returned different things; ``rule``
    says which side was kept and why (e.g. "largest part: 7 of 9 candidates agree")."""

    input: str
    sides: tuple[Side, ...]
    rule: str

    def sentence(self) -> str:
        """``on add(-1, 2): group A returns 1, group B returns -3; A kept: 7 of 9 candidates agree``."""
        said = ", ".join(f"group {s.label} {s.output}" for s in self.sides)
        return f"on {self.input}: {said}; {self.rule}"

    def to_json(self) -> dict:
        return {"input": self.input, "sides": [s.to_json() for s in self.sides], "rule": self.rule}


@dataclass
class SelectionCost:
    """What a selection spent on one problem: distinct programs run, inputs grown and run, rounds, test items
    executed (cache misses), seconds, model calls (0 for a model-free strategy)."""

    programs: int = 0
    inputs: int = 0
    rounds: int = 0
    executed_items: int = 0
    seconds: float = 0.0
    model_calls: int = 0

    def add(self, other: "SelectionCost") -> None:
        for k in ("programs", "inputs", "rounds", "executed_items", "seconds", "model_calls"):
            setattr(self, k, getattr(self, k) + getattr(other, k))

    def to_json(self) -> dict:
        return {"programs": self.programs, "inputs": self.inputs, "rounds": self.rounds,
                "executed_items": self.executed_items, "seconds": round(self.seconds, 3),
                "model_calls": self.model_calls}


@dataclass
class Selection:
    """A strategy's answer for one problem: ``ranking`` (the new order; the one it was given when nothing
    changed), ``changed``, ``evidence`` (empty when nothing was learned), ``doubt`` (why the problem was looked at,
    "" when it was not in doubt) and ``cost``."""

    strategy: str
    ranking: Ranking
    changed: bool = False
    evidence: list[SelectionEvidence] = field(default_factory=list)
    doubt: str = ""
    cost: SelectionCost = field(default_factory=SelectionCost)

    def to_json(self) -> dict:
        return {"strategy": self.strategy, "changed": self.changed, "doubt": self.doubt,
                "evidence": [e.to_json() for e in self.evidence], "cost": self.cost.to_json()}


@dataclass
class SelectEnv:
    """Where a strategy runs programs: the execution cache, the sandbox's limits, the workers or executor; ``seed``
    seeds what it grows; ``progress``: show progress bars; ``explain``: probe the deciding input for each side's
    output in words (``pick``'s reasons), else the evidence names outputs by their digests."""

    cache: Optional[ResultCache] = None
    limits: Limits = field(default_factory=Limits)
    workers: Optional[int] = None
    executor: Any = None
    seed: int = 0
    progress: bool = False
    explain: bool = False  # say each side's output in words (one probe per side of the deciding input)


Strategy = Callable[[ProblemWork, Executions, Ranking, SelectEnv], Selection]

_STRATEGIES: dict[str, Strategy] = {}
_DESCRIPTIONS: dict[str, str] = {}
_MODULES = ("differential",)  # modules that register strategies, imported on first lookup


def register_strategy(name: str, description: str = "") -> Callable[[Strategy], Strategy]:
    """Decorator: ``strategy`` answers for the method suffix ``+name`` (e.g. ``recommended+select``)."""

    from coderank_evalplus.rankers.registry import SELECTION_STEPS

    if name not in SELECTION_STEPS:
        raise ValueError(f"selection strategy {name!r}: name it in rankers.registry.SELECTION_STEPS first")

    def wrap(fn: Strategy) -> Strategy:
        if name in _STRATEGIES and _STRATEGIES[name] is not fn:
            raise ValueError(f"selection strategy {name!r} is registered twice")
        _STRATEGIES[name] = fn
        _DESCRIPTIONS[name] = description or ((fn.__doc__ or "").strip().splitlines() or [""])[0]
        return fn

    return wrap


def _load() -> None:
    for module in _MODULES:
        importlib.import_module(f"coderank_evalplus.selection.{module}")


def get_strategy(name: str) -> Strategy:
    _load()
    if name not in _STRATEGIES:
        raise KeyError(f"unknown selection strategy {name!r} (known: {', '.join(sorted(_STRATEGIES))})")
    return _STRATEGIES[name]


def list_strategies() -> dict[str, str]:
    """Name → one-line description of every registered strategy."""
    _load()
    return dict(sorted(_DESCRIPTIONS.items()))
