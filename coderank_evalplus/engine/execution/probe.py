"""Probes: what one program returned, printed or raised on one test or input, in words.

Whether a candidate passes each test comes from the execution engine (``execution.execute``: cached, run once).
The engine keeps a 63-bit digest of each returned value, never its text, so the words shown to a model (self-debug
feedback, ``doce.feedback``) or a person (``pick``'s reasons, the selection step's evidence) — "returns `[1, 2]`",
"prints 6", "raises ZeroDivisionError: division by zero" — come from one more run of that single test:
the candidate's program and the test's call, in a guarded child (evalplus's ``reliability_guard`` and
``swallow_io``, our seccomp/Landlock confinement through ``sandbox.run_function_in_child``, a CPU-time limit),
in a clean worker interpreter (``workers.WorkerPool``), never in the process that holds a model. Only the
programs a report needs are probed, once per program and test.

A probe is built for a problem with ``probe_of``, which runs the program as the engine runs it for the problem's
call shape (``shapes.runnable``: a method after LiveCodeBench's imports, a stdin program inside its harness) and
finds the call a test makes (``Problem.callee``: ``f``, ``Solution().f``, ``run_stdin``): so the words are true on
every shape, and a stdin program's are what it printed. A program that does not compile is told at the candidate's
own line, not at a line of what the tool built around it (the prompt before a completion, the shape's wrapper):
``syntax_error_words``.
"""

from __future__ import annotations

import ast
import os
import re
import signal
import tempfile
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from coderank_evalplus.engine import shapes
from coderank_evalplus.testgen.extract import assert_body, is_callee, parse_assert
from coderank_evalplus.types import FUNCTION, Problem

SHOW_CHARS = 300  # characters of a returned value's repr or an exception message shown to the model
_PROBE_WALL_S = 10.0


@dataclass(frozen=True)
class Probe:
    """One question: what does ``program`` (the text a child runs: ``shapes.runnable``'s) do on test ``test`` (an
    ``assert …`` statement) whose calls are to ``callee``? ``shape``: the problem's call shape (a stdin program's
    answer is what it printed). Build one for a problem with ``probe_of``."""

    program: str
    test: str
    callee: str
    time_limit: float = 1.0  # CPU seconds for the call or test (the program's top level gets at least 1)
    shape: str = FUNCTION
    # where the candidate's own lines are in ``program`` (``syntax_error_words``): the lines the shape's wrapper put
    # before the program as sampled (-1: the wrapper rewrote it), then the prompt's lines the program starts with
    wrapper_lines: int = 0
    prompt_lines: int = 0


def probe_of(problem: Problem, program: str, test: str, time_limit: float) -> Probe:
    """The probe of a candidate's ``program`` (as sampled) on ``test`` under ``problem``'s call shape."""
    return Probe(shapes.runnable(problem.shape, program), test, problem.callee, time_limit, problem.shape,
                 wrapper_lines(problem.shape, program), prompt_lines(problem, program))


# a comment line: no wrapper reads it otherwise than a line of the program (a rewritten program loses it)
_OWN_TEXT_MARK = "# coderank: the program as sampled starts on the next line"


def wrapper_lines(shape: str, program: str) -> int:
    """How many lines the shape's wrapper (``shapes.runnable``) puts before ``program`` where it runs it verbatim;
    -1 where it rewrites it (LiveCodeBench's stdin harness re-writes a program that parses into a function). Found
    by wrapping the program after a marker comment, so the answer stays true whatever the wrapper adds."""
    marked = shapes.runnable(shape, _OWN_TEXT_MARK + "\n" + program)
    at = marked.find(_OWN_TEXT_MARK + "\n")
    return marked.count("\n", 0, at) if at >= 0 else -1


def prompt_lines(problem: Problem, program: str) -> int:
    """How many lines of the problem's prompt the program starts with: the prompt put before a completion (or a
    full program that repeats it), so the candidate's own text starts after them; 0 when it does not start so."""
    prompt = problem.prompt
    return prompt.count("\n") if prompt.strip() and program.startswith(prompt) else 0


def own_line(line: int, wrapper: int, prompt: int) -> str:
    """Line ``line`` of what ran, said as the candidate's own: "line 2", "line 1 after the prompt" (the prompt's
    lines came first), "line 3 of the prompt"; "" for a line the tool added (or of a rewritten program)."""
    n = line - wrapper
    if wrapper < 0 or n <= 0:
        return ""
    if prompt and n <= prompt:
        return f"line {n} of the prompt"
    return f"line {n - prompt} after the prompt" if prompt else f"line {n}"


