"""Which call shape a problem has (``decide``), and one object per shape (``shape_of``) holding everything that
depends on it: what runs for a candidate, how a reply and a candidate are read, which tests are asked for and how
they read, how inputs grow, how a call's result is compared and said. The one place that knows the shapes. Every
reader of problems asks ``decide`` (your own benchmark's records, LiveCodeBench's, ``pick``'s prompt), so a problem
has one shape whichever entry point it came through.

* function: the program as it is; a test calls ``f(args)`` and compares with ``==``;
* method: LiveCodeBench's imports, then the program; a test calls ``Solution().f(args)`` and compares with ``==``;
* stdin: the program rewritten as LiveCodeBench rewrites it, with a harness (``engine/lcb.py``); a test calls
  ``run_stdin(input)``, which returns the program's output, and an expected output is compared with
  LiveCodeBench's line rule (comparison ``"stdout"``), not with ``==``.

A function's program text, and so every cache key of the function shape, is exactly what it was before shapes.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import random
import re
from typing import Any, Callable, Iterable, NamedTuple, Optional

from coderank_evalplus.engine import lcb
from coderank_evalplus.engine.sandbox.split import STDOUT
from coderank_evalplus.testgen import stdin_inputs
from coderank_evalplus.testgen.extract import build_suite, literal_repr, parse_assert
from coderank_evalplus.types import FUNCTION, METHOD, STDIN, STDIN_CALLEE, Problem, TestSuite

__all__ = ["STDOUT", "CallShape", "decide", "find_entry_point", "check_shape", "runnable", "comparison",
           "preload_modules", "Shape", "FunctionShape", "MethodShape", "StdinProgramShape", "register_shape",
           "shape_of"]

IO_CLASS = "Solution"  # the class whose method input/output tests call (LiveCodeBench's grader: ``Solution()``)
_IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")


class CallShape(NamedTuple):
    """A problem's call shape as decided: the shape, the function or method a test calls (``run_stdin`` for a stdin
    program) and, for a method, its class."""

    shape: str
    entry_point: str
    class_name: str = ""


def _top_level_functions(prompt: str) -> list[str]:
    try:
        return [n.name for n in ast.parse(prompt).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # an unfinished prompt: read the def lines
        return re.findall(r"(?m)^(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(", prompt)


def find_entry_point(prompt: str) -> str:
    """The function a prompt asks for: the last top-level ``def`` in it (HumanEval's prompts define helpers first).
    ValueError when the prompt defines none."""
    names = _top_level_functions(prompt)
    if not names:
        raise ValueError("the prompt defines no function: give its entry point")
    return names[-1]


def decide(prompt: str, entry_point: Optional[str] = None, io_tests: bool = False) -> CallShape:
    """The call shape of a problem from its prompt, its entry point (None: found in the prompt) and whether its tests
    are input/output text (``io_tests``: LiveCodeBench's public / private tests, your own file's ``public_tests`` /
    ``private_tests``) rather than asserts or evalplus inputs:

    * input/output tests and no entry point: a stdin program (its tests call ``run_stdin``);
    * the entry point a method of a class of the prompt, and not one of its top-level functions (or the entry point
      names the class; or none is given and the prompt's class has a public method and the prompt no top-level
      function): that method, called on an instance (``testgen/leetcode.py`` reads the class);
    * input/output tests with an entry point the prompt does not define: a method of ``Solution``, which
      LiveCodeBench's functional tests call (a LeetCode record's starter code may be empty);
    * else a function: the entry point, or the prompt's last top-level ``def``.

    ValueError, saying why, when the entry point is not a Python name, when input/output tests come with a top-level
    function or with a class other than ``Solution`` (the grader of such tests calls ``Solution().f``), or when the
    prompt defines no function and none is named."""
    from coderank_evalplus.testgen import leetcode

    if entry_point is not None and not _IDENTIFIER.match(entry_point):
        raise ValueError(f"entry point {entry_point!r} is not a Python name")
    if io_tests and not entry_point:
        return CallShape(STDIN, STDIN_CALLEE)
    method = leetcode.method_of(prompt, entry_point)
    if method is not None:
        cls, name = method[0], method[1]
        if io_tests and cls != IO_CLASS:
            raise ValueError(f"{name!r} is a method of class {cls}: input/output tests call {IO_CLASS}().{name}, "
                             f"as LiveCodeBench's grader does; name the class {IO_CLASS}")
        return CallShape(METHOD, name, cls)
    if io_tests:
        assert entry_point  # (no entry point: a stdin program, above)
        if entry_point in _top_level_functions(prompt):
            raise ValueError(f"{entry_point!r} is a function of the prompt: input/output tests are a stdin "
                             f"program's or a method's of class {IO_CLASS}; a function's tests are asserts")
        return CallShape(METHOD, entry_point, IO_CLASS)
    return CallShape(FUNCTION, entry_point or find_entry_point(prompt))


def check_shape(shape: str) -> str:
    if shape not in _SHAPES:
        raise ValueError(f"unknown call shape {shape!r}; one of {', '.join(_SHAPES)}")
    return shape


# --- one object per shape ------------------------------------------------------------------------------------------
class Shape:
    """Everything that depends on how a test calls a candidate, for one call shape: what runs, how a reply and a
    candidate are read, which tests are asked for and how they read, how inputs grow, what a call gives back and
    how it is compared and said. The defaults are a function's, except what keeps a new shape's results apart
    from a function's (its judge's cache key, its results record) and evalplus's argument lists; a shape overrides
    what differs. A new shape is one subclass registered with ``register_shape``; the modules that act on a problem
    ask ``shape_of(problem)``.

    Attributes (data the modules above read; the code that uses them stays where it is):

    * ``call_result``: what a probe says a call gave, and how it writes the value (bound at import: a candidate may
      replace the builtins);
    * ``result_verb``: what a program does with its result, in words (``pick``'s "returns 12", "prints 6");
    * ``json_io``: its input/output tests are JSON arguments and a JSON value (LiveCodeBench's functional tests),
      not text;
    * ``reads_stdin``: a test's input is the text on standard input (S* asks for such inputs);
    * ``reply_is_program``: a chat reply is its fenced program, whole, as LiveCodeBench reads it (else the reply is
      sanitized for the entry point, as evalplus reads one);
    * ``io_pair_input``: a chat prompt asking for input/output pairs describes an input so (``{entry_point}`` filled
      in); None: the shape's tests are asked for as asserts;
    * ``evalplus_inputs``: its tests may be evalplus's argument lists;
    * ``own_dataset``: the dataset its records of your own benchmark are prompted as ("": as given).
    """

    name: str = FUNCTION
    preload_modules: tuple[str, ...] = ()
    call_result: tuple[str, Callable[[Any], str]] = ("returned", repr)
    result_verb = "return"
    json_io = False
    reads_stdin = False
    reply_is_program = False
    io_pair_input: Optional[str] = None
    evalplus_inputs = False
    own_dataset = ""

    def runnable(self, program: str) -> str:
        """The text a sandbox child executes for ``program``."""
        return program

    def comparison(self, cmp: str) -> str:
        """The comparison a parsed check (``f(x) == y``: ``cmp`` as parsed) uses."""
        return cmp

    @property
    def cache_tag(self) -> str:
        """What a judge's cache key adds for this shape (a function's keys are as they were before shapes)."""
        return f"|{self.name}"

    def record_fields(self, problem: Problem) -> dict[str, str]:
        """What a results folder's problem record adds for this shape (a function's record is as before shapes)."""
        return {"shape": problem.shape, "class_name": problem.class_name}

    def trial_check(self, body: str, callee: str) -> Optional[tuple[str, Optional[str], str]]:
        """A trial test's assert read as (call, expected, comparison), where the shape compares what a call gives
        by its own rule instead of running the assert; None: the assert runs as it is."""
        return None

    def grow_inputs(self, seeds: list[list], n: int, rng_seed: str) -> Optional[list[list]]:
        """Up to ``n`` new inputs grown from ``seeds``; None: grown by evalplus's typed mutation of the arguments
        (``testgen/mutate.py``)."""
        return None

    def edge_inputs(self, seeds: list[list], n: int) -> Optional[list[list]]:
        """Up to ``n`` inputs at the edges derived from ``seeds``; None: each argument moved to the boundaries of its
        type (``testgen/edges.py``)."""
        return None

    def entry_point_scope(self, tree: ast.Module, problem: Problem) -> Optional[list[ast.stmt]]:
        """The statements of a parsed candidate where the entry point must be bound (None: nothing needs binding,
        or it may come from elsewhere): a function's, the module's top level."""
        return tree.body

    def as_program(self, candidate: str, problem: Problem) -> str:
        """A candidate as a full program: itself when it defines the entry point at the top level, else the prompt
        followed by it (a completion of the prompt's function)."""
        if re.search(rf"(?m)^(?:async\s+)?def\s+{re.escape(problem.entry_point)}\s*\(", candidate):
            return candidate
        return problem.prompt + candidate

    def test_generation_prompt(self, problem: Problem) -> Optional[str]:
        """CodeT's test-generation prompt for this shape; None: the function's (``testgen/prompts.py``)."""
        return None

    def test_callee(self, problem: Problem) -> str:
        """What a model's tests call, in the language it is asked to write them in."""
        return problem.callee

    def io_assert(self, callee: str, inp: str, expected: str) -> Optional[str]:
        """One input/output pair as an assert on ``callee`` (text in, text out); None when it cannot be one."""
        return f"assert {callee}({inp!r}) == {expected!r}"

    def suite(self, problem: Problem, raw_samples: Iterable[str], tests_per_sample: Optional[int]) -> TestSuite:
        """The suite of raw test samples (CodeT's extraction) in this shape's test language."""
        return build_suite(raw_samples, problem.callee, tests_per_sample)

    def trials_and_body(self, prompt: str, entry_point: str, class_name: str, canonical_solution: str,
                        dataset: str) -> tuple[tuple[str, ...], str]:
        """The prompt's examples as trial tests, and the body a test-generation prompt shows (the prompt without
        its examples)."""
        from coderank_evalplus.testgen import prompt_examples

        return (tuple(prompt_examples.trial_tests_from_prompt(prompt, entry_point)),
                prompt_examples.make_test_prompt_body(prompt, entry_point, canonical_solution, dataset))

    def input_request(self, problem: Problem) -> str:
        """How S* asks a model to write the inputs it wants."""
        return (f"Write each input as a call of `{problem.callee}` with literal arguments, one call per line, in a "
                "single ```python code block. Do not predict the outputs.")

    def reply_opener(self, problem: Problem) -> str:
        """The start of the answer to S*'s question, written for the model."""
        return f"```python\n{problem.callee}("


class FunctionShape(Shape):
    """A function (HumanEval, MBPP): the program as it is, ``f(args)`` compared with ``==``."""

    name = FUNCTION
    evalplus_inputs = True

    @property
    def cache_tag(self) -> str:
        return ""

    def record_fields(self, problem: Problem) -> dict[str, str]:
        return {}


class MethodShape(Shape):
    """A method of a class (LeetCode): LiveCodeBench's imports, then the program; ``Solution().f(args)``."""

    name = METHOD
    json_io = True
    reply_is_program = True
    io_pair_input = ("the arguments of `{entry_point}`, one JSON value per line, and \"output\" the JSON value it "
                     "returns")

    def runnable(self, program: str) -> str:
        return lcb.method_module(program)

    def entry_point_scope(self, tree: ast.Module, problem: Problem) -> Optional[list[ast.stmt]]:
        """The class's body (the last class of the name binds it); None when that class has bases: the method may
        come from one."""
        classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == (problem.class_name or IO_CLASS)]
        if classes and classes[-1].bases:
            return None
        return classes[-1].body if classes else []

    def as_program(self, candidate: str, problem: Problem) -> str:
        if re.search(rf"(?m)^class\s+{re.escape(problem.class_name or IO_CLASS)}\b", candidate):
            return candidate
        return super().as_program(candidate, problem)

    def test_generation_prompt(self, problem: Problem) -> Optional[str]:
        """The statement, unless the prompt's own docstring is all there is (your own file), the starter code,
        ``pass``, then ``assert `` on the method."""
        statement = str(problem.metadata.get("question_content") or "").strip().replace("'''", '"""')
        head = f"'''\n{statement}\n'''\n" if statement else ""
        return (f"{head}{problem.prompt.rstrip()}\n        pass\n\n"
                f"# check the correctness of {problem.callee}\nassert ")

    def io_assert(self, callee: str, inp: str, expected: str) -> Optional[str]:
        """``assert Solution().f(a, b) == out``: each non-blank input line a JSON argument, the output a JSON value,
        as LiveCodeBench's functional tests are written; None when they are not JSON."""
        try:
            args = [json.loads(line) for line in inp.split("\n") if line.strip()]
            value = json.loads(expected)
        except ValueError:
            return None
        return f"assert {callee}({', '.join(literal_repr(a) for a in args)}) == {literal_repr(value)}"

    def trials_and_body(self, prompt: str, entry_point: str, class_name: str, canonical_solution: str,
                        dataset: str) -> tuple[tuple[str, ...], str]:
        from coderank_evalplus.testgen import leetcode

        method = leetcode.method_of(prompt, entry_point)
        if method is None:
            return (), prompt
        cls, name, params, doc = method
        return tuple(leetcode.trial_tests(doc, cls, name, params)), prompt


