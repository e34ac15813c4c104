"""io.sanitize gives evalplus.sanitize's output (shared chat replies, hand-made edge cases); the raw_field reader."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest
from evalplus.sanitize import code_extract as evalplus_code_extract
from evalplus.sanitize import sanitize as evalplus_sanitize

from coderank_evalplus.io import sanitize as ours
from coderank_evalplus.io.jsonl import SampleFileError
from coderank_evalplus.io.samples import read_solutions
from coderank_evalplus.types import Problem

DATA = Path(os.environ.get("CODERANK_DATA", Path(__file__).resolve().parents[2] / ".." / "shared" / "data"))
CHAT_SETS = [
    ("humaneval", "extra_humaneval/samples/llama-3-8b-instruct-q6_humaneval_n10_t0.6.jsonl.gz"),
    ("humaneval", "extra_humaneval/samples/deepseek-coder-6.7b-instruct-q5_humaneval_n10_t0.6.jsonl.gz"),
    ("humaneval", "extra_humaneval/samples/codellama-7b-instruct-q5_humaneval_n10_t0.6.jsonl.gz"),
    ("humaneval", "extra_humaneval/samples/gpt-3.5-turbo-1106_humaneval_n5.jsonl.gz"),
    ("mbpp", "extra_mbpp/samples/deepseek-coder-6.7b-instruct-q5_mbpp+_n10_t0.6.jsonl.gz"),
    ("mbpp", "extra_mbpp/samples/codellama-7b-instruct-q5_mbpp+_n10_t0.6.jsonl.gz"),
]
@pytest.fixture(scope="module")
def problems_of():
    from coderank_evalplus.io.problems import load_problems

    cache: dict = {}
    return lambda dataset: cache.setdefault(dataset, load_problems(dataset, str(DATA)))


needs_data = pytest.mark.skipif(not (DATA / CHAT_SETS[0][1]).is_file(), reason="../shared/data not present")

EDGE_CASES = [
    "",
    "def f():",
    "Sure! Here is the code:\n```python\ndef f(x):\n    return x + 1\n```\nIt adds one.",
    "```python\nimport math\n\ndef f(x):\n    '''Doc with ``` inside'''\n    return math.sqrt(x)\n```\n\nDone.\n\n\n",
    "Here's how:\n\n```\ndef f(s):\n    return s.replace('`', '')\n```\n",
    "x = (1,\n     2)\n```\ndef f():\n    return x\n```",
    "def f():\n    return 1  # a comment with a backslash \\\n\n```\ntext\n```",
    'def f():\n    s = "a \\\n b"\n    return s\n? what\ndef g():\n    return 2',
    "def f():\n    return 1 \\\n\n\n",
    "    return x\n\ndef f(x):\n    return x\n",
    "def f():\n    return 'é'\n— prose — with dashes\ndef g():\n    return f()\n",
    "def f():\n    return 1\r\n```\r\ndef g():\r\n    return 2\r\n",
    "def f():\n\treturn 1\n\x0c\ndef g():\n    return 2",
    'def f():\n    return f"{1}"\n$ cost\ndef g():\n    return f\'{2}\'',
    "class A:\n    def m(self):\n        return 1\n\n\n\n   \n\t\nExplanation: (it works]",
    '"""\nopen docstring\n\ndef f():\n    return 1\n"""\ndef g():\n    return 2\n',
    # a top-level statement that fails alone fails every span through it; what goes on with a statement does not
    # end it: a clause, a decorator's def, a bracket, a string, a continuation
    "def f(x) - int:\n    return x\n\nprint(f(1))\nNote: it works\n\ndef g(x):\n    return x\n",
    "try:\n    x = 1\nexcept ValueError:\n    x = 2\nfinally:\n    pass\ndef f():\n    return x\nbad line here\n",
    "if a:\n    pass\nelif b:\n    pass\nelse:\n    pass\nfor i in x:\n    pass\nelse:\n    y = 1\nwhile 0: pass\n",
    "@decorator\n@other(1)\ndef f():\n    return 1\n@broken(\nx = 1\n",
    "@decorator\n\n# note\ndef f():\n    return 1\nhere it is\ndef g():\n    return 2\n",
    "x = [1,\n2,\n3]\ndef f():\n    return x\ny = (\n",
    "s = '''\nnot code at column 0\n'''\ndef f():\n    return s\nclass C:\n  def m(self): return 1\nok go\n",
    "x = 1 + \\\n2\ny = 3 + \\\n\nz = 4\ndef f():\n    return 1\n",
    "def f():\n    return 1\nelse:\n    pass\ndef g():\n    return 2\n\n\nmore prose\n",
    "def f(x):\n    return x\n  bad indent\ndef g():\n    return 1\n",
    "match x:\n    case 1:\n        pass\ncase 2:\n    pass\ndef f():\n    return 1\n",
    "def f():\n    return f\"{1}\"\ndef g():\n    return f\"{'a'}\"\nprose: here\ndef h():\n    return 3\n",
    "from __future__ import annotations\nx = 1\nfrom __future__ import division\ndef f():\n    return 1\n",
    "elsewhere = 1\nelse_ = 2\nexcepted = [\n]\ndef f():\n    return elsewhere\nNot code.\n",
]


@pytest.mark.parametrize("text", EDGE_CASES)
def test_edge_cases_match_evalplus(text):
    assert ours.code_extract(text) == evalplus_code_extract(text)
    for entry in (None, "f", "g"):
        assert ours.sanitize(text, entry) == evalplus_sanitize(text, entry)


STATEMENT_LINES = [
    "def f(x):", "    return x", "def g(x) - int:", "    if x:", "        pass", "    else:", "else:", "elif y:",
    "try:", "except ValueError:", "finally:", "    x = (1,", "2)", "@decorator", "@dec(", ")", "class C:", "",
    "# a comment", "x = 1 + \\", "s = '''", "'''", "Note: prose here", "print(f(1))", "```python", "```",
    "  indented", "\tx = 1", "match x:", "    case 1:", "case 2:", "import os", "y = [", "]", "return 1",
    "x = 'a # b'", "s = \"it's\"", "t = '''a", "b'''", "u = '\\\\'", "é = 1", "v = 'é'", "# é", "w = f'{x}'",
    "$ cost", "a ? b", "r'\\n'", '"""', "z = (1, # c", "q = 'unterminated", "k = \"a\\\"b\"", "print('`')",
    "y = {'a': (1, 2)}", "emoji = '😀'", "€ sign",
]


