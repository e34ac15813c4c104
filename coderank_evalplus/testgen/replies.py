"""Reading a chat model's replies back into what a base model yields: a full program (``parse_chat_solution``),
a raw test sample of ``assert ...`` lines in CodeT's format (``parse_chat_tests``; ``chat_test_sample`` for any
shape). The code blocks are read as everywhere else (``io.sanitize.code_blocks``)."""

from __future__ import annotations

from coderank_evalplus.engine.shapes import shape_of
from coderank_evalplus.io.sanitize import code_blocks, raw_program
from coderank_evalplus.testgen.prompt_examples import compiles
from coderank_evalplus.types import Problem

__all__ = ["parse_chat_tests", "chat_test_sample", "parse_chat_solution"]


def parse_chat_tests(text: str, entry_point: str) -> str:
    """A chat reply → a raw test sample in CodeT's format: ``assert ...`` lines joined by newlines.

    Reads the code blocks (or the whole reply when it has none); keeps top-level assert statements that mention
    the entry point (multi-line asserts are joined when they parse). The result starts with the first assert's
    body (CodeT's samples are continuations after ``assert ``), so splitting ``"assert " + sample`` on
    ``"assert "`` recovers the statements.
    """
    blocks = code_blocks(text) or [text]
    asserts: list[str] = []
    for block in blocks:
        lines = block.split("\n")
        i = 0
        while i < len(lines):
            s = lines[i].strip()
            if not s.startswith("assert"):
                i += 1
                continue
            stmt = s
            j = i + 1
            # join continuation lines until the statement compiles (bounded)
            while not compiles(stmt) and j < len(lines) and j - i < 20:
                stmt += " " + lines[j].strip()
                j += 1
            if compiles(stmt):
                i = j
            else:
                stmt = s
                i += 1
            if entry_point in stmt:
                asserts.append(stmt)
    if not asserts:
        return ""
    joined = "\n".join(asserts)
    return joined[len("assert "):] if joined.startswith("assert ") else joined


def chat_test_sample(text: str, problem: Problem) -> str:
    """A chat reply to ``chat_test_messages`` → a raw test sample in CodeT's format, for any shape."""
    if shape_of(problem).io_pair_input is not None:
        from coderank_evalplus.testgen.io_tests import parse_chat_io

        return parse_chat_io(text, problem)
    return parse_chat_tests(text, problem.entry_point)


def parse_chat_solution(text: str, problem: Problem) -> str:
    """A chat reply → a full program, read as ``../shared/data``'s chat sets made their ``solution`` and as
    ``rerank --raw-field`` reads replies (:func:`coderank_evalplus.io.sanitize.raw_program`): the prompt's import
    lines the reply lacks (the model saw them: HumanEval's ``from typing import List``) + the reply sanitized as
    ``evalplus.sanitize`` does; a reply that only continues the function is read after the prompt. A reply that
    defines no entry point is kept as its code block (it fails every test, and stays readable in samples.jsonl)."""
    program = raw_program(text, problem)
    if program:
        return program
    blocks = code_blocks(text)
    return "\n".join(b for b in blocks if problem.entry_point in b) or (blocks[0] if blocks else text)
