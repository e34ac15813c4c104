"""Inputs that tell the contenders apart: grown from the prompt's examples, kept where the contenders disagree.

Round 1 grows ``STEP`` inputs from the examples' arguments by evalplus's type-aware mutation
(``testgen.mutate.mutate_inputs``, a seed of its own, so other inputs than the pool's); the contenders run on them
(the sandboxed engine, through the execution cache). An input is valid when more than ``VALID_SHARE`` of the
contenders returned on it (``testgen.mutate``'s rule); it separates when the contenders' outputs on it differ. The
search goes on while nothing separates, up to ``MAX_ROUNDS`` rounds; once inputs separate, one more round of
``STEP`` inputs is grown from the separating inputs alone (the differential step: mutations of an input where the
programs differ are where they differ most often) and the search ends. Cost: at most contenders ×
``STEP`` × (``MAX_ROUNDS`` + 1) test items, fewer when the cache has them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

from coderank_evalplus.engine.execution.execute import ExecutionStats, ProblemWork, execute
from coderank_evalplus.selection.base import SelectEnv, SelectionCost
from coderank_evalplus.testgen.mutate import VALID_SHARE, call_text, mutate_inputs, seeds_of
from coderank_evalplus.types import RETURNED, Executions, Problem, TestSuite

STEP = 10  # inputs grown per round (as bench/split_top.py's prototype)
MAX_ROUNDS = 4  # rounds while nothing separates (the prototype's 50 inputs at most = 4 rounds + the focus round)


@dataclass
class Search:
    """What the search found: ``ex`` the contenders' executions on every input grown (``calls``), ``valid`` and
    ``separating`` column masks, and what it cost."""

    calls: list[str] = field(default_factory=list)
    ex: Executions | None = None
    valid: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    separating: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    cost: SelectionCost = field(default_factory=SelectionCost)


def column_masks(ex: Executions) -> tuple[np.ndarray, np.ndarray]:
    """Per input: valid (more than VALID_SHARE of the programs returned) and separating (valid, and the programs'
    outputs differ: another value, or a value beside an exception)."""
    kinds = np.asarray(ex.output_kind)
    if kinds.size == 0:
        return np.zeros(kinds.shape[1] if kinds.ndim == 2 else 0, dtype=bool), np.zeros(0, dtype=bool)
    valid = (kinds == RETURNED).mean(axis=0) > VALID_SHARE
    out = np.asarray(ex.output_matrix)
    differs = ((out != out[0]) | (kinds != kinds[0])).any(axis=0)
    return valid, valid & differs


def _joined(before: Executions, ran: Executions) -> Executions:
    """``before`` with the inputs of ``ran`` (the same programs, in the same rows) appended as columns."""
    suite = TestSuite(inputs=before.suite.inputs + ran.suite.inputs)
    return replace(before, output_matrix=np.hstack([before.output_matrix, ran.output_matrix]),
                   output_kind=np.hstack([before.output_kind, ran.output_kind]), suite=suite)


def _grow(problem: Problem, pool: list[list], n: int, salt: str, seen: set[str]) -> list[tuple[str, list]]:
    args = mutate_inputs(pool, n + len(seen), problem.callee, salt, problem.shape)
    out = []
    for a in args:
        call = call_text(problem.callee, a)
        if call is not None and call not in seen:
            seen.add(call)
            out.append((call, a))
            if len(out) >= n:
                break
    return out


def search(problem: Problem, programs: list[str], env: SelectEnv, step: int = STEP,
           max_rounds: int = MAX_ROUNDS) -> Search:
    """Grow inputs for ``programs`` (distinct texts) and run them (see the module's doc)."""
    t0 = time.monotonic()
    found = Search()
    seeds = seeds_of(problem)
    if not seeds or len(programs) < 2:
        return found
    seen = {c for c in (call_text(problem.callee, s) for s in seeds) if c is not None}
    args_of: dict[str, list] = {}
    stats = ExecutionStats()
    focused = False
    for rnd in range(max_rounds + 1):
        separating = [c for c, s in zip(found.calls, found.separating) if s]
        if separating:
            pool, focused = [args_of[c] for c in separating], True
        elif rnd == max_rounds:
            break
        else:
            pool = seeds + [args_of[c] for c in found.calls]
        new = _grow(problem, pool, step, f"select:{env.seed}:{problem.task_id}:{rnd}", seen)
        if not new:
            break
        for call, a in new:
            args_of[call] = a
            found.calls.append(call)
        found.cost.rounds += 1
        ran = execute([ProblemWork(problem, programs, TestSuite(inputs=[c for c, _ in new]))], env.cache,
                      env.limits, env.workers, progress=False, stats=stats, executor=env.executor)[problem.task_id]
        found.ex = ran if found.ex is None else _joined(found.ex, ran)
        found.valid, found.separating = column_masks(found.ex)
        if focused:
            break
    found.cost.programs = len(programs)
    found.cost.inputs = len(found.calls)
    found.cost.executed_items = stats.executed_pairs
    found.cost.seconds = time.monotonic() - t0
    return found
