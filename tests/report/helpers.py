"""Hand-made stored runs for report tests."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from coderank_evalplus.io.results_folder import StoredProblem, StoredRun
from coderank_evalplus.types import Executions, Problem
from tests.rankers.helpers import make_executions


def stored_problem(ex: Executions, correct: Sequence[bool], plus: Optional[Sequence[bool]] = None,
                   canonical_pass: Optional[Sequence[int]] = None, task_id: str = "T/0") -> StoredProblem:
    import dataclasses

    ex = dataclasses.replace(ex, task_id=task_id)
    problem = Problem(task_id=task_id, dataset="humaneval", prompt="def f(x):\n", entry_point="f")
    base = np.asarray([int(c) for c in correct], dtype=np.int8)
    pl = np.asarray([int(c) for c in plus], dtype=np.int8) if plus is not None else np.full(len(base), -1, np.int8)
    canonical = None
    if canonical_pass is not None:
        canonical = make_executions(passes=[list(canonical_pass)], codes=True)
    return StoredProblem(problem, ex, base, pl, canonical)


def stored_run(problems: list[StoredProblem], seed: int = 0) -> StoredRun:
    return StoredRun(Path("."), {"dataset": "humaneval", "config": {"seed": seed}}, problems)
