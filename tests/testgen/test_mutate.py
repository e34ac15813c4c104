"""The ``examples+mutate`` test source: seeds from the examples, seeded mutation, validity from the candidates."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from coderank_evalplus.engine.execution.execute import ProblemWork, execute
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.testgen.mutate import (
    GROWN_INPUTS,
    MutateSpec,
    TestSources,
    add_generated_inputs,
    call_text,
    first_inputs,
    keep_valid_inputs,
    mutate_inputs,
    parse_source,
    seed_args,
    seeds_of,
    split_sources,
)
from coderank_evalplus.types import RETURNED, TIMED_OUT, Problem
from coderank_evalplus.types import TestSuite as Suite
from tests.conftest import SHARED_DATA, needs_data

# candidates of a hand-made problem: the square root, rounded down; most crash on negative numbers
ISQRT = Problem(task_id="T/isqrt", dataset="humaneval", prompt="def isqrt(x):\n", entry_point="isqrt",
                trial_tests=("assert isqrt(4) == 2", "assert isqrt(1) == 1", "assert isqrt(0) == 0"))
CRASH_1 = "import math\ndef isqrt(x):\n    return math.isqrt(x)\n"
CRASH_2 = "def isqrt(x):\n    if x < 0:\n        raise ValueError(x)\n    return int(x ** 0.5)\n"
CRASH_3 = ("def isqrt(x):\n    r = 0\n    while (r + 1) * (r + 1) <= x:\n        r += 1\n    assert x >= 0\n"
           "    return r\n")
TOLERANT = "def isqrt(x):\n    return 0 if x < 0 else int(x ** 0.5)\n"
LOOPS = "def isqrt(x):\n    while x < 0:\n        pass\n    return int(x ** 0.5)\n"


def test_source_spelling():
    assert parse_source("examples+mutate") == MutateSpec(GROWN_INPUTS)
    assert parse_source("examples+mutate:7") == MutateSpec(7)
    assert parse_source("tests.jsonl") is None
    with pytest.raises(ValueError, match="examples\\+mutate:N"):
        parse_source("examples+mutate:x")
    assert split_sources(["a.jsonl", "examples+mutate:3"]) == (["a.jsonl"], MutateSpec(3))
    with pytest.raises(ValueError, match="twice"):
        split_sources(["examples+mutate", "examples+mutate:3"])


def test_test_sources_are_parsed_once_into_one_value():
    """``TestSources``: what every entry point hands on; 0 is the examples alone, None no examples+mutate."""
    parsed = TestSources.parse(["model", "a.jsonl", "examples+mutate:0"])
    assert parsed.files == ("a.jsonl",) and parsed.model and parsed.mutate == 0 and parsed.spec == MutateSpec(0)
    assert parsed.given == ("model", "a.jsonl", "examples+mutate:0")
    assert TestSources.parse(["examples+mutate"]).mutate == GROWN_INPUTS
    assert TestSources.parse(["a.jsonl"]).mutate is None and TestSources.parse(None) == TestSources()
    with pytest.raises(ValueError, match="twice"):
        TestSources.parse(["examples+mutate", "model", "examples+mutate:3"])


def test_seed_args_read_literal_arguments_of_the_entry_call():
    assert seed_args("assert f([1.0, 2.0], 0.5) == False", "f") == [[1.0, 2.0], 0.5]
    assert seed_args("assert set(f((3, 4), (5, 4))) == set((4,))", "f") == [(3, 4), (5, 4)]  # wrapped call
    assert seed_args("assert math.isclose(f(2.0), 1.4, rel_tol=0.001)", "f") == [2.0]
    assert seed_args("assert f('a b') == ['a', 'b']", "f") == ["a b"]
    assert seed_args("assert f(x) == 1", "f") is None  # not a literal
    assert seed_args("assert f(1, k=2) == 1", "f") is None  # keywords are not seeds
    assert seed_args("assert g(1) == 1", "f") is None
    assert call_text("f", [[1, 2], "a"]) == "f([1, 2], 'a')"
    assert call_text("f", [float("nan")]) is None  # does not read back as an equal value


@needs_data
@pytest.mark.parametrize("dataset, task, expected", [
    ("humaneval", "HumanEval/0", [[[1.0, 2.0, 3.0], 0.5], [[1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3]]),  # docstring
    ("mbpp", "Mbpp/2", [[(3, 4, 5, 6), (5, 7, 4, 10)]]),  # MBPP+'s example assert (wrapped in set())
    # sanitized MBPP: the first listed assert, the one its prompt shows (the others are the judge's tests)
    ("mbpp-sanitized", "Mbpp/3", [[2]]),
])
def test_seeds_from_each_dataset_format(dataset, task, expected):
    from coderank_evalplus.io.problems import load_problems

    problems = load_problems(dataset, str(SHARED_DATA))
    assert seeds_of(problems[task]) == expected
    with_seeds = sum(1 for p in problems.values() if seeds_of(p))
    assert with_seeds >= 0.9 * len(problems)


def test_mutation_is_reproducible_per_seed_and_leaves_random_alone():
    seeds = [[[1, 2, 3], "ab"], [[4], "c d"]]
    random.seed(123)
    before = random.random()
    random.seed(123)
    a = mutate_inputs(seeds, 30, "f", "0:T/1")
    assert random.random() == before  # the caller's random state is restored
    assert a == mutate_inputs(seeds, 30, "f", "0:T/1")
    assert a != mutate_inputs(seeds, 30, "f", "1:T/1")
    assert mutate_inputs(seeds, 10, "f", "0:T/1") == a[:10]  # the first k of N are what N=k gives
    assert len(a) == 30 and len({call_text("f", x) for x in a}) == 30
    assert all(len(x) == 2 and isinstance(x[0], list) and isinstance(x[1], str) for x in a)  # arity, types kept
    assert mutate_inputs([], 10, "f", "0") == [] and mutate_inputs([[]], 10, "f", "0") == []


def _isqrt_executions(programs, n=40):
    suite, gen = add_generated_inputs(Suite(), ISQRT, MutateSpec(n), seed=0)
    ex = execute([ProblemWork(ISQRT, programs, suite)], None, Limits(cpu=0.1), workers=2, progress=False)[ISQRT.task_id]
    return ex, gen


def test_validity_drops_inputs_most_candidates_crash_on():
    ex, gen = _isqrt_executions([CRASH_1, CRASH_2, CRASH_3, TOLERANT])
    values = [json.loads(c[len("isqrt("):-1]) for c in gen.calls]
    assert any(v < 0 for v in values) and any(v >= 0 for v in values)
    kept = keep_valid_inputs(ex, gen)
    assert gen.kept == [v >= 0 for v in values]  # 3 of 4 raise on a negative number: not valid
    assert gen.returned_share == [0.25 if v < 0 else 1.0 for v in values]
    new = set(kept.suite.inputs) - {"isqrt(4)", "isqrt(1)", "isqrt(0)"}
    assert new == {c for c, v in zip(gen.calls, values) if v >= 0}
    assert kept.output_matrix.shape == (4, len(kept.suite.inputs)) == kept.output_kind.shape
    # the examples' asserts still point at their own inputs, and pass for every candidate
    assert [kept.suite.inputs[i] for i in kept.suite.assert_input] == ["isqrt(4)", "isqrt(1)", "isqrt(0)"]
    assert (kept.pass_matrix == ex.pass_matrix).all()
    # first_inputs(k) keeps the valid ones among the first k grown inputs only
    sub = first_inputs(kept, gen.to_json(), 5)
    assert set(sub.suite.inputs) - {"isqrt(4)", "isqrt(1)", "isqrt(0)"} == {
        c for c, v in zip(gen.calls[:5], values[:5]) if v >= 0}


@pytest.mark.slow
def test_a_candidate_looping_forever_costs_its_time_limit_not_the_run():
    ex, gen = _isqrt_executions([TOLERANT, LOOPS, TOLERANT], n=25)
    values = [json.loads(c[len("isqrt("):-1]) for c in gen.calls]
    assert any(v < 0 for v in values)
    loops = ex.output_kind[ex.program_of_candidate[1]]
    cols = gen.columns
    assert all(loops[c] == (TIMED_OUT if v < 0 else RETURNED) for c, v in zip(cols, values))
    assert (ex.output_kind[ex.program_of_candidate[0]] == RETURNED).all()
    kept = keep_valid_inputs(ex, gen)
    assert all(gen.kept)  # two of three candidates returned everywhere: every input stays
    assert kept.output_matrix.shape[1] == ex.output_matrix.shape[1]


def test_pool_and_examples_combine():
    from coderank_evalplus.testgen.extract import suite_from_asserts

    pool = suite_from_asserts({"isqrt(9) == 3": 2, "isqrt(4) == 2": 1}, "isqrt")
    pool.sample_asserts = [[0, 0], [1]]
    suite, gen = add_generated_inputs(pool, ISQRT, MutateSpec(5), seed=0)
    assert suite.asserts == ["isqrt(9) == 3", "isqrt(4) == 2", "isqrt(1) == 1", "isqrt(0) == 0"]
    assert suite.counts == [2, 2, 1, 1]  # the pool's assert that an example repeats counts once more
    assert suite.sample_asserts == [[0, 0], [1]]
    assert suite.inputs[:3] == ["isqrt(9)", "isqrt(4)", "isqrt(1)"] and suite.inputs[4:] == gen.calls
    assert gen.columns == list(range(4, 4 + len(gen.calls)))
    assert np.all(np.asarray(suite.assert_input) >= 0)


def test_inputs_do_not_depend_on_string_hashing():
    """Strings and sets iterate in hash order, which PYTHONHASHSEED changes: the inputs must not."""
    import os
    import subprocess
    import sys

    code = ("from coderank_evalplus.testgen.mutate import mutate_inputs, call_text\n"
            "seeds = [['ab cd', {'x', 'yz', 'w'}, ['p q', 'r']], ['e f g', {'u'}, []]]\n"
            "print([call_text('f', a) for a in mutate_inputs(seeds, 40, 'f', '0:T')])\n")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": str(h)}).stdout for h in (1, 2, 3)}
    assert len(outs) == 1 and outs.pop().count("f(") == 40
