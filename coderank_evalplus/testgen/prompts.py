"""The prompts a model gets: for solutions and for tests, base models and instruct models.

* base models (plain completion): ``solution_prompt`` is the benchmark prompt as is; ``test_generation_prompt`` is
  CodeT's: the signature and the docstring *without* its input/output examples (``prompt_examples``), then
  ``    pass\\n\\n# check the correctness of <entry_point>\\nassert `` so that the model continues with assert
  statements.
* instruct models (chat): ``chat_solution_messages`` / ``chat_test_messages`` build message lists (``replies``
  reads the answers back).
* LiveCodeBench's problems get LiveCodeBench's own prompts (``lcb_chat_messages``, ``lcb_base_prompt``).
"""

from __future__ import annotations

from coderank_evalplus.engine.shapes import shape_of
from coderank_evalplus.testgen.prompt_examples import make_test_prompt_body
from coderank_evalplus.types import Problem

__all__ = [
    "test_generation_prompt",
    "solution_prompt",
    "chat_solution_messages",
    "chat_test_messages",
    "base_program",
    "base_stops",
    "lcb_chat_messages",
    "lcb_base_prompt",
    "TEST_PROMPT_SUFFIX",
    "CODET_STOP",
]

# CodeT's stop sequences, for solutions and for test generation alike.
CODET_STOP = ["\nclass", "\ndef", "\n#", "\nif", "\nprint"]

TEST_PROMPT_SUFFIX = "    pass\n\n# check the correctness of {entry_point}\nassert "


# --------------------------------------------------------------------------------------------------------------
# test-generation prompts (CodeT style, base models)
# --------------------------------------------------------------------------------------------------------------


def test_generation_prompt(problem: Problem) -> str:
    """CodeT's test-generation prompt: body (signature + docstring without examples), ``pass``, a comment and
    ``assert `` for the model to continue. A stdin program gets CodeT's CodeContests form (``def solution(stdin: str)
    -> str``, ``testgen/io_tests.py``), a LeetCode method its statement and starter code, ``pass``, then ``assert ``."""
    shaped = shape_of(problem).test_generation_prompt(problem)
    if shaped is not None:
        return shaped
    body = problem.test_prompt_body or make_test_prompt_body(
        problem.prompt, problem.entry_point, problem.canonical_solution, problem.dataset
    )
    if not body.endswith("\n"):
        body += "\n"
    return body + TEST_PROMPT_SUFFIX.format(entry_point=problem.entry_point)


# not a pytest test, whatever imports it
test_generation_prompt.__test__ = False  # type: ignore[attr-defined]  # mypy rejects attributes set on a function


def solution_prompt(problem: Problem) -> str:
    """Base models complete the benchmark prompt as is; a LiveCodeBench problem gets its base-model prompt."""
    if problem.dataset == LIVECODEBENCH:
        return lcb_base_prompt(problem)
    return problem.prompt


def base_program(problem: Problem, text: str) -> str:
    """A base model's solution sample as a program: the prompt followed by it (LiveCodeBench: the answer itself,
    as lcb_runner's ``extract_code`` takes a base model's output)."""
    if problem.dataset == LIVECODEBENCH:
        return text.strip()
    return solution_prompt(problem) + text


def base_stops(problem: Problem, kind: str) -> list[str]:
    """A base model's stop sequences: CodeT's, except for LiveCodeBench's solutions (lcb_runner's ``--stop ###``)."""
    return ["###"] if kind == "solution" and problem.dataset == LIVECODEBENCH else list(CODET_STOP)


# --- LiveCodeBench's own prompts (lcb_runner/prompts/code_generation.py, MIT License, Copyright (c) 2024
# LiveCodeBench): the chat form (its OpenAIChat style) and the base-model form with its one-shot example -----------
LIVECODEBENCH = "livecodebench"
LCB_SYSTEM = ("You are an expert Python programmer. You will be given a question (problem specification) and will "
              "generate a correct Python program that matches the specification and passes all tests.")
