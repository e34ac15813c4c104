"""``overlap_agreement``: CodeT's test agreement spread over SRank's functional overlap (this project's ranker).

Same inputs as ``codet`` / ``srank``: the candidates, the model-written tests and the execution matrices — no trial
tests, no hidden inputs, no extra model call.

- clusters: candidates whose programs got past their top level and behave alike: equal outcome on every
  generated input (the returned value, or the exception type) and equal verdicts on the asserts that do not parse
  into (input, expected) — truthiness checks and wrapped calls;
- evidence of a cluster j: n_j × T_j, where n_j counts its samples (duplicates included: a program sampled twice
  is twice the model's mass, as in CodeT) and T_j the generated asserts it passes, each weighted by how often it
  was generated (CodeT's count, raw asserts included);
- score of cluster c: Σ_j √I_cj · n_j · T_j, where I_cj is SRank's functional overlap (share of the inputs on
  which both clusters return equal values; I_cc = 1). A cluster is supported by its own evidence and, less, by
  that of clusters that agree with it on part of the inputs. SRank weights neighbours by I itself; the square
  root gives partial agreement more weight (exponent, option ``overlap_exponent``, chosen by 2-fold
  cross-validation over CodeGen-16B HumanEval problems split by task-id parity: both folds pick 0.5 out of
  {0.25, 0.5, 0.75, 1}, 0.25 tying; see README "Results").
Programs that never got past their top level are unranked. With no tests at all every cluster scores 0, so all
runnable candidates tie (a random pick among them).
"""

from __future__ import annotations

import numpy as np

from coderank_evalplus.rankers.context import RankContext
from coderank_evalplus.rankers.grouping import bucket, sort_groups
from coderank_evalplus.rankers.registry import register_ranker
from coderank_evalplus.types import PASS, RETURNED, Executions, Group, Ranking

DEFAULT_EXPONENT = 0.5


def behaviour_clusters(ex: Executions, with_trials: bool = False) -> list[list[int]]:
    """Candidates of runnable programs grouped by (outcome on every input, verdict on every unparsed assert);
    ``with_trials``: and by the verdict on every trial test (the prompt's examples)."""
    rows = np.asarray(ex.program_of_candidate)
    runnable = np.asarray(ex.compiled, dtype=bool)
    unparsed = np.asarray([i < 0 for i in ex.suite.assert_input], dtype=bool)
    if len(unparsed) != ex.pass_matrix.shape[1]:
        unparsed = np.ones(ex.pass_matrix.shape[1], dtype=bool)
    parts = [ex.output_kind.astype(np.int64), ex.output_matrix.astype(np.int64),
             (ex.pass_matrix[:, unparsed] == PASS).astype(np.int64)]
    if with_trials and ex.trial_matrix.ndim == 2:
        parts.append((ex.trial_matrix == PASS).astype(np.int64))
    keys = np.concatenate(parts, axis=1)
    cands = [c for c in range(len(rows)) if runnable[rows[c]]]
    return list(bucket((keys[rows[c]].tobytes() for c in cands), cands).values())


def functional_overlap(ex: Executions, reps: np.ndarray) -> np.ndarray:
    """I[i][j]: share of inputs on which representative rows i and j both return equal values; diagonal 1."""
    k = len(reps)
    if ex.output_matrix.shape[1] == 0:
        return np.eye(k)
    out = ex.output_matrix[reps]
    ret = ex.output_kind[reps] == RETURNED
    overlap = ((out[:, None, :] == out[None, :, :]) & ret[:, None, :] & ret[None, :, :]).mean(axis=2)
    np.fill_diagonal(overlap, 1.0)
    return overlap


def overlap_agreement(ctx: RankContext, exponent: float = DEFAULT_EXPONENT) -> Ranking:
    """Clusters ranked by Σ_j I_cj**exponent · n_j · T_j (see module docstring)."""
    ex = ctx.executions
    exponent = float(ctx.options.get("overlap_exponent", exponent))
    if exponent < 0:
        raise ValueError(f"options['overlap_exponent'] must be >= 0, not {exponent}")
    clusters = behaviour_clusters(ex)
    info = {"method": "overlap_agreement", "exponent": exponent}
    if not clusters:
        return Ranking([], info)
    rows = np.asarray(ex.program_of_candidate)
    reps = np.asarray([rows[cands[0]] for cands in clusters])
    n = np.asarray([len(cands) for cands in clusters], dtype=float)
    counts = np.asarray(ex.assert_counts, dtype=float)
    passed = (ex.pass_matrix[reps] == PASS).astype(float)
    t = passed @ counts if counts.size else np.zeros(len(clusters))
    overlap = functional_overlap(ex, reps)
    weight = np.where(overlap > 0, overlap ** exponent, 0.0)  # 0 ** 0 would count disjoint clusters as equal
    evidence = n * t
    total = evidence.sum()
    scores = weight @ (evidence / total) if total > 0 else np.zeros(len(clusters))  # in [0, 1]: same order
    # Rounded so that mathematically equal scores tie exactly despite float summation order.
    groups = [Group(cands, round(float(s), 12)) for cands, s in zip(clusters, scores)]
    return Ranking(sort_groups(groups), info)


@register_ranker("overlap_agreement",
                 "clusters of equal behaviour scored by Σ_j √(functional overlap) × samples_j × generated asserts "
                 "passed_j (CodeT agreement spread over SRank's overlap)")
def rank_overlap_agreement(ctx: RankContext) -> Ranking:
    return overlap_agreement(ctx)

