"""What a step after ranking is given and returns: the one protocol every step implements (``Step``).

A step reorders rankings after the rankers ran, for a batch of problems at once: ``step.run(items, env) ->
[Selection]``, one ``StepItem`` (a problem's work, its executions, one method's ranking) in, one ``Selection`` out,
in order. Batched so that a model step sends its requests together and a model-free one can run one execution per
round for every problem. It may run programs (only through ``env``: the sandboxed engine and the execution cache),
never reads a verdict, a hidden input or an expected output, and says why it changed the order
(``SelectionEvidence``: the deciding input, what each side returned there, the rule that decided) and what it cost
(``SelectionCost``). Steps are registered by name in ``rankers.registry.STEPS`` (``register_step``); the
per-problem path (``selection.path``) runs them and computes the pick's confidence once, after the last.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Protocol, Sequence

from coderank_evalplus.engine.execution.execute import ProblemWork, ResultCache
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.types import Executions, Ranking


@dataclass(frozen=True)
class Side:
    """One side of a deciding input: its candidates (indices into the problem's samples) and what they did there
    (``output``: in words, e.g. "returns 3", "prints 6", "raises ValueError: …"; the output's digest, saying so,
    where the run that says it in words was lost)."""

    label: str
    candidates: tuple[int, ...]
    output: str

    def to_json(self) -> dict:
        return {"label": self.label, "candidates": list(self.candidates), "output": self.output}


@dataclass(frozen=True)
class SelectionEvidence:
    """Why the order changed: on ``input`` (a call expression), the ``sides`` did different things; ``rule`` says
    which side was kept and why (e.g. "A kept: 7 of 9 candidates agree")."""

    input: str
    sides: tuple[Side, ...]
    rule: str

    def sentence(self, names: Optional[Sequence[str]] = None) -> str:
        """``on add(-1, 2): group A returns 1, group B returns -3; A kept: 7 of 9 candidates agree``, and, given the
        candidates' ``names``, who is in each group (`` (A: a.py, b.py; B: c.py)``)."""
        said = ", ".join(f"group {s.label} {s.output}" for s in self.sides)
        if not names:
            return f"on {self.input}: {said}; {self.rule}"
        who = "; ".join(f"{s.label}: " + ", ".join(names[c] for c in s.candidates[:3])
                        + (f" and {len(s.candidates) - 3} more" if len(s.candidates) > 3 else "") for s in self.sides)
        return f"on {self.input}: {said}; {self.rule} ({who})"

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
    """A step's answer for one problem and method: ``strategy`` (the step's name), ``ranking`` (the new order; the
    one it was given when nothing changed), ``changed`` (the pick's pool changed), ``evidence`` (empty when nothing
    was learned), ``reason`` (why the problem was looked at, "" when it was not) and ``cost``."""

    strategy: str
    ranking: Ranking
    changed: bool = False
    evidence: list[SelectionEvidence] = field(default_factory=list)
    reason: str = ""
    cost: SelectionCost = field(default_factory=SelectionCost)

    def reasons(self, names: Optional[Sequence[str]] = None) -> list[str]:
        """The step's evidence in sentences (``pick``'s reasons); ``names``: the candidates' names."""
        return [f"selection ({self.reason}): {e.sentence(names)}" for e in self.evidence]

    def to_json(self) -> dict:
        return {"strategy": self.strategy, "changed": self.changed, "reason": self.reason,
                "evidence": [e.to_json() for e in self.evidence], "cost": self.cost.to_json()}


@dataclass
class SelectEnv:
    """Where a step runs programs: the execution cache, the sandbox's limits, the workers or executor; ``seed``
    seeds what it grows; ``progress``: show progress bars."""

    cache: Optional[ResultCache] = None
    limits: Limits = field(default_factory=Limits)
    workers: Optional[int] = None
    executor: Any = None
    seed: int = 0
    progress: bool = False


@dataclass
class StepItem:
    """One problem's ranking by one method, as a step is given it: the problem's work (problem, programs, suite),
    the candidates' executions on it, the ranking, the method's name."""

    work: ProblemWork
    executions: Executions
    ranking: Ranking
    method: str


class Step(Protocol):
    """A step after ranking. ``name``: its name in ``rankers.registry.STEPS`` (set by ``register_step``);
    ``phase``: the timing block's phase its seconds go to. ``run`` answers every item of a batch (problems and
    methods mixed), in order. ``report`` sums up its answers over a run, ``done`` keyed by (task id, method):
    (keys for the timing block, keys for ``rerank_results.json``)."""

    name: str
    phase: str

    def run(self, items: Sequence[StepItem], env: SelectEnv) -> list[Selection]: ...

    def report(self, done: Mapping[tuple[str, str], Selection]) -> tuple[dict[str, Any], dict[str, Any]]: ...
