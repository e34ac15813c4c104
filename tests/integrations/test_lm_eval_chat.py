"""lm-eval's ``--apply_chat_template`` in the coderank tasks, with canned answers (no model, no lm-eval process).

lm-eval hands every task ``apply_chat_template`` and ``chat_template`` (the model's ``apply_chat_template``) in
``fewshot_context`` and ``construct_requests``; the requests here are built by those very calls, with a chat
template that records the messages. The answers are real chat replies: the ``raw`` fields of three open instruct
models' HumanEval sets in ``../shared/data/extra_humaneval/`` (prose around fenced functions, bare bodies, test
prints), 10 replies per model on 10 problems. In chat mode the task must rank exactly the programs that
``coderank-evalplus rerank --raw-field raw`` reads from the same replies, with the same numbers; without the flag
nothing changes (requests, programs, records).
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

pytest.importorskip("lm_eval")

from tests.chat_sets import MODELS, TIDS, chat_replies, have_chat_sets  # noqa: E402
from tests.conftest import SHARED_DATA  # noqa: E402

DATA = SHARED_DATA
GPT_TESTS = DATA / "extra_humaneval" / "tests" / "gpt-3.5-turbo-1106_own5.jsonl"
TASK = "humaneval_srank"
needs_data = pytest.mark.skipif(not have_chat_sets() or not GPT_TESTS.is_file(),
                                reason=f"shared chat sets not found under {DATA}")


def chat_template(messages, add_generation_prompt=True):
    """A stand-in for ``lm.apply_chat_template``: the messages it was given, as JSON."""
    return json.dumps({"messages": messages, "add_generation_prompt": add_generation_prompt})


def _test_replies() -> dict[str, list[str]]:
    """Chat-style test replies made from gpt-3.5-turbo's own asserts: fenced with prose and a comment line (CodeT's
    stop sequences would cut it there), bare assert lines, and prose without any assert."""
    asserts = {}
    with open(GPT_TESTS, encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            asserts[rec["task_id"]] = rec["asserts"]
    out = {}
    for tid in TIDS:
        a = asserts[tid]
        out[tid] = [
            "Here are some test cases:\n\n```python\n# typical inputs\n" + "\n".join(a[:3]) + "\n\n# edge case\n"
            + "\n".join(a[3:5]) + "\n```\n\nThese cover typical inputs and an edge case.",
            "\n".join(a[1:4]),
            "I would need the implementation to write meaningful tests.",
        ]
    return out


def _load_yaml(path: Path) -> dict:
    """A task YAML as lm-eval reads it, ``!function`` resolved (as in test_lm_eval_integration)."""
    try:
        from lm_eval.tasks._yaml_loader import load_yaml
    except ImportError:  # lm-eval < 0.4.12
        from lm_eval.utils import load_yaml_config

        return load_yaml_config(yaml_path=str(path), mode="full")
    return load_yaml(path, resolve_func=True)


def _task(tmp: Path, **meta):
    from coderank_evalplus.integrations.lm_eval import CodeRankTask, tasks_dir

    cfg = _load_yaml(tasks_dir() / f"{TASK}.yaml")
    cfg["metadata"] = {**cfg["metadata"], "progress": False, "results_dir": "none",
                       "cache_dir": str(tmp / "cache"), "workers": 2, **meta}
    return CodeRankTask(config=cfg)


def _build(task, tids, chat: bool):
    """What lm-eval's ``build_all_requests`` does for these documents (the same two calls, its keywords)."""
    docs = {d["task_id"]: (i, d) for i, d in enumerate(task.test_docs())}
    instances = []
    for tid in tids:
        doc_id, doc = docs[tid]
        ctx = task.fewshot_context(doc, num_fewshot=0, system_instruction=None, apply_chat_template=chat,
                                   fewshot_as_multiturn=False, chat_template=chat_template if chat else None,
                                   gen_prefix=task.doc_to_prefix(doc))
        instances += task.construct_requests(doc=doc, ctx=ctx, metadata=(TASK, doc_id, 1),
                                             apply_chat_template=chat,
                                             chat_template=chat_template if chat else None)
    task._instances = instances
    return instances


def _answer_and_score(task, instances, solutions: dict[str, list[str]], tests: dict[str, list[str]]) -> dict:
    """Give each request its canned answers (as lm-eval's evaluator fills ``resps``), run the task's filters and
    scoring; the records per task id."""
    for inst in instances:
        inst.resps = list((solutions if inst.idx == 0 else tests)[inst.doc["task_id"]])
    task.apply_filters()
    out = {}
    for inst in instances:
        out.setdefault(inst.doc["task_id"], [None, None])[inst.idx] = inst.filtered_resps["none"]
    return out