class StdinProgramShape(Shape):
    """A program reading stdin (AtCoder, Codeforces, CodeContests): rewritten into LiveCodeBench's harness; a test
    calls ``run_stdin(input)``, which returns what it printed, compared with LiveCodeBench's line rule."""

    name = STDIN
    preload_modules = ("unittest.mock",)
    call_result = ("printed", str)
    result_verb = "print"
    reads_stdin = True
    reply_is_program = True
    io_pair_input = "the exact text given on standard input and \"output\" the exact text the program must print"
    own_dataset = "livecodebench"  # prompted as LiveCodeBench prompts a stdin program: the statement, then stdin

    def runnable(self, program: str) -> str:
        return lcb.stdin_module(program)

    def comparison(self, cmp: str) -> str:
        return STDOUT if cmp in ("==", "r==") else cmp

    def trial_check(self, body: str, callee: str) -> Optional[tuple[str, Optional[str], str]]:
        return parse_assert(body, callee)

    def grow_inputs(self, seeds: list[list], n: int, rng_seed: str) -> Optional[list[list]]:
        """A stdin program's input (one string argument) grows by its tokens (``stdin_inputs.grow``)."""
        texts = [s[0] for s in seeds if len(s) == 1 and isinstance(s[0], str)]
        return [[t] for t in stdin_inputs.grow(texts, n, random.Random(rng_seed))]

    def edge_inputs(self, seeds: list[list], n: int) -> Optional[list[list]]:
        """A stdin program's input at the edges: its numbers moved to boundaries, its layout kept
        (``stdin_inputs.edges``)."""
        texts = [s[0] for s in seeds if len(s) == 1 and isinstance(s[0], str)]
        return [[t] for t in stdin_inputs.edges(texts, n)]

    def entry_point_scope(self, tree: ast.Module, problem: Problem) -> Optional[list[ast.stmt]]:
        return None  # a whole program binds nothing the tests call

    def as_program(self, candidate: str, problem: Problem) -> str:
        return candidate

    def test_generation_prompt(self, problem: Problem) -> Optional[str]:
        return codet_stdin_prompt(problem)

    def test_callee(self, problem: Problem) -> str:
        return CODET_STDIN_ENTRY

    def suite(self, problem: Problem, raw_samples: Iterable[str], tests_per_sample: Optional[int]) -> TestSuite:
        """A stdin program's samples may call CodeT's ``solution(stdin)`` or ``run_stdin``; both run the program."""
        return build_suite([_CODET_CALL.sub(f"{STDIN_CALLEE}(", s) for s in raw_samples], STDIN_CALLEE,
                           tests_per_sample)

    def trials_and_body(self, prompt: str, entry_point: str, class_name: str, canonical_solution: str,
                        dataset: str) -> tuple[tuple[str, ...], str]:
        return (), prompt

    def input_request(self, problem: Problem) -> str:
        return ('Answer with a JSON list in one ```json code block, each item an object {"input": <the exact text '
                'given on standard input>}. Do not predict the outputs.')

    def reply_opener(self, problem: Problem) -> str:
        return '```json\n[{"input": "'


