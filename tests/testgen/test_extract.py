from collections import Counter

from coderank_evalplus.testgen.extract import (
    build_suite,
    extract_asserts,
    parse_assert,
    reference_input,
    reference_inputs,
    truncate,
)
from tests.conftest import needs_data


def test_truncate_cuts_at_first_stop_sequence():
    text = "    return x\n\ndef other():\n    pass\nif __name__:\n"
    assert truncate(text) == "    return x\n"
    assert truncate("    return 1\n# comment\nprint(2)") == "    return 1"
    assert truncate("    return 1") == "    return 1"


def test_extract_asserts_follows_codet_rules():
    sample = "f(1) == 2\nassert f(2) == 3\nassert g(5) == 1\nassert f(3) ==\nassert f(4) == 5\n\n# done\n"
    # g(5) does not mention f; the broken f(3) assert does not compile
    assert extract_asserts(sample, "f") == ["assert f(1) == 2", "assert f(2) == 3", "assert f(4) == 5"]


def test_build_suite_counts_duplicates_and_keeps_first_five_per_sample():
    samples = ["f(1) == 1\nassert f(1) == 1\n", "f(1) == 1\nassert f(2) == 2\nassert f(3) == 3\nassert f(4) == 4\n"
               "assert f(5) == 5\nassert f(6) == 6\n"]
    suite = build_suite(samples, "f", tests_per_sample=5)
    counts = dict(zip(suite.asserts, suite.counts))
    assert counts["f(1) == 1"] == 3
    assert "f(6) == 6" not in counts  # sixth assert of the second sample is dropped
    assert len(build_suite(samples, "f", tests_per_sample=None)) == 6
    # each distinct call is one input; the asserts point at it
    assert suite.inputs[suite.assert_input[suite.asserts.index("f(2) == 2")]] == "f(2)"


def test_parse_assert_forms():
    assert parse_assert("f(1, 2) == 3", "f") == ("f(1, 2)", "3", "==")
    assert parse_assert("[1] == f([1])", "f") == ("f([1])", "[1]", "r==")
    assert parse_assert("f(1)", "f") == ("f(1)", None, "truthy")
    assert parse_assert("not f(1)", "f") == ("f(1)", None, "falsy")
    assert parse_assert("f(1) is None", "f") == ("f(1)", "None", "is")
    assert parse_assert("f(1) == 3, 'message'", "f") == ("f(1)", "3", "==")
    assert parse_assert("abs(f(1) - 2) < 1e-6", "f") is None
    assert parse_assert("f(1) == f(2)", "f") is None
    assert parse_assert("f(1) ==", "f") is None


@needs_data
def test_real_codet_test_samples_extract(humaneval_problems, codet_samples):
    _, tests = codet_samples
    prob = humaneval_problems["HumanEval/0"]
    suite = build_suite(tests["HumanEval/0"], prob.entry_point)
    assert 0 < len(suite) <= 500 and sum(suite.counts) <= 500
    assert all(a.count("has_close_elements") >= 1 for a in suite.asserts)
    parsed = sum(i >= 0 for i in suite.assert_input)
    assert parsed / len(suite) > 0.8  # almost every generated assert is `f(x) == y`
    assert Counter(suite.asserts).most_common(1)[0][1] == 1  # distinct


def test_reference_input_follows_the_released_srank_rules():
    ref = reference_input
    assert ref("f(1, 2) == 3", "f") == "f(1, 2)"
    assert ref("3 == f(1, 2)", "f") == "f(1, 2)"  # call on the right: sides swapped
    assert ref("f(1,2)==3", "f") is None  # the split needs spaces around ==
    assert ref("f(x) is True", "f") == "f(x)"
    assert ref("f(x)", "f") is None and ref("not f(x)", "f") is None  # truthiness checks give no input
    assert ref("(f(2) == 4)", "f") == "f(2)"
    assert ref("f([1, 2]) == [1, 2]", "f") == "f([1, 2])"
    assert ref("f(3) == 3, 'message'", "f") == "f(3)"  # a literal last piece is the message
    assert ref("len(f(x)) == 2", "f") == "len(f(x))"  # wrapped calls are inputs too
    assert ref("____.f(3) == 3", "f") == "____.f(3)"  # junk that can only raise, kept
    # a message with a comma and a call in it is not recognised: the split swaps in a junk tuple input
    assert ref('f([1, 2]) == 3, "bad f([1,2])"', "f") == '3, "bad f([1,2])"'
    assert ref("f(x) == 1", "f", prompt="def f(x):\n") == "f(x)"
    assert ref("f(x)) == 1", "f", prompt="def f(x):\n") is None  # must compile after the prompt
    # MBPP+'s prompt is a module docstring, not a function header: it is not stubbed with `pass` (which never
    # compiles after it and once rejected every MBPP+ input), but a broken input still is rejected
    mbpp = '"""\nWrite a function f.\nassert f(1) == 2\n"""\n'
    assert ref("f(1) == 2", "f", prompt=mbpp) == "f(1)"
    assert ref("set(f((3, 4))) == set((4,))", "f", prompt=mbpp) == "set(f((3, 4)))"
    assert ref("f(1)) == 2", "f", prompt=mbpp) is None
    # inputs are exact texts: spacing variants stay distinct
    assert reference_inputs(["f(1) == 1", "f( 1) == 1", "f(1) == 2", "f(2)"], "f") == ["f(1)", "f( 1)"]


def test_imported_modules_are_the_top_level_names_imported_at_line_start():
    from coderank_evalplus.testgen.extract import imported_modules

    program = "import numpy.linalg as la\nfrom pandas import DataFrame\ndef f():\n    import os, sys\ns = 'import x'\n"
    assert imported_modules(program) == {"numpy", "pandas", "os"}