def _instruct_yaml() -> dict:
    """lm-eval's own humaneval_instruct task (the installed release), ``!function`` tags left as text."""
    import importlib.util

    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))
    folder = Path(importlib.util.find_spec("lm_eval").submodule_search_locations[0]) / "tasks" / "humaneval"
    return yaml.load((folder / "humaneval_instruct.yaml").read_text(), Loader=Loader)


# ----------------------------------------------------------------------------------------------------------------


@needs_data
@pytest.mark.slow
def test_chat_requests_prompt_as_lm_evals_instruct_task(tmp_path):
    from lm_eval.utils import apply_template

    from coderank_evalplus.io.problems import load_problems
    from coderank_evalplus.testgen.prompts import CODET_STOP, chat_test_messages

    task = _task(tmp_path, n_samples=3, n_test_samples=2)
    reqs = _build(task, TIDS[:2], chat=True)
    instruct = _instruct_yaml()
    problems = load_problems("humaneval", str(DATA))
    for sol, test in zip(reqs[::2], reqs[1::2]):
        doc = sol.doc
        assert (sol.idx, sol.repeats, test.idx, test.repeats) == (0, 3, 1, 2)
        ctx = json.loads(sol.args[0])
        # lm-eval's humaneval_instruct: its doc_to_text as the user turn, its gen_prefix opening the answer
        assert ctx == {"messages": [{"role": "user", "content": apply_template(instruct["doc_to_text"], doc)},
                                    {"role": "assistant", "content": apply_template(instruct["gen_prefix"], doc)}],
                       "add_generation_prompt": False}
        # the package's chat test prompt, the reply to come after the template's assistant header
        assert json.loads(test.args[0]) == {"messages": chat_test_messages(problems[doc["task_id"]], 5),
                                            "add_generation_prompt": True}
        for r in (sol, test):
            assert r.coderank_chat is True
            gen = r.args[1]
            assert gen["until"] == [] and not set(CODET_STOP) & set(gen["until"])  # replies are read whole
            assert gen["temperature"] == 0.8 and gen["max_gen_toks"] == 300  # the rest as without the flag
        assert pickle.loads(pickle.dumps(sol)).coderank_chat is True  # lm-eval's --cache_requests keeps the mark
        # lm-eval 0.4.9 passes fewshot_context's arguments by position
        assert task.fewshot_context(doc, 0, None, True, False, chat_template, gen_prefix=None) == sol.args[0]
    assert task.config.generation_kwargs["until"] == CODET_STOP  # the task's own settings are untouched
    # a stop string the user added stays; CodeT's go
    from coderank_evalplus.integrations.lm_eval import chat_generation_kwargs

    assert chat_generation_kwargs({"until": [*CODET_STOP, "</s>"], "top_p": 0.9}) == {"until": ["</s>"],
                                                                                     "top_p": 0.9}
    assert chat_generation_kwargs({"until": "\ndef"}) == {"until": []}
    assert chat_generation_kwargs({"temperature": 0.2}) == {"temperature": 0.2}


@needs_data
def test_requests_without_the_flag_are_unchanged(tmp_path):
    """Without ``--apply_chat_template`` the context is the benchmark prompt as lm-eval's own ConfigurableTask
    builds it (no prefix), the test request CodeT's prompt, with CodeT's stop sequences."""
    from lm_eval.api.task import ConfigurableTask

    from coderank_evalplus.testgen.prompts import CODET_STOP

    task = _task(tmp_path, n_samples=3, n_test_samples=2)
    reqs = _build(task, TIDS[:2], chat=False)
    for sol, test in zip(reqs[::2], reqs[1::2]):
        doc = sol.doc
        base = ConfigurableTask.fewshot_context(task, doc, 0, system_instruction=None, apply_chat_template=False,
                                                fewshot_as_multiturn=False, chat_template=None, gen_prefix=None)
        assert sol.args[0] == base == doc["prompt"]
        assert test.args[0] == doc["test_prompt"]
        for r in (sol, test):
            assert not hasattr(r, "coderank_chat")
            assert r.args[1] == task.config.generation_kwargs and r.args[1]["until"] == CODET_STOP


