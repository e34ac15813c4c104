"""The leaderboard's data: its entries, its settings and the computed ``Leaderboard`` the writers, figures and page
read (plain dataclasses, no computation)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

from coderank_evalplus.io.results_folder import pool_of
from coderank_evalplus.rankers.registry import DEFAULT_METHODS
from coderank_evalplus.report.curves import DEFAULT_DRAWS
from coderank_evalplus.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

DEFAULT_COMPARE_TO = ("random", "codet")


@dataclass
class Entry:
    """One leaderboard row: a model's results folder, and which test pool it was reranked with. Rows of the same
    dataset and ``pool`` are compared as models (``pool`` defaults to ``io.results_folder.pool_of(tests_label)``)."""

    name: str
    folder: Path
    tests_label: str = ""
    pool: str = ""

    def __post_init__(self) -> None:
        self.pool = self.pool or pool_of(self.tests_label)


@dataclass
class LeaderboardConfig:
    methods: Sequence[str] = DEFAULT_METHODS
    compare_to: Sequence[str] = DEFAULT_COMPARE_TO
    n_resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    draws: int = DEFAULT_DRAWS
    curves: bool = True
    workers: Optional[int] = None
    progress: bool = True
    cache_dir: Optional[Path] = None  # budget curves are kept here, keyed by the folder's content and the settings
    subset_steps: Any = None  # report.curves.SubsetSteps: a stepped method's step on sub-samples (the CLI runs it)


@dataclass
class Leaderboard:
    """Everything the writers and the page need."""

    config: dict
    rows: list[dict] = field(default_factory=list)
    curves: list[dict] = field(default_factory=list)
    quality: list[dict] = field(default_factory=list)
    models: list[dict] = field(default_factory=list)  # model comparisons per (dataset, pool, split, method, budget)
    models_summary: list[dict] = field(default_factory=list)  # each model's pass@1 per benchmark and method
    same_names: list[dict] = field(default_factory=list)  # runs that shared a name and how they were told apart
    timing: dict = field(default_factory=dict)
