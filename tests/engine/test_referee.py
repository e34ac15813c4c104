"""The referee's shortcut: a reported output byte-equal to the expected one passes without decoding (issue 25)."""

from coderank_evalplus.engine.oracle import evalplus_compare, has_special_oracle
from coderank_evalplus.engine.referee import _encoded, _has_nan
from coderank_evalplus.engine.sandbox.report import encode_value


def test_nan_anywhere_is_found():
    nan = float("nan")
    assert not _has_nan([1.0, (2, {"a": 3.5})])
    assert _has_nan([1.0, (2, {"a": nan})]) and _has_nan(complex(0, nan)) and _has_nan({nan: 1})


def test_shortcut_only_where_equal_bytes_mean_a_pass():
    data = {"dataset": "humaneval", "entry_point": "f", "base": ([[1], [2], [3]], [1.5, float("nan"), [1, 2]])}
    enc, floats = _encoded("/virtual/f", "base", data)
    assert enc == [encode_value(1.5), None, encode_value([1, 2])] and floats == [True, True, False]
    # and where evalplus's own comparison agrees: equal bytes pass, NaN does not
    assert evalplus_compare("humaneval", "f", [1], 1.5, 1.5, 0)[0]
    assert not evalplus_compare("humaneval", "f", [2], float("nan"), float("nan"), 0)[0]


def test_tasks_with_a_special_oracle_never_take_the_shortcut():
    assert has_special_oracle("humaneval", "find_zero") and not has_special_oracle("humaneval", "f")
    assert has_special_oracle("mbpp", "sum_div") and has_special_oracle("mbpp", "surface_Area")
    data = {"dataset": "humaneval", "entry_point": "find_zero", "base": ([[1]], [0.5])}
    assert _encoded("/virtual/fz", "base", data)[0] == [None]
