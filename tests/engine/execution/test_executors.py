"""Executors: the local pool behind the Executor interface, shared file names, the factory's errors, the CLI flags.

The Ray executor on a real cluster is in test_ray_executor.py."""

from __future__ import annotations

import subprocess
import sys

import pytest

from coderank_evalplus.engine.execution.executor_factory import make_executor
from coderank_evalplus.engine.execution.executors import (
    SHARED_DIR_ENV,
    Executor,
    LocalExecutor,
    WarmExecutor,
    shared_path,
)
from coderank_evalplus.engine.execution.workers import WorkerError


def test_local_executor_runs_jobs_and_reports_failures():
    with LocalExecutor(2) as ex:
        assert isinstance(ex, Executor)
        assert (sorted(ex.run("coderank_evalplus.engine.execution.executors:echo", ["a", "b", "c"]))
                == [(0, "a"), (1, "b"), (2, "c")])
        assert list(ex.run("coderank_evalplus.engine.execution.executors:echo", [])) == []
        with pytest.raises(WorkerError, match="AttributeError"):
            list(ex.run("coderank_evalplus.engine.execution.executors:shared_path", [1]))
        assert ex.share_file("/some/file.pkl") == "/some/file.pkl"


def test_warm_executor_keeps_its_workers_and_restarts_them_after_a_run_left_half_way():
    echo = "coderank_evalplus.engine.execution.executors:echo"
    with WarmExecutor(2) as ex:
        assert isinstance(ex, Executor)
        pids = [w.proc.pid for w in ex._pool.workers]
        assert sorted(ex.run(echo, ["a", "b", "c"])) == [(0, "a"), (1, "b"), (2, "c")]
        assert sorted(ex.run(echo, ["d"])) == [(0, "d")]
        assert [w.proc.pid for w in ex._pool.workers] == pids  # the same interpreters, run after run
        with pytest.raises(WorkerError, match="AttributeError"):
            list(ex.run("coderank_evalplus.engine.execution.executors:shared_path", [1, 2, 3, 4, 5]))
        assert ex._pool is None  # jobs were left in flight: those workers are gone
        run = ex.run(echo, list(range(10)))
        next(run)
        run.close()  # left half-way as well
        assert ex._pool is None
        assert sorted(ex.run(echo, ["e", "f"])) == [(0, "e"), (1, "f")]  # new workers, no stale answer
    assert ex._pool is None


def test_shared_path(monkeypatch, tmp_path):
    assert shared_path("/a/b.pkl") == "/a/b.pkl"
    monkeypatch.delenv(SHARED_DIR_ENV, raising=False)
    with pytest.raises(RuntimeError, match=SHARED_DIR_ENV):
        shared_path("shared:abc")
    monkeypatch.setenv(SHARED_DIR_ENV, str(tmp_path))
    assert shared_path("shared:abc") == str(tmp_path / "abc")


def test_factory(monkeypatch):
    assert isinstance(make_executor("local", 3), LocalExecutor) and make_executor("local", 3).workers == 3
    with pytest.raises(ValueError, match="unknown executor"):
        make_executor("dask")
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    with pytest.raises(RuntimeError, match=r"pip install 'coderank_evalplus\[ray\]'"):
        make_executor("ray")


def test_the_local_path_never_imports_ray():
    code = ("import sys, coderank_evalplus.pipeline, coderank_evalplus.engine.judging.judge\n"
            "import coderank_evalplus.cli.console\n"
            "from coderank_evalplus.engine.execution.executor_factory import make_executor\nmake_executor('local')\n"
            "assert 'ray' not in sys.modules, 'ray imported'")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "coderank_evalplus.cli", *args], capture_output=True, text=True,
                          timeout=300)


@pytest.mark.slow
def test_cli_flag_errors(tmp_path):
    r = _cli("rerank", "--solutions", "x.jsonl", "--tests", "y.jsonl", "--ray-address", "127.0.0.1:1",
             "--output", str(tmp_path))
    assert r.returncode == 2 and "--ray-address: needs --executor ray" in r.stderr and "Traceback" not in r.stderr
    r = _cli("run", "--backend", "openai", "--tp", "2", "--output", str(tmp_path), "--quiet")
    assert r.returncode == 2 and "--tp and --dp apply to --backend vllm" in r.stderr


def test_warm_pools_keep_a_pool_per_kind_of_job():
    """A sandbox job leaves its worker confined (imports the judge needs are blocked): the next kind of job gets
    workers of its own, and each kind keeps its workers from run to run."""
    from coderank_evalplus.engine.execution.execute import ProblemWork, execute
    from coderank_evalplus.engine.execution.executors import WarmPools
    from coderank_evalplus.engine.judging.judge import Judge
    from coderank_evalplus.io.problems import load_original_humaneval
    from coderank_evalplus.testgen.extract import suite_from_asserts

    p = load_original_humaneval()["HumanEval/0"]
    good, bad = p.prompt + p.canonical_solution, p.prompt + "    return True\n"
    suite = suite_from_asserts({"has_close_elements([1.0, 2.0], 0.5) == False": 1}, p.entry_point)
    with WarmPools(2) as pools:
        for _ in range(2):
            ex = execute([ProblemWork(p, [good, bad], suite)], None, progress=False, executor=pools)
            assert ex[p.task_id].candidate_pass().tolist() == [[True], [False]]
            verdicts = Judge(None, workers=2, progress=False, executor=pools).judge_programs({p.task_id: [good, bad]},
                                                                                           {p.task_id: p})
            assert [v.base for v in verdicts[p.task_id]] == [True, False]
        assert len(pools._pools) == 2 and all(pool._pool is not None for pool in pools._pools.values())
    assert pools._pools == {}
