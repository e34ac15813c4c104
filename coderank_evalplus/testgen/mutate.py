"""A test source that needs no model: inputs grown from the prompt's own examples (``examples+mutate[:N]``).

- seeds: the argument values of the problem's visible examples (``Problem.trial_tests``: HumanEval's docstring
  examples, MBPP+'s example assert, sanitized MBPP's listed asserts, LiveCodeBench's public tests), read with
  ``ast.literal_eval``; a LeetCode method's arguments are grown as a function's, a stdin program's input text by its
  tokens (``stdin_inputs``);
- growth: evalplus's type-aware mutation operators (``evalplus.gen.type_mut.TypedMutGen.typed_mutate``, the
  operators that grew HumanEval+), applied to one argument at a time so that the arity stays the seed's. Only the
  operators are reused: TypedMutGen's own ``generate`` keeps an input when the canonical solution with the
  dataset's contract accepts it, executing it in this process — hidden benchmark knowledge, and never done here;
- validity, without ground truth (:func:`keep_valid_inputs`): after the candidates ran on every new input in the
  sandbox (the same execution that the rankers read), an input is kept when more than half of the candidates that
  got past their top level returned a value on it (no exception, no timeout);
- the inputs carry no expected outputs: the suite holds the examples' asserts (what ``codet`` and b4's pass
  patterns use) and the new inputs as calls without an assert (what ``mbr_exec``, ``srank``'s clusters and
  overlap and ``overlap_agreement``'s clusters compare outputs on; ``b4`` reads asserts only).
Seeded: the same (seed, task id, examples, N) gives the same inputs, and the first k of N are the inputs N=k gives.
"""

from __future__ import annotations

import ast
import copy
import random
import re
from dataclasses import dataclass, replace
from typing import Any, Optional, Sequence

import numpy as np

from coderank_evalplus.engine.shapes import shape_of
from coderank_evalplus.testgen.extract import assert_body, is_callee, literal_repr, suite_from_asserts
from coderank_evalplus.types import FUNCTION, RETURNED, Executions, Problem, TestSuite

SOURCE = "examples+mutate"
# Default inputs per problem, chosen on a budget curve over CodeGen-16B's first 40 HumanEval problems
# (bench/mutate_budget.py: the smallest N within 0.5 points of the best mean pass@1 of five rankers, base and plus,
# over N in 0, 5, 10, 20, 50, 100; docs/results.md), problems that the headline comparison then leaves out.
GROWN_INPUTS = 10
MAX_STEPS = 5  # mutations per new input: 1..MAX_STEPS, as TypedMutGen.generate's MAX_MULTI_STEP_SIZE
MAX_CALL_CHARS = 2000  # a new input whose call text is longer is not kept (mutation can grow strings/lists)
VALID_SHARE = 0.5  # an input is valid when MORE than this share of the runnable candidates returned on it
_SPEC = re.compile(r"^examples\+mutate(?::(\d+))?$")


@dataclass(frozen=True)
class MutateSpec:
    """``examples+mutate[:N]``: N new inputs per problem."""

    n: int = GROWN_INPUTS

    def label(self) -> str:
        return f"{SOURCE}:{self.n}"


def no_pool_note(flag: str = "--tests FILE") -> str:
    """The one line a run prints when it is given no test pool and ranks on this source instead."""
    return (f"no test pool given: ranking on {SOURCE} (inputs grown from the prompt's own examples, no model); "
            f"give {flag} for a model-written pool")


def parse_source(text: str) -> Optional[MutateSpec]:
    """The spec ``text`` spells (``examples+mutate`` or ``examples+mutate:N``), or None for anything else (a file)."""
    m = _SPEC.match(text.strip())
    if m is None:
        if text.strip().startswith(SOURCE):
            raise ValueError(f"test source {text!r}: write {SOURCE} or {SOURCE}:N (N new inputs per problem)")
        return None
    n = GROWN_INPUTS if m.group(1) is None else int(m.group(1))
    if n < 0:
        raise ValueError(f"test source {text!r}: N must be >= 0")
    return MutateSpec(n)


