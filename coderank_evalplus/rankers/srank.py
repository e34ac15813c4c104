"""SRank: functional-overlap reranking (To et al., "Functional Overlap Reranking for Neural Code Generation").

Definitions follow the released code, FSoft-AI4Code/SRank-CodeRanker (reranking/functionality_processing.py,
reranking/evaluator.py, reranking/utils.py):
- validity (utils.check_validity): a completion is invalid when its run on the test inputs failed as a whole
  (here: ``compiled`` False, or no test inputs at all) or, with more than one input, every output *value* is
  the same (an exception is stored as value None, so raising on every input is invalid too).
- clusters: valid completions with equal (ok, value) on every input; cluster size counts DISTINCT completions
  (``if not completion in exist_completions: counter[1] += 1``), normalised by the sum over clusters.
- interaction I[i][j] (calculate_pair_overlap): share of ALL test inputs on which both clusters returned
  normally and their values are equal; I[i][i] = 1.
- pass rate (calculate_cluster_pass_rate): share of the (input, generated expected output) pairs that the
  cluster's output matches (returned normally and equal); every pair counts, so a repeated expected value
  counts each time (here: parsed asserts weighted by assert_counts); 0 when there are none.
- score R = I · V with V = size × pass rate (evaluator.get_sorted_solutions, weights (1, 1)).
- invalid completions form one extra cluster with size 0, pass rate 0 and a zero row/column in I, so they
  are ranked with score 0 (and tie with any valid cluster scoring 0); ties are merged by the evaluation.
Deviation: by default two exceptions of different types are different outputs (option ``srank_exceptions``:
"type", the default, or "any" to treat every exception alike as the reference code does).
Option ``srank_inputs``: "parsed" (default) clusters on our parsed call inputs (one per AST-distinct call, from
every parsed assert, truthiness checks included); "reference" on the reference code's own input list
(extract.reference_input: one input per distinct TEXT, truthiness checks give none, junk that only raises
counts). The interaction divides by the number of inputs, so that list changes scores. A reference input that
we did not execute (no AST-equal call among ours) counts as raised by every program: exact for junk such as
``____.f(x)``, an approximation for the few wrapped expressions (``len(f(x))``). ``srank_reference`` = srank
with "reference" inputs, "any" exceptions and exact float ties (the released code merges only scores that are equal
as floats; ``srank`` rounds to 12 digits first): on CodeT's CodeGen-16B HumanEval samples, the released reranking
code run on our execution results (bench/srank_parity.py) and ``srank_reference`` give the same pass@1/2/10, 42.44 /
47.80 / 61.24 (original tests as ground truth); ``srank`` gives 41.33.
"""

from __future__ import annotations

import ast
import dataclasses

import numpy as np

from coderank_evalplus.rankers.context import RankContext
from coderank_evalplus.rankers.grouping import sort_groups
from coderank_evalplus.rankers.registry import register_ranker
from coderank_evalplus.testgen.extract import reference_inputs
from coderank_evalplus.types import PASS, RAISED, RETURNED, Executions, Group, Ranking


def valid_rows(ex: Executions) -> np.ndarray:
    """Bool per program row: usable by SRank (see module docstring)."""
    n_inputs = ex.output_matrix.shape[1]
    ok = np.asarray(ex.compiled, dtype=bool).copy()
    if n_inputs == 0:
        return np.zeros_like(ok)
    if n_inputs > 1:
        returned = ex.output_kind == RETURNED
        values = np.where(returned, ex.output_matrix, 0)  # non-returned ⇒ value "None"
        same = (values == values[:, :1]).all(axis=1) & (returned == returned[:, :1]).all(axis=1)
        ok &= ~same
    return ok


def _output_keys(ex: Executions, exceptions: str) -> np.ndarray:
    """Per row, the array whose equality defines a cluster."""
    returned = ex.output_kind == RETURNED
    if exceptions == "any":
        return np.concatenate([returned, np.where(returned, ex.output_matrix, 0)], axis=1)
    if exceptions != "type":
        raise ValueError(f"options['srank_exceptions'] must be 'type' or 'any', not {exceptions!r}")
    return np.concatenate([ex.output_kind.astype(np.int64), ex.output_matrix], axis=1)


def interaction_matrix(ex: Executions, reps: np.ndarray) -> np.ndarray:
    """I[i][j]: share of inputs where representative rows i and j both return equal values; diagonal 1."""
    n_inputs = ex.output_matrix.shape[1]
    k = len(reps)
    if n_inputs == 0:
        return np.eye(k)
    out = ex.output_matrix[reps]
    ret = ex.output_kind[reps] == RETURNED
    agree = (out[:, None, :] == out[None, :, :]) & ret[:, None, :] & ret[None, :, :]
    inter = agree.mean(axis=2)
    np.fill_diagonal(inter, 1.0)
    return inter


def pass_rates(ex: Executions, reps: np.ndarray) -> np.ndarray:
    """Weighted share of parsed (input, expected) asserts each representative row passes."""
    suite = ex.suite
    parsed = [a for a in range(ex.pass_matrix.shape[1])
              if a < len(suite.assert_input) and suite.assert_input[a] >= 0
              and a < len(suite.expected) and suite.expected[a] is not None]
    weights = np.asarray(ex.assert_counts, dtype=float)[parsed]
    if weights.sum() <= 0:
        return np.zeros(len(reps))
    passed = ex.pass_matrix[np.ix_(reps, np.asarray(parsed, dtype=np.intp))] == PASS
    return passed.astype(float) @ weights / weights.sum()