@pytest.fixture(scope="module")
def chat_run(tmp_path_factory):
    """The chat-mode task scored on the canned replies, and ``coderank-evalplus rerank --raw-field raw`` on the
    same replies and test samples (sharing the execution cache)."""
    from coderank_evalplus.cli.console import main
    from coderank_evalplus.io.problems import load_problems
    from coderank_evalplus.testgen.replies import parse_chat_tests

    tmp = tmp_path_factory.mktemp("lm_eval_chat")
    solutions, tests = chat_replies(), _test_replies()
    n, m = len(MODELS) * 10, 3
    assert all(len(v) == n for v in solutions.values())
    task = _task(tmp, n_samples=n, n_test_samples=m)
    records = _answer_and_score(task, _build(task, TIDS, chat=True), solutions, tests)
    with open(tmp / "replies.jsonl", "w", encoding="utf-8") as fh:
        for tid in TIDS:
            for reply in solutions[tid]:
                fh.write(json.dumps({"task_id": tid, "raw": reply}) + "\n")
    problems = load_problems("humaneval", str(DATA))
    with open(tmp / "tests.jsonl", "w", encoding="utf-8") as fh:
        for tid in TIDS:
            samples = [parse_chat_tests(t, problems[tid].entry_point) for t in tests[tid]]
            fh.write(json.dumps({"task_id": tid, "samples": samples}) + "\n")
    assert main(["rerank", "--dataset", "humaneval", "--data-dir", str(DATA), "--solutions",
                 str(tmp / "replies.jsonl"), "--raw-field", "raw", "--tests", str(tmp / "tests.jsonl"),
                 "--methods", "srank", "--output", str(tmp / "cli"), "--cache-dir", str(tmp / "cache"),
                 "--workers", "2", "--quiet"]) == 0
    return {"records": records, "task": task, "solutions": solutions, "tests": tests, "problems": problems,
            "tmp": tmp, "cli": json.loads((tmp / "cli" / "rerank_results.json").read_text())}


@needs_data
def test_chat_replies_are_read_as_rerank_raw_field_reads_them(chat_run):
    from coderank_evalplus.io.samples import read_solutions, read_test_samples
    from coderank_evalplus.io.sanitize import raw_program
    from coderank_evalplus.testgen.extract import truncate

    problems, tmp = chat_run["problems"], chat_run["tmp"]
    cli_programs = read_solutions(tmp / "replies.jsonl", problems, raw_field="raw")  # what --raw-field raw ranks
    changed = 0
    for tid in TIDS:
        record, test_record = chat_run["records"][tid]
        replies = chat_run["solutions"][tid]
        assert record["chat"] is True and test_record["chat"] is True
        assert record["candidates"] == cli_programs[tid] == [raw_program(r, problems[tid]) for r in replies]
        assert record["n_empty"] == sum(1 for p in record["candidates"] if not p)
        changed += sum(p != problems[tid].prompt + truncate(r) for p, r in zip(record["candidates"], replies))
        assert test_record["n_samples"] == 3
        asserts = [t["assert"] for t in test_record["tests"]]
        assert asserts and all(a.startswith(f"assert {problems[tid].entry_point}(") or problems[tid].entry_point in a
                               for a in asserts)
    # the old reading (prompt + reply cut at CodeT's stops) would have ranked other programs for most replies
    assert changed > len(TIDS) * len(MODELS) * 10 // 2
    fenced = sum("```" in r for tid in TIDS for r in chat_run["solutions"][tid])
    assert fenced > 50  # the sample holds the shape that matters: prose around a fenced function
    # the test samples are the chat test parser's, as read_test_samples reads them from the CLI's file
    cli_tests = read_test_samples(tmp / "tests.jsonl", problems)
    assert all(len(cli_tests[tid]) == 3 and cli_tests[tid][2] == "" for tid in TIDS)


@needs_data
def test_chat_metrics_match_the_cli_on_the_same_replies(chat_run):
    records = chat_run["records"]
    cli = chat_run["cli"]["methods"]
    mean = {k: 100 * sum(records[t][0][k] for t in TIDS) / len(TIDS) for k in ("pass@1", "pass@1_random",
                                                                                  "pass@1_oracle")}
    assert round(mean["pass@1"], 2) == cli["srank"]["base"]["pass@1"]
    assert round(mean["pass@1_random"], 2) == cli["random"]["base"]["pass@1"]
    assert round(mean["pass@1_oracle"], 2) == cli["oracle"]["base"]["pass@1"]
    assert 0 < mean["pass@1_random"] < 100  # real replies: some right, some wrong
    task = chat_run["task"]
    for tid in TIDS:
        assert task.process_results({}, records[tid]) == {m: records[tid][0][m] for m in
                                                          ("pass@1", "pass@1_random", "pass@1_oracle")}


@needs_data
@pytest.mark.slow
def test_scoring_without_the_flag_is_unchanged(tmp_path):
    """The same replies without chat mode: programs are the prompt + the reply cut at CodeT's stop sequences, test
    samples go in as answered, and the records carry no chat key."""
    from coderank_evalplus.testgen.extract import truncate

    tids = TIDS[:2]
    solutions = {tid: chat_replies()[tid][::6] for tid in tids}  # 5 replies, from each model
    tests = {tid: ["x) == 1\nassert " + tid, "candidate"] for tid in tids}
    task = _task(tmp_path, n_samples=5, n_test_samples=2)
    records = _answer_and_score(task, _build(task, tids, chat=False), solutions, tests)
    for tid in tids:
        record, test_record = records[tid]
        assert "chat" not in record and "chat" not in test_record
        assert record["candidates"] == [truncate(r) for r in solutions[tid]]
        assert test_record["n_samples"] == 2
