"""A ``Problem`` from its fields, whatever its call shape: the one builder behind every reader of problems (your own
benchmark's records, LiveCodeBench's records, ``pick``'s prompt, evalplus's datasets), and your own benchmark's
record format.

The shape is decided once, by ``engine/shapes.decide``, from the prompt, the entry point and the kind of tests; the
rest follows from it. Trial tests (what the prompt shows, run as evidence) are the public input/output tests when
there are any, as LiveCodeBench shows them, else the prompt's examples read for the shape: a function's docstring
(``testgen/prompt_examples.py``), a class's method's (``testgen/leetcode.py``). A problem with input/output tests
is judged on all of them, public then private, with LiveCodeBench's grader's rules and time limit
(``engine/judging/lcb_judge.py``).

Your own benchmark, one JSON object a line (a file may mix the shapes, and LiveCodeBench's records):

* a function: ``task_id, prompt, entry_point`` and ``test`` (asserts, or HumanEval's ``check(candidate)``), or
  ``canonical_solution`` with ``base_input`` (and ``plus_input``, ``atol``) to be judged as evalplus judges;
* a class's method: the same fields, the prompt a class whose method the entry point is (or names the class), its
  ``test`` calling ``Solution().f(…)``; or input/output tests as below, each input line a JSON argument;
* a stdin program: ``task_id, prompt`` (the statement) and ``public_tests`` / ``private_tests``: lists of
  ``{"input": …, "output": …}`` texts, LiveCodeBench's ``public_test_cases`` / ``private_test_cases`` written as
  lists; the public ones are the trial tests, as the statement shows them.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Any, Callable, Optional, Sequence

from coderank_evalplus.engine import shapes
from coderank_evalplus.engine.lcb import TIMEOUT_S
from coderank_evalplus.io.jsonl import SampleFileError
from coderank_evalplus.testgen.io_tests import io_assert
from coderank_evalplus.types import STDIN, IOTest, Problem

FIELDS = ("task_id", "prompt", "entry_point", "test", "canonical_solution", "base_input", "plus_input", "atol",
          "public_tests", "private_tests")
IO_FIELDS = ("public_tests", "private_tests")
LIVECODEBENCH = shapes.shape_of(STDIN).own_dataset  # a stdin program's dataset: LiveCodeBench's prompts are made for it


def build_problem(task_id: str, prompt: str, entry_point: Optional[str] = None, *, test: str = "",
                  public: Sequence[IOTest] = (), private: Sequence[IOTest] = (), dataset: str = "humaneval",
                  canonical_solution: str = "", base_input: Optional[list] = None, plus_input: Optional[list] = None,
                  atol: float = 0.0, dataset_hash: str = "", dataset_hash_aliases: frozenset[str] = frozenset(),
                  metadata: Optional[dict] = None) -> Problem:
    """The problem of these fields, its shape decided by ``shapes.decide`` (ValueError, saying why, when the
    prompt, the entry point and the tests fit no shape). ``test``: runnable test code (asserts) as given;
    ``public`` / ``private``: input/output tests (then judged on them, public first)."""
    io_tests = tuple(public) + tuple(private)
    decided = shapes.decide(prompt, entry_point, bool(io_tests))
    trials, body = _trials_and_body(decided, prompt, public, canonical_solution, dataset)
    return Problem(task_id=task_id, dataset=dataset, prompt=prompt, entry_point=decided.entry_point,
                   canonical_solution=canonical_solution, base_input=[] if base_input is None else base_input,
                   plus_input=[] if plus_input is None else plus_input,
                   atol=atol, trial_tests=trials, test_prompt_body=body, original_test=test,
                   dataset_hash=dataset_hash, dataset_hash_aliases=dataset_hash_aliases, shape=decided.shape,
                   class_name=decided.class_name, io_tests=io_tests, public_tests=len(public),
                   time_limit=float(TIMEOUT_S) if io_tests else 0.0, metadata=dict(metadata or {}))


def _trials_and_body(decided: shapes.CallShape, prompt: str, public: Sequence[IOTest], canonical_solution: str,
                     dataset: str) -> tuple[tuple[str, ...], str]:
    """The trial tests and the body a test-generation prompt shows (the prompt without its examples)."""
    callee = Problem("", dataset, prompt, decided.entry_point, shape=decided.shape,
                     class_name=decided.class_name).callee
    if public:
        found = (io_assert(decided.shape, callee, t.input, t.output) for t in public)
        return tuple(t for t in found if t is not None), prompt
    return shapes.shape_of(decided.shape).trials_and_body(prompt, decided.entry_point, decided.class_name,
                                                          canonical_solution, dataset)


# --- your own benchmark's records ------------------------------------------------------------------------------
def from_record(rec: dict, where: str, dataset_hash: str = "") -> Problem:
    """One record of your own benchmark as a Problem (SampleFileError naming ``where`` and the field when it is
    malformed or fits no shape)."""
    def bad(name: str, why: str) -> SampleFileError:
        return SampleFileError(f"{where}: field '{name}': {why}")

    _check_fields(rec, bad)
    tests = {name: _io_tests(rec[name], f"{where}: field '{name}'") for name in IO_FIELDS if name in rec}
    if any(name in rec for name in IO_FIELDS) and not any(tests.values()):
        raise bad(next(iter(tests)), "no tests (give at least one input/output pair)")
    test = rec.get("test", "")
    if test:
        try:
            ast.parse(test)
        except SyntaxError as exc:
            raise bad("test", f"does not compile (line {exc.lineno}: {exc.msg})") from None
    try:
        problem = build_problem(rec["task_id"], rec["prompt"], rec.get("entry_point"), test=test,
                                public=tests.get("public_tests", ()), private=tests.get("private_tests", ()),
                                canonical_solution=rec.get("canonical_solution", ""), base_input=rec.get("base_input"),
                                plus_input=rec.get("plus_input"), atol=float(rec.get("atol", 0) or 0),
                                dataset_hash=dataset_hash)
    except ValueError as exc:
        raise bad("entry_point", str(exc)) from None
    _check_tests_fit_shape(problem, "base_input" in rec, tests, bad)
    shape = shapes.shape_of(problem)
    if shape.own_dataset:  # prompted as that dataset prompts its problems: the statement, then the shape's input
        return replace(problem, dataset=shape.own_dataset, metadata={"question_content": problem.prompt})
    return replace(problem, original_test=with_check_call(test, problem.callee)) if test else problem


def _check_fields(rec: dict, bad: Callable[[str, str], SampleFileError]) -> None:
    """Every field known, present when required and of its type; one kind of tests."""
    unknown = sorted(set(map(str, rec)) - set(FIELDS))
    if unknown:
        raise bad(unknown[0], f"unknown (a problem has {', '.join(FIELDS)})")
    _check_text_fields(rec, bad)
    io = any(name in rec for name in IO_FIELDS)
    clash = [n for n in ("test", "canonical_solution", "base_input", "plus_input", "atol") if io and n in rec]
    if clash:
        raise bad(clash[0], "a problem with public_tests / private_tests is judged on them: give one kind of tests")
    for name in ("base_input", "plus_input"):
        if name in rec and not (isinstance(rec[name], list) and all(isinstance(a, list) for a in rec[name])):
            raise bad(name, "expected a list of argument lists")
    if "plus_input" in rec and "base_input" not in rec:
        raise bad("base_input", "missing (plus_input needs base_input)")
    if "atol" in rec and (isinstance(rec["atol"], bool) or not isinstance(rec["atol"], (int, float))):
        raise bad("atol", f"expected a number, got {type(rec['atol']).__name__}")


def _check_text_fields(rec: dict, bad: Callable[[str, str], SampleFileError]) -> None:
    """The text fields: each required one present and non-empty (which are required depends on the kind of tests)."""
    io = any(name in rec for name in IO_FIELDS)
    has_inputs = "base_input" in rec
    for name in ("task_id", "prompt", "entry_point", "test", "canonical_solution"):
        required = name in ("task_id", "prompt") or (name == "entry_point" and not io) or (
            name == "test" and not io and not has_inputs) or (name == "canonical_solution" and has_inputs)
        if name not in rec:
            if required:
                raise bad(name, "missing" + _MISSING.get(name, ""))
            continue
        if not isinstance(rec[name], str) or ((required or name == "entry_point") and not rec[name].strip()):
            raise bad(name, f"expected a non-empty string, got {type(rec[name]).__name__}")


def _check_tests_fit_shape(problem: Problem, has_inputs: bool, tests: dict[str, tuple[IOTest, ...]],
                           bad: Callable[[str, str], SampleFileError]) -> None:
    """evalplus's inputs only where the shape takes argument lists; every input/output test readable as one of the
    shape's asserts (a method's tests that are not JSON would be no trial test, no test)."""
    shape = shapes.shape_of(problem)
    if has_inputs and not shape.evalplus_inputs:
        raise bad("base_input", f"evalplus's inputs are a function's arguments; {problem.callee} is a {shape.name} "
                                "(give test asserts, or public_tests / private_tests)")
    for name, items in tests.items():
        wrong = [i for i, t in enumerate(items, 1)
                 if io_assert(problem.shape, problem.callee, t.input, t.output) is None]
        if wrong:
            raise bad(name, f"test {wrong[0]}: a method's input is one JSON value a line (its arguments) and its "
                            "output one JSON value")


_MISSING = {"test": " (or give base_input with a canonical_solution, or public_tests / private_tests)",
            "entry_point": " (a function or a method names it; a stdin program gives public_tests / private_tests "
                           "instead)"}


def _io_tests(value: Any, where: str) -> tuple[IOTest, ...]:
    if not isinstance(value, list):
        raise SampleFileError(f'{where}: expected a list of {{"input": TEXT, "output": TEXT}}, got '
                              f"{type(value).__name__}")
    for i, item in enumerate(value, 1):
        if not (isinstance(item, dict) and set(item) == {"input", "output"}
                and all(isinstance(v, str) for v in item.values())):
            raise SampleFileError(f'{where}: test {i}: expected {{"input": TEXT, "output": TEXT}}')
    return tuple(IOTest(item["input"], item["output"]) for item in value)


def with_check_call(test: str, callee: str) -> str:
    """A test that defines ``check(candidate)`` without calling it (HumanEval's original format, which its harness
    calls) gets the call, on ``callee``; any other test is left as it is."""
    tree = ast.parse(test)
    defines_check = any(isinstance(n, ast.FunctionDef) and n.name == "check" for n in tree.body)
    calls_check = any(isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)
                      and isinstance(n.value.func, ast.Name) and n.value.func.id == "check" for n in tree.body)
    return test + f"\n\ncheck({callee})\n" if defines_check and not calls_check else test