def test_random_statements_match_evalplus():
    """Texts of random lines that open and close statements, clauses, decorators, brackets, strings, comments and
    continuations at column 0, with characters no token holds (seeded): the scan's jumps and the statement rule cut
    no span evalplus would keep."""
    import random

    rng = random.Random(7)
    for _ in range(300):
        text = "\n".join(rng.choice(STATEMENT_LINES) for _ in range(rng.randint(1, 14)))
        assert ours.code_extract(text) == evalplus_code_extract(text), text


def test_mirrors_the_installed_evalplus():
    """The fast path is in use (else the comparisons above test evalplus against itself)."""
    assert ours._evalplus_is_mirrored()


def _records(rel: str) -> list[dict]:
    with gzip.open(DATA / rel, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


@needs_data
@pytest.mark.parametrize("dataset,rel", CHAT_SETS, ids=[Path(r).name.split("_")[0] for _, r in CHAT_SETS])
@pytest.mark.slow
def test_shared_replies_match_evalplus(dataset, rel, problems_of):
    """Three replies of each shared chat set (its first, one a third in, one two thirds in): the same text as
    evalplus.sanitize. bench/sanitize_vs_evalplus.py compares all of them."""
    problems = problems_of(dataset)
    recs = _records(rel)
    for rec in (recs[k * len(recs) // 3] for k in range(3)):
        entry = problems[rec["task_id"]].entry_point
        assert ours.sanitize(rec["raw"], entry) == evalplus_sanitize(rec["raw"], entry), rec["task_id"]


@needs_data
def test_raw_field_reads_what_the_solutions_hold(tmp_path, problems_of):
    """Llama-3's first 20 replies through ``raw_field``: the programs ../shared/data stores as ``solution``
    (the prompt's imports + evalplus.sanitize), counted."""
    problems = problems_of("humaneval")
    recs = [r for r in _records(CHAT_SETS[0][1]) if r["task_id"] in ("HumanEval/0", "HumanEval/1")]
    path = tmp_path / "raw.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    tally = ours.SanitizeTally("raw")
    got = read_solutions(path, problems, raw_field="raw", tally=tally)
    want = read_solutions(path, problems)
    same = sum(a == b for t in want for a, b in zip(got[t], want[t], strict=True))
    assert tally.samples == len(recs) == 20
    assert same == 20


def test_raw_field_sanitizes_and_counts(tmp_path):
    problem = Problem(task_id="T/0", dataset="humaneval", entry_point="f", canonical_solution="    return 0\n",
                      prompt="from typing import List\n\n\ndef f(xs: List[int]) -> int:\n")
    replies = ["Here you go:\n```python\ndef f(xs):\n    return len(xs)\n```\nHope it helps!",
               "    return sum(xs)\n",  # a bare body: read after the prompt
               "I cannot help with that."]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps({"task_id": "T/0", "raw": r, "solution": "x"}) + "\n" for r in replies))
    tally = ours.SanitizeTally("raw")
    progs = read_solutions(path, {"T/0": problem}, raw_field="raw", tally=tally)["T/0"]
    assert progs[0] == "from typing import List\n\ndef f(xs):\n    return len(xs)\n"
    head = "from typing import List\n\nfrom typing import List\ndef f(xs: List[int])"  # the prompt's, sanitized
    assert "return sum(xs)" in progs[1] and progs[1].startswith(head)
    assert progs[2] == ""
    assert tally.to_json() == {"field": "raw", "samples": 3, "changed": 3, "empty": 1,
                               "seconds": round(tally.seconds, 2)}
    with pytest.raises(SampleFileError, match="field 'nope' must be a string"):
        read_solutions(path, {"T/0": problem}, raw_field="nope")


def test_unsanitized_replies_warn(tmp_path, capsys):
    problem = Problem(task_id="T/0", dataset="humaneval", prompt="def f():\n", entry_point="f",
                      canonical_solution="    return 0\n")
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"task_id": "T/0", "solution": "Sure:\n```python\ndef f():\n    return 1\n```"}) + "\n")
    read_solutions(path, {"T/0": problem})
    assert "--raw-field" in capsys.readouterr().err
    path.write_text(json.dumps({"task_id": "T/0", "solution": "def f():\n    return 1\n"}) + "\n")
    read_solutions(path, {"T/0": problem})
    assert capsys.readouterr().err == ""


def test_code_blocks_read_python_and_json_fences_and_a_block_left_open():
    """One reader of fenced blocks for every chat reply: ```python (or py, untagged) for code, ```json for data; a
    reply cut at its token limit leaves its last block open, and that block runs to the reply's end."""
    from coderank_evalplus.io.sanitize import code_blocks

    assert code_blocks("Sure:\n```python\nx = 1\n```\ntext\n```\ny = 2\n```\nand\n```py\nz = 3") == [
        "x = 1\n", "y = 2\n", "z = 3"]
    assert code_blocks('Pairs:\n```json\n[{"input": "1"}]\n```\n', "json") == ['[{"input": "1"}]\n']
    assert code_blocks("no fence") == [] and code_blocks("```JSON\n[1, 2", "json") == ["[1, 2"]
