"""``make_executor``: the executor a run asks for by name (``--executor local|ray``); Ray imported only when asked."""

from __future__ import annotations

from typing import Optional

from coderank_evalplus.engine.execution.executors import Executor, LocalExecutor, WarmPools

EXECUTORS = ("local", "ray")


def make_executor(kind: str = "local", workers: Optional[int] = None, address: Optional[str] = None,
                  warm: bool = False) -> Executor:
    """``local``: this machine's pool of ``workers`` (default: all cores); ``warm``: its workers stay up from one
    ``run`` to the next, a pool per kind of job (``WarmPools``: many small batches, a streamed run's problems).
    ``ray``: the Ray cluster at ``address`` (default: join the local one if running, else start one), ``workers``
    per node (default: each node's CPUs)."""
    if kind == "local":
        return WarmPools(workers) if warm else LocalExecutor(workers)
    if kind == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise RuntimeError("--executor ray needs Ray: pip install 'coderank_evalplus[ray]'") from None
        from coderank_evalplus.engine.execution.ray_executor import RayExecutor

        return RayExecutor(address=address, workers_per_node=workers)
    raise ValueError(f"unknown executor {kind!r}; choose one of {', '.join(EXECUTORS)}")
