"""Jobs on a Ray cluster: one runner actor per node, each owning that node's sandboxed workers.

```
driver (execute / Judge, owns the cache) ── batches of jobs ──▶ NodeRunner actor, one per node
                                         ◀── results per batch ── └ one thread per worker slot, each with a
                                                                      WorkerPool(1): the same fresh
                                                                      `python -c` worker as the local pool
```

The Ray worker process that hosts a runner is never guarded or forked from: each slot starts the same kind of
worker as the local pool (a clean interpreter that applies evalplus's ``reliability_guard`` to itself and forks one
confined child per program, with the limits carried in the job), so a matrix does not depend on where it was
computed. Runners refuse to serve a driver whose Python, evalplus or coderank_evalplus sources differ from theirs.

Scheduling: a runner asks for as many CPUs as it has slots (default: all of its node's), so one node's workers
never oversubscribe it. The driver keeps two batches per slot in flight and sizes each batch to about
``target_batch_s`` seconds of work from the job times measured so far (one job per batch until the first results
come back; smaller batches near the end, so that all slots finish together). A runner whose node is lost
(``RayActorError``, lost results) is dropped and its unfinished batches go back to the queue, to run elsewhere;
new nodes that join the cluster get a runner (checked every ``refresh_s``). A killed driver loses only the
batches in flight: the cache already holds every result that came back, and Ray ends the driver's actors.

This module imports Ray; ``executor_factory.make_executor("ray")`` imports it only when asked for.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import queue
import shutil
import sys
import tempfile
import threading
import time
import warnings
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generator, Iterable, Iterator, Optional

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from coderank_evalplus.engine.execution.executors import SHARED_DIR_ENV, SHARED_PREFIX
from coderank_evalplus.engine.execution.workers import WorkerError, WorkerPool
from coderank_evalplus.storage import atomic_write_bytes

DEPTH = 2  # batches in flight per worker slot: the next one is already on the node when a slot finishes
_GRACE_S = 10.0  # at start, once one runner is ready: how long the others may take to join the first run
MAX_NODE_LOSSES = 3  # a job whose node was lost this often is treated like a job that killed its worker twice
_FORWARDED_ENV = ("EVALPLUS_MAX_MEMORY_BYTES",)  # the driver's, on every node: the same memory cap everywhere
_LOST = (ray.exceptions.RayActorError, ray.exceptions.ObjectLostError, ray.exceptions.NodeDiedError,
         ray.exceptions.WorkerCrashedError, ray.exceptions.ActorUnschedulableError)


def environment_fingerprint() -> dict[str, str]:
    """What must match between driver and nodes for identical results: Python, evalplus, our sources."""
    import evalplus

    root = Path(__file__).resolve().parents[1]  # the engine: every package
    h = hashlib.blake2b(digest_size=8)
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return {"python": sys.version.split()[0], "evalplus": getattr(evalplus, "__version__", "?"),
            "coderank_evalplus": h.hexdigest()}


class NodeRunner:
    """Ray actor (one per node): runs batches of jobs on ``slots`` local workers, one thread per slot.

    Each slot thread lives as long as the actor and starts its worker itself (the worker's parent-death signal
    follows the thread that started it). A new ``run_id`` gives the slot a fresh worker, as the local executor
    gives each run a fresh pool."""

    def __init__(self, slots: int, env: dict[str, Optional[str]], files: dict[str, Any]) -> None:
        for key, value in env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        # under Ray's temp folder when one is set: a node that dies cannot remove it, whoever cleans that folder does
        self.dir = tempfile.mkdtemp(prefix="coderank_ray_files_", dir=os.environ.get("RAY_TMPDIR") or None)
        os.environ[SHARED_DIR_ENV] = self.dir  # the slots' workers inherit it (executors.shared_path)
        self.files: set[str] = set()
        self.add_files(files)
        self.slots = slots
        self.queue: queue.Queue = queue.Queue()
        self.threads = [threading.Thread(target=self._slot, name=f"slot-{i}", daemon=True) for i in range(slots)]
        for t in self.threads:
            t.start()

    def info(self) -> dict[str, Any]:
        import socket

        return {"node_id": ray.get_runtime_context().get_node_id(), "host": socket.gethostname(),
                "pid": os.getpid(), "slots": self.slots, "fingerprint": environment_fingerprint()}

    def add_files(self, files: dict[str, Any]) -> int:
        """Copy the driver's shared files (content digest → object ref) into this node's folder."""
        for digest, ref in files.items():
            if digest in self.files:
                continue
            atomic_write_bytes(os.path.join(self.dir, digest), ray.get(ref), "a shared judge input")
            self.files.add(digest)
        return len(self.files)

    def run_batch(self, run_id: int, name: str, args: list, on_lost: Any) -> tuple[list[tuple[int, Any]], float]:
        """Run one batch on the next free slot; returns ((index in batch, result) pairs, seconds the slot spent)."""
        fut: Future = Future()
        self.queue.put((run_id, name, args, on_lost, fut))
        return fut.result()

    def _slot(self) -> None:
        pool: Optional[WorkerPool] = None
        pool_run: Optional[int] = None
        while True:
            item = self.queue.get()
            if item is None:
                break
            run_id, name, args, on_lost, fut = item
            t0 = time.monotonic()
            try:
                if pool is None or pool_run != run_id:
                    if pool is not None:
                        pool.__exit__(None, None, None)
                    pool, pool_run = WorkerPool(1).__enter__(), run_id
                out = list(pool.run(name, args, on_lost=on_lost))
            except BaseException as exc:  # noqa: BLE001 - reported to the driver with the batch
                if pool is not None:  # its worker may still hold jobs of this batch: start afresh
                    pool.__exit__(type(exc), exc, None)
                pool, pool_run = None, None
                fut.set_exception(exc)
            else:
                fut.set_result((out, time.monotonic() - t0))
        if pool is not None:
            pool.__exit__(None, None, None)

    def close(self) -> None:
        """Let the slots end after their batch and remove the shared files (the driver kills the actor next;
        the slots' workers die with it)."""
        for _ in self.threads:
            self.queue.put(None)
        shutil.rmtree(self.dir, ignore_errors=True)


_NodeRunnerActor = ray.remote(NodeRunner)


@dataclass
class _Runner:
    node_id: str
    actor: Any
    slots: int
    ready_ref: Any
    ready: bool = False
    host: str = ""
    inflight: int = 0
    jobs_done: int = 0


@dataclass
class RayStats:
    """What the driver saw, over all runs of this executor (the benchmark prints it)."""

    batches: int = 0
    jobs: int = 0
    slot_busy_s: float = 0.0  # summed over batches: seconds the slots spent on them
    lost_batches: int = 0
    requeued_jobs: int = 0
    lost_nodes: list[str] = field(default_factory=list)
    jobs_per_node: dict[str, int] = field(default_factory=dict)  # node id → jobs


class RayExecutor:
    """Runs jobs on every node of a Ray cluster (see the module docstring); a context manager.

    ``address``: a cluster (``host:port``, ``auto``, ``ray://…``); None joins the cluster started on this machine
    (``ray start``, ``RAY_ADDRESS``) or starts a local one. ``workers_per_node``: a cap on the slots per node
    (default: the node's CPUs)."""

    def __init__(self, address: Optional[str] = None, workers_per_node: Optional[int] = None,
                 target_batch_s: float = 1.0, max_batch: int = 256, refresh_s: float = 5.0,
                 ready_timeout_s: float = 120.0) -> None:
        self.address = address
        self.workers_per_node = workers_per_node
        self.target_batch_s = target_batch_s
        self.max_batch = max_batch
        self.refresh_s = refresh_s
        self.ready_timeout_s = ready_timeout_s
        self.stats = RayStats()
        self._runners: dict[str, _Runner] = {}  # node id → runner (live or starting)
        self._bad_nodes: set[str] = set()  # lost, or a different environment: not used again by this executor
        self._files: dict[str, Any] = {}  # content digest → object ref
        self._shared: dict[tuple, str] = {}  # (path, mtime, size) → shared name
        self._owns_ray = False
        self._last_refresh = 0.0
        self._run_id = 0
        self._fingerprint = environment_fingerprint()

    # --- life cycle ------------------------------------------------------------------------------------------

    def __enter__(self) -> "RayExecutor":
        if not ray.is_initialized():
            ray.init(address=self.address, logging_level=logging.WARNING, log_to_driver=False)
            self._owns_ray = True
        try:
            self._refresh()
            self._wait_for_a_runner()
            # the other nodes' runners get a few seconds more to start before the first batches go out
            starting = [r.ready_ref for r in self._runners.values() if not r.ready]
            if starting:
                ray.wait(starting, num_returns=len(starting), timeout=_GRACE_S)
                self._refresh()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        closing = [r.actor.close.remote() for r in self._runners.values() if r.ready]
        if closing:
            try:
                ray.wait(closing, num_returns=len(closing), timeout=15)
            except Exception:  # noqa: BLE001 - ending anyway
                pass
        for r in self._runners.values():
            try:
                ray.kill(r.actor)
            except Exception:  # noqa: BLE001
                pass
        self._runners.clear()
        if self._owns_ray:
            ray.shutdown()
            self._owns_ray = False

    def nodes(self) -> list[dict[str, Any]]:
        """The runners in use: host, node id, slots, jobs done."""
        return [{"host": r.host, "node_id": r.node_id, "slots": r.slots, "jobs": r.jobs_done}
                for r in self._runners.values() if r.ready]

    # --- nodes and runners -----------------------------------------------------------------------------------

    def _refresh(self) -> None:
        """Start a runner on every alive node with CPUs that has none; promote runners that answered."""
        self._last_refresh = time.monotonic()
        env = {k: os.environ.get(k) for k in _FORWARDED_ENV}
        for node in ray.nodes():
            nid = node["NodeID"]
            cpus = int(node.get("Resources", {}).get("CPU", 0))
            if not node.get("Alive") or cpus < 1 or nid in self._runners or nid in self._bad_nodes:
                continue
            slots = min(cpus, self.workers_per_node) if self.workers_per_node else cpus
            actor = _NodeRunnerActor.options(
                num_cpus=slots, max_concurrency=DEPTH * slots + 4, max_restarts=0,
                scheduling_strategy=NodeAffinitySchedulingStrategy(nid, soft=False),
            ).remote(slots, env, dict(self._files))
            self._runners[nid] = _Runner(nid, actor, slots, actor.info.remote())
        starting = {r.ready_ref: r for r in self._runners.values() if not r.ready}
        if starting:
            done, _ = ray.wait(list(starting), num_returns=len(starting), timeout=0)
            for ref in done:
                self._promote(starting[ref])

    def _promote(self, runner: _Runner) -> None:
        try:
            info = ray.get(runner.ready_ref)
            if info["fingerprint"] != self._fingerprint:
                warnings.warn(f"Ray node {info['host']} ({runner.node_id[:8]}) runs another environment "
                              f"({info['fingerprint']} vs this driver's {self._fingerprint}): not used", stacklevel=2)
                self._drop(runner)
                return
            ray.get(runner.actor.add_files.remote(dict(self._files)))
        except _LOST as exc:  # e.g. coderank_evalplus missing there: say why the node is left out
            warnings.warn(f"Ray node {runner.node_id[:8]} could not start a runner: {str(exc).strip()[-500:]}",
                          stacklevel=2)
            self._drop(runner)
            return
        runner.ready, runner.host = True, info["host"]

    def _drop(self, runner: _Runner) -> None:
        self._bad_nodes.add(runner.node_id)
        self._runners.pop(runner.node_id, None)
        try:
            ray.kill(runner.actor)
        except Exception:  # noqa: BLE001 - already gone
            pass

    def _ready(self) -> list[_Runner]:
        return [r for r in self._runners.values() if r.ready]

    def _wait_for_a_runner(self) -> None:
        deadline = time.monotonic() + self.ready_timeout_s
        while not self._ready():
            starting = [r.ready_ref for r in self._runners.values() if not r.ready]
            if starting:
                ray.wait(starting, num_returns=1, timeout=min(self.refresh_s, max(0.0, deadline - time.monotonic())))
            elif time.monotonic() < deadline:
                time.sleep(min(self.refresh_s, max(0.0, deadline - time.monotonic())))
            self._refresh()
            if not self._ready() and time.monotonic() >= deadline:
                raise RuntimeError(
                    f"no Ray node could run jobs within {self.ready_timeout_s:.0f} s (a runner asks for all of its "
                    f"node's CPUs, or --workers of them; nodes lost or in another environment: "
                    f"{len(self._bad_nodes)}); finished results are kept in the cache: rerun to resume")

    # --- files -----------------------------------------------------------------------------------------------

    def share_file(self, path: str) -> str:
        st = os.stat(path)
        key = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
        if key in self._shared:
            return self._shared[key]
        data = Path(path).read_bytes()
        digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        if digest not in self._files:
            ref = ray.put(data)
            self._files[digest] = ref
            for runner in self._ready():
                try:
                    ray.get(runner.actor.add_files.remote({digest: ref}))
                except _LOST:
                    self._drop(runner)
        self._shared[key] = SHARED_PREFIX + digest
        return self._shared[key]

    # --- jobs ------------------------------------------------------------------------------------------------

    def _batch_size(self, n_pending: int, per_job_s: Optional[float], slots: int) -> int:
        fair = math.ceil(n_pending / max(1, DEPTH * slots))  # near the end, every slot gets a share
        if per_job_s is None:
            return 1  # nothing measured yet: the first results tell how long a job takes
        want = round(self.target_batch_s / max(per_job_s, 1e-6))
        return max(1, min(self.max_batch, want, fair))

    def run(self, name: str, args: Iterable[Any], on_lost: Any = None) -> Generator[tuple[int, Any], None, None]:
        args = list(args)
        if not args:
            return
        self._run_id += 1
        run_id = self._run_id
        pending: deque[int] = deque(range(len(args)))
        losses: dict[int, int] = {}
        inflight: dict[Any, tuple[_Runner, list[int]]] = {}
        per_job_s: Optional[float] = None

        def requeue(runner: _Runner) -> Iterator[tuple[int, Any]]:
            """The runner's node is gone: its unfinished batches go back to the front of the queue."""
            self.stats.lost_nodes.append(runner.host or runner.node_id[:8])
            self._drop(runner)
            lost = [(ref, idxs) for ref, (r, idxs) in inflight.items() if r is runner]
            back: list[int] = []
            for ref, idxs in lost:
                del inflight[ref]
                self.stats.lost_batches += 1
                for i in idxs:
                    losses[i] = losses.get(i, 0) + 1
                    if losses[i] >= MAX_NODE_LOSSES:
                        if on_lost is None:
                            raise WorkerError(f"job {i} was on {losses[i]} Ray nodes that were lost")
                        yield i, on_lost
                    else:
                        back.append(i)
            self.stats.requeued_jobs += len(back)
            pending.extendleft(reversed(sorted(back)))

        while pending or inflight:
            if time.monotonic() - self._last_refresh >= self.refresh_s:
                self._refresh()
            ready = self._ready()
            slots = sum(r.slots for r in ready)
            for runner in sorted(ready, key=lambda r: r.inflight / r.slots):
                while pending and runner.inflight < DEPTH * runner.slots:
                    size = self._batch_size(len(pending), per_job_s, slots)
                    idxs = [pending.popleft() for _ in range(min(size, len(pending)))]
                    ref = runner.actor.run_batch.remote(run_id, name, [args[i] for i in idxs], on_lost)
                    inflight[ref] = (runner, idxs)
                    runner.inflight += 1
            if not inflight:
                self._wait_for_a_runner()  # every runner was lost: wait for one (or raise)
                continue
            done, _ = ray.wait(list(inflight), num_returns=1, timeout=self.refresh_s)
            for ref in done:
                if ref not in inflight:  # dropped with its runner meanwhile
                    continue
                runner, idxs = inflight.pop(ref)
                runner.inflight -= 1
                try:
                    results, busy = ray.get(ref)
                except _LOST:
                    inflight[ref] = (runner, idxs)  # requeue() takes it with the runner's other batches
                    yield from requeue(runner)
                    continue
                except ray.exceptions.RayTaskError as exc:
                    raise WorkerError(f"a job failed on Ray node {runner.host}:\n{exc}") from None
                x = busy / len(idxs)
                per_job_s = x if per_job_s is None else 0.7 * per_job_s + 0.3 * x
                self.stats.batches += 1
                self.stats.jobs += len(idxs)
                self.stats.slot_busy_s += busy
                self.stats.jobs_per_node[runner.node_id] = self.stats.jobs_per_node.get(runner.node_id, 0) + len(idxs)
                runner.jobs_done += len(idxs)
                for j, result in results:
                    yield idxs[j], result
