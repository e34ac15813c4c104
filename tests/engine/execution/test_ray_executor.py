"""The Ray executor on a real two-node Ray cluster on 127.0.0.1 (head + one worker node, one CPU each).

The cluster is Ray's own multi-node-on-one-machine set-up (``ray.cluster_utils.Cluster``: a raylet per node, each
with its own resources, as ``ray start --head`` / ``ray start --address`` would make), in Ray's single-machine
mode so that every node advertises 127.0.0.1, with its files in a private folder. A rerank of real CodeGen-16B
samples must give the local pool's pass and output matrices, rankings and verdicts, bit for bit; a second run
loses its worker node (raylet and everything under it killed) mid-run and must still finish with the same
results. The cluster is stopped afterwards, also when a test fails.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import numpy as np
import pytest

from coderank_evalplus.api.evaluate import stage_config
from coderank_evalplus.api.options import RerankOptions
from coderank_evalplus.engine.execution.execute import ResultCache, execute
from coderank_evalplus.engine.execution.executors import LocalExecutor
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.pipeline import build_works, rank_and_judge
from tests.conftest import REPO, needs_data

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.timeout(420)  # a hung cluster fails the test (and the fixtures still stop it)

TASKS = ["HumanEval/0", "HumanEval/7", "HumanEval/13", "HumanEval/29"]  # quick to judge; passes and failures
SAMPLES = 30
METHODS = ["codet", "srank", "mbr_exec"]
FIELDS = ("pass_matrix", "output_matrix", "output_kind", "trial_matrix", "compiled")

FAKE_VLLM = '''
import os, types
class SamplingParams:
    def __init__(self, **kw):
        self.__dict__.update(kw)
class LLM:
    def __init__(self, model, **kw):
        self.kw = kw
    def get_tokenizer(self):
        class CharTokenizer:  # one token per character
            chat_template = None
            def __call__(self, text):
                return {"input_ids": [ord(ch) for ch in text]}
        return CharTokenizer()
    def generate(self, prompts, params, use_tqdm=False):
        out = types.SimpleNamespace
        if getattr(params, "prompt_logprobs", None) is not None:  # each token's logprob: -(its position)
            return [out(prompt_token_ids=[ord(ch) for ch in p],
                        prompt_logprobs=[None] + [{ord(ch): out(logprob=-float(i + 1))} for i, ch in enumerate(p[1:])])
                    for p in prompts]
        tag = f"{os.getpid()}|{os.environ.get('CUDA_VISIBLE_DEVICES')}|{self.kw['tensor_parallel_size']}"
        return [out(outputs=[out(text=f"{p}#{i}@{tag}", cumulative_logprob=-float(i), token_ids=[0] * (i + 1))
                             for i in range(params.n)]) for p in prompts]
'''


@pytest.fixture(scope="module")
def cluster():
    """A Ray head node (1 CPU) on 127.0.0.1; tests add worker nodes."""
    from ray._private import ray_constants
    from ray.cluster_utils import Cluster

    tmp = tempfile.mkdtemp(prefix="crk", dir="/tmp")  # short: Ray's socket paths must fit in 107 bytes
    os.makedirs(os.path.join(tmp, "ray"))
    fake = os.path.join(tmp, "fake_vllm")
    os.makedirs(os.path.join(fake, "vllm"))
    with open(os.path.join(fake, "vllm", "__init__.py"), "w") as fh:
        fh.write(FAKE_VLLM)
    env = {
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",  # single-machine mode: nodes advertise 127.0.0.1
        "RAY_TMPDIR": tmp,  # Ray's files (and its "current cluster" pointer) stay out of /tmp/ray
        "RAY_USAGE_STATS_ENABLED": "0",
        # Ray's workers import this checkout (the runners check that driver and nodes run the same sources)
        "PYTHONPATH": os.pathsep.join([str(REPO), fake] + [p for p in [os.environ.get("PYTHONPATH")] if p]),
    }
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    was_cluster = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False  # read at import; the variable above covers Ray's other processes
    c = None
    try:
        c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
        yield c
    finally:
        if ray.is_initialized():
            ray.shutdown()
        if c is not None:
            c.shutdown()
        ray_constants.ENABLE_RAY_CLUSTER = was_cluster
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture
def worker_node(cluster):
    node = cluster.add_node(num_cpus=1)
    try:
        yield node
    finally:
        if node in cluster.worker_nodes:
            cluster.remove_node(node, allow_graceful=False)


def _kill_node(cluster, node) -> None:
    """A lost machine: SIGKILL the node's raylet and every process under it (the runner actor, its workers)."""
    import psutil

    raylet = psutil.Process(node.all_processes["raylet"][0].process.pid)
    procs = raylet.children(recursive=True) + [raylet]
    for p in procs:
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(procs, timeout=10)
    cluster.remove_node(node, allow_graceful=False)


def _inputs(problems, samples):
    sols, tests = samples
    return {t: sols[t][:SAMPLES] for t in TASKS}, {t: tests[t] for t in TASKS}


