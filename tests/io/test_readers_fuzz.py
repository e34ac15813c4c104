"""Bad input everywhere: every malformed samples/tests file gets a one-line error naming the file and line.

Hand-written cases (truncated JSON, wrong types, huge lines, unicode, missing keys, duplicate task ids…)
check the exact message; random mutations of valid files check that nothing but ``SampleFileError`` (or
success) comes out of the readers; the CLI turns each error into exit code 2 and one ``error: …`` line.
"""

from __future__ import annotations

import gzip
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from coderank_evalplus.cli.console import main as cli_main
from coderank_evalplus.io.samples import SampleFileError, read_solutions, read_test_samples
from tests.conftest import SHARED_DATA, needs_data

pytestmark = needs_data

SOL = {"task_id": "HumanEval/0", "solution": "def has_close_elements(numbers, threshold):\n    return False\n"}
TST = {"task_id": "HumanEval/0", "samples": ["has_close_elements([1.0, 2.0], 0.5) == False"]}


def j(obj) -> bytes:
    return json.dumps(obj).encode() + b"\n"


GOOD_SOL = j(SOL)
GOOD_TST = j(TST)
# bigcode-evaluation-harness generations: one list per HumanEval problem, in order
BIG = [[SOL["solution"]], ["def separate_paren_groups(s):\n    return []\n"]] + [[]] * 162
GOOD_BIG = json.dumps(BIG).encode()
# lm-eval --log_samples of our task (resps: solutions, then test samples)
DOC = {"task_id": "HumanEval/0", "prompt": "def has_close_elements(numbers, threshold):\n", "test_prompt": "x"}
LOG = {"doc_id": 0, "doc": DOC, "target": "", "arguments": {}, "resps": [["    return False\n"], TST["samples"]],
       "filtered_resps": ["{}", "{}"], "filter": "none", "metrics": ["pass@1"], "pass@1": 0.0}
GOOD_LOG = j(LOG) + j({**LOG, "doc_id": 1, "doc": {**DOC, "task_id": "HumanEval/1", "prompt": "def g():\n"}})

