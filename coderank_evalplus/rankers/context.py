"""What a ranker sees (``RankContext``) and what it is (``RankFn``): plain data, no registry."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np

from coderank_evalplus.types import Executions, Problem, Ranking

RankFn = Callable[["RankContext"], Ranking]


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
