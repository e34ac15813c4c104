"""``rerank --solutions/--tests`` on the ``--log_samples`` file of a chat-mode lm-eval run (``--apply_chat_template``).

Such a run's solution record (``filtered_resps[0]``) says ``"chat": true``; its answers are whole chat replies, read
as the task read them: solutions as ``raw_program``, test replies as ``parse_chat_tests``. The replies are real ones:
the ``raw`` fields of three instruct models' HumanEval sets in ``../shared/data/extra_humaneval/`` (as in
tests/integrations/test_lm_eval_chat.py). A log without the mark is read as before (prompt + reply cut at CodeT's
stop sequences; test answers as answered).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coderank_evalplus.io.jsonl import SampleFileError
from coderank_evalplus.io.samples import read_solutions, read_test_samples
from coderank_evalplus.io.sanitize import raw_program
from coderank_evalplus.testgen.extract import truncate
from coderank_evalplus.testgen.replies import parse_chat_tests
from tests.chat_sets import MODELS, TIDS, chat_replies, have_chat_sets
from tests.conftest import SHARED_DATA

DATA = SHARED_DATA
needs_data = pytest.mark.skipif(not have_chat_sets(), reason=f"shared chat sets not found under {DATA}")


@pytest.fixture(scope="module")
def problems():
    from coderank_evalplus.io.problems import load_problems

    return load_problems("humaneval", str(DATA))


@pytest.fixture(scope="module")
def replies() -> dict[str, list[str]]:
    return chat_replies()


def _test_replies(problem) -> list[str]:
    """Chat-style test replies: fenced with prose and comment lines, bare asserts, prose without any assert."""
    ep = problem.entry_point
    return [f"Here are some tests:\n\n```python\n# typical\nassert {ep}(1) == 1\n\n# edge\nassert {ep}(0) == 0\n```\n"
            f"\nThese cover an edge case.",
            f"assert {ep}(2) == 2\nassert {ep}(3) == 3",
            "I would need the implementation to write meaningful tests."]


def _line(doc_id: int, problem, solutions: list[str], tests: list[str] | None, chat, filt: str = "none") -> dict:
    """One line of lm-eval's samples_<task>_<date>.jsonl for our task: the filtered responses are the task's
    records through str() (JSON strings); ``chat``: the value of their "chat" key (None: no key, as without the
    flag)."""
    doc = {"task_id": problem.task_id, "prompt": problem.prompt, "test_prompt": "", "entry_point": problem.entry_point,
           "canonical_solution": ""}
    gen = {"until": [], "do_sample": True, "temperature": 0.8}
    arguments = {"gen_args_0": {"arg_0": doc["prompt"], "arg_1": gen}}
    resps = [list(solutions)]
    sol_rec: dict = {"task_id": problem.task_id, "candidates": [], "pass@1": 0.0}
    test_rec: dict = {"task_id": problem.task_id, "n_samples": len(tests or []), "tests": []}
    if chat is not None:
        sol_rec["chat"] = test_rec["chat"] = chat
    if tests is not None:
        arguments["gen_args_1"] = {"arg_0": "", "arg_1": gen}
        resps.append(list(tests))
    filtered = [json.dumps(sol_rec)] + ([json.dumps(test_rec)] if tests is not None else [])
    return {"doc_id": doc_id, "doc": doc, "target": "", "arguments": arguments, "resps": resps,
            "filtered_resps": filtered, "filter": filt, "metrics": ["pass@1", "pass@1_random", "pass@1_oracle"],
            "doc_hash": "0" * 64, "prompt_hash": "1" * 64, "target_hash": "2" * 64, "pass@1": 0.0}


def _write(path: Path, lines: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines), encoding="utf-8")
    return path


def _log(folder: Path, problems, replies, chat, filters=("none", "other")) -> Path:
    lines = [_line(i, problems[tid], replies[tid], _test_replies(problems[tid]), chat, filt)
             for filt in filters for i, tid in enumerate(TIDS)]
    return _write(folder / "samples_humaneval_srank_2026-01-01T10-00-00.1.jsonl", lines)


@needs_data
@pytest.mark.slow
def test_chat_log_is_read_as_chat_replies(tmp_path, problems, replies):
    path = _log(tmp_path / "chat" / "model", problems, replies, chat=True)
    sols = read_solutions(path, problems)
    assert sols == {tid: [raw_program(r, problems[tid]) for r in replies[tid]] for tid in TIDS}
    assert read_solutions(tmp_path / "chat", problems) == sols  # the output folder reads the same
    # what `rerank --raw-field raw` reads from the same replies
    flat = _write(tmp_path / "replies.jsonl", [{"task_id": tid, "raw": r} for tid in TIDS for r in replies[tid]])
    assert read_solutions(flat, problems, raw_field="raw") == sols
    # the old reading (prompt + reply cut at CodeT's stops) would give other programs for most replies
    changed = sum(p != problems[tid].prompt + truncate(r) for tid in TIDS for p, r in zip(sols[tid], replies[tid]))
    assert changed > len(TIDS) * len(MODELS) * 10 // 2
    tests = read_test_samples(path, problems)
    assert tests == {tid: [parse_chat_tests(t, problems[tid].entry_point) for t in _test_replies(problems[tid])]
                     for tid in TIDS}
    ep = problems[TIDS[0]].entry_point
    assert tests[TIDS[0]] == [f"{ep}(1) == 1\nassert {ep}(0) == 0", f"{ep}(2) == 2\nassert {ep}(3) == 3", ""]


@needs_data
@pytest.mark.parametrize("chat", [None, False])
def test_log_without_chat_mark_is_read_as_before(tmp_path, problems, replies, chat):
    path = _log(tmp_path, problems, replies, chat=chat)
    assert read_solutions(path, problems) == {tid: [problems[tid].prompt + truncate(r) for r in replies[tid]]
                                              for tid in TIDS}
    assert read_test_samples(path, problems) == {tid: _test_replies(problems[tid]) for tid in TIDS}


@needs_data
def test_chat_record_without_entry_point_or_tests(tmp_path, problems, replies):
    line = _line(0, problems[TIDS[0]], replies[TIDS[0]], None, chat=True)
    del line["doc"]["entry_point"]
    path = _write(tmp_path / "samples_humaneval_srank_d.jsonl", [line])
    with pytest.raises(SampleFileError, match=r"samples_humaneval_srank_d.jsonl:1: lm-eval sample: a chat-mode "
                                              r"record needs doc field 'entry_point'"):
        read_solutions(path, problems)
    # a chat run without test requests: solutions read, no test samples
    line = _line(0, problems[TIDS[0]], replies[TIDS[0]], None, chat=True)
    path = _write(tmp_path / "samples_humaneval_srank_e.jsonl", [line])
    assert read_solutions(path, problems)[TIDS[0]] == [raw_program(r, problems[TIDS[0]]) for r in replies[TIDS[0]]]


@needs_data
@pytest.mark.slow
def test_the_tasks_own_chat_records_read_back(tmp_path, problems, replies):
    """Records made by the task itself in chat mode (as tests/integrations/test_lm_eval_chat.py builds them), logged
    as lm-eval logs them: rerank reads back the programs the task ranked, and its test samples."""
    pytest.importorskip("lm_eval")
    from tests.integrations.test_lm_eval_chat import _answer_and_score, _build, _task

    tids = TIDS[:3]
    sols = {tid: replies[tid][::6] for tid in tids}  # 5 replies, from each model
    tests = {tid: _test_replies(problems[tid]) for tid in tids}
    task = _task(tmp_path, n_samples=5, n_test_samples=3)
    instances = _build(task, tids, chat=True)
    records = _answer_and_score(task, instances, sols, tests)
    docs = {inst.doc["task_id"]: inst.doc for inst in instances}
    lines = [{"doc_id": i, "doc": docs[tid], "resps": [sols[tid], tests[tid]],
              "filtered_resps": [str(r) for r in records[tid]], "filter": "none"} for i, tid in enumerate(tids)]
    path = _write(tmp_path / "log" / "samples_humaneval_srank_d.jsonl", lines)
    read = read_solutions(path, problems)
    for tid in tids:
        assert records[tid][0]["chat"] is True
        assert read[tid] == records[tid][0]["candidates"] == [raw_program(r, problems[tid]) for r in sols[tid]]
    assert read_test_samples(path, problems) == {
        tid: [parse_chat_tests(t, problems[tid].entry_point) for t in tests[tid]] for tid in tids}