def split_sources(sources: Sequence[str]) -> tuple[list[str], Optional[MutateSpec]]:
    """Test sources as given (files and at most one ``examples+mutate[:N]``): (the files, the spec or None)."""
    files, spec = [], None
    for s in sources:
        found = parse_source(str(s))
        if found is None:
            files.append(str(s))
        elif spec is not None:
            raise ValueError(f"test sources {list(sources)}: {SOURCE} given twice")
        else:
            spec = found
    return files, spec


MODEL_TESTS = "model"  # the test source "the model writes them" (``run``)


@dataclass(frozen=True)
class TestSources:
    """Test sources parsed once, as every entry point hands them on: ``given`` (as written, in order: what names the
    pool), the files of test samples, whether the model writes tests (``model``, on ``run``) and
    ``examples+mutate:N``'s N (``mutate``: None when it is not among them; 0 is the prompt's examples alone, no
    grown inputs)."""

    __test__ = False  # not a pytest class, whatever its name

    given: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    model: bool = False
    mutate: Optional[int] = None

    @classmethod
    def parse(cls, sources: Optional[Sequence[Any]]) -> "TestSources":
        """``sources`` (files, ``model``, at most one ``examples+mutate[:N]``) read once; ValueError on a bad spec."""
        given = tuple(str(s) for s in sources or ())
        files, spec = split_sources([s for s in given if s != MODEL_TESTS])
        return cls(given, tuple(files), MODEL_TESTS in given, spec.n if spec is not None else None)

    @property
    def spec(self) -> Optional[MutateSpec]:
        """``examples+mutate:N`` as a spec, or None."""
        return MutateSpec(self.mutate) if self.mutate is not None else None


# --- seeds ---------------------------------------------------------------------------------------------------

def _entry_call(tree: ast.AST, entry_point: str) -> Optional[ast.Call]:
    for node in ast.walk(tree):  # breadth first: the outermost call of the entry point (or a method's callee)
        if isinstance(node, ast.Call) and is_callee(node.func, entry_point):
            return node
    return None


def seed_args(test: str, entry_point: str) -> Optional[list]:
    """The literal positional arguments of the entry point's call in one example assert, or None (no such call,
    keyword or starred arguments, an argument that is not a literal)."""
    try:
        tree = ast.parse(test.strip())
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    call = _entry_call(tree, entry_point)
    if call is None or call.keywords:
        return None
    args = []
    for a in call.args:
        if isinstance(a, ast.Starred):
            return None
        try:
            args.append(ast.literal_eval(a))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    return args


def seeds_of(problem: Problem) -> list[list]:
    """Distinct argument lists of the problem's visible examples, in order."""
    seen, out = set(), []
    for t in problem.trial_tests:
        args = seed_args(t, problem.callee)
        if args is None:
            continue
        key = call_text(problem.callee, args)
        if key is not None and key not in seen:
            seen.add(key)
            out.append(args)
    return out


def call_text(entry_point: str, args: Sequence[Any]) -> Optional[str]:
    """``f(a, b)`` with each argument's repr, or None when a repr does not read back as an equal value of the same
    type (``nan``, ``inf``, objects) or the text is longer than MAX_CALL_CHARS."""
    parts = []
    for a in args:
        text = literal_repr(a)
        try:
            back = ast.literal_eval(text)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        if type(back) is not type(a) or back != a:
            return None
        parts.append(text)
    out = f"{entry_point}({', '.join(parts)})"
    return out if len(out) <= MAX_CALL_CHARS else None


# --- growth ----------------------------------------------------------------------------------------------------

class _OrderedSet(dict):
    """The part of ``set`` that TypedMutGen's ingredients use (add, iterate, truth), in insertion order: a real set
    of strings iterates in hash order, which changes with PYTHONHASHSEED, and the operators draw from
    ``list(ingredients[str])`` — so a set would give other inputs in every process."""

    def add(self, item: Any) -> None:
        self[item] = None


