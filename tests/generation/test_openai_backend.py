"""``run --backend openai`` against a chat-only OpenAI-compatible server (tests/generation/chat_server.py) replaying
real chat replies (DeepSeek-Coder-6.7B-Instruct's, tests/chat_sets.py): chat found out from the server, the same
pass@1 as ``rerank --raw-field raw`` on the same replies, 429s with Retry-After survived, a server that goes away
and a Ctrl-C resumed with nothing drawn twice, a bad key and an unknown model in one line; and the generator's
``n`` top-ups and concurrency against the same server in-process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.chat_sets import TIDS, chat_replies, have_chat_sets
from tests.conftest import SHARED_DATA

pytest.importorskip("openai")
pytestmark = pytest.mark.skipif(not have_chat_sets(), reason="shared chat sets not present")

MODEL = "canned-chat"
DEEPSEEK = slice(10, 20)  # chat_replies() holds Llama-3's 10, then DeepSeek-Coder's 10, then CodeLlama's 10
METHODS = "codet,mbr_exec"


@pytest.fixture(scope="module")
def problems():
    from coderank_evalplus.io.problems import load_problems

    return load_problems("humaneval", str(SHARED_DATA))


@pytest.fixture(scope="module")
def replies() -> dict[str, list[str]]:
    return {t: r[DEEPSEEK] for t, r in chat_replies().items()}


def _server(problems, replies, tids=TIDS, **kw):
    from tests.generation.chat_server import CannedChatServer

    return CannedChatServer({t: replies[t] for t in tids}, {t: problems[t].prompt.strip() for t in tids}, MODEL,
                            **kw)


def _cli(*args, env=None, **kw):
    cmd = [sys.executable, "-m", "coderank_evalplus.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env={**os.environ, **(env or {})}, **kw)


def _run_args(url, out, tids=TIDS, *extra):
    return ("run", "--backend", "openai", "--base-url", url, "--model", MODEL, "--data-dir", str(SHARED_DATA),
            "--task-ids", ",".join(tids), "--n-samples", "10", "--tests", "examples+mutate", "--methods", METHODS,
            "--workers", "2", "--output", str(out), "--quiet", *extra)


def _jsonl(path):
    return [json.loads(line) for line in open(path) if line.strip()]


def _pass1(out) -> dict[str, dict[str, float]]:
    """pass@1 of every method, on base and plus tests."""
    res = json.loads((out / "rerank_results.json").read_text())
    return {m: {split: v[split]["pass@1"] for split in ("base", "plus") if split in v}
            for m, v in res["methods"].items()}


def _error_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr[-3000:]
    lines = [ln for ln in stderr.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1, stderr[-3000:]
    return lines[0]


@pytest.mark.slow
def test_run_on_a_chat_only_server_equals_rerank_of_the_raw_replies(problems, replies, tmp_path):
    """Chat found out from the server (one line), 429s with Retry-After waited out, log-probabilities of the chat
    replies kept, and the same random / oracle (and reranked) pass@1 as ``rerank --raw-field raw``."""
    with _server(problems, replies, rate_limit_every=3, retry_after=1.0) as srv:
        r = _cli(*_run_args(srv.url, tmp_path / "run", TIDS, "--retries", "2"))
    assert r.returncode == 0, r.stderr[-3000:]
    detect = [ln for ln in r.stderr.splitlines() if ln.startswith("openai:")]
    assert len(detect) == 1 and "refuses model 'canned-chat' on /v1/completions (404" in detect[0]
    assert "chat messages" in detect[0]
    # every problem drawn once (10 replies per request: the server honours n), every 429 waited out >= Retry-After
    assert sorted(srv.served) == sorted((t, 10) for t in TIDS)
    assert len(srv.waited) == len(TIDS) // 3 and all(w >= 0.95 for w in srv.waited)
    samples = _jsonl(tmp_path / "run" / "samples.jsonl")
    assert {t: [s["raw"] for s in samples if s["task_id"] == t] for t in TIDS} == {t: replies[t] for t in TIDS}
    assert all(s["logprob"] < 0 and s["logprob_tokens"] > 0 for s in samples)

    raw = tmp_path / "raw.jsonl"
    raw.write_text("".join(json.dumps({"task_id": t, "raw": x}) + "\n" for t in TIDS for x in replies[t]))
    r2 = _cli("rerank", "--solutions", str(raw), "--raw-field", "raw", "--tests", "examples+mutate", "--methods",
              METHODS, "--data-dir", str(SHARED_DATA), "--workers", "2", "--output", str(tmp_path / "rerank"))
    assert r2.returncode == 0, r2.stderr[-3000:]
    ours, theirs = _pass1(tmp_path / "run"), _pass1(tmp_path / "rerank")
    assert 0 < theirs["random"]["base"] < theirs["oracle"]["base"]  # the subset has something to pick
    assert ours == theirs


@pytest.mark.slow
def test_a_server_that_goes_away_fails_in_one_line_and_the_run_resumes(problems, replies, tmp_path):
    tids = TIDS[:4]
    out = tmp_path / "run"
    srv = _server(problems, replies, tids, fail_after=2).start()
    try:
        r = _cli(*_run_args(srv.url, out, tids, "--retries", "1", "--concurrency", "2"))
        assert r.returncode == 2
        line = _error_line(r.stderr)
        assert f"server at {srv.url}/ unavailable after 1 retries" in line and "resume" in line
        partial = _jsonl(out / "samples.jsonl.partial")
        assert len(srv.served) == 2 and len(partial) == 20  # every answered request was written
        srv.fail_after = None
        srv.start()  # back, on the same port, with what it served
        r = _cli(*_run_args(srv.url, out, tids, "--retries", "1", "--concurrency", "2"))
        assert r.returncode == 0, r.stderr[-3000:]
    finally:
        srv.stop()
    assert sorted(srv.served) == sorted((t, 10) for t in tids)  # nothing drawn twice
    samples = _jsonl(out / "samples.jsonl")
    assert {t: [s["raw"] for s in samples if s["task_id"] == t] for t in tids} == {t: replies[t] for t in tids}


@pytest.mark.slow
def test_ctrl_c_writes_the_requests_in_flight_and_the_run_resumes(problems, replies, tmp_path):
    tids = TIDS[:6]
    out = tmp_path / "run"
    with _server(problems, replies, tids, delay=1.0) as srv:
        args = _run_args(srv.url, out, tids, "--concurrency", "2")
        proc = subprocess.Popen([sys.executable, "-m", "coderank_evalplus.cli", *args], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while not srv.served and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err[-3000:]
        assert "Traceback" not in err and "interrupted" in err
        drawn = len(srv.served)
        assert 1 <= drawn < len(tids)
        assert len(_jsonl(out / "samples.jsonl.partial")) == 10 * drawn, err  # those in flight were written too
        r = _cli(*args)
        assert r.returncode == 0, r.stderr[-3000:]
    assert sorted(srv.served) == sorted((t, 10) for t in tids)  # nothing drawn twice
    assert len(_jsonl(out / "samples.jsonl")) == 10 * len(tids)


@pytest.mark.parametrize("case", ["key", "model"])
@pytest.mark.slow
def test_a_bad_key_or_an_unknown_model_is_one_line(problems, replies, tmp_path, case):
    with _server(problems, replies, api_key="sk-right") as srv:
        args = list(_run_args(srv.url, tmp_path / "run"))
        if case == "model":
            args[args.index(MODEL)] = "gpt-nonesuch"
        r = _cli(*args, env={"OPENAI_API_KEY": "sk-wrong" if case == "key" else "sk-right"})
    assert r.returncode == 2
    line = _error_line(r.stderr)
    if case == "key":
        assert f"the server at {srv.url}/ refused the API key (401: Incorrect API key provided.)" in line
        assert "OPENAI_API_KEY" in line
    else:
        assert f"the server at {srv.url}/ does not serve model 'gpt-nonesuch' (404: The model `gpt-nonesuch` " \
               f"does not exist" in line and "it serves canned-chat" in line
    assert not srv.served


@pytest.mark.slow
def test_likelihood_methods_refuse_in_one_line_on_a_chat_only_server(problems, replies, tmp_path):
    """The reviewer likelihood needs /v1/completions (echo); the coder one the chat replies' logprobs."""
    with _server(problems, replies, logprobs=False) as srv:
        r = _cli(*_run_args(srv.url, tmp_path / "a", TIDS[:1]), "--methods", "coder_reviewer")
        r2 = _cli(*_run_args(srv.url, tmp_path / "b", TIDS[:1]), "--methods", "ll")
    assert r.returncode == 2 and r2.returncode == 2
    line = _error_line(r.stderr)
    assert "reviewer likelihood is scored through /v1/completions (echo)" in line and "(404: This is a chat" in line
    assert "returns no log-probabilities with model 'canned-chat''s chat replies" in _error_line(r2.stderr)
    assert not srv.served  # refused before sampling


