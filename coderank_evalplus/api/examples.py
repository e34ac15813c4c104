"""The real samples bundled with the package, by name, so that examples run from any folder."""

from __future__ import annotations

from pathlib import Path

from coderank_evalplus.types import CoderankError

FOLDER = Path(__file__).resolve().parent.parent / "examples"
FILES = {
    "solutions": "codegen16b_humaneval_solutions.jsonl.gz",  # CodeGen-16B, HumanEval, 100 per problem (CodeT)
    "tests": "codegen16b_humaneval_tests.jsonl.gz",  # its own test samples, 100 per problem (CodeT)
    "gpt4_tests": "gpt4_humaneval_tests.jsonl.gz",  # GPT-4's asserts for HumanEval
}


def example_path(name: str = "solutions") -> Path:
    """The path of a bundled sample file: "solutions", "tests" or "gpt4_tests" (see examples/NOTICE.md)."""
    if name not in FILES:
        raise CoderankError(f"example {name!r}: choose {', '.join(FILES)}")
    return FOLDER / FILES[name]
