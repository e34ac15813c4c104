"""What a rerank returns: ``RerankOutput`` (pass@k with intervals, each problem's pick and confidence, the
results folder) and ``ProblemPick``."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import numpy as np

from coderank_evalplus.rankers.registry import RECOMMENDED
from coderank_evalplus.types import CoderankError, RerankResult

SPLITS = ("base", "plus")


@dataclass
class ProblemPick:
    """One problem's pick by one method: the candidate pass@1 takes (the lowest index of its pick pool,
    ``metrics.pick_pool``: the ranker cannot tell the pool's members apart), the pool, and the confidence (per
    split) that it passes."""

    task_id: str
    index: int
    group: list[int]
    confidence: dict[str, float]


@dataclass
class RerankOutput:
    """What ``rerank`` returns. ``result`` is the pipeline's record (``types.RerankResult``), ``folder`` the results
    folder written (None when nothing was written). Values in percent, rounded to two decimals."""

    result: RerankResult
    folder: Optional[Path] = None

    @property
    def methods(self) -> list[str]:
        """The methods reported, baselines (``random``, ``oracle``) included."""
        return list(self.result.methods)

    @property
    def ks(self) -> list[int]:
        """The k's pass@k is reported for (each ≤ every problem's number of candidates)."""
        base = next(iter(self.result.methods.values()), {}).get("base") or {}
        return [int(key.split("@")[1]) for key in base]

    @property
    def pass_at_k_rule(self) -> str:
        """How the run's pass@k takes its k picks (``metrics.PASS_AT_K_RULES``; docs/usage.md)."""
        from coderank_evalplus.metrics import recorded_rule

        return recorded_rule(self.result.config)

    @property
    def timing(self) -> dict:
        """Wall seconds per phase (load, execute, rank, judge, metrics, total) and the work counts."""
        return dict(self.result.timing)

    @property
    def task_ids(self) -> list[str]:
        return list(self.result.outcomes)

    @property
    def provenance(self) -> dict:
        """Who made the result: model, dataset (name, version, hash), test pool, entry point, inputs' fingerprint."""
        return dict(self.result.extra.get("provenance") or {})

    def _check(self, method: str, k: int, split: str) -> None:
        if method not in self.result.methods:
            raise CoderankError(f"method {method!r} was not run: {', '.join(self.result.methods)}")
        if split not in SPLITS:
            raise CoderankError(f"split {split!r}: choose base or plus")
        if self.result.methods[method].get(split) is None:
            raise CoderankError(f"no {split} split: this run judged base tests only (base_only, or a dataset "
                                f"without plus tests)")
        fewest = min((o.n_candidates for o in self.result.outcomes.values()), default=0)
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= fewest:
            raise CoderankError(f"k={k!r}: pass@k is defined for 1 ≤ k ≤ {fewest} here (the fewest candidates of "
                                f"a problem); reported: {', '.join(map(str, self.ks))}")

    def pass_at(self, method: str = RECOMMENDED, k: int = 1, split: str = "base") -> float:
        """Reranked pass@k (percent) of ``method`` on ``split`` ("base" or "plus")."""
        from coderank_evalplus.metrics import aggregate_percent

        self._check(method, k, split)
        return aggregate_percent(self.scores(method, k, split))

    def interval(self, method: str = RECOMMENDED, k: int = 1, split: str = "base",
                 resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
        """95 % bootstrap interval (percent) of ``pass_at(method, k, split)`` over problems (``stats``,
        the leaderboard's intervals); CoderankError below ``stats.MIN_PROBLEMS`` (20) problems."""
        from coderank_evalplus.stats import MIN_PROBLEMS, has_interval, mean_estimate, resample_indices

        scores = self.scores(method, k, split)
        if not has_interval(len(scores)):
            raise CoderankError(f"n = {len(scores)} < {MIN_PROBLEMS} problems: no interval (below {MIN_PROBLEMS} "
                                f"a bootstrap interval covers far less than it claims: docs/leaderboard.md)")
        lo, hi = mean_estimate(scores, resample_indices(len(scores), resamples, seed)).ci95
        return round(lo, 2), round(hi, 2)

    def scores(self, method: str = RECOMMENDED, k: int = 1, split: str = "base") -> np.ndarray:
        """Per problem (in ``task_ids`` order), the probability that ``method``'s k picks pass ``split`` (the picks
        taken by the run's ``pass_at_k_rule``, as in its table)."""
        from coderank_evalplus.pipeline import problem_scores

        self._check(method, k, split)
        return np.asarray(problem_scores(self.result.outcomes, method, k, split, self.pass_at_k_rule), dtype=float)

    def uses_prompt_examples(self, method: str = RECOMMENDED) -> bool:
        """Whether ``method``'s numbers used the prompt's examples (not CodeT's published setting)."""
        self._check(method, 1, "base")
        return bool(self.result.methods[method]["uses_prompt_examples"])

    def picks(self, method: str = RECOMMENDED) -> dict[str, ProblemPick]:
        """Each problem's pick by ``method``, with its pool and confidence."""
        from coderank_evalplus.metrics import pick_pool

        if method in ("random", "oracle") or method not in self.result.methods:
            ranked = [m for m in self.result.methods if m not in ("random", "oracle")]
            raise CoderankError(f"method {method!r} does not pick (picks come from ranking methods: "
                                f"{', '.join(ranked)})")
        out = {}
        for tid, o in self.result.outcomes.items():
            group = pick_pool(o.rankings[method], o.n_candidates)
            out[tid] = ProblemPick(tid, group[0], group, {s: round(v, 4) for s, v in
                                                          (o.confidence.get(method) or {}).items()})
        return out

    def summary(self) -> dict:
        """{method: {split: {"pass@k": value, "pass@k_ci95": [lo, hi] (None below 20 problems)},
        "uses_prompt_examples": bool, "n_problems": n}}."""
        from coderank_evalplus.stats import has_interval

        with_intervals = has_interval(len(self.result.outcomes))
        out: dict[str, Any] = {}
        for m, row in self.result.methods.items():
            out[m] = {"uses_prompt_examples": row["uses_prompt_examples"], "n_problems": len(self.result.outcomes)}
            for split in SPLITS:
                if row.get(split) is None:
                    out[m][split] = None
                    continue
                out[m][split] = {}
                for key, value in row[split].items():
                    out[m][split][key] = value
                    out[m][split][f"{key}_ci95"] = (list(self.interval(m, int(key.split("@")[1]), split))
                                                    if with_intervals else None)
        return out

    def write(self, folder: str | os.PathLike) -> Path:
        """Write the usual results folder (rerank_results.json, verdicts.jsonl, rankings.jsonl, …); its summary
        file's path. A folder holding files this package did not write is refused, as ``rerank --output`` is."""
        from coderank_evalplus.io.results_folder import RESULTS_FILE
        from coderank_evalplus.pipeline import write_results
        from coderank_evalplus.storage import open_output_dir

        return write_results(self.result, open_output_dir(folder, ours=(RESULTS_FILE,)))