def test_generator_tops_up_a_server_that_ignores_n_and_keeps_requests_in_flight(problems, replies):
    """llama.cpp-style ``n`` (one choice per request): five requests per prompt, in flight together; --no-chat on
    a chat-only server is the server's refusal in one line."""
    from coderank_evalplus.generation import make_generator
    from coderank_evalplus.generation.openai_backend import ServerRefused
    from coderank_evalplus.testgen.prompts import chat_solution_messages

    tids = TIDS[:4]
    prompts = [chat_solution_messages(problems[t]) for t in tids]
    with _server(problems, replies, tids, honour_n=False, delay=0.3) as srv:
        gen = make_generator("openai", MODEL, base_url=srv.url, chat=True, concurrency=8)
        got = dict(gen.generate_iter(prompts, 5, 0.8, 0.95, 64, []))
        assert sorted(got) == [0, 1, 2, 3] and all(len(v) == 5 for v in got.values())
        assert sorted(s.text for s in got[0]) == sorted(replies[tids[0]][:5])
        assert sorted(srv.served) == sorted((t, 1) for t in tids for _ in range(5))  # 4 asked for 5, 16 top-ups
        assert 2 <= srv.max_inflight <= 8
        base = make_generator("openai", MODEL, base_url=srv.url, chat=False)
        with pytest.raises(ServerRefused, match=r"refuses model 'canned-chat' on /v1/completions \(404: This is a "
                                                r"chat model.*it serves canned-chat"):
            base.generate(["def f():"], 1, 0.8, 0.95, 8, [])


