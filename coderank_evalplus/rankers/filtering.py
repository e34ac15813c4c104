"""DOCE-style trial-test filtering: drop candidates that fail a visible trial test, then rank the rest."""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np

from coderank_evalplus.rankers.context import RankContext, RankFn
from coderank_evalplus.types import PASS, Executions, Group, Ranking

# Options holding one value per candidate: they are restricted to the survivors too (likelihood features too).
PER_CANDIDATE_OPTIONS = ("correct", "logprob", "logprob_tokens", "reviewer_logprob", "reviewer_logprob_tokens")


def trial_passes(ex: Executions, rows: np.ndarray) -> np.ndarray:
    """Per program row of ``rows``, the share of the trial tests it passes (1 with none)."""
    trial = np.asarray(ex.trial_matrix)
    if trial.ndim < 2 or trial.shape[1] == 0:
        return np.ones(len(rows))
    return (trial[rows] == PASS).mean(axis=1)


def trial_survivors(ex: Executions) -> np.ndarray:
    """Indices of candidates whose program passes every trial test (all, when there are none)."""
    rows = np.asarray(ex.program_of_candidate)
    if ex.trial_matrix.ndim < 2 or ex.trial_matrix.shape[1] == 0:
        return np.arange(len(rows))
    ok = (np.asarray(ex.trial_matrix) == PASS).all(axis=1)
    return np.flatnonzero(ok[rows])


def restrict(ex: Executions, candidates: np.ndarray) -> tuple[Executions, np.ndarray]:
    """Executions of only ``candidates`` (renumbered 0..), and the program rows kept (old indices)."""
    old_rows = np.asarray(ex.program_of_candidate)[candidates]
    kept_rows, new_rows = np.unique(old_rows, return_inverse=True)
    sub = replace(
        ex,
        program_of_candidate=new_rows.astype(np.int64),
        pass_matrix=ex.pass_matrix[kept_rows],
        output_matrix=ex.output_matrix[kept_rows],
        output_kind=ex.output_kind[kept_rows],
        trial_matrix=ex.trial_matrix[kept_rows],
        compiled=np.asarray(ex.compiled)[kept_rows],
        programs=[ex.programs[r] for r in kept_rows] if ex.programs else [],
    )
    return sub, kept_rows


def with_trial_filter(inner: RankFn) -> RankFn:
    """Wrap ``inner`` so that it ranks only the candidates passing all trial tests.

    With zero trial tests, or when no candidate survives, every candidate is kept. Filtered-out candidates
    are unranked; if the inner ranker ranks nothing, ``info['fallback_pool']`` lists the survivors so that
    the metric's random fallback draws among them rather than among all candidates.
    """

    @functools.wraps(inner)
    def rank(ctx: RankContext) -> Ranking:
        ex = ctx.executions
        survivors = trial_survivors(ex)
        n = ex.n_candidates
        if len(survivors) == 0 or len(survivors) == n:
            ranking = inner(ctx)
            ranking.info["trial_filter"] = {"kept": n if len(survivors) else 0, "total": n, "applied": False}
            return ranking
        sub, kept_rows = restrict(ex, survivors)
        options = dict(ctx.options)
        for key in PER_CANDIDATE_OPTIONS:
            if options.get(key) is not None:
                options[key] = np.asarray(options[key])[survivors]
        bench = ctx.benchmark_outputs
        if bench is not None:
            bench = (np.asarray(bench[0])[kept_rows], np.asarray(bench[1])[kept_rows])
        inner_ranking = inner(RankContext(ctx.problem, sub, ctx.seed, options, bench))
        groups = [Group([int(survivors[c]) for c in g.candidates], g.score) for g in inner_ranking.groups]
        info = dict(inner_ranking.info)
        info["trial_filter"] = {"kept": len(survivors), "total": n, "applied": True}
        if not groups:
            info["fallback_pool"] = [int(c) for c in survivors]
        return Ranking(groups, info)

    return rank