# (name, reader, file bytes, regex the message must match after "<file>:") — ``None``: must be read fine
CASES = [
    ("truncated_line", "sol", GOOD_SOL + b'{"task_id": "HumanEval/0", "solu', r":2: truncated JSON"),
    ("truncated_no_newline", "tst", GOOD_TST[:-10], r":1: truncated JSON"),
    ("not_json", "sol", b"task_id=HumanEval/0\n", r":1: not valid JSON"),
    ("array_record", "sol", b"[1, 2]\n", r": a bigcode generations list of 2 entries matches no bigcode task"),
    ("array_record_tests", "tst", b"[1, 2]\n", r": a JSON list \(bigcode-evaluation-harness generations\?\) holds"),
    ("null_record", "tst", b"null\n", r":1: expected a JSON object, got NoneType"),
    ("task_id_int", "sol", j({"task_id": 0, "solution": "x"}), r":1: field 'task_id' must be a string \(got int\)"),
    ("solution_list", "sol", j({"task_id": "HumanEval/0", "solution": ["x"]}),
     r":1: field 'solution' must be a string"),
    ("completion_null", "sol", j({"task_id": "HumanEval/0", "completion": None}), r":1: field 'completion' must be"),
    ("missing_task_id", "sol", GOOD_SOL + j({"foo": 1}), r":2: record has no 'task_id' \(keys: \['foo'\]\)"),
    ("neither_solution_nor_completion", "sol", j({"task_id": "HumanEval/0"}),
     r":1: record for HumanEval/0 has neither"),
    ("unknown_task", "sol", GOOD_SOL + j({"task_id": "HumanEval/9999", "solution": "x"}),
     r":2 \(task_id 'HumanEval/9999'\)"),
    ("fullwidth_task_id", "sol", j({"task_id": "HumanEval/\uff10", "solution": "x"}), r":1 \(task_id"),
    ("invalid_utf8", "sol", GOOD_SOL + b'{"task_id": "HumanEval/0", "solution": "\xff\xfe"}\n', r":2: not valid UTF-8"),
    ("binary_garbage", "tst", gzip.compress(GOOD_TST), r":1: not valid UTF-8"),
    ("huge_broken_line", "sol", b'{"task_id": "HumanEval/0", "solution": "' + b"x" * (20 << 20) + b"\n",
     r":1: truncated JSON .* \(\d+ characters\)$"),
    ("deep_nesting", "sol", b"[" * 200000 + b"]" * 200000 + b"\n",
     r"(:1)?: (JSON nested too deeply|expected a JSON object)"),
    ("int_too_long", "sol", b'{"task_id": ' + b"1" * 5000 + b"}\n", r":1: unreadable JSON value"),
    ("empty_file", "sol", b"", r": no records \(empty file\)"),
    ("blank_lines_only", "tst", b"\n \n\t\n", r": no records \(empty file\)"),
    ("duplicate_test_task", "tst", GOOD_TST + GOOD_TST,
     r":2: duplicate test record for HumanEval/0 \(first at line 1\)"),
    ("samples_not_list", "tst", j({"task_id": "HumanEval/0", "samples": "x == 1"}),
     r":1: field 'samples' must be a list of strings \(got str\)"),
    ("samples_with_int", "tst", j({"task_id": "HumanEval/0", "samples": ["a", 3]}), r":1: .*\(item 1 is int\)"),
    ("tests_without_samples", "tst", j({"task_id": "HumanEval/0"}), r":1: test record for HumanEval/0 has neither"),
    ("tests_without_key", "tst", j({"x": 1}), r":1: test record needs 'task_id' or 'prompt'"),
    ("tests_task_id_list", "tst", j({"task_id": ["HumanEval/0"], "samples": []}),
     r":1: field 'task_id' must be a string"),
    # bigcode generations.json
    ("bigcode_short", "sol", j(BIG[:20]), r": a bigcode generations list of 20 entries matches no bigcode task of "
                                          r"this dataset \(expected one entry per problem: 164 \(humaneval"),
    ("bigcode_entry_str", "sol", j(["x"] + BIG[1:]),
     r": entry 0 \(HumanEval/0\) must be a list of generation strings, got str$"),
    ("bigcode_entry_null", "sol", j(BIG[:5] + [None] + BIG[6:]), r": entry 5 \(HumanEval/5\) .* got NoneType"),
    ("bigcode_item_dict", "sol", j([[{"code": "x"}]] + BIG[1:]),
     r": entry 0 \(HumanEval/0\), generation 0: expected a string, got dict"),
    ("bigcode_truncated", "sol", GOOD_BIG[:-30], r":1: truncated JSON"),
    ("bigcode_two_documents", "sol", GOOD_BIG + b"\n" + GOOD_BIG, r":2: not valid JSON \(Extra data, column 1\)"),
    ("bigcode_pretty_bad_utf8", "sol", json.dumps(BIG, indent=1).encode().replace(b"return []", b"return \xff"),
     r":6: not valid UTF-8"),
    ("bigcode_all_empty", "sol", j([[]] * 164), r": no generations for any problem"),
    ("bigcode_object_document", "sol", json.dumps({"humaneval": BIG}, indent=2).encode(), r":1: truncated JSON"),
    ("bigcode_as_tests", "tst", GOOD_BIG, r": a JSON list \(bigcode-evaluation-harness generations\?\) holds"),
    # lm-eval --log_samples
    ("lm_eval_doc_str", "sol", j({**LOG, "doc": "HumanEval/0"}),
     r":1: lm-eval sample: field 'doc' must be an object"),
    ("lm_eval_task_id_int", "tst", j({**LOG, "doc": {**DOC, "task_id": 0}}),
     r":1: lm-eval sample: doc field 'task_id' must be a string \(got int"),
    ("lm_eval_resps_flat", "sol", j({**LOG, "resps": ["a", "b"]}), r":1: lm-eval sample: field 'resps' must hold"),
    ("lm_eval_resps_empty", "tst", j({**LOG, "resps": []}), r":1: lm-eval sample: field 'resps' .* got a list of 0"),
    ("lm_eval_test_int", "tst", j({**LOG, "resps": [["a"], ["b", 1]]}), r":1: lm-eval sample: test answer 1 in "),
    ("lm_eval_duplicate", "tst", GOOD_LOG + j(LOG),
     r":3: duplicate lm-eval sample for HumanEval/0 \(first at line 1\)"),
    ("lm_eval_unknown_task", "sol", GOOD_LOG + j({**LOG, "doc": {**DOC, "task_id": "Mbpp/2"}}),
     r":3 \(task_id 'Mbpp/2'\)"),
    ("lm_eval_no_tests", "tst", j({**LOG, "resps": [["a"]]}), r": the lm-eval samples hold no test samples"),
    ("lm_eval_ok_sol", "sol", GOOD_LOG, None),
    ("lm_eval_ok_tst", "tst", GOOD_LOG, None),
    ("lm_eval_other_filter_ignored", "tst", GOOD_LOG + j({**LOG, "filter": "strict"}), None),
    ("bigcode_ok", "sol", GOOD_BIG, None),
    ("bigcode_bom_pretty", "sol", b"\xef\xbb\xbf\n" + json.dumps(BIG, indent=4).encode(), None),
    # fine: byte-order mark, unicode, a lone surrogate, a 5 MB solution, CRLF line ends, several samples per task
    ("bom", "sol", b"\xef\xbb\xbf" + GOOD_SOL, None),
    ("unicode_everywhere", "sol",
     j({"task_id": "HumanEval/0", "solution": "def f():\n    return '\u00e9\u4e2d\U0001f600'\n"}), None),
    ("lone_surrogate", "sol", b'{"task_id": "HumanEval/0", "solution": "\\ud800"}\n', None),
    ("huge_valid_line", "sol", j({"task_id": "HumanEval/0", "solution": "# " + "y" * (5 << 20) + "\n"}), None),
    ("crlf", "tst", GOOD_TST.replace(b"\n", b"\r\n"), None),
    ("many_samples_one_task", "sol", GOOD_SOL * 3, None),
]