def _normal_form(text: str) -> str | None:
    try:
        return ast.unparse(ast.parse(text.strip(), mode="eval"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def reference_columns(ctx: RankContext) -> list[int]:
    """For each input of the reference code's list (see module docstring), the column of ``suite.inputs`` that
    executed it (AST-equal text), or -1 when none did."""
    ex = ctx.executions
    column: dict[str | None, int] = {call: i for i, call in enumerate(ex.suite.inputs)}
    texts = reference_inputs(ex.suite.asserts, ctx.problem.entry_point, ctx.problem.prompt)
    return [column.get(_normal_form(t), -1) for t in texts]


def _on_columns(ex: Executions, columns: list[int]) -> Executions:
    """``ex`` with output columns picked (and repeated) by ``columns``; -1 = raised on every program."""
    cols = np.asarray(columns, dtype=np.int64)
    n_rows = ex.output_matrix.shape[0]
    if ex.output_matrix.shape[1] == 0:  # nothing executed: every reference input is a "raised" column
        outputs = np.zeros((n_rows, len(cols)), dtype=np.int64)
        kinds = np.full((n_rows, len(cols)), RAISED, dtype=ex.output_kind.dtype)
    else:
        picked = np.maximum(cols, 0)
        missing = cols < 0
        outputs = np.where(missing, 0, ex.output_matrix[:, picked])
        kinds = np.where(missing, RAISED, ex.output_kind[:, picked]).astype(ex.output_kind.dtype)
    return dataclasses.replace(ex, output_matrix=outputs, output_kind=kinds)


def srank(ctx: RankContext, interaction: bool = True, size_exp: float = 1.0, pass_exp: float = 1.0,
          name: str = "srank", inputs: str = "parsed", exceptions: str = "type", exact_ties: bool = False) -> Ranking:
    """Clusters ranked by I·V (or V alone), V = size**size_exp × pass_rate**pass_exp.

    Scores are rounded to 12 digits so that mathematically equal scores tie despite float summation order, unless
    ``exact_ties`` (the released code compares the raw floats).
    """
    ex = ctx.executions
    info: dict = {"method": name}
    inputs = ctx.options.get("srank_inputs", inputs)
    if inputs == "reference":
        ex = _on_columns(ex, reference_columns(ctx))
    elif inputs != "parsed":
        raise ValueError(f"options['srank_inputs'] must be 'parsed' or 'reference', not {inputs!r}")
    rows = np.asarray(ex.program_of_candidate)
    valid = valid_rows(ex)
    keys = _output_keys(ex, ctx.options.get("srank_exceptions", exceptions))
    clusters: dict[bytes, tuple[set[int], list[int]]] = {}
    invalid: list[int] = []
    for c, r in enumerate(rows.tolist()):
        if not valid[r]:
            invalid.append(c)
            continue
        prog_rows, cands = clusters.setdefault(keys[r].tobytes(), (set(), []))
        prog_rows.add(r)
        cands.append(c)
    groups = [Group(invalid, 0.0)] if invalid else []
    info["n_invalid"] = len(invalid)
    if clusters:
        members = list(clusters.values())
        reps = np.asarray([rows[cands[0]] for _, cands in members])
        sizes = np.asarray([len(prog_rows) for prog_rows, _ in members], dtype=float)
        sizes /= sizes.sum()
        v = sizes ** size_exp * pass_rates(ex, reps) ** pass_exp
        scores = interaction_matrix(ex, reps) @ v if interaction else v
        # Rounded so that mathematically equal scores tie exactly despite float summation order.
        groups += [Group(cands, float(s) if exact_ties else round(float(s), 12))
                   for (_, cands), s in zip(members, scores)]
    return Ranking(sort_groups(groups), info)


@register_ranker("srank", "SRank: clusters of equal outputs scored by I·(size×pass rate), I = functional overlap")
def rank_srank(ctx: RankContext) -> Ranking:
    """Full SRank: R = I · (cluster size × pass rate)."""
    return srank(ctx)


@register_ranker("srank_reference",
                 "SRank on the released code's input list, exceptions alike (reproduces its published numbers)")
def rank_srank_reference(ctx: RankContext) -> Ranking:
    """SRank as the released code computes it: reference input list, every exception the same output."""
    return srank(ctx, name="srank_reference", inputs="reference", exceptions="any", exact_ties=True)


@register_ranker("srank_size", "SRank ablation: cluster size only (no interaction, no pass rate)")
def rank_srank_size(ctx: RankContext) -> Ranking:
    return srank(ctx, interaction=False, pass_exp=0.0, name="srank_size")


@register_ranker("srank_passrate", "SRank ablation: pass rate only (no interaction, no size)")
def rank_srank_passrate(ctx: RankContext) -> Ranking:
    return srank(ctx, interaction=False, size_exp=0.0, name="srank_passrate")


@register_ranker("srank_size_passrate", "SRank ablation: size × pass rate without interaction")
def rank_srank_size_passrate(ctx: RankContext) -> Ranking:
    return srank(ctx, interaction=False, name="srank_size_passrate")


@register_ranker("srank_i_size", "SRank ablation: I · cluster size (no pass rate)")
def rank_srank_i_size(ctx: RankContext) -> Ranking:
    return srank(ctx, pass_exp=0.0, name="srank_i_size")


@register_ranker("srank_i_passrate", "SRank ablation: I · pass rate (no size)")
def rank_srank_i_passrate(ctx: RankContext) -> Ranking:
    return srank(ctx, size_exp=0.0, name="srank_i_passrate")
