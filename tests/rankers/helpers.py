"""Build small ``Executions`` / ``RankContext`` objects by hand for ranker and metric tests."""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from coderank_evalplus.rankers import RankContext
from coderank_evalplus.types import FAIL, PASS, RETURNED, Executions, Problem, TestSuite


def make_executions(
    passes: Optional[Sequence[Sequence[int]]] = None,
    counts: Optional[Sequence[int]] = None,
    outputs: Optional[Sequence[Sequence[int]]] = None,
    kinds: Optional[Sequence[Sequence[int]]] = None,
    trial: Optional[Sequence[Sequence[int]]] = None,
    compiled: Optional[Sequence[bool]] = None,
    program_ids: Optional[Sequence[int]] = None,
    assert_input: Optional[Sequence[int]] = None,
    expected: Optional[Sequence[Optional[str]]] = None,
    codes: bool = False,
) -> Executions:
    """Executions from per-candidate matrices.

    passes: candidate × assert, truthy = passed (or raw outcome codes when ``codes``).
    outputs/kinds: candidate × input digests and kinds (kinds default RETURNED).
    trial: candidate × trial-test outcome codes. program_ids: candidates with equal ids share one
    program row (their matrix rows must agree); by default each candidate is its own program.
    """
    lengths = [len(m) for m in (passes, outputs, trial, compiled, program_ids) if m is not None]
    n = lengths[0] if lengths else 0
    if program_ids is None:
        program_ids = list(range(n))
    row_of_id: dict[int, int] = {}
    first_cand: list[int] = []
    pofc = []
    for c, pid in enumerate(program_ids):
        if pid not in row_of_id:
            row_of_id[pid] = len(first_cand)
            first_cand.append(c)
        pofc.append(row_of_id[pid])
    pofc_arr = np.asarray(pofc, dtype=np.int64)

    def rows(mat, dtype, width_default=0):
        if mat is None:
            return np.zeros((len(first_cand), width_default), dtype=dtype)
        arr = np.asarray(mat, dtype=dtype).reshape(n, -1) if n else np.zeros((0, width_default), dtype)
        for c, r in enumerate(pofc):  # duplicates must agree with their program's row
            assert np.array_equal(arr[c], arr[first_cand[r]]), f"candidate {c} disagrees with its program"
        return arr[first_cand]

    if passes is not None and not codes:
        passes = [[PASS if v else FAIL for v in row] for row in passes]
    pass_matrix = rows(passes, np.uint8)
    n_asserts = pass_matrix.shape[1]
    output_matrix = rows(outputs, np.int64)
    n_inputs = output_matrix.shape[1]
    output_kind = rows(kinds, np.uint8, n_inputs) if kinds is not None else np.full(
        output_matrix.shape, RETURNED, dtype=np.uint8)
    trial_matrix = rows(trial, np.uint8)
    compiled_arr = rows([[bool(x)] for x in compiled], bool, 1)[:, 0] if compiled is not None else np.ones(
        len(first_cand), dtype=bool)
    counts_arr = np.asarray(counts if counts is not None else [1] * n_asserts, dtype=np.int64)
    suite = TestSuite(
        asserts=[f"f({a}) == {a}" for a in range(n_asserts)],
        counts=[int(x) for x in counts_arr],
        inputs=[f"f({i})" for i in range(n_inputs)],
        assert_input=list(assert_input) if assert_input is not None else [-1] * n_asserts,
        expected=list(expected) if expected is not None else [None] * n_asserts,
        comparisons=["=="] * n_asserts,
    )
    return Executions(
        task_id="T/0",
        program_of_candidate=pofc_arr,
        pass_matrix=pass_matrix,
        assert_counts=counts_arr,
        output_matrix=output_matrix,
        output_kind=output_kind,
        trial_matrix=trial_matrix,
        compiled=compiled_arr,
        suite=suite,
        programs=[f"prog{r}" for r in range(len(first_cand))],
    )


def make_ctx(executions: Executions, seed: int = 0, benchmark_outputs=None, **options) -> RankContext:
    """A RankContext around ``executions`` with a dummy problem."""
    problem = Problem(task_id=executions.task_id, dataset="humaneval", prompt="def f(x):\n", entry_point="f")
    return RankContext(problem=problem, executions=executions, seed=seed, options=dict(options),
                       benchmark_outputs=benchmark_outputs)


def groups_of(ranking) -> list[tuple[list[int], float]]:
    """(sorted candidates, score) per group, for compact assertions."""
    return [(sorted(g.candidates), g.score) for g in ranking.groups]


def agreement_model(tau: float = 0.8, rows: int = 200) -> dict:
    """A hand-made confidence model that trusts agreement (confident when the pick's cluster is large: the first
    feature, ``pick_share``, above ½ in its seeded training rows), with ``tau`` recorded."""
    from coderank_evalplus.rankers.confidence import FEATURES, fit_confidence, with_tau

    rng = np.random.default_rng(0)
    X = rng.random((rows, len(FEATURES)))
    y = (X[:, 0] > 0.5).astype(float)
    return with_tau(fit_confidence(X, {"base": y, "plus": y}, ["hand-made"]), tau, "by hand")