def _everything(problems, samples, executor, tmp_path, name):
    """Matrices from execute(), then the whole rerank (executions from the cache, judge on the executor)."""
    sols, tests = _inputs(problems, samples)
    cache = ResultCache(tmp_path / f"{name}.sqlite")
    try:
        cfg = stage_config(RerankOptions(methods=METHODS, progress=False))
        ex = execute(build_works(problems, sols, tests, cfg.tests_per_sample), cache, Limits(cpu=cfg.time_limit),
                     progress=False, executor=executor)
        result = rank_and_judge("humaneval", problems, sols, tests, cfg, cache, executor=executor)
    finally:
        cache.close()
    return ex, result


def _same(a, b) -> list[str]:
    ex_a, res_a = a
    ex_b, res_b = b
    diffs = []
    for tid in ex_a:
        for f in FIELDS:
            x, y = getattr(ex_a[tid], f), getattr(ex_b[tid], f)
            if x.shape != y.shape or not np.array_equal(x, y):
                diffs.append(f"{tid}.{f}")
    for tid, out in res_a.outcomes.items():
        other = res_b.outcomes[tid]
        if out.verdicts != other.verdicts:
            diffs.append(f"{tid}.verdicts")
        for m in METHODS:
            if [(g.candidates, g.score) for g in out.rankings[m].groups] != \
                    [(g.candidates, g.score) for g in other.rankings[m].groups]:
                diffs.append(f"{tid}.{m}")
    if res_a.methods != res_b.methods:
        diffs.append("metrics table")
    return diffs


@pytest.fixture(scope="module")
def local_result(humaneval_problems, codet_samples, tmp_path_factory):
    with LocalExecutor(2) as ex:
        out = _everything(humaneval_problems, codet_samples, ex, tmp_path_factory.mktemp("local"), "local")
    # the comparison means something: passes and failures, verdicts both ways
    ex, res = out
    assert any(e.pass_matrix.any() and (e.pass_matrix != 1).any() for e in ex.values())
    verdicts = [v.base for o in res.outcomes.values() for v in o.verdicts.values()]
    assert any(verdicts) and not all(verdicts)
    return out


@needs_data
def test_two_node_cluster_gives_the_local_pools_results(cluster, worker_node, local_result, humaneval_problems,
                                                        codet_samples, tmp_path):
    from coderank_evalplus.engine.execution.ray_executor import RayExecutor
    from coderank_evalplus.engine.execution.workers import WorkerError

    with RayExecutor(address=cluster.address, target_batch_s=0.2) as ex:
        assert sorted(n["slots"] for n in ex.nodes()) == [1, 1]  # head and worker node, one CPU each
        remote = _everything(humaneval_problems, codet_samples, ex, tmp_path, "ray")
        assert len(ex.stats.jobs_per_node) == 2 and min(ex.stats.jobs_per_node.values()) > 0
        assert ex.stats.lost_batches == 0
        assert (sorted(ex.run("coderank_evalplus.engine.execution.executors:echo", ["a", "b", "c"]))
                == [(0, "a"), (1, "b"), (2, "c")])
        with pytest.raises(WorkerError, match="AttributeError"):  # a job that raises: reported as locally
            list(ex.run("coderank_evalplus.engine.execution.executors:shared_path", [1]))
    assert _same(local_result, remote) == []


