"""The engine's matrices on a small real slice are the ones the engine gave before its per-probe work was cut.

``data/codegen16b_slice_matrices.npz`` was written by the engine at commit 5a55363 (per-probe timer system calls,
digests fed piece by piece, every value decoded by the driver): CodeGen-16B's first 20 solutions of four HumanEval
problems on their own CodeT test samples, CPU limit 0.1 s. No cell of that slice is near the limit (no timeouts),
so the comparison does not depend on the machine's load.
"""

from pathlib import Path

import numpy as np

from coderank_evalplus.engine.execution.execute import ProblemWork, ResultCache, execute
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.testgen.extract import build_suite
from tests.conftest import needs_data

EXPECTED = Path(__file__).parent / "data" / "codegen16b_slice_matrices.npz"
TASKS = ["HumanEval/7", "HumanEval/12", "HumanEval/28", "HumanEval/34"]
FIELDS = ("pass_matrix", "output_matrix", "output_kind", "trial_matrix", "compiled", "program_of_candidate")


@needs_data
def test_matrices_of_a_real_slice_are_cell_for_cell_the_stored_ones(tmp_path, humaneval_problems, codet_samples):
    sols, tests = codet_samples
    works = [ProblemWork(humaneval_problems[t], sols[t][:20], build_suite(tests[t], humaneval_problems[t].entry_point))
             for t in TASKS]
    ex = execute(works, ResultCache(tmp_path / "c.sqlite"), Limits(cpu=0.1), workers=2, progress=False)
    expected = np.load(EXPECTED)
    for t in TASKS:
        for name in FIELDS:
            want, got = expected[f"{t}|{name}"], getattr(ex[t], name)
            assert want.shape == got.shape and (want == got).all(), (t, name, int((want != got).sum()))