def syntax_error_words(exc: SyntaxError, wrapper: int = 0, prompt: int = 0) -> str:
    """A program's SyntaxError (IndentationError, TabError) at the candidate's own line: "SyntaxError at line 1:
    invalid syntax", not Python's "(<candidate>, line 49)", a line of the text the tool built around it (a line the
    candidate has no part in is left out). ``wrapper`` / ``prompt``: as ``Probe`` holds them."""
    def on(match: re.Match) -> str:
        where = own_line(int(match[1]), wrapper, prompt)
        return f" on {where}" if where else ""

    message = re.sub(r"\s+on line (\d+)", on, str(exc.msg or ""))
    where = own_line(exc.lineno or 0, wrapper, prompt)
    if where:
        return f"{type(exc).__name__} at {where}: {_short(message)}"
    rewritten = " (in the program as the stdin harness rewrites it)" if wrapper < 0 else ""
    return f"{type(exc).__name__}: {_short(message)}{rewritten}"


def call_of(test: str, callee: str) -> Optional[str]:
    """The call inside an assert (``f(1, 2)`` of ``assert f(1, 2) == 3``; ``callee`` as ``Problem.callee``
    writes it: ``f``, ``Solution().f``, ``run_stdin``), or None."""
    body = assert_body(test.strip())
    parsed = parse_assert(body, callee)
    if parsed is not None:
        return parsed[0]
    try:
        tree = ast.parse("assert " + body)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and is_callee(node.func, callee):
            return ast.unparse(node)
    return None


class _Timeout(BaseException):
    pass


def _on_timer(signum, frame):  # pragma: no cover - runs in the child
    raise _Timeout()


def _short(text: str) -> str:
    return text if len(text) <= SHOW_CHARS else text[:SHOW_CHARS] + "…"


def _describe(exc: BaseException) -> str:  # pragma: no cover - runs in the child
    """``Type: message`` (just ``Type`` when the message is empty)."""
    message = str(exc)
    return f"{type(exc).__name__}: {_short(message)}" if message else type(exc).__name__


def _probe_child(probe: Probe, workdir: str, mem: Optional[int]) -> bytes:  # pragma: no cover - runs in the child
    """In the child: run the program, then the call (or the whole assert); describe what happened."""
    from coderank_evalplus.engine.sandbox.child import compile_program
    from coderank_evalplus.engine.sandbox.guard import evalplus_utils, os_chdir, worker_guarded_with

    utils = evalplus_utils()
    os_chdir(workdir)  # (the guard's own reference: in a worker that holds the guard, os.chdir is gone)
    signal.signal(signal.SIGPROF, _on_timer)
    signal.signal(signal.SIGALRM, _on_timer)
    setitimer, prof, real = signal.setitimer, signal.ITIMER_PROF, signal.ITIMER_REAL
    if not worker_guarded_with(mem):
        utils.reliability_guard(maximum_memory_bytes=mem)
    env = {"__name__": "__coderank_candidate__"}
    call = call_of(probe.test, probe.callee)
    said, show = shapes.shape_of(probe.shape).call_result  # (a stdin program's harness returns what it printed)

    def limited(fn, seconds: float):
        setitimer(prof, seconds, 0.05)
        setitimer(real, 3 * seconds + 1, 0.25)
        try:
            with utils.swallow_io():
                return fn()
        finally:
            setitimer(prof, 0)
            setitimer(real, 0)

    compiled: list = []

    def load() -> None:
        code = compile_program(probe.program)
        compiled.append(True)
        exec(code, env)

    try:
        limited(load, max(1.0, probe.time_limit))
    except _Timeout:
        return b"import-timeout\n"
    except BaseException as exc:  # noqa: BLE001
        if isinstance(exc, SyntaxError) and not compiled:  # nothing of the candidate ran: told at its own lines
            return f"import-error\n{syntax_error_words(exc, probe.wrapper_lines, probe.prompt_lines)}".encode(
                "utf-8", "replace")
        return f"import-error\n{_describe(exc)}".encode("utf-8", "replace")
    try:
        if call is None:
            limited(lambda: exec("assert " + assert_body(probe.test.strip()), env), probe.time_limit)
            return b"passed\n"
        text = limited(lambda: show(eval(call, env)), probe.time_limit)
        return f"{said}\n{call}\n{_short(text)}".encode("utf-8", "replace")
    except _Timeout:
        return f"timeout\n{call or ''}".encode("utf-8", "replace")
    except BaseException as exc:  # noqa: BLE001
        return f"raised\n{call or ''}\n{_describe(exc)}".encode("utf-8", "replace")


