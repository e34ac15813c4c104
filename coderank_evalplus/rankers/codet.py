"""CodeT dual execution agreement (Chen et al., ICLR 2023) and its size-weighting ablations.

Reference: microsoft/CodeT, CodeT/src/agreement.py (DualAgreement.get_sorted_solutions_without_iter):
solutions are grouped by the exact set of generated test cases they pass ("case_set"); a group's score is
len(case_set) * sqrt(len(solution_set)), where both sets are expanded by sampling frequency (DataManager
gives every duplicate solution / test-case sample its own id), i.e. duplicates count. Solutions that pass
no test case never enter a group (only passed pairs are recorded), so they are unranked here too.
"""

from __future__ import annotations

import inspect
import math
import types
from collections.abc import Callable, Sequence

import numpy as np

from coderank_evalplus.rankers.context import RankContext
from coderank_evalplus.rankers.grouping import bucket, sort_groups
from coderank_evalplus.rankers.registry import register_ranker
from coderank_evalplus.types import Executions, Group, Ranking


def agreement_sets(ex: Executions) -> list[tuple[np.ndarray, list[int]]]:
    """(passed-assert mask, candidates) for every distinct non-empty set of passed asserts.

    Duplicate programs share a row, hence a set; every candidate (duplicates included) is listed.
    Sets come in order of their first candidate.
    """
    if ex.n_candidates == 0 or ex.pass_matrix.shape[1] == 0:
        return []
    passed = ex.candidate_pass()
    keep = np.flatnonzero(passed.any(axis=1))
    buckets = bucket((passed[c].tobytes() for c in keep), keep)
    return [(passed[cands[0]].copy(), cands) for cands in buckets.values()]


def packs_into_one_function(asserts: Sequence[str]) -> bool:
    """Whether CodeT's released execution could run these asserts at all.

    CodeT (CodeT/src/_execution.py) puts all distinct test cases of a problem into ONE function, each inside
    ``try: with time_limit(..): <assert> … except Exception: …``, and execs the solution followed by that
    function. When the function does not compile (a generated test that drags in ``from m import *``, allowed
    only at module level, say) or turns into a generator (a ``yield``), no solution of the problem gets a
    list of results, so none is ranked. This reproduces that check on the tests alone (our text, same rule:
    every line after a test's first is indented to the block's depth).
    """
    pad = " " * 12
    lines = ["def check():", "    results = []"]
    for body in asserts:
        test = ("assert " + body).strip().replace("\n", "\n" + pad)
        lines += ["    try:", "        with limit():", pad + test, pad + "results.append(True)",
                  "    except Exception:", "        results.append(False)"]
    lines.append("    return results")
    try:
        module = compile("\n".join(lines) + "\n", "<codet-check>", "exec")  # compiled only, never run
    except (SyntaxError, ValueError):
        return False
    funcs = [c for c in module.co_consts if isinstance(c, types.CodeType) and c.co_name == "check"]
    return len(funcs) == 1 and not funcs[0].co_flags & inspect.CO_GENERATOR


def _codet(ctx: RankContext, size_weight: Callable[[int], float], name: str) -> Ranking:
    ex = ctx.executions
    counts = np.asarray(ex.assert_counts, dtype=np.int64)
    groups = []
    for mask, cands in agreement_sets(ex):
        n_tests = int(counts[mask].sum())  # |S_y| with repeated asserts counted each time
        groups.append(Group(cands, n_tests * size_weight(len(cands))))
    return Ranking(sort_groups(groups), {"method": name})


@register_ranker("codet",
                 "CodeT dual agreement: groups with equal passed-assert sets, score #asserts*sqrt(#candidates)")
def rank_codet(ctx: RankContext) -> Ranking:
    """Score = (asserts passed, with multiplicity) × √(group size, duplicates counted), as in agreement.py."""
    return _codet(ctx, math.sqrt, "codet")


@register_ranker("codet_reference", "CodeT as its released code scores it: codet, but a problem whose tests cannot "
                                    "all be packed into one function is left unranked")
def rank_codet_reference(ctx: RankContext) -> Ranking:
    """``codet`` with the released code's packing artifact (see ``packs_into_one_function``).

    Use it to reproduce CodeT's published figures; ``codet`` itself runs each test on its own, so one
    malformed generated test cannot disable a whole problem.
    """
    if not packs_into_one_function(ctx.executions.suite.asserts):
        return Ranking([], {"method": "codet_reference", "unpackable_tests": True})
    return _codet(ctx, math.sqrt, "codet_reference")


@register_ranker("codet_linear", "CodeT ablation: score #asserts*#candidates (no square root)")
def rank_codet_linear(ctx: RankContext) -> Ranking:
    """Score = asserts passed × group size (no square root)."""
    return _codet(ctx, float, "codet_linear")


@register_ranker("codet_log", "CodeT ablation: score #asserts*ln(1+#candidates)")
def rank_codet_log(ctx: RankContext) -> Ranking:
    """Score = asserts passed × ln(1 + group size).

    The released CodeT code has only the square-root form; the log form could not be checked against a
    reference here. ln(1+n) is used rather than ln(n) so that singleton groups keep distinct scores
    (ln(1) = 0 would tie every singleton at zero regardless of how many asserts it passes).
    """
    return _codet(ctx, math.log1p, "codet_log")