@pytest.fixture(scope="module")
def problems(humaneval_problems):
    return humaneval_problems


def _read(kind: str, path: Path, problems):
    reader = read_solutions if kind == "sol" else read_test_samples
    return reader(path, problems, str(SHARED_DATA))


@pytest.mark.parametrize("name,kind,data,pattern", CASES, ids=[c[0] for c in CASES])
def test_reader_case(tmp_path, problems, name, kind, data, pattern):
    path = tmp_path / f"{name}.jsonl"
    path.write_bytes(data)
    if pattern is None:
        out = _read(kind, path, problems)
        assert out and all(isinstance(v, list) and v for v in out.values())
        return
    with pytest.raises(SampleFileError) as err:
        _read(kind, path, problems)
    msg = str(err.value)
    assert "\n" not in msg and len(msg) < 600, msg[:1000]
    assert str(path) in msg
    assert re.search(re.escape(str(path)) + pattern, msg), msg


def test_codet_duplicate_prompt(tmp_path, problems):
    rec = json.loads(open(SHARED_DATA / "microsoft_CodeT" / "generated_data" /
                          "HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_code_solution.jsonl").readline())
    rec["samples"] = rec["samples"][:2]
    path = tmp_path / "codet.jsonl"
    path.write_bytes(j(rec) + j(rec))
    with pytest.raises(SampleFileError,
                       match=r"codet.jsonl:2: duplicate CodeT record for HumanEval/0 \(first at line 1\)"):
        read_solutions(path, problems, str(SHARED_DATA))