def _mutator(seeds: list[list], entry_point: str):
    from evalplus.gen.type_mut import TypedMutGen

    # the contract is never executed here: only TypedMutGen.generate would, and it is not called
    gen = TypedMutGen([], entry_point, contract_code="")
    gen.ingredients = {kind: _OrderedSet() for kind in gen.ingredients}
    for s in seeds:
        gen.fetch_ingredient(copy.deepcopy(s))
    return gen


def _mutate_value(gen, value: Any) -> Any:
    """One typed mutation of one argument; sets go through a sorted list (evalplus's set operator lists the set,
    in hash order)."""
    if isinstance(value, (set, frozenset)):
        try:
            items = sorted(value, key=literal_repr)
        except TypeError:
            return value
        return type(value)(gen.typed_mutate(items))
    return gen.typed_mutate(value)


def mutate_inputs(seeds: list[list], n: int, entry_point: str, rng_seed: str, shape: str = FUNCTION) -> list[list]:
    """Up to ``n`` new distinct argument lists grown from ``seeds`` (none when there are no seeds).

    Each new input starts from a random member of the pool (seeds, then the inputs grown so far, as in
    TypedMutGen.generate) and gets 1..MAX_STEPS of evalplus's typed mutations, each on one argument. The module
    ``random``'s state (what evalplus's operators draw from) is seeded with ``rng_seed`` and restored afterwards.
    A shape may grow its inputs its own way (``Shape.grow_inputs``: a stdin program's text by its tokens)."""
    if n <= 0 or not seeds or not any(seeds):
        return []
    grown = shape_of(shape).grow_inputs(seeds, n, rng_seed)
    if grown is not None:
        return grown
    gen = _mutator(seeds, entry_point)
    state = random.getstate()
    random.seed(rng_seed)
    try:
        pool = copy.deepcopy(seeds)
        seen = {call_text(entry_point, s) for s in seeds}
        out: list[list] = []
        for _ in range(50 * n + 100):  # mutation may keep producing inputs already seen (few values, bools)
            if len(out) >= n:
                break
            new = copy.deepcopy(random.choice(pool))
            if not new:
                continue
            for _ in range(random.randint(1, MAX_STEPS)):
                i = random.randrange(len(new))
                try:
                    new[i] = _mutate_value(gen, new[i])
                except (NotImplementedError, KeyError, TypeError, ValueError, IndexError, RecursionError):
                    break  # a type the operators do not know (multipledispatch raises NotImplementedError)
            key = call_text(entry_point, new)
            if key is None or key in seen:
                continue
            seen.add(key)
            pool.append(new)
            try:
                gen.fetch_ingredient(new)
            except (NotImplementedError, KeyError, TypeError):
                pass
            out.append(new)
        return out
    finally:
        random.setstate(state)


@dataclass
class GeneratedInputs:
    """What ``examples+mutate`` added to one problem's suite (stored in the results folder's problems.jsonl)."""

    seed: str
    n_requested: int
    seeds: list[str]
    calls: list[str]  # the new inputs as call expressions, in generation order
    columns: list[int]  # each new input's column in the suite's inputs (and the output matrix) before filtering
    returned_share: Optional[list[float]] = None  # per new input: share of runnable candidates that returned on it
    kept: Optional[list[bool]] = None  # per new input: kept by the validity rule

    def to_json(self) -> dict:
        return {"source": SOURCE, "seed": self.seed, "n_requested": self.n_requested, "seeds": self.seeds,
                "inputs": self.calls, "returned_share": self.returned_share, "kept": self.kept,
                "valid_share": VALID_SHARE}