def run_probe(probe: Probe, mem: Optional[int] = None) -> tuple[str, ...]:
    """(kind, *details) of one probe, run in a confined child of this process; ``mem``: the memory cap (default
    evalplus's, read here).

    kind: ``returned`` (call, repr), ``printed`` (call, a stdin program's output), ``raised`` (call, "Type:
    message"), ``timeout`` (call), ``import-error`` ("Type: message"), ``import-timeout``, ``passed`` (the test
    passed this time), ``lost`` (the child died)."""
    import shutil

    from coderank_evalplus.engine.sandbox import max_memory_bytes, run_function_in_child
    from coderank_evalplus.engine.sandbox.guard import guard_lifted

    # a worker that ran sandboxed jobs holds evalplus's guard itself (no rmtree, no psutil): lifted for these
    # chores of its own, never around the fork
    with guard_lifted():
        if mem is None:
            mem = max_memory_bytes()  # evalplus's cap, read here: the child imports nothing
        workdir = tempfile.mkdtemp(prefix="coderank_probe_")
    try:
        out = run_function_in_child(lambda: _probe_child(probe, workdir, mem),
                                    wall_timeout=_PROBE_WALL_S + 4 * probe.time_limit,
                                    cpu_budget=int(3 + 2 * probe.time_limit), writable_dir=workdir)
    finally:
        with guard_lifted():
            shutil.rmtree(workdir, ignore_errors=True)
    if out is None:
        return ("lost",)
    kind, _, rest = out.decode("utf-8", "replace").partition("\n")
    if kind in ("returned", "printed", "raised"):
        call, _, detail = rest.partition("\n")
        return kind, call, detail
    return (kind, rest) if rest else (kind,)


def worker_probe(job: dict) -> list[tuple[str, ...]]:
    """Worker job: several probes (of one task) in a row, ``{"probes": [...], "mem": cap}`` (the cap read once, in
    the parent)."""
    from coderank_evalplus.engine.sandbox.guard import evalplus_utils
    from coderank_evalplus.engine.sandbox.worker import freeze_heap

    evalplus_utils()
    freeze_heap()
    return [run_probe(p, job["mem"]) for p in job["probes"]]


def probe_all(probes: Sequence[Probe], workers: Optional[int] = None, executor: Any = None) -> list[tuple[str, ...]]:
    """Run probes in worker interpreters (each distinct probe once); results in the order given. ``executor``: a
    started executor (``engine.execution.executors``) to run them on, else a worker pool made for this call."""
    from coderank_evalplus.engine.execution.workers import WorkerPool

    unique = list(dict.fromkeys(probes))
    if not unique:
        return []
    from coderank_evalplus.engine.sandbox import max_memory_bytes

    n_workers = max(1, min(workers or os.cpu_count() or 1, len(unique)))
    chunks = [unique[i::n_workers] for i in range(n_workers)]
    mem = max_memory_bytes()
    jobs = [{"probes": chunk, "mem": mem} for chunk in chunks]
    result: dict[Probe, tuple[str, ...]] = {}
    if executor is not None:
        for idx, outs in executor.run("coderank_evalplus.engine.execution.probe:worker_probe", jobs, on_lost=None):
            result.update(zip(chunks[idx], outs or [("lost",)] * len(chunks[idx])))
    else:
        with WorkerPool(n_workers) as pool:
            for idx, outs in pool.run("coderank_evalplus.engine.execution.probe:worker_probe", jobs, on_lost=None):
                result.update(zip(chunks[idx], outs))
    return [result.get(p, ("lost",)) for p in probes]


def in_words(probe: tuple[str, ...], width: Optional[int] = 60) -> str:
    """A probe's result as a clause: "returns 3", "prints 6", "raises ZeroDivisionError: …", "does not finish in
    the time limit", "does not run: …"; values clipped to ``width`` characters (None: as reported); "" for a lost
    probe."""
    kind = probe[0] if probe else "lost"
    if kind == "returned":
        return f"returns {_clip(probe[2], width)}"
    if kind == "printed":
        return f"prints {_printed(probe[2], width)}"
    if kind == "raised":
        return f"raises {_clip(probe[2], width)}"
    if kind == "timeout":
        return "does not finish in the time limit"
    if kind == "import-error":
        detail = _clip(probe[1], width) if len(probe) > 1 else ""
        return f"does not run: {detail}" if detail else "does not run"
    if kind == "import-timeout":
        return "does not run: its top level does not finish in the time limit"
    if kind == "passed":
        return "passes it when run alone (it failed beside the others: flaky or slow)"
    return ""


def _printed(text: str, width: Optional[int]) -> str:
    """A stdin program's output (its lines stripped, as compared): one line as it is, several as a quoted text
    with its line breaks written ``\\n`` (so "1 2" and "1", "2" read apart), nothing as "nothing"."""
    if not text:
        return "nothing"
    return _clip(text, width) if "\n" not in text else _clip(repr(text), width)


def _clip(text: str, width: Optional[int]) -> str:
    if width is None:
        return str(text)
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"