LCB_WITH_STARTER = ("You will use the following starter code to write the solution to the problem and enclose your "
                    "code within delimiters.")
LCB_WITHOUT_STARTER = ("Read the inputs from stdin solve the problem and write the answer to stdout (do not directly "
                       "test on the sample inputs). Enclose your code within delimiters as follows. Ensure that when "
                       "the python program runs, it reads the inputs, runs the algorithm and writes output to STDOUT.")


def _lcb_fields(problem: Problem) -> tuple[str, str]:
    return str(problem.metadata.get("question_content") or ""), str(problem.metadata.get("starter_code") or "")


def lcb_chat_messages(problem: Problem) -> list[dict]:
    """lcb_runner's chat prompt (``get_generic_question_template_answer`` after its generic system message)."""
    content, starter = _lcb_fields(problem)
    prompt = f"### Question:\n{content}\n\n"
    if starter:
        prompt += f"### Format: {LCB_WITH_STARTER}\n```python\n{starter}\n```\n\n"
    else:
        prompt += f"### Format: {LCB_WITHOUT_STARTER}\n```python\n# YOUR CODE HERE\n```\n\n"
    prompt += "### Answer: (use the provided format with backticks)\n\n"
    return [{"role": "system", "content": LCB_SYSTEM}, {"role": "user", "content": prompt}]


def lcb_base_prompt(problem: Problem) -> str:
    """lcb_runner's base-model prompt (``get_base_model_question_template_answer``): its one-shot example of the
    problem's kind, then the question (and starter code), ending in ``### Answer``."""
    import json
    from pathlib import Path

    content, starter = _lcb_fields(problem)
    shots = json.loads((Path(__file__).parent / "lcb_fewshot.json").read_text())
    example = shots["func" if starter else "stdin"]

    def block(question: str, code: str, answer: str) -> str:
        text = f"### Question\n{question}\n\n"
        if starter:
            text += f"### Starter Code\n{code}\n\n"
        text += "### Answer\n\n" + answer
        return text + ("\n\n" if answer else "")

    return block(example["question"], example.get("sample_code", ""), example["answer"]) + block(content, starter, "")


# --------------------------------------------------------------------------------------------------------------
# chat (instruct models)
# --------------------------------------------------------------------------------------------------------------

_SYSTEM = "You are an expert Python programmer."


def chat_solution_messages(problem: Problem) -> list[dict]:
    """Messages asking an instruct model for a complete, self-contained solution (evalplus's instruction;
    LiveCodeBench's own for its problems)."""
    if problem.dataset == LIVECODEBENCH:
        return lcb_chat_messages(problem)
    user = (
        "Please provide a self-contained Python script that solves the following problem in a markdown code "
        f"block:\n```python\n{problem.prompt.strip()}\n```"
    )
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]


def chat_test_messages(problem: Problem, n_asserts: int = 5) -> list[dict]:
    """Messages asking an instruct model for ``n_asserts`` assert statements testing the entry point.

    Shows the signature and the docstring *without* examples (``test_prompt_body``), never the trial tests. A
    LeetCode method or a stdin program is asked for input/output pairs instead (``io_tests.chat_io_messages``).
    """
    if shape_of(problem).io_pair_input is not None:
        from coderank_evalplus.testgen.io_tests import chat_io_messages

        return chat_io_messages(problem, n_asserts)
    body = problem.test_prompt_body or make_test_prompt_body(
        problem.prompt, problem.entry_point, problem.canonical_solution, problem.dataset
    )
    ep = problem.entry_point
    user = (
        f"Here is the specification of a Python function `{ep}`:\n```python\n{body.rstrip()}\n```\n"
        f"Write {n_asserts} different test cases for `{ep}` as Python assert statements, one per line, each of the "
        f"form `assert {ep}(...) == expected_value`, with concrete literal arguments and the exact expected "
        "value. Do not implement the function. Put all asserts in a single ```python code block."
    )
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]