def test_a_server_that_completes_text_gets_base_prompts_and_says_so(problems, replies, capsys):
    from coderank_evalplus.generation import make_generator
    from coderank_evalplus.testgen.prompts import solution_prompt

    tids = TIDS[:2]
    with _server(problems, replies, tids, chat_only=False) as srv:
        gen = make_generator("openai", MODEL, base_url=srv.url)
        assert gen.is_chat is False and gen.is_chat is False  # found out once
        got = gen.generate([solution_prompt(problems[t]) for t in tids], 3, 0.8, 0.95, 64, [])
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("openai:")]
    assert lines == [f"openai: the server at {srv.url}/ completes text with model 'canned-chat' on /v1/completions: "
                     f"base prompts (--chat to send chat messages instead)"]
    assert [[s.text for s in samples] for samples in got] == [replies[t][:3] for t in tids]


def test_more_samples_than_one_request_may_ask_for_are_split(problems, replies):
    from coderank_evalplus.generation import make_generator
    from coderank_evalplus.generation.openai_backend import MAX_N
    from coderank_evalplus.testgen.prompts import chat_solution_messages

    tid = TIDS[0]
    with _server(problems, replies, [tid]) as srv:
        gen = make_generator("openai", MODEL, base_url=srv.url, chat=True)
        [got] = gen.generate([chat_solution_messages(problems[tid])], MAX_N + 2, 0.8, 0.95, 64, [])
    assert len(got) == MAX_N + 2 and sorted(srv.served) == sorted([(tid, MAX_N), (tid, 2)])


def test_log_probabilities_are_read_from_each_choice(problems, replies):
    """Each chat choice's token log-probabilities summed and counted (the server's: −0.01 per character of each
    token); none where the server gives none, and none from a completions endpoint that gives none."""
    from coderank_evalplus.generation import make_generator
    from coderank_evalplus.testgen.prompts import chat_solution_messages, solution_prompt
    from tests.generation.chat_server import _tokens

    tids = TIDS[:2]
    with _server(problems, replies, tids, chat_only=False) as srv:
        chat = make_generator("openai", MODEL, base_url=srv.url, chat=True, logprobs=True)
        got = chat.generate([chat_solution_messages(problems[t]) for t in tids], 3, 0.8, 0.95, 64, [])
        base = make_generator("openai", MODEL, base_url=srv.url, chat=False, logprobs=True)
        [plain] = base.generate([solution_prompt(problems[tids[0]])], 2, 0.8, 0.95, 64, [])
    for t, samples in zip(tids, got):
        assert [s.text for s in samples] == replies[t][:3]
        assert [s.n_tokens for s in samples] == [len(_tokens(x)) for x in replies[t][:3]]
        assert [s.logprob for s in samples] == pytest.approx([-0.01 * len(x) for x in replies[t][:3]])
    assert [s.text for s in plain] == replies[tids[0]][3:5]
    assert all(s.logprob is None and s.n_tokens is None for s in plain)
    with _server(problems, replies, tids[:1], logprobs=False) as srv:
        gen = make_generator("openai", MODEL, base_url=srv.url, chat=True, logprobs=True)
        [samples] = gen.generate([chat_solution_messages(problems[tids[0]])], 2, 0.8, 0.95, 64, [])
    assert [s.text for s in samples] == replies[tids[0]][:2] and all(s.logprob is None for s in samples)


def test_a_reply_that_is_not_json_is_one_line(problems, replies):
    """A 200 whose body is a web page (a proxy's, a wrong --base-url): one line naming the server and the page."""
    from coderank_evalplus.generation import make_generator
    from coderank_evalplus.generation.openai_backend import ServerUnavailable
    from coderank_evalplus.testgen.prompts import chat_solution_messages

    tid = TIDS[0]
    with _server(problems, replies, [tid], not_json=True) as srv:
        gen = make_generator("openai", MODEL, base_url=srv.url, chat=True, max_retries=0)
        with pytest.raises(ServerUnavailable) as err:
            gen.generate([chat_solution_messages(problems[tid])], 2, 0.8, 0.95, 64, [])
    assert str(err.value) == (f"OpenAI-compatible server at {srv.url}/ answered /v1/chat/completions with no JSON "
                              f"object: <html><body> <h1>Welcome</h1> </body></html>")