def add_generated_inputs(suite: TestSuite, problem: Problem, spec: MutateSpec, seed: int,
                         with_examples: bool = True) -> tuple[TestSuite, GeneratedInputs]:
    """``suite`` (a model's pool, or empty) plus the examples' asserts (``with_examples``) and ``spec.n`` new
    inputs as calls without an assert. Returns the new suite and what was added."""
    counted = dict(zip(suite.asserts, suite.counts))
    if with_examples:
        for t in problem.trial_tests:
            body = assert_body(t.strip())
            counted[body] = counted.get(body, 0) + 1
    out = suite_from_asserts(counted, problem.callee) if with_examples else copy.deepcopy(suite)
    out.sample_asserts = suite.sample_asserts
    seeds = seeds_of(problem)
    rng_seed = f"{seed}:{problem.task_id}"
    grown = mutate_inputs(seeds, spec.n, problem.callee, rng_seed, problem.shape)
    have = {c: i for i, c in enumerate(out.inputs)}
    calls: list[str] = []
    columns: list[int] = []
    for args in grown:
        call = call_text(problem.callee, args)
        if call is None or call in have:  # None: never (mutate_inputs keeps only inputs with a call text)
            continue
        have[call] = len(out.inputs)
        columns.append(len(out.inputs))
        out.inputs.append(call)
        calls.append(call)
    # seeds_of keeps only seeds that have a call text: the filter drops nothing
    seed_calls = [c for c in (call_text(problem.callee, s) for s in seeds) if c is not None]
    return out, GeneratedInputs(rng_seed, spec.n, seed_calls, calls, columns)


def returned_share(ex: Executions, columns: Sequence[int]) -> np.ndarray:
    """Per column: the share of runnable candidates (duplicates counted) that returned a value on that input."""
    rows = np.asarray(ex.program_of_candidate)
    runnable = np.asarray(ex.compiled, dtype=bool)[rows]
    cols = np.asarray(columns, dtype=np.int64)
    if not runnable.any() or cols.size == 0:
        return np.zeros(cols.size)
    kinds = np.asarray(ex.output_kind)[rows[runnable]][:, cols]
    return (kinds == RETURNED).mean(axis=0)


def keep_valid_inputs(ex: Executions, gen: GeneratedInputs) -> Executions:
    """``ex`` without the new inputs on which at most VALID_SHARE of the runnable candidates returned (an exception
    or a timeout on the others); records the shares and the verdicts in ``gen``. Only output columns of
    assert-free calls are dropped: pass matrix, trial matrix and the asserts' inputs are untouched."""
    share = returned_share(ex, gen.columns)
    keep = share > VALID_SHARE
    gen.returned_share = [round(float(s), 4) for s in share]
    gen.kept = [bool(k) for k in keep]
    drop = {c for c, k in zip(gen.columns, keep) if not k}
    if not drop:
        return ex
    suite = ex.suite
    kept_cols = [i for i in range(len(suite.inputs)) if i not in drop]
    new_index = {old: new for new, old in enumerate(kept_cols)}
    new_suite = replace(suite, inputs=[suite.inputs[i] for i in kept_cols],
                        assert_input=[new_index[i] if i >= 0 else -1 for i in suite.assert_input])
    return replace(ex, output_matrix=ex.output_matrix[:, kept_cols], output_kind=ex.output_kind[:, kept_cols],
                   suite=new_suite)


def first_inputs(ex: Executions, generated: dict, k: int) -> Executions:
    """``ex`` (validity applied) with only the kept ones among the first ``k`` grown inputs: what
    ``examples+mutate:k`` gives, since the first k of N inputs are those N=k grows. ``generated`` is the stored
    record (``GeneratedInputs.to_json``). For budget curves without executing anything again."""
    order = {c: i for i, c in enumerate(generated.get("inputs") or [])}
    suite = ex.suite
    cols = [i for i, c in enumerate(suite.inputs) if order.get(c, -1) < k]
    new_index = {old: new for new, old in enumerate(cols)}
    new_suite = replace(suite, inputs=[suite.inputs[i] for i in cols],
                        assert_input=[new_index[i] if i >= 0 else -1 for i in suite.assert_input])
    return replace(ex, output_matrix=ex.output_matrix[:, cols], output_kind=ex.output_kind[:, cols], suite=new_suite)
