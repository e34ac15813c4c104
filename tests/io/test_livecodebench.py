"""LiveCodeBench's records read as problems: both forms of the private tests, a pickle that is not a plain string
refused, LiveCodeBench's filters, errors naming the line and the field."""

from __future__ import annotations

import base64
import json
import pickle
import zlib

import pytest

from coderank_evalplus.io import livecodebench as lcbio
from coderank_evalplus.io.jsonl import SampleFileError
from coderank_evalplus.io.problems import load_problems
from coderank_evalplus.types import METHOD, STDIN, IOTest


def record(qid: str, platform: str = "atcoder", date: str = "2024-08-03T00:00:00", difficulty: str = "easy",
           private: str = "", func: str = "") -> dict:
    kind = "functional" if func else "stdin"
    pub = ([{"input": "[2,7,11,15]\n9", "output": "[0,1]", "testtype": kind}] if func
           else [{"input": "1 2\n", "output": "3\n", "testtype": kind}])
    return {"question_title": qid, "question_content": "…", "platform": platform, "question_id": qid,
            "contest_id": "c", "contest_date": date, "starter_code": "", "difficulty": difficulty,
            "public_test_cases": json.dumps(pub),
            "private_test_cases": private or json.dumps([{"input": "5 6\n", "output": "11\n", "testtype": kind}]),
            "metadata": json.dumps({"func_name": func} if func else {})}


def write(path, recs) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return str(path)


def test_both_shapes_and_both_forms_of_private_tests(tmp_path):
    hidden = json.dumps([{"input": "[3,3]\n6", "output": "[0,1]", "testtype": "functional"}])
    probs = load_problems(write(tmp_path / "lcb.jsonl", [
        record("abc1_a"), record("2", "leetcode", func="twoSum", private=lcbio.encode_private(hidden))]))
    a, b = probs["abc1_a"], probs["2"]
    assert (a.shape, a.callee, a.public_tests) == (STDIN, "run_stdin", 1)
    assert a.io_tests == (IOTest("1 2\n", "3\n"), IOTest("5 6\n", "11\n"))
    assert a.trial_tests == ("assert run_stdin('1 2\\n') == '3\\n'",)
    assert (b.shape, b.callee, b.entry_point) == (METHOD, "Solution().twoSum", "twoSum")
    assert b.io_tests[1] == IOTest("[3,3]\n6", "[0,1]")
    assert b.trial_tests == ("assert Solution().twoSum([2, 7, 11, 15], 9) == [0, 1]",)
    assert b.metadata["platform"] == "leetcode" and b.time_limit == 6


def test_a_json_list_is_read_too(tmp_path):
    path = tmp_path / "lcb.json"
    path.write_text(json.dumps([record("x"), record("y")]))
    assert list(load_problems(str(path))) == ["x", "y"]


class _Boom:
    def __reduce__(self):
        return (print, ("pwned",))


@pytest.mark.parametrize("payload", [_Boom(), ["a list"], b"bytes"])
def test_a_pickle_of_anything_but_a_string_is_refused(tmp_path, payload, capsys):
    bad = base64.b64encode(zlib.compress(pickle.dumps(payload))).decode()
    with pytest.raises(SampleFileError, match=r"lcb.jsonl:1: field 'private_test_cases'.*refused"):
        load_problems(write(tmp_path / "lcb.jsonl", [record("x", private=bad)]))
    assert "pwned" not in capsys.readouterr().out


def test_filters_as_livecodebench_has_them(tmp_path):
    path = write(tmp_path / "lcb.jsonl", [
        record("a", "atcoder", "2024-07-31T12:00:00", "easy"), record("b", "leetcode", "2024-08-01T00:00:00", "medium",
                                                                      func="f"),
        record("c", "codeforces", "2024-09-01T10:00:00", "hard"), record("d", "atcoder", "2024-10-01T00:00:00")])
    assert list(load_problems(path + "?start_date=2024-08-01")) == ["b", "c", "d"]
    assert list(load_problems(path + "?end_date=2024-09-01")) == ["a", "b"]  # the end date at midnight, as LCB
    assert list(load_problems(path + "?platform=atcoder,codeforces&difficulty=easy")) == ["a", "d"]
    with pytest.raises(ValueError, match="unknown filter 'site'"):
        load_problems(path + "?site=x")
    with pytest.raises(ValueError, match="platform 'topcoder'"):
        load_problems(path + "?platform=topcoder")


def test_malformed_records_name_line_and_field(tmp_path):
    broken = record("x")
    broken["public_test_cases"] = "not json"
    with pytest.raises(SampleFileError, match=r"lcb.jsonl:2: field 'public_test_cases'"):
        load_problems(write(tmp_path / "lcb.jsonl", [record("ok"), broken]))
    nofunc = record("y", "leetcode", func="f")
    nofunc["metadata"] = "{}"
    with pytest.raises(SampleFileError, match=r":1: field 'metadata': a functional problem needs func_name"):
        load_problems(write(tmp_path / "lcb2.jsonl", [nofunc]))
    with pytest.raises(SampleFileError, match="appears twice"):
        load_problems(write(tmp_path / "lcb3.jsonl", [record("z"), record("z")]))


def test_the_hub_offline_names_the_local_route(monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from coderank_evalplus.io.problems import DataNotFoundError

    with pytest.raises(DataNotFoundError, match="--dataset PATH.jsonl"):
        load_problems("livecodebench:release_v5")
