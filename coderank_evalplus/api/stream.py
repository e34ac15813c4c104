"""A streamed ``run``: the model samples in one thread while finished problems go down the rerank stage.

``run_streamed`` starts the sampling loop (``generation.sampling.generate_samples``) in a thread of its own; each
problem whose solutions and test samples are all written is handed over (``on_problem``) and, in this thread,
goes down the rerank stage (``pipeline.Stage``: the per-problem path — execute, rank, steps after ranking, the
pick's confidence —, the reference solution on its tests, the judge) together with whatever else finished
meanwhile, on one executor whose workers stay up from batch to batch, while the model keeps drawing for the
others. A run then costs about its slowest stage, not the sum of them. The adaptive budget is the same stream:
the stopper's questions (``pipeline.AdaptiveStopper``) are answered here, before any finished problem, and the
loop draws for the other problems while it waits. Where the model decodes on this machine's CPU (llama.cpp,
transformers or vLLM on the CPU: ``generation.base.sampling_competes_for_cpu``), executing and judging meanwhile
would take its cores, so the finished problems are held and go down the same stage in one batch once sampling
ends (the stopper's questions are still answered at once: the loop waits for them).

A problem's result depends on that problem alone (its samples, its tests, the cache), so the results folder is the
one ``run_rerank`` writes from the same files (``Stage.result`` in the dataset's order): same layout, same numbers.
What is written as problems finish stays when a run is interrupted (Ctrl-C; SIGTERM, taken as Ctrl-C; a kill): the
samples (the loop's resumable files), the executions and verdicts (the cache, committed after each batch), and
``finished.jsonl``, one line per problem with each method's pass@1, until ``rerank_results.json`` replaces it. The
same command resumes: nothing drawn, executed or judged before is done again (finished problems are read back from
the cache first).

One progress line counts problems generated, executed (through the path) and judged; the timing block adds
``generate_s`` (the sampling loop's wall), ``wait_s`` (this thread waiting for the model), ``stage_s`` (the
stage's busy seconds: the rest), ``stream_s`` (the stream's wall) and ``overlap_s`` (generation + the stage − the
wall: how much of the two ran at the same time); ``stage_held`` is true where the stage waited for sampling to end.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

from coderank_evalplus.api.options import RerankOptions
from coderank_evalplus.api.output import RerankOutput
from coderank_evalplus.types import Problem

FINISHED_FILE = "finished.jsonl"  # one line per problem the stream finished, until rerank_results.json
_POLL_S = 0.2  # how often a waiting stream looks at the clock (the progress line) and at the sampling thread


@dataclass
class Sampling:
    """How the model samples (``generate_samples``' arguments): counts, settings, the folder of the sample files,
    and with ``adaptive`` the adaptive budget's threshold (``tau``: None, the confidence model's)."""

    n_samples: int
    n_test_samples: int
    temperature: float
    top_p: float
    max_tokens: int
    out_dir: str
    adaptive: bool = False
    tau: Optional[float] = None


@dataclass
class _Done:
    """A problem whose samples are complete: its solution records as written and its raw test samples."""

    problem: Problem
    records: list[dict]
    tests: Optional[list[str]]  # None: no test record (no test samples asked for)


@dataclass
class _Solutions:
    """New solutions of a problem whose tests (or stopper's answer) are still to come: judged meanwhile."""

    problem: Problem
    programs: list[str]


@dataclass
class _Ask:
    """The adaptive stopper's question about a problem's solutions so far, answered through ``future``."""

    problem: Problem
    solutions: list[str]
    tests: list[str]
    features: dict[str, list[float]]
    future: Future


def run_streamed(options: RerankOptions, problems: Mapping[str, Problem], selected: Sequence[Problem],
                 generator: Any, sampling: Sampling, cache: Any, *, model_tests: bool = True, frontend: str = "run",
                 selector: Any = None, executor: Any = None) -> RerankOutput:
    """Sample ``selected`` with ``generator`` as ``sampling`` says (into ``options.solutions`` and the model's
    tests file in ``options.tests``) and rerank, judge and write the results folder (``options.output``) as
    ``run_rerank`` would on those files, problem by problem as they finish (module docstring). ``model_tests``:
    the model's test samples are the problems' tests (else only ``options.tests``' other source); ``cache``: the
    run's execution cache (left open); ``selector``: S* after ranking (a step; one that shares ``generator``
    takes turns with the sampling loop); ``executor``: the run's (left open), else one made for the stream."""
    from coderank_evalplus.api.evaluate import finish, provenance_and_folder, run_setup, warn_untested
    from coderank_evalplus.engine.execution.executor_factory import make_executor
    from coderank_evalplus.generation.base import sampling_competes_for_cpu
    from coderank_evalplus.pipeline import Stage
    from coderank_evalplus.rankers.likelihood import features_needed

    setup = run_setup(options, default_tests=False)
    if options.output is None or options.solutions is None:
        raise ValueError("a streamed run writes its samples and results into options.output")
    cfg = setup.config
    kinds = sorted(features_needed(setup.methods))
    shared = selector is not None and getattr(selector, "generator", None) is generator
    if shared:  # S* asks the run's own model: the sampling loop and S* take turns with it
        generator = _TakingTurns(generator)
        selector = _InTurn(selector, generator.turn)
        selector.inner.generator = generator
    chosen = [p.task_id for p in selected]
    folder = Path(options.output)
    finished = _Finished(folder / FINISHED_FILE, chosen)
    t0 = time.monotonic()
    with (contextlib.nullcontext(executor) if executor is not None
          else make_executor(cfg.executor, cfg.workers, cfg.ray_address, warm=True)) as executor:
        stage = Stage(options.dataset, problems, _quiet(cfg), cache, executor, selector, None, 0.0, t0)
        stream = _Stream(stage, generator, sampling, selected, kinds, options, model_tests, finished,
                         hold=sampling_competes_for_cpu(generator))
        try:
            with _terminate_as_interrupt():
                stream.run(options.progress)
        finally:
            finished.close()
        wall = time.monotonic() - t0
        result = stage.result(chosen)
    timing = result.timing
    busy = timing["total_s"] - timing.get("wait_s", 0.0) - timing.get("load_s", 0.0)
    timing.update(generate_s=round(stream.generate_s, 2), stage_s=round(busy, 2), stream_s=round(wall, 2),
                  overlap_s=round(max(0.0, stream.generate_s + busy - wall), 2), stage_held=stream.hold)
    warn_untested(stream.solutions, stream.tests, setup.tests.mutate)
    out = finish(result, *provenance_and_folder(options, problems, chosen, setup.tests, frontend))
    finished.remove()
    return out


RUN_CONFIG = "run_config.json"  # a run's settings, written when it ends: what a rerun resumes by
# what makes the samples in a run's folder the samples of another run: then the folder is not resumed
RUN_IDENTITY = ("model", "backend", "dataset", "temperature", "top_p", "max_tokens")


def prepare_run_folder(output: Path, record: Mapping[str, Any], overwrite: bool) -> Path:
    """``run``'s folder, made writable, with what the candidates print going to its log. A folder is resumed by the
    same run; one holding another run's samples (another model, dataset or sampling settings: ``RUN_IDENTITY`` in
    its ``run_config.json`` against ``record``) is refused, and with ``overwrite`` those samples are removed so that
    the run samples afresh."""
    from coderank_evalplus.api.evaluate import OURS
    from coderank_evalplus.engine.execution.workers import CANDIDATE_LOG, log_candidates_to
    from coderank_evalplus.storage import open_output_dir

    output = open_output_dir(output, ours=(RUN_CONFIG, *OURS))
    _refuse_other_run(output, record, overwrite)
    log_candidates_to(output / CANDIDATE_LOG)
    return output


def _refuse_other_run(output: Path, record: Mapping[str, Any], overwrite: bool) -> None:
    from coderank_evalplus.generation.sampling import SAMPLES_FILE, TESTS_FILE
    from coderank_evalplus.types import CoderankError

    held = output / RUN_CONFIG
    if not held.is_file():
        return
    try:
        before = json.loads(held.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    differ = [k for k in RUN_IDENTITY if k in before and before[k] != record[k]]
    if not differ:
        return
    if not overwrite:
        what = ", ".join(f"{k} {before[k]!r}" for k in differ)
        raise CoderankError(f"output {output}: holds the samples of another run ({what}); choose another folder, "
                            f"or pass --overwrite to sample afresh there")
    for name in (SAMPLES_FILE, TESTS_FILE, SAMPLES_FILE + ".partial", TESTS_FILE + ".partial", RUN_CONFIG,
                 "rerank_results.json"):
        (output / name).unlink(missing_ok=True)


def run_from_model(options: RerankOptions, problems: Mapping[str, Problem], selected: Sequence[Problem],
                   generator: Any, sampling: Sampling, tests: Any, record: Mapping[str, Any], *, backend: str,
                   after: Optional[Callable[..., Any]] = None) -> tuple[RerankOutput, Any]:
    """``run`` once its flags are read, in ``options.output`` (``prepare_run_folder``'s): the model samples the
    solutions and, where ``tests`` (the parsed sources) say ``model``, the tests into the folder's files
    (resumable), and each problem goes down the rerank stage as it finishes (``run_streamed``); then
    ``tests_extracted.jsonl``, ``after(out, options, tests, cache, executor)`` (self-debug) on the run's execution
    cache and executor, and ``run_config.json`` (``record``). The cache is ``options.cache_dir``'s, else the
    folder's ``cache/``; S* (``options.select_model``; ``same``: this model, of ``backend``) logs its replies in the
    folder. Returns the run's output and what ``after`` returned."""
    from dataclasses import replace

    from coderank_evalplus.engine.execution.execute import ResultCache
    from coderank_evalplus.engine.execution.executor_factory import make_executor
    from coderank_evalplus.generation.likelihood import refuse_unscorable
    from coderank_evalplus.generation.sampling import SAMPLES_FILE, TESTS_FILE
    from coderank_evalplus.rankers.likelihood import features_needed
    from coderank_evalplus.storage import atomic_write_json, atomic_write_jsonl

    refuse_unscorable(generator, features_needed(options.methods))  # a chat-only server: said before sampling
    output = Path(str(options.output))
    cache_root = Path(options.cache_dir or output / "cache")
    # the files may also hold problems of an earlier run with a larger --limit: the stream takes the selected ones
    options = replace(options, solutions=str(output / SAMPLES_FILE), output=str(output), overwrite=True,
                      tests=([str(output / TESTS_FILE)] if tests.model else []) + (
                          [tests.spec.label()] if tests.spec is not None else []), cache_dir=str(cache_root))
    cache = ResultCache(cache_root / "executions.sqlite")
    selector = None
    if options.select_model:  # S* after ranking; "same": this run's model
        from coderank_evalplus.selection.sstar import selector_from_options

        selector = selector_from_options(options, output, generator, backend)
    extra = None
    try:
        with make_executor(options.executor, options.workers, options.ray_address, warm=True) as executor:
            out = run_streamed(options, problems, selected, generator, sampling, cache, model_tests=tests.model,
                               selector=selector, executor=executor)
            atomic_write_jsonl(output / "tests_extracted.jsonl", (
                {"task_id": t, "asserts": ["assert " + a for a in o.suite.asserts], "counts": o.suite.counts}
                for t, o in out.result.outcomes.items()))
            if after is not None:
                extra = after(out, options, tests, cache, executor)
    finally:
        cache.close()
    atomic_write_json(output / RUN_CONFIG, dict(record), indent=2)
    return out, extra


@contextlib.contextmanager
def _terminate_as_interrupt():
    """SIGTERM (``kill``, a scheduler's stop) ends the stream as Ctrl-C does: the server's requests in flight are
    written, the cache committed and ``finished.jsonl`` kept, instead of the process ending where it stands. Only
    in the main thread, and only where SIGTERM has its default meaning; a second SIGTERM ends it at once."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return

    def interrupt(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _quiet(cfg):
    """The stage's settings without its own progress bars: the stream's one line counts for it."""
    from dataclasses import replace

    return replace(cfg, progress=False)


class _Stream:
    """The sampling thread and this thread's loop over what it hands over (``run``); ``hold``: finished problems
    wait for sampling to end (the model decodes on the cores the stage would take)."""

    def __init__(self, stage, generator: Any, sampling: Sampling, selected: Sequence[Problem], kinds: list[str],
                 options: RerankOptions, model_tests: bool, finished: "_Finished", hold: bool = False) -> None:
        self.stage, self.generator, self.sampling, self.selected = stage, generator, sampling, selected
        self.kinds, self.options, self.model_tests = kinds, options, model_tests
        self.finished, self.hold = finished, hold
        self.inbox: queue.Queue = queue.Queue()
        self.halt = threading.Event()
        self.generate_s = 0.0
        self.solutions: dict[str, list[str]] = {}
        self.tests: dict[str, list[str]] = {}
        self.stopper = None
        if sampling.adaptive:
            from coderank_evalplus.pipeline import adaptive_method, adaptive_stopper

            self.stopper = adaptive_stopper(adaptive_method(options.methods), stage.cfg, stage.cache, sampling.tau,
                                            executor=stage.executor)

    # --- the sampling thread ----------------------------------------------------------------------------------
    def _sample(self) -> None:
        from coderank_evalplus.generation.sampling import SamplingHalted, generate_samples

        s = self.sampling
        t0 = time.monotonic()
        try:
            generate_samples(self.selected, self.generator, s.n_samples, s.n_test_samples, s.temperature, s.top_p,
                             s.max_tokens, s.out_dir, progress=False, stopper=self._ask if s.adaptive else None,
                             on_problem=self._done, score=self.kinds, halt=self.halt, on_solutions=self._solutions)
        except SamplingHalted:
            pass
        except BaseException as exc:  # noqa: BLE001 - handed to the stream's thread, which raises it
            self.inbox.put(exc)
        finally:
            self.generate_s = time.monotonic() - t0
            self.progress.sampled()
            self.inbox.put(None)  # the end

    def _done(self, problem: Problem, records: list[dict], tests: Optional[list[str]]) -> None:
        self.inbox.put(_Done(problem, list(records), tests))
        self.progress.count("generated")

    def _solutions(self, problem: Problem, records: list[dict]) -> None:
        self.inbox.put(_Solutions(problem, [r["solution"] for r in records]))

    def _ask(self, problem: Problem, solutions: list[str], tests: list[str], features: dict) -> Future:
        future: Future = Future()
        self.inbox.put(_Ask(problem, solutions, tests, features, future))
        return future

    # --- this thread ------------------------------------------------------------------------------------------
    def run(self, progress: bool) -> None:
        """Until the sampling thread has ended and everything it handed over is judged; an error of either side
        stops both (the sampling thread at its next answer) and is raised here."""
        self.progress = _Progress(len(self.selected), progress, self.generator, self.finished.before)
        thread = threading.Thread(target=self._sample, name="coderank-sampling", daemon=True)
        thread.start()
        try:
            ended = False
            held: list[_Done] = []
            while not ended:
                got = self._take()
                ended = any(item is None for item in got)
                failure = next((item for item in got if isinstance(item, BaseException)), None)
                if failure is not None:
                    raise failure
                asks = [item for item in got if isinstance(item, _Ask)]
                if asks:
                    self._answer(asks)
                done = [item for item in got if isinstance(item, _Done)]
                if self.hold and not ended:  # the stage would take the model's cores: after sampling, in one batch
                    held += done
                    continue
                done, held = held + done, []
                if done:
                    self._finish(done)
                finished = {d.problem.task_id for d in done} | set(self.stage.outcomes)
                early = {item.problem.task_id: item.programs for item in got
                         if isinstance(item, _Solutions) and item.problem.task_id not in finished}
                if early and not self.hold:
                    self.stage.judge_early(early)  # it needs only the programs: judged while the model writes tests
        except BaseException as exc:
            self.halt.set()
            interrupt = getattr(self.generator, "interrupt", None)
            if interrupt is not None:  # a server's requests in flight are written first (a second Ctrl-C: not)
                interrupt()
                while isinstance(exc, KeyboardInterrupt) and thread.is_alive():
                    thread.join(_POLL_S)
            thread.join(timeout=5)
            raise
        finally:
            self.progress.close()
        thread.join()

    def _take(self) -> list:
        """Everything handed over by now; when nothing is, waits (the stage's ``wait`` phase)."""
        got: list = []
        while not got:
            try:
                got.append(self.inbox.get(timeout=_POLL_S))
            except queue.Empty:
                self.progress.show()
        self.stage.lap("wait")
        while True:
            try:
                got.append(self.inbox.get_nowait())
            except queue.Empty:
                return got

    def _answer(self, asks: list[_Ask]) -> None:
        assert self.stopper is not None  # asked only with the adaptive budget
        try:
            answers = self.stopper.decide([(a.problem, a.solutions, a.tests, a.features) for a in asks])
        except BaseException as exc:
            for a in asks:
                a.future.set_exception(exc)
            raise
        for a, answer in zip(asks, answers):
            a.future.set_result(answer)
        self.stage.lap("adaptive")

    def _finish(self, done: list[_Done]) -> None:
        """One batch down the stage: its works (the tests as ``run_rerank`` builds them), features, outcomes."""
        from coderank_evalplus.generation.likelihood import check_features
        from coderank_evalplus.io.evalplus_samples import record_features
        from coderank_evalplus.pipeline import build_works

        batch = {d.problem.task_id: d for d in done}
        programs = {t: [r["solution"] for r in d.records] for t, d in batch.items()}
        tests = {t: d.tests for t, d in batch.items() if self.model_tests and d.tests is not None}
        features = None
        if self.kinds:
            features = {t: f for t, d in batch.items() if (f := record_features(d.records))}
            check_features(self.kinds, features, programs, str(self.options.solutions))
        problems = {t: d.problem for t, d in batch.items()}
        works = build_works(problems, programs, tests, self.stage.cfg.tests_per_sample)
        outcomes = self.stage.add(works, features, ranked=lambda: self.progress.count("executed", len(works)))
        self.solutions.update(programs)
        self.tests.update(tests)
        self.finished.write(outcomes, self.stage)
        self.progress.count("judged", len(works))


class _Progress:
    """The run's one progress line: problems judged (the bar), generated and executed, and the server's
    requests per second where the generator says them."""

    def __init__(self, total: int, enabled: bool, generator: Any, before: int) -> None:
        self.total, self.before = total, before
        self.note = getattr(generator, "progress_note", None)
        self.rate = ""
        self.counts = {"generated": 0, "executed": 0, "judged": 0}
        self.lock = threading.Lock()
        self.bar: Any = None
        if enabled:
            from coderank_evalplus.io.progress import progress_bar

            self.bar = progress_bar(total=total, desc="run", unit="problem")

    def count(self, what: str, n: int = 1) -> None:
        with self.lock:
            self.counts[what] += n
        self.show()
        if self.bar is not None and what == "judged":
            with self.lock:
                self.bar.update(n)

    def sampled(self) -> None:
        """Sampling is over: the server's rate stays what it was over the sampling."""
        with self.lock:
            self.rate = self.note() if self.note is not None else ""
            self.note = None

    def show(self) -> None:
        if self.bar is None:
            return
        with self.lock:
            c = self.counts
            rate = self.note() if self.note is not None else self.rate
            text = f"generated {c['generated']}/{self.total}, executed {c['executed']}, judged {c['judged']}" + (
                f" ({self.before} finished before)" if self.before else "") + (f", {rate}" if rate else "")
            self.bar.set_postfix_str(text, refresh=True)

    def close(self) -> None:
        if self.bar is not None:
            self.show()
            self.bar.close()


class _Finished:
    """``finished.jsonl``: one line per problem as the stream finishes it (its candidates and each method's pass@1
    on base and plus), so that an interrupted run shows what it had; a resumed run counts the lines of its
    problems (``before``) and starts the file afresh. Removed once the results folder is complete."""

    def __init__(self, path: Path, chosen: Sequence[str]) -> None:
        self.path = path
        wanted = set(chosen)
        self.before = 0
        if path.is_file():
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                with contextlib.suppress(ValueError, TypeError, AttributeError):
                    self.before += json.loads(line).get("task_id") in wanted
        path.parent.mkdir(parents=True, exist_ok=True)
        self.fh = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed by close()

    def write(self, outcomes: Mapping[str, Any], stage) -> None:
        from coderank_evalplus.pipeline import correct_array, problem_pass_at_k

        rule = stage.cfg.pass_at_k_rule
        for tid, out in outcomes.items():
            splits = ("base", "plus") if stage.cfg.plus and stage.problems[tid].has_plus_tests else ("base",)
            correct = {s: correct_array(out, s) for s in splits}
            row = {"task_id": tid, "candidates": out.n_candidates, "pass@1": {
                m: {s: round(problem_pass_at_k(out, m, correct[s], 1, rule), 4) for s in splits}
                for m in stage.methods}}
            self.fh.write(json.dumps(row) + "\n")
        self.fh.flush()
        if stage.cache is not None:
            stage.cache.commit()  # what this batch executed and judged is on disk with its line

    def close(self) -> None:
        self.fh.close()

    def remove(self) -> None:
        self.close()
        with contextlib.suppress(FileNotFoundError):
            os.remove(self.path)


class _TakingTurns:
    """A generator shared by the sampling loop and S*: each call holds ``turn`` (re-entrant), so a local engine
    never runs two calls at once and S*'s setting of its log-probabilities off never reaches the loop's draws."""

    _LOCKED = ("generate", "generate_iter", "generate_iter_mixed", "score")

    def __init__(self, inner: Any) -> None:
        object.__setattr__(self, "inner", inner)
        object.__setattr__(self, "turn", threading.RLock())

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.inner, name)
        if name not in self._LOCKED:
            return value
        if name == "generate" or name == "score":
            def call(*args, **kw):
                with self.turn:
                    return value(*args, **kw)
            return call

        def stream(*args, **kw):
            with self.turn:
                yield from value(*args, **kw)
        return stream

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.inner, name, value)


class _InTurn:
    """A step after ranking that holds the generator's ``turn`` while it runs (S* with the run's own model)."""

    def __init__(self, inner: Any, turn: Any) -> None:
        self.inner, self.turn = inner, turn
        self.name, self.phase = inner.name, inner.phase

    def run(self, items, env):
        with self.turn:
            return self.inner.run(items, env)

    def report(self, done):
        return self.inner.report(done)
