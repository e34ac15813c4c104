"""Where jobs run: the executor interface and the local worker pool (``ray_executor`` has the Ray cluster;
``executor_factory.make_executor`` picks one by name).

An executor runs ``"module:function"`` jobs and yields ``(index of the argument, result)`` as they finish, in any
order — the interface of ``WorkerPool.run``. ``execution.execute`` and ``judge.Judge`` take one; every executor
runs a job the same way (a fresh ``python -c`` worker that confines itself and forks one guarded child per
program, with the limits carried in the job), so a matrix does not depend on where it was computed.

Jobs may name files the driver wrote (the judge's inputs and expected outputs): ``share_file(path)`` returns the
name a job should carry, and a worker opens it with ``shared_path(name)``.
"""

from __future__ import annotations

import os
from typing import Any, Generator, Iterable, Optional, Protocol, TypeVar, runtime_checkable

SHARED_PREFIX = "shared:"  # a file the executor copied to each node: shared:<content digest>
SHARED_DIR_ENV = "CODERANK_SHARED_DIR"  # where a node keeps those copies (set for its workers)


@runtime_checkable
class Executor(Protocol):
    """Runs jobs; a context manager (``__exit__`` releases workers, actors, a cluster connection)."""

    def run(self, name: str, args: Iterable[Any], on_lost: Any = None) -> Generator[tuple[int, Any], None, None]:
        """Yield (index of the argument, result) as jobs finish. A job whose worker died twice yields
        ``on_lost`` (or raises ``workers.WorkerError`` when it is None); so does a job that raised."""
        ...

    def share_file(self, path: str) -> str:
        """The name under which a worker opens ``path`` (see ``shared_path``)."""
        ...

    def __enter__(self) -> "Executor": ...

    def __exit__(self, *exc) -> None: ...


_Self = TypeVar("_Self", bound="_ThisMachine")


class _ThisMachine:
    """What every executor on this machine shares: its worker count (all cores unless told), files already where the
    workers read them, and a context that holds nothing (a subclass that keeps workers releases them on exit)."""

    def __init__(self, workers: Optional[int] = None) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)

    def share_file(self, path: str) -> str:
        return path

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, *exc) -> None:
        pass


class LocalExecutor(_ThisMachine):
    """This machine's worker pool: one ``WorkerPool`` per ``run`` (fresh workers, as many as jobs or cores)."""

    def run(self, name: str, args: Iterable[Any], on_lost: Any = None) -> Generator[tuple[int, Any], None, None]:
        from coderank_evalplus.engine.execution.workers import WorkerPool

        args = list(args)
        if not args:
            return
        with WorkerPool(min(self.workers, len(args))) as pool:
            yield from pool.run(name, args, on_lost=on_lost)


class WarmExecutor(_ThisMachine):
    """This machine's workers kept alive from one ``run`` to the next (``api.Picker``: problem after problem, no
    interpreter started again). Every job still runs as in ``LocalExecutor`` (each program in a fresh guarded
    child of a worker); a run left before its end (an exception, a closed generator) leaves jobs in flight, so its
    workers are killed and the next run starts new ones."""

    def __init__(self, workers: Optional[int] = None) -> None:
        super().__init__(workers)
        self._pool: Any = None

    def start(self) -> None:
        """Start the workers now (else the first run does)."""
        if self._pool is None:
            from coderank_evalplus.engine.execution.workers import WorkerPool

            self._pool = WorkerPool(self.workers).__enter__()

    def run(self, name: str, args: Iterable[Any], on_lost: Any = None) -> Generator[tuple[int, Any], None, None]:
        args = list(args)
        if not args:
            return
        self.start()
        finished = False
        try:
            yield from self._pool.run(name, args, on_lost=on_lost)
            finished = True
        finally:
            if not finished:
                self._stop(killed=True)

    def _stop(self, killed: bool = False) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.__exit__(RuntimeError if killed else None, None, None)

    def __enter__(self) -> "WarmExecutor":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop(killed=exc[0] is not None)


class WarmPools(_ThisMachine):
    """This machine's workers kept alive from one ``run`` to the next, one ``WarmExecutor`` per job function: a
    job may leave its worker changed for any other kind (the sandbox's confinement blocks imports that the judge's
    checks need), so a worker only ever serves one kind. For many small runs of mixed kinds (a streamed ``run``:
    each batch of problems executed, then judged) without an interpreter started per run."""

    def __init__(self, workers: Optional[int] = None) -> None:
        super().__init__(workers)
        self._pools: dict[str, WarmExecutor] = {}

    def run(self, name: str, args: Iterable[Any], on_lost: Any = None) -> Generator[tuple[int, Any], None, None]:
        pool = self._pools.get(name)
        if pool is None:
            pool = self._pools[name] = WarmExecutor(self.workers)
        yield from pool.run(name, args, on_lost=on_lost)

    def __exit__(self, *exc) -> None:
        pools, self._pools = self._pools, {}
        live = [p._pool for p in pools.values() if p._pool is not None]
        for pool in live:  # every worker of every kind told first (they exit together), then waited for
            for w in pool.workers:
                w.hang_up()
        for p in pools.values():
            p.__exit__(*exc)


def shared_path(name: str) -> str:
    """The local path of a file a job names (``share_file``'s answer); plain paths are returned unchanged."""
    if name.startswith(SHARED_PREFIX):
        folder = os.environ.get(SHARED_DIR_ENV)
        if not folder:
            raise RuntimeError(f"{name}: this worker was not started by a node runner ({SHARED_DIR_ENV} unset)")
        return os.path.join(folder, name[len(SHARED_PREFIX):])
    return name


def echo(arg: Any) -> Any:
    """A job that returns its argument (benchmarks measure an executor's overhead with it)."""
    return arg
