"""The referee's shortcut: a reported output byte-equal to the expected one passes without decoding (issue 25)."""

from coderank_evalplus.engine.judging.oracle import evalplus_compare, has_special_oracle
from coderank_evalplus.engine.judging.referee import _encoded, _has_nan
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


def _pickled(tmp_path, name: str, outputs: list) -> str:
    import pickle

    path = tmp_path / name
    path.write_bytes(pickle.dumps({"dataset": "humaneval", "entry_point": "f", "atol": 0,
                                   "base": ([[i] for i in range(len(outputs))], outputs)}))
    return str(path)


def test_loaded_expected_outputs_stay_within_their_byte_budget(tmp_path, monkeypatch):
    from coderank_evalplus.engine.judging import referee

    monkeypatch.setattr(referee, "_EXPECTED", {})
    monkeypatch.setattr(referee, "_ENCODED", {})
    monkeypatch.setattr(referee, "_FILE_BYTES", {})
    files = [_pickled(tmp_path, f"t{i}.expected", list(range(2000))) for i in range(3)]
    size = (tmp_path / "t0.expected").stat().st_size
    monkeypatch.setattr(referee, "EXPECTED_CACHE_BYTES", 2 * size)
    for f in files:
        data = referee._expected(f)
        referee._encoded(f, "base", data)
    assert list(referee._EXPECTED) == files[1:]  # the oldest went, with its encoded copy
    assert {k[0] for k in referee._ENCODED} == set(files[1:])
    monkeypatch.setattr(referee, "EXPECTED_CACHE_BYTES", size // 2)
    assert referee._expected(files[0])["base"][1][5] == 5  # a file above the budget still loads, alone
    assert list(referee._EXPECTED) == files[:1]


def test_a_huge_expected_file_is_compared_decoded(tmp_path, monkeypatch):
    from coderank_evalplus.engine.judging import referee

    monkeypatch.setattr(referee, "_EXPECTED", {})
    monkeypatch.setattr(referee, "_ENCODED", {})
    monkeypatch.setattr(referee, "_FILE_BYTES", {})
    small, big = _pickled(tmp_path, "s.expected", [1, 2]), _pickled(tmp_path, "b.expected", list(range(5000)))
    monkeypatch.setattr(referee, "ENCODE_MAX_BYTES", (tmp_path / "b.expected").stat().st_size - 1)
    assert referee._encoded(small, "base", referee._expected(small))[0] == [encode_value(1), encode_value(2)]
    enc, floats = referee._encoded(big, "base", referee._expected(big))
    assert enc == [None] * 5000 and floats == [False] * 5000