CODET_STDIN_ENTRY = "solution"  # CodeT's name for a program that maps stdin to stdout
_CODET_CALL = re.compile(r"\bsolution\s*\(")


def statement(problem: Problem) -> str:
    """The problem's statement: LiveCodeBench's question, else the prompt."""
    return str(problem.metadata.get("question_content") or problem.prompt).strip()


def codet_stdin_prompt(problem: Problem) -> str:
    """CodeT's test-generation prompt for CodeContests, for any problem stated in text."""
    text = statement(problem).replace("'''", '"""')
    return (f"'''\n{text}\n'''\ndef solution(stdin: str) -> str:\n    pass\n\n"
            f"# check the correctness of solution\nassert ")


_SHAPES: dict[str, Shape] = {}
# modules outside this one that register shapes: a worker (a fresh interpreter, started with this environment)
# imports them when it meets a shape it does not know
SHAPE_MODULES_ENV = "CODERANK_SHAPE_MODULES"


def register_shape(shape: Shape) -> Shape:
    """Make ``shape`` the one object of its name (``shape.name``), which problems name in ``Problem.shape``. A shape
    defined in another module is registered when that module is imported (at its top level), so that the workers
    that run candidates find it too."""
    _SHAPES[shape.name] = shape
    module = type(shape).__module__
    known = [m for m in os.environ.get(SHAPE_MODULES_ENV, "").split(",") if m]
    if module != __name__ and module not in known:
        os.environ[SHAPE_MODULES_ENV] = ",".join(known + [module])
    return shape


for _builtin in (FunctionShape(), MethodShape(), StdinProgramShape()):
    register_shape(_builtin)


def shape_of(problem: "Problem | str") -> Shape:
    """The shape object of a problem (or of a shape's name)."""
    name = problem if isinstance(problem, str) else problem.shape
    if name not in _SHAPES:
        for module in filter(None, os.environ.get(SHAPE_MODULES_ENV, "").split(",")):
            importlib.import_module(module)
    return _SHAPES[check_shape(name)]


def runnable(shape: str, program: str) -> str:
    """The text a sandbox child executes for ``program`` under ``shape``."""
    return shape_of(shape).runnable(program)


def comparison(shape: str, cmp: str) -> str:
    """The comparison a parsed check uses under ``shape``: a stdin program's ``run_stdin(x) == y`` compares outputs
    with LiveCodeBench's rule; everything else as parsed."""
    return shape_of(shape).comparison(cmp)


def preload_modules(shape: str) -> tuple[str, ...]:
    """Modules a worker loads once before forking the children of this shape's programs (each child would)."""
    return shape_of(shape).preload_modules