def test_missing_folder_and_gzip(tmp_path, problems):
    with pytest.raises(SampleFileError, match=r"nope.jsonl: no such file"):
        read_test_samples(tmp_path / "nope.jsonl", problems)
    with pytest.raises(SampleFileError, match=r"is a folder"):
        read_test_samples(tmp_path, problems)
    gz = tmp_path / "t.jsonl.gz"
    many = b"".join(j({"task_id": f"HumanEval/{i}", "samples": ["x"] * 50}) for i in range(150))
    gz.write_bytes(gzip.compress(many)[:-30])
    with pytest.raises(SampleFileError, match=r"t.jsonl.gz(:\d+)?: cannot be read \(EOFError"):
        read_test_samples(gz, problems)
    gz.write_bytes(gzip.compress(GOOD_TST))
    assert read_test_samples(gz, problems) == {"HumanEval/0": TST["samples"]}


def test_random_mutations_give_clean_errors(tmp_path, problems):
    rng = random.Random(1234)
    sol = GOOD_SOL + j({"task_id": "HumanEval/1", "completion": "    return []\n"})
    tst = GOOD_TST + j({"task_id": "HumanEval/1", "asserts": ["assert separate_paren_groups('()') == ['()']"]})
    # each trial mutates one of: evalplus samples, our tests, bigcode generations, an lm-eval log (both readers)
    bases = [("sol", sol), ("tst", tst), ("sol", json.dumps(BIG, indent=1).encode()), ("sol", GOOD_LOG),
             ("tst", GOOD_LOG)]
    junk = [b"{", b"}", b"[", b'"', b"\\", b"\n", b"\x00", b"\xff", b"\xc3", b":", b",", b"null", b"1e999", b"\xe2\x80"]
    outcomes = {"ok": 0, "error": 0}
    for trial in range(500):
        kind, base = bases[trial % len(bases)]
        data = bytearray(base)
        for _ in range(rng.randint(1, 4)):
            op = rng.randrange(4)
            pos = rng.randrange(len(data) + 1)
            if op == 0:
                del data[pos:]
            elif op == 1:
                data[pos:pos] = rng.choice(junk)
            elif op == 2 and data:
                del data[pos:pos + rng.randint(1, 8)]
            else:
                data[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 6)))
        path = tmp_path / f"m{trial}.jsonl"
        path.write_bytes(bytes(data))
        try:
            _read(kind, path, problems)
            outcomes["ok"] += 1
        except SampleFileError as exc:
            msg = str(exc)
            assert str(path) in msg and "\n" not in msg, (bytes(data)[:200], msg)
            outcomes["error"] += 1
    assert outcomes["error"] > 200 and outcomes["ok"] > 0, outcomes


CLI_CASES = ["truncated_line", "invalid_utf8", "duplicate_test_task", "unknown_task", "huge_broken_line", "empty_file",
             "bigcode_entry_null", "bigcode_as_tests", "lm_eval_doc_str", "lm_eval_duplicate"]


@pytest.mark.parametrize("name", CLI_CASES)
@pytest.mark.slow
def test_cli_reports_one_line_and_exit_2(tmp_path, capsys, name):
    _, kind, data, pattern = next(c for c in CASES if c[0] == name)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(data)
    good = tmp_path / ("tests.jsonl" if kind == "sol" else "solutions.jsonl")
    good.write_bytes(GOOD_TST if kind == "sol" else GOOD_SOL)
    sols, tests = (bad, good) if kind == "sol" else (good, bad)
    code = cli_main(["rerank", "--data-dir", str(SHARED_DATA), "--solutions", str(sols), "--tests", str(tests),
                     "--output", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and str(bad) in lines[0], err[:2000]
    assert "Traceback" not in err


@pytest.mark.slow
def test_cli_subprocess_no_traceback(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(GOOD_SOL + b'{"task_id": "HumanEval/0", "solution": 12}\n')
    good = tmp_path / "tests.jsonl"
    good.write_bytes(GOOD_TST)
    out = subprocess.run([sys.executable, "-m", "coderank_evalplus.cli", "rerank", "--data-dir", str(SHARED_DATA),
                          "--solutions", str(bad), "--tests", str(good), "--quiet", "--output", str(tmp_path / "o")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert out.stderr.strip() == f"error: {bad}:2: field 'solution' must be a string (got int)"