@needs_data
def test_damaged_cache_under_the_ray_executor(cluster, humaneval_problems, codet_samples, tmp_path, caplog):
    """Issue 18 with --executor ray: the runners never touch the cache, the driver owns it, so a cache with zeros in
    its middle is handled as with the local pool (moved aside, one warning, the work redone on the cluster) and the
    matrices equal the local pool's."""
    import logging

    from coderank_evalplus.engine.execution.ray_executor import RayExecutor

    sols, tests = _inputs(humaneval_problems, codet_samples)
    works = build_works(humaneval_problems, {t: sols[t] for t in TASKS[:1]}, tests, 5)
    db = tmp_path / "executions.sqlite"
    cache = ResultCache(db)
    with LocalExecutor(2) as ex:
        local = execute(works, cache, Limits(cpu=0.1), progress=False, executor=ex)
    cache.close()
    data = bytearray(db.read_bytes())
    zeros = min(8192, len(data) // 4)
    data[len(data) // 2: len(data) // 2 + zeros] = bytes(zeros)
    db.write_bytes(data)
    with caplog.at_level(logging.WARNING, logger="coderank_evalplus.engine.execution.cache"), \
            RayExecutor(address=cluster.address, target_batch_s=0.2) as ex:
        cache = ResultCache(db)
        try:
            remote = execute(works, cache, Limits(cpu=0.1), progress=False, executor=ex)
        finally:
            cache.close()
    warnings = [r.getMessage() for r in caplog.records if r.name == "coderank_evalplus.engine.execution.cache"]
    # where the zeros land decides which of the cache's two repairs runs: the file moved aside (damaged pages) or
    # the damaged records dropped (their checksums fail); either way one repair, and the work is redone
    moved = [w for w in warnings if "moved aside to executions.sqlite.damaged-" in w]
    dropped = [w for w in warnings if "damaged records were dropped and their work redone" in w]
    assert (len(moved) == 1 and len(warnings) == 1) or dropped, warnings
    assert len(list(tmp_path.glob("executions.sqlite.damaged-*"))) == len(moved)
    for tid in local:
        for f in FIELDS:
            assert np.array_equal(getattr(local[tid], f), getattr(remote[tid], f)), (tid, f)
    cache = ResultCache(db)  # the fresh file holds the cluster's results
    try:
        again = execute(works, cache, Limits(cpu=0.1), progress=False)
        assert all(np.array_equal(again[t].pass_matrix, local[t].pass_matrix) for t in local)
    finally:
        cache.close()


class _KillMidRun:
    """Wraps an executor: once the worker node has finished a batch of the first run, its machine is lost."""

    def __init__(self, ex, cluster, node, node_id) -> None:
        self.ex, self.cluster, self.node, self.node_id = ex, cluster, node, node_id
        self.killed_after = None

    def run(self, name, args, on_lost=None):
        args = list(args)
        for k, item in enumerate(self.ex.run(name, args, on_lost)):
            if self.killed_after is None and self.ex.stats.jobs_per_node.get(self.node_id, 0) > 0 \
                    and k >= len(args) // 20:
                _kill_node(self.cluster, self.node)
                self.killed_after = (k, len(args))
            yield item

    def share_file(self, path):
        return self.ex.share_file(path)


@needs_data
def test_losing_the_worker_node_mid_run_gives_the_same_results(cluster, worker_node, local_result,
                                                               humaneval_problems, codet_samples, tmp_path):
    from coderank_evalplus.engine.execution.ray_executor import RayExecutor

    with RayExecutor(address=cluster.address, target_batch_s=0.2) as ex:
        head = ray.get_runtime_context().get_node_id()
        (worker_id,) = [n["node_id"] for n in ex.nodes() if n["node_id"] != head]
        killer = _KillMidRun(ex, cluster, worker_node, worker_id)
        remote = _everything(humaneval_problems, codet_samples, killer, tmp_path, "ray_killed")
        k, n = killer.killed_after
        print(f"\nworker node killed after {k} of {n} jobs; {ex.stats.lost_batches} batch(es) lost, "
              f"{ex.stats.requeued_jobs} job(s) rerun on the head node")
        assert k < n - 1 and ex.stats.lost_batches >= 1 and ex.stats.requeued_jobs >= 1
        assert len(ex.stats.lost_nodes) == 1 and [n["node_id"] for n in ex.nodes()] == [head]
    assert _same(local_result, remote) == []


def test_vllm_data_parallel_replicas_on_ray(cluster):
    """--dp 2: two engines as Ray actors with a GPU each (a node that declares two GPUs), prompts dealt out in
    turn and answers put back in order. vLLM itself is a fake module on the cluster's path."""
    from coderank_evalplus.generation.vllm_backend import VllmGenerator

    gpu_node = cluster.add_node(num_cpus=2, num_gpus=2)
    gen = VllmGenerator("org/model", dp=2, ray_address=cluster.address)
    try:
        devices = gen.devices()
        assert sorted(d["cuda_visible_devices"] for d in devices) == ["0", "1"]
        assert gen.is_chat is False
        res = gen.generate([f"p{i}" for i in range(5)], 2, 0.8, 0.95, 10, ["\n"])
        assert [[s.text.split("@")[0] for s in r] for r in res] == [[f"p{i}#0", f"p{i}#1"] for i in range(5)]
        engines = [{s.text.split("@")[1] for s in r} for r in res]
        assert engines[0] == engines[2] == engines[4] != engines[1] == engines[3]  # dealt in turn
        assert res[3][1].logprob == -1.0 and res[3][1].n_tokens == 2
        pairs = [("ab", "c"), ("x", "yz"), ("abc", ""), ("q", "r")]  # scoring is dealt out and put back too
        assert gen.score(pairs) == [(-2.0, 1), (-1.0 - 2.0, 2), (0.0, 0), (-1.0, 1)]
    finally:
        gen.close()
        cluster.remove_node(gpu_node, allow_graceful=False)
    assert not ray.is_initialized()


def test_batch_sizes_follow_measured_job_times():
    from coderank_evalplus.engine.execution.ray_executor import RayExecutor

    ex = RayExecutor(target_batch_s=1.0, max_batch=256)  # not entered: no cluster needed
    assert ex._batch_size(10_000, None, 4) == 1  # nothing measured yet
    assert ex._batch_size(10_000, 0.02, 4) == 50  # about a second of work
    assert ex._batch_size(10_000, 1e-5, 4) == 256  # capped
    assert ex._batch_size(40, 0.02, 4) == 5  # near the end: every slot (two batches each) gets a share
    assert ex._batch_size(10_000, 30.0, 4) == 1
