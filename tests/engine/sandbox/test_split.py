"""An assert split into the candidate's probes and a remainder decided outside its process (issue 25)."""

import pytest

from coderank_evalplus.engine.sandbox.split import Split, check_body, split_assert


@pytest.mark.parametrize("body, probes, remainder, fast", [
    ("f(1) == 2", ("f(1)",), "__probe(0) == 2", ("==", 0, 2)),
    ("[1, 2] == f(3)", ("f(3)",), "[1, 2] == __probe(0)", ("==", 0, [1, 2])),
    ("f(1)", ("f(1)",), "__probe(0)", ("truthy", 0)),
    ("not f(2)", ("f(2)",), "not __probe(0)", ("falsy", 0)),
    ("f(1) is None", ("f(1)",), "__probe(0) is None", ("is", 0, None)),
    ("f(1) == 2, 'a message'", ("f(1)",), "__probe(0) == 2", ("==", 0, 2)),
    # the expected side stays outside, whatever its form
    ("sorted(f(x))[0] == 1", ("f(x)",), "sorted(__probe(0))[0] == 1", None),
    ("math.isclose(f(10), 4188.79, rel_tol=0.001)", ("f(10)",), "math.isclose(__probe(0), 4188.79, rel_tol=0.001)",
     None),
    ("abs(f(2.0) - 1.41) < 1e-3", ("f(2.0)",), "abs(__probe(0) - 1.41) < 0.001", None),
    ("f(2) == [0] * 3", ("f(2)",), "__probe(0) == [0] * 3", None),
    ("f(1) == 3 == f(2)", ("f(1)", "f(2)"), "__probe(0) == 3 == __probe(1)", None),
    # what needs the candidate's namespace is a probe: its methods, attributes and own names
    ("f(x).count(1) == 2", ("f(x).count(1)",), "__probe(0) == 2", ("==", 0, 2)),
    ("len(g.__doc__) == 1", ("g.__doc__",), "len(__probe(0)) == 1", None),
    ("f(1) == expected", ("f(1)", "expected"), "__probe(0) == __probe(1)", None),
    ("x == [y for y in range(3)]", ("x",), "__probe(0) == [y for y in range(3)]", None),
    # a body that runs on: its asserts must all hold (as exec made of it); imports change nothing
    ("f(1) is False, 'msg'\n\nimport unittest", ("f(1)",), "__probe(0) is False", ("is", 0, False)),
    ("f(1) == 2\nassert f(2) == 3", ("f(1)", "f(2)"), "__probe(0) == 2 and __probe(1) == 3", None),
])
def test_split(body, probes, remainder, fast):
    assert split_assert(body, "f") == Split(probes, remainder, fast)


def test_the_entry_point_is_the_candidates_even_when_it_is_a_builtin_name():
    assert split_assert("sum([1, 2]) == 3", "sum").probes == ("sum([1, 2])",)
    assert split_assert("sum([1, 2]) == 3", "f") == Split((), "sum([1, 2]) == 3", None)


@pytest.mark.parametrize("body", ["all(f(i) == i for i in range(3))", "[f(i) for i in range(2)] == [1, 2]", "f(1) ==",
                                  "x = 1", "f(1); g(2)", "f(1) == 2\nprint(1)"])
def test_what_cannot_be_split_has_no_remainder(body):
    assert split_assert(body, "f").remainder is None


@pytest.mark.parametrize("comparison, expected, body", [
    ("==", "2", "(f(1)) == (2)"), ("r==", "2", "(2) == (f(1))"), ("is", "True", "(f(1)) is True"),
    ("truthy", None, "f(1)"), ("falsy", None, "not (f(1))")])
def test_check_body_round_trips_through_the_split(comparison, expected, body):
    assert check_body("f(1)", expected, comparison) == body
    assert split_assert(body, "f").probes == ("f(1)",)
