"""A streamed ``run`` (api/stream.py): its results folder is the unstreamed order's (the same files reranked in one
batch by ``run_rerank``), with the adaptive budget too; an interrupted run (killed, Ctrl-C or SIGTERM) resumes
without drawing, executing or judging a finished problem again; the timing block says how much overlapped. The
model is the tests' canned chat server (tests/generation/chat_server.py) answering problems of our own, in a thread
of this process or, for the interrupted run, beside a ``coderank-evalplus run`` in a process of its own."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.generation.chat_server import CannedChatServer
from tests.stream_parity import rerank_again, results_of

# four functions, each with two right replies and one wrong one (a chat model's: prose around a fenced block)
FUNCTIONS = {
    "inc": ("x + 1", "x - 1", 1, 2), "neg": ("-x", "x", 2, -2), "double": ("2 * x", "x * x", 3, 6),
    "square": ("x * x", "x + x", 3, 9), "half": ("x // 2", "x / 2", 7, 3), "odd": ("x % 2 == 1", "x % 2", 3, True),
}
TEST_MARKER = "as Python assert statements"  # what a test request asks (testgen.prompts.chat_test_messages)


def _problems() -> list[dict]:
    out = []
    for name, (right, _, arg, value) in FUNCTIONS.items():
        out.append({"task_id": f"mine/{name}", "entry_point": name,
                    "prompt": f'def {name}(x):\n    """>>> {name}({arg})\n    {value!r}\n    """\n',
                    "test": f"def check(candidate):\n    for x in range(-3, 9):\n"
                            f"        assert candidate(x) == ({right})\n"})
    return out


def _replies() -> tuple[dict, dict, dict]:
    """(solution replies, test replies, what names each problem in a request) for the canned server."""
    sols, tests, names = {}, {}, {}
    for name, (right, wrong, arg, value) in FUNCTIONS.items():
        code = "```python\ndef {0}(x):\n    return {1}\n```"
        sols[f"mine/{name}"] = [f"Here you go:\n{code.format(name, right)}", code.format(name, wrong),
                                f"{code.format(name, right)}\nIt returns {right}."]
        tests[f"mine/{name}"] = [f"```python\nassert {name}({arg}) == {value!r}\nassert {name}(0) == {name}(0)\n```"]
        names[f"mine/{name}"] = f"def {name}(x):"
    return sols, tests, names


def _server(**kw) -> CannedChatServer:
    """The canned server for our problems; a test request is answered from the problem's test replies."""
    sols, tests, names = _replies()
    return CannedChatServer(sols, names, test_marker=TEST_MARKER, test_replies=tests, **kw)


@pytest.fixture()
def dataset(tmp_path) -> Path:
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in _problems()))
    return path


def _run_args(server, dataset: Path, out: Path, *extra: str) -> list[str]:
    return ["run", "--backend", "openai", "--model", server.model, "--base-url", server.url, "--dataset",
            str(dataset), "--limit", "0", "--n-samples", "3", "--n-test-samples", "1", "--methods",
            "recommended,codet,mbr_exec", "--workers", "2", "--output", str(out), "--quiet", *extra]


def _main(args: list[str]) -> int:
    from coderank_evalplus.cli.console import main

    return main(args)


@pytest.fixture(autouse=True)
def _candidate_log(monkeypatch, tmp_path):
    from coderank_evalplus.engine.execution.workers import CANDIDATE_LOG_ENV

    monkeypatch.setenv(CANDIDATE_LOG_ENV, str(tmp_path / "before.log"))  # run sets it: put it back after


def _load(dataset: Path):
    from coderank_evalplus.io.problems import load_problems

    return load_problems(str(dataset))


@pytest.mark.parametrize("concurrency", ["1", "8"])
def test_a_streamed_run_is_the_unstreamed_order(tmp_path, dataset, concurrency):
    """Problems finished one by one (concurrency 1) or nearly all at once (8): the same folder as the run's own
    samples reranked and judged in one batch, and the timing block says what overlapped."""
    out = tmp_path / "run"
    with _server(delay=0.05) as server:
        assert _main(_run_args(server, dataset, out, "--concurrency", concurrency)) == 0
    assert not (out / "finished.jsonl").exists()  # the complete folder replaced it
    res = json.loads((out / "rerank_results.json").read_text())
    assert res["methods"]["oracle"]["base"]["pass@1"] == 100.0 and res["methods"]["codet"]["base"]["pass@1"] == 100.0
    timing = res["timing"]
    assert {"generate_s", "stage_s", "stream_s", "overlap_s", "wait_s"} <= set(timing)
    assert 0 <= timing["overlap_s"] <= min(timing["generate_s"], timing["stage_s"])
    assert timing["overlap_s"] == pytest.approx(max(0, timing["generate_s"] + timing["stage_s"] - timing["stream_s"]),
                                                abs=0.02)
    assert timing["stage_held"] is False  # a server: the stage runs beside it
    again = rerank_again(out, tmp_path / "again", _load(dataset))
    assert results_of(out) == results_of(again)


