"""S*'s two questions to the model, in our words, and how their replies are read.

Source: S* (Li et al. 2025, "S*: Test Time Scaling for Code Generation"), its code in NovaSky-AI/SkyThought,
``skythought/test-time-scaling/live_code_bench_program.py`` (commit 0d190f1), selection
``generated_tests_tool_assisted`` (the paper's adaptive input synthesis; scripts/final_tool_assisted_cached):

* ``GenerateTests_LLM_reflect_with_tool_func`` / ``_std``: the problem and two candidates A and B; "generate a
  complete set of potential inputs to test the two given solutions", covering (i) cases where one may fail and the
  other succeed, (ii) edge cases, (iii) complex and difficult but not very long inputs, (iv) others likely to catch
  a bug. Drawn by ``generate_tests_for_one_example(num_test_suites=1, retry=3)`` at temperature
  ``0.7 + 0.01 * r`` (r counting attempts from 1).
* ``LLMSelectPairwiseTestAwareBT`` in ``tool_assisted_single_match``: each sample's code followed by its execution
  outputs on those inputs; "return the index of the best sample (0 for the first, 1 for the second, 2 if they are
  equally good/bad)", with the hint "these samples can be tricky! First analyze the problem yourself, then analyze
  the solutions". Asked twice, the samples in both orders; a side wins only when both answers agree (0 then 1, or
  1 then 0), both 2 is a tie, anything else no decision. The judge is ``dspy.LM``'s default: temperature 0,
  1000 new tokens.

Our changes, each for a reason: S*'s prompts ask for JSON ``{"input", "output"}`` objects (LiveCodeBench's
functional format) and read back only the inputs; a function's or method's input is asked here as the call itself
(``f(1, [2])``: the engine's test language, no expected output); a stdin program's as a JSON list of
``{"input": text}``. S* shows every generated input; here only the inputs on which the two programs differ (at most
``MAX_SHOWN``: the others carry no evidence for the choice and lengthen the prompt). The answer is asked as a last
line ``Answer: 0|1|2`` (dspy parsed a field of its own template). A base model (no chat) gets the same text as a
document to continue; where the prompt is text (a base model, a local chat model templated here) the input reply's
start is written for the model (``reply_opener``: the code block and the first call's ``f(``), so that a small
model writes inputs rather than another solution.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Optional, Sequence

from coderank_evalplus.engine.shapes import shape_of
from coderank_evalplus.io.sanitize import code_blocks
from coderank_evalplus.types import Problem

SOURCE = ("NovaSky-AI/SkyThought skythought/test-time-scaling/live_code_bench_program.py "
          "(generated_tests_tool_assisted)")
ATTEMPTS = 3  # generate_tests_for_one_example(retry=3): input-generation attempts per pair
INPUT_TEMPERATURE = 0.7  # temperature_base of llm_generate_tests_reflect ...
TEMPERATURE_STEP = 0.01  # ... + 0.01 * r, r = 1, 2, 3
JUDGE_TEMPERATURE = 0.0  # dspy.LM's default
MAX_TOKENS = 1000  # dspy.LM's default max_tokens, for both questions
ORDERS = 2  # test_aware_single_match: the pair shown in both orders
MAX_INPUTS = 20  # inputs read from one reply (ours: bounds programs x inputs x attempts)
MAX_SHOWN = 5  # distinguishing inputs shown to the judge (ours)
SHOW_CHARS = 300  # characters of one output shown (engine.execution.probe's)

_SYSTEM = "You are an expert Python programmer."
_ANSWER = re.compile(r"answer\W{0,6}([012])\b", re.I)


def _statement(problem: Problem) -> str:
    return str(problem.metadata.get("question_content") or problem.prompt).strip()


def _form(problem: Problem) -> str:
    return shape_of(problem).input_request(problem)


def inputs_text(problem: Problem, a: str, b: str) -> str:
    """The question for distinguishing inputs (S*'s GenerateTests_LLM_reflect_with_tool_*)."""
    return (f"Here is a coding problem:\n```python\n{_statement(problem)}\n```\n\n"
            f"Two AI-generated solutions to it:\n\n[Solution A]:\n```python\n{a.strip()}\n```\n\n"
            f"[Solution B]:\n```python\n{b.strip()}\n```\n\n"
            "Generate a complete set of inputs to test these two solutions. Cover: (i) inputs on which one solution "
            "may fail while the other succeeds; (ii) edge cases, such as empty strings or lists; (iii) complex and "
            "difficult inputs, but not very long ones; (iv) other inputs that maximise the chance of catching a bug. "
            f"{_form(problem)}\n")


def inputs_messages(problem: Problem, a: str, b: str) -> list[dict]:
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": inputs_text(problem, a, b)}]


def reply_opener(problem: Problem) -> str:
    """The start of the answer, written for the model where the prompt is text (a base model's document, a local
    chat model's templated conversation): the code block and the first call's opening, so that a small model
    continues with inputs instead of rewriting the solution. Read back in front of the reply."""
    return shape_of(problem).reply_opener(problem)


def inputs_base_prompt(problem: Problem, a: str, b: str) -> tuple[str, tuple[str, ...]]:
    """A base model's document to continue (ending in ``reply_opener``), and its stop sequence."""
    return inputs_text(problem, a, b) + "\nThe inputs:\n" + reply_opener(problem), ("```",)


def _show(text: str) -> str:
    return text if len(text) <= SHOW_CHARS else text[:SHOW_CHARS] + "…"


def judge_text(problem: Problem, first: str, second: str, shown: Sequence[tuple[str, str, str]]) -> str:
    """The pairwise question with execution outputs (S*'s LLMSelectPairwiseTestAwareBT, tool-assisted layout).
    ``shown``: (input, first's output, second's output) per input."""
    def block(k: int, code: str, col: int) -> str:
        outs = "".join(f"\n[Test input]: {_show(s[0])}\n[Output]: {_show(s[col])}\n" for s in shown)
        return f"[Sample {k}]: ### Code ###\n```python\n{code.strip()}\n```\n### Execution outputs ###{outs}"

    return (f"Here is a coding problem:\n```python\n{_statement(problem)}\n```\n\n"
            "An AI has generated two candidate solutions. You are given the code of each candidate and what it "
            "outputs on the same test inputs.\n\n"
            f"{block(0, first, 1)}\n{block(1, second, 2)}\n"
            "Use the code and the execution outputs to compare the two candidates carefully, and return the index "
            "of the better one: 0 for the first sample, 1 for the second sample, 2 if they are equally good or bad. "
            "Hint: these samples can be tricky! First analyse the problem yourself, then analyse the solutions. "
            "End your reply with a last line of the form `Answer: 0`, `Answer: 1` or `Answer: 2`.\n")


def judge_messages(problem: Problem, first: str, second: str, shown: Sequence[tuple[str, str, str]]) -> list[dict]:
    return [{"role": "system", "content": _SYSTEM},
            {"role": "user", "content": judge_text(problem, first, second, shown)}]


def judge_base_prompt(problem: Problem, first: str, second: str, shown: Sequence[tuple[str, str, str]]
                      ) -> tuple[str, tuple[str, ...]]:
    return judge_text(problem, first, second, shown) + "\nAnswer:", ("\n",)


def parse_verdict(reply: str, base: bool = False) -> Optional[int]:
    """0, 1 or 2 from a judge's reply (its last ``Answer: d``; a reply that is just the digit), else None. A base
    model's continuation after ``Answer:`` is read from its first digit."""
    found = _ANSWER.findall(reply)
    if found:
        return int(found[-1])
    text = reply.strip().strip("`*.").strip()
    if text in ("0", "1", "2"):
        return int(text)
    if base:
        m = re.match(r"\s*\W{0,3}([012])\b", reply)
        if m:
            return int(m.group(1))
    return None


def parse_inputs(reply: str, problem: Problem, most: int = MAX_INPUTS) -> list[str]:
    """The inputs of a reply as call expressions in the engine's test language (``f(1, 2)``,
    ``Solution().f(...)``, ``run_stdin('...')``), distinct, in order, at most ``most``. A call's arguments must
    be literals (an assert holding the call counts too); a stdin input is a JSON ``{"input": text}``."""
    out: list[str] = []
    if shape_of(problem).reads_stdin:
        for text in _stdin_inputs(reply):
            call = f"{problem.callee}({text!r})"
            if call not in out:
                out.append(call)
    else:
        from coderank_evalplus.testgen.mutate import call_text, seed_args

        blocks = code_blocks(reply) or [reply]
        for block in blocks:
            for line in _statements(block):
                args = seed_args(line, problem.callee)
                made = call_text(problem.callee, args) if args is not None else None
                if made is not None and made not in out:
                    out.append(made)
    return out[:most]


def _statements(block: str) -> list[str]:
    """Top-level statements of a block (a call spread over lines is one); a block that does not parse: its lines."""
    try:
        tree = ast.parse(block)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return [line.strip() for line in block.split("\n") if line.strip()]
    return [ast.get_source_segment(block, node) or "" for node in tree.body]


def _stdin_inputs(reply: str) -> list[str]:
    for block in reversed(code_blocks(reply, "json") or [reply]):
        try:
            items = json.loads(block)
        except ValueError:
            continue
        if isinstance(items, dict):
            items = [items]
        if not isinstance(items, list):
            continue
        found = [it["input"] if isinstance(it["input"], str) else json.dumps(it["input"])
                 for it in items if isinstance(it, dict) and "input" in it]
        found = [t if t.endswith("\n") else t + "\n" for t in found]
        if found:
            return found
    return []

