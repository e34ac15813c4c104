"""B4 (Chen et al., "B4: Towards Optimal Assessment of Plausible Code Solutions with Plausible Tests", ASE 2024).

Definitions follow the released code, ZJU-CTAG/B4 (strategy.py ``B4``, main.py, src/execution.py):
- the passing matrix E has one row per DISTINCT program whose run on the generated tests produced results
  (``passed`` in src/_execution.py: it got past its top level, and the problem's tests pack into one check
  function — see ``codet.packs_into_one_function``) and one column per DISTINCT assert (``list(set(tests))``:
  repeated asserts count once, unlike CodeT);
- candidate groups are the rows with one pass pattern y; a group x (its rows set to 1) is scored by
  ``betaln(|x| + α, N − |x| + 1) + betaln(|y| + α, M − |y| + 1)
  + betaln(ΣE1 + 1, |E1| − ΣE1 + 1) + betaln(ΣE0 + 1, |E0| − ΣE0 + β0)``,
  where E1 / E0 are the other rows' entries on the tests y passes / fails (``bernoulli_with_beta_prior``),
  with the released defaults α = 1e3 and β0 = 1e4 (main.py's ``--alpha_xy_range 1e3``; β0 = 1e4 is the first of
  its ``--beta_0_range``); higher is better;
- its evaluation (src/evaluation.py, ``get_result_of_sorted_solutions``) picks uniformly among the group's
  distinct completions, so by default each group lists one candidate per distinct program (the first in sample
  order) and duplicates stay unranked; option ``b4_duplicates`` = "count" lists every candidate instead (picks
  weighted by how often a program was sampled, as every other ranker here does).
Options: ``b4_alpha`` (α, default 1e3), ``b4_beta0`` (β0, default 1e4), ``b4_duplicates`` ("distinct" | "count").
Problems where no program produced results are left unranked (the metric falls back to a random pick).
The released code scores only problems where some but not all ranked programs are correct (chosen with the
ground truth); ``bench/b4_parity.py`` runs it on that subset and on every problem.
"""

from __future__ import annotations

import numpy as np
from scipy.special import betaln

from coderank_evalplus.rankers.codet import packs_into_one_function
from coderank_evalplus.rankers.context import RankContext
from coderank_evalplus.rankers.grouping import bucket, sort_groups
from coderank_evalplus.rankers.registry import register_ranker
from coderank_evalplus.types import PASS, Group, Ranking

DEFAULT_ALPHA = 1e3
DEFAULT_BETA0 = 1e4


def b4_scores(E: np.ndarray, patterns: np.ndarray, alpha: float = DEFAULT_ALPHA,
              beta0: float = DEFAULT_BETA0) -> np.ndarray:
    """B4's log posterior of each pass pattern (row of ``patterns``) as the correct group, over 0/1 matrix E.

    Same terms, same order of addition as the released ``strategy.B4`` (so that equal groups tie exactly).
    """
    E = np.asarray(E, dtype=np.int64)
    n_rows, n_tests = E.shape
    Y = np.asarray(patterns, dtype=bool).reshape(len(patterns), n_tests)
    ids: dict[bytes, int] = {}  # each distinct row (as 0/1 integers) numbered: a row has pattern y when equal to it
    row_id = np.asarray([ids.setdefault(r.tobytes(), len(ids)) for r in E], dtype=np.int64)
    pattern_id = np.asarray([ids.get(y.tobytes(), -1) for y in Y.astype(np.int64)], dtype=np.int64)
    x = pattern_id[:, None] == row_id[None, :]  # patterns × rows: the rows with that pattern
    outside = (~x).astype(np.int64)
    per_row_in_y = E @ Y.T.astype(np.int64)  # rows × patterns: a row's passes on the pattern's passed tests
    s1 = (outside * per_row_in_y.T).sum(axis=1)
    s0 = (outside * (E.sum(axis=1)[None, :] - per_row_in_y.T)).sum(axis=1)
    n_out, n_y = outside.sum(axis=1), Y.sum(axis=1)
    n1, n0 = n_out * n_y, n_out * (n_tests - n_y)
    # integer counts exactly as the loop of the released code; betaln on arrays is the same ufunc as on scalars
    log_py = betaln(n_y + alpha, n_tests - n_y + 1)
    log_px = betaln(x.sum(axis=1) + alpha, n_rows - x.sum(axis=1) + 1)
    log_p1 = betaln(s1 + 1, n1 - s1 + 1)
    log_p0 = betaln(s0 + 1, n0 - s0 + beta0)
    return log_px + log_py + log_p1 + log_p0


def b4(ctx: RankContext, alpha: float = DEFAULT_ALPHA, beta0: float = DEFAULT_BETA0,
       duplicates: str = "distinct") -> Ranking:
    """Groups of equal pass patterns over distinct asserts, ranked by B4's posterior (see module docstring)."""
    ex = ctx.executions
    alpha = float(ctx.options.get("b4_alpha", alpha))
    beta0 = float(ctx.options.get("b4_beta0", beta0))
    duplicates = ctx.options.get("b4_duplicates", duplicates)
    if duplicates not in ("distinct", "count"):
        raise ValueError(f"options['b4_duplicates'] must be 'distinct' or 'count', not {duplicates!r}")
    info = {"method": "b4", "alpha": alpha, "beta0": beta0}
    n_tests = ex.pass_matrix.shape[1]
    if n_tests == 0 or not packs_into_one_function(ex.suite.asserts):
        info["unranked"] = "no tests" if n_tests == 0 else "tests do not pack into one function"
        return Ranking([], info)
    rows = np.asarray(ex.program_of_candidate)
    ran = np.flatnonzero(np.asarray(ex.compiled, dtype=bool))  # program rows that produced results
    if len(ran) == 0:
        return Ranking([], info)
    E = (ex.pass_matrix[ran] == PASS).astype(np.int64)
    first_cand: dict[int, int] = {}
    members: dict[int, list[int]] = {}
    for c, r in enumerate(rows.tolist()):
        first_cand.setdefault(r, c)
        members.setdefault(r, []).append(c)
    by_pattern = bucket((E[i].tobytes() for i in range(len(ran))), ran.tolist())
    patterns = np.asarray([E[np.searchsorted(ran, prog_rows[0])] for prog_rows in by_pattern.values()])
    scores = b4_scores(E, patterns, alpha, beta0)
    groups = []
    for prog_rows, score in zip(by_pattern.values(), scores):
        if duplicates == "distinct":
            cands = [first_cand[r] for r in prog_rows]
        else:
            cands = [c for r in prog_rows for c in members[r]]
        groups.append(Group(sorted(cands), float(score)))
    return Ranking(sort_groups(groups), info)


@register_ranker("b4", "B4: groups of equal pass patterns (distinct asserts) ranked by a Beta-prior posterior "
                       "(alpha=1e3, beta0=1e4, as the released code)")
def rank_b4(ctx: RankContext) -> Ranking:
    """B4 with the released defaults; options ``b4_alpha``, ``b4_beta0``, ``b4_duplicates``."""
    return b4(ctx)