def test_a_model_on_this_cpu_holds_the_stage_until_sampling_ends(tmp_path, dataset, monkeypatch):
    """Where the model decodes on this machine's cores (``sampling_competes_for_cpu``; here the canned server
    taken for one), nothing is executed or judged while it samples: every problem goes down the stage in one batch
    once sampling has ended, finished.jsonl is written then, and the folder is still the unstreamed order's."""
    import coderank_evalplus.generation.base as base
    from coderank_evalplus.api.stream import _Stream
    from coderank_evalplus.pipeline import Stage

    monkeypatch.setattr(base, "sampling_competes_for_cpu", lambda generator: True)
    batches, early = [], []
    finish, judge_early = _Stream._finish, Stage.judge_early

    def spy_finish(self, done):
        batches.append((len(done), self.generate_s > 0))  # generate_s is set once the sampling loop has returned
        return finish(self, done)

    monkeypatch.setattr(_Stream, "_finish", spy_finish)
    monkeypatch.setattr(Stage, "judge_early", lambda self, programs: early.append(programs) or
                        judge_early(self, programs))
    out = tmp_path / "run"
    with _server(delay=0.05) as server:
        assert _main(_run_args(server, dataset, out, "--concurrency", "1")) == 0
    assert batches == [(len(FUNCTIONS), True)] and not early
    assert json.loads((out / "rerank_results.json").read_text())["timing"]["stage_held"] is True
    again = rerank_again(out, tmp_path / "again", _load(dataset))
    assert results_of(out) == results_of(again)


def test_the_adaptive_budget_is_the_same_stream(tmp_path, dataset):
    """--adaptive: the stopper's questions answered by the stream; each problem's samples and decision are those
    of the loop asking one problem at a time (a stopper that answers at once), and the results those of its
    files reranked in one batch."""
    from coderank_evalplus.api.evaluate import stage_config
    from coderank_evalplus.api.options import RerankOptions
    from coderank_evalplus.engine.execution.execute import ResultCache
    from coderank_evalplus.generation import generate_samples, make_generator
    from coderank_evalplus.pipeline import adaptive_stopper

    out = tmp_path / "run"
    with _server(delay=0.02) as server:
        assert _main(_run_args(server, dataset, out, "--adaptive", "--tau", "0.999")) == 0
    streamed = {r["task_id"]: r for r in map(json.loads, (out / "adaptive.jsonl").read_text().splitlines())}
    assert set(streamed) == {p["task_id"] for p in _problems()}
    got, again = results_of(out), results_of(rerank_again(out, tmp_path / "again", _load(dataset)))
    ran, ran_again = got.pop("execution"), again.pop("execution")  # the stopper executed them: the cache had them
    assert got == again and ran["cached_items"] + ran["executed_items"] == ran_again["executed_items"]

    problems = _load(dataset)
    cfg = stage_config(RerankOptions(methods=["recommended", "codet", "mbr_exec"], workers=2, progress=False))
    cache = ResultCache(tmp_path / "alone.sqlite")
    try:
        with _server() as server:
            gen = make_generator("openai", server.model, base_url=server.url, logprobs=True)
            generate_samples(list(problems.values()), gen, 3, 1, out_dir=str(tmp_path / "alone"), progress=False,
                             stopper=adaptive_stopper("recommended", cfg, cache, 0.999))
    finally:
        cache.close()
    alone = {r["task_id"]: r for r in map(json.loads, (tmp_path / "alone" / "adaptive.jsonl").read_text()
                                          .splitlines())}
    assert alone == streamed

    def samples(folder: Path) -> dict:
        got: dict = {}
        for rec in map(json.loads, (folder / "samples.jsonl").read_text().splitlines()):
            got.setdefault(rec["task_id"], []).append(rec["solution"])
        return got

    assert samples(tmp_path / "alone") == samples(out)


def _items(db: Path) -> int:
    """Item results stored in an execution cache (each executed item once, whatever the rows)."""
    from coderank_evalplus.engine.execution.execute import ITEM_RECORD

    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        return con.execute("SELECT COALESCE(SUM(LENGTH(records)), 0) FROM item_results").fetchone()[0] \
            // ITEM_RECORD.size
    finally:
        con.close()


def _env() -> dict:
    return dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]), CODERANK_CACHE_COMMIT_S="0")


@pytest.fixture(scope="module")
def never_interrupted(tmp_path_factory) -> tuple[Path, dict, int]:
    """(the dataset, the results and the count of executed items) of a run never interrupted, one request at a
    time, in a process of its own: what every interrupted run must come to."""
    root = tmp_path_factory.mktemp("whole")
    data = root / "mine.jsonl"
    data.write_text("".join(json.dumps(p) + "\n" for p in _problems()))
    with _server() as server:
        subprocess.run([sys.executable, "-m", "coderank_evalplus.cli", *_run_args(server, data, root / "whole",
                        "--concurrency", "1")], env=_env(), check=True, capture_output=True, timeout=300)
    return data, results_of(root / "whole", files=False), _items(root / "whole" / "cache" / "executions.sqlite")


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGKILL", "SIGINT", "SIGTERM"])
def test_an_interrupted_stream_resumes_without_redoing_finished_problems(tmp_path, never_interrupted, how):
    """``run`` in its own session, one request at a time, stopped once some problems are finished (listed in
    finished.jsonl) and others not — killed (SIGKILL to its group), Ctrl-C (SIGINT to its group) or ``kill``
    (SIGTERM to it): the same command again draws nothing for the finished ones, executes nothing twice, judges
    only what was not judged, and its folder is that of a run never interrupted."""
    dataset, whole, total_items = never_interrupted
    whole = dict(whole)
    out = tmp_path / "run"
    finished = out / "finished.jsonl"
    with _server(delay=0.4) as server:
        cmd = [sys.executable, "-m", "coderank_evalplus.cli", *_run_args(server, dataset, out, "--concurrency", "1")]
        with open(tmp_path / "stderr", "w") as err:
            proc = subprocess.Popen(cmd, env=_env(), start_new_session=True, stdout=subprocess.DEVNULL, stderr=err)
            deadline = time.monotonic() + 240
            while proc.poll() is None and time.monotonic() < deadline and (
                    not finished.is_file() or len(finished.read_text().splitlines()) < 2):
                time.sleep(0.05)
            sig = getattr(signal, how)
            if how == "SIGTERM":
                os.kill(proc.pid, sig)
            else:
                os.killpg(proc.pid, sig)
            try:
                proc.wait(timeout=60)
            finally:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)  # its workers too, whatever happened
        stderr = (tmp_path / "stderr").read_text()
        if how == "SIGKILL":
            assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"
        else:  # stopped as Ctrl-C stops it: the message, not a traceback
            assert proc.returncode == 130, stderr[-3000:]
            assert "interrupted: finished work is kept" in stderr and "Traceback" not in stderr, stderr[-3000:]
        done = [json.loads(line)["task_id"] for line in finished.read_text().splitlines()]
        assert 2 <= len(done) < len(FUNCTIONS) and not (out / "rerank_results.json").exists()
        for row in map(json.loads, finished.read_text().splitlines()):  # each finished problem's pass@1, kept
            assert set(row["pass@1"]) == {"random", "recommended", "codet", "mbr_exec", "oracle"}
        drawn_before = len(server.served)
        at_kill = _items(out / "cache" / "executions.sqlite")

        r = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-3000:]
        again = [t for t, _ in server.served[drawn_before:]]
    assert not set(again) & set(done)  # nothing drawn again for a finished problem
    got = results_of(out, files=False)
    ran, ran_whole = got.pop("execution"), whole.pop("execution")
    assert got == whole and ran["cached_items"] > 0
    assert ran["cached_items"] + ran["executed_items"] == ran_whole["executed_items"]
    assert 0 < at_kill <= _items(out / "cache" / "executions.sqlite") == total_items  # nothing executed twice
    timing = json.loads((out / "rerank_results.json").read_text())["timing"]
    judged_before = sum(len(set(r["solution"] for r in map(json.loads, (out / "samples.jsonl").read_text()
                                                              .splitlines()) if r["task_id"] == t)) for t in done)
    assert timing["judge_cached"] >= judged_before  # their verdicts came from the cache


def test_the_timing_line_says_what_overlapped():
    from coderank_evalplus.report.text import timing_line

    base = {"load_s": 0.0, "execute_s": 2.0, "programs": 4, "items": 8, "cached_items": 0, "rank_s": 0.1,
            "judge_s": 5.0, "metrics_s": 0.0, "total_s": 9.0}
    assert "overlapped" not in timing_line(base)
    line = timing_line({**base, "wait_s": 1.9, "generate_s": 6.0, "stage_s": 7.1, "stream_s": 9.0, "overlap_s": 4.1})
    assert "generation 6.0 s beside the rest 7.1 s in 9.0 s: 4.1 s overlapped" in line
    held = timing_line({**base, "wait_s": 6.0, "generate_s": 6.0, "stage_s": 3.0, "stream_s": 9.1, "overlap_s": 0.0,
                        "stage_held": True})
    assert "generation 6.0 s, then the rest 3.0 s in 9.1 s (held until sampling ended" in held


def test_sstar_with_the_runs_own_model_takes_turns_with_the_sampling(tmp_path, dataset):
    """--select-model same: S* asks the model the run samples from; it waits for its turn, so it never turns the
    log-probabilities off under the sampling loop (every sample keeps its own)."""
    out = tmp_path / "run"
    with _server(delay=0.05) as server:
        assert _main(_run_args(server, dataset, out, "--select-model", "same")) == 0
    res = json.loads((out / "rerank_results.json").read_text())
    assert res["timing"]["select_model_calls"] > 0 and "sstar" in res
    records = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert len(records) == 3 * len(FUNCTIONS) and all(r["logprob"] < 0 for r in records)
