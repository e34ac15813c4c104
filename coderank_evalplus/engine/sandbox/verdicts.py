"""The side of a program's tests that holds them: which probes its child evaluates, and each verdict from them.

A test item (``execution.suite_items``) is a call (``("call", expr)``: its result is what the child observed), a
parsed check (``("check", call item, expected, comparison[, entry point])``) or an assert (``("assert", body[,
entry point])``). ``plan_items`` splits every check and assert (``split.py``) into probes for the child and a
remainder; ``decide`` decides each remainder from the probes' reported values -- in this process for ``probe ==
literal`` and the other fast forms, in one confined child of it (``runner.run_in_workdir``, no candidate code
there) for the rest. The execution engine calls it in the driver, which alone holds the tests: its workers get
the probes only (``worker.worker_run``). ``run_program`` does it all in one process, for callers that hold the
tests anyway (tests, small tools).
"""

from __future__ import annotations

import ast
import signal
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from coderank_evalplus.engine.lcb import stdout_matches
from coderank_evalplus.engine.sandbox.canonical import digest_text
from coderank_evalplus.engine.sandbox.limits import Limits
from coderank_evalplus.engine.sandbox.report import decode_value, encode_value
from coderank_evalplus.engine.sandbox.runner import run_in_workdir, run_probes
from coderank_evalplus.engine.sandbox.split import PROBE, STDOUT, TRUSTED_MODULES, Split, check_body, split_assert
from coderank_evalplus.types import ERROR, FAIL, PASS, RAISED, RETURNED, TIMED_OUT, TIMEOUT

_ASSERTION_DIGEST = digest_text("exc:AssertionError")
_BAD_PROBE = "__coderank_probe_does_not_compile__"  # evaluates to a NameError in the child


@dataclass
class ProbePlan:
    """What the child evaluates for a list of test items, and how each item's verdict follows."""

    probes: list[str] = field(default_factory=list)  # expression texts, distinct
    want: list[bool] = field(default_factory=list)  # the probe's value is needed by an assert
    call_probe: dict[int, int] = field(default_factory=dict)  # call item -> its probe
    # check / assert item -> (split, its probes' indices in ``probes``, compiled remainder (slow form only),
    # whether a candidate's AssertionError is a failure (raw asserts) rather than an error (checks))
    tests: dict[int, tuple[Split, tuple[int, ...], Optional[Any], bool]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._index: dict[str, int] = {}
        self._codes: list[Any] = []
        # fast-form item -> the expected literal's report bytes, where a reported value with exactly these bytes
        # compares equal to it once decoded (checked once here: a NaN inside makes it unequal to its own copy)
        self.expected_bytes: dict[int, bytes] = {}
        # (item, reported bytes) -> the verdict they gave: wrong programs often return the same wrong value, and
        # a verdict from a value of exact builtin types depends on nothing else (short values only)
        self.memo: dict[tuple[int, bytes], int] = {}

    def probe(self, text: str) -> int:
        try:
            return self._index[text]
        except KeyError:
            pass
        i = self._index[text] = len(self.probes)
        self.probes.append(text)
        self.want.append(False)
        return i

    @property
    def codes(self) -> list[Any]:
        if len(self._codes) != len(self.probes):
            self._codes = compile_probes(self.probes)
        return self._codes

    def probes_for(self, todo: Sequence[int]) -> list[int]:
        """The probes the items ``todo`` need, in first-use order."""
        seen: dict[int, None] = {}
        for idx in todo:
            if idx in self.call_probe:
                seen.setdefault(self.call_probe[idx])
            else:
                for p in self.tests[idx][1]:
                    seen.setdefault(p)
        return list(seen)


def compile_probes(probes: Sequence[str]) -> list[Any]:
    """Each probe compiled for ``eval`` (in the worker, once per task, before forking)."""
    codes = []
    for text in probes:
        try:
            codes.append(compile(text, "<test>", "eval"))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            codes.append(compile(_BAD_PROBE, "<test>", "eval"))
    return codes


def plan_items(items: Sequence[tuple]) -> ProbePlan:
    """Split every test item into probes and remainders (once per task, where the tests are held)."""
    plan = ProbePlan()
    for idx, item in enumerate(items):
        if item[0] == "call":
            plan.call_probe[idx] = plan.probe(item[1])
    for idx, item in enumerate(items):
        kind = item[0]
        if kind == "call":
            continue
        if kind == "check" and item[3] == STDOUT:  # a stdin program's output against the expected output
            split, entry, raw = _stdout_split(items[item[1]][1], item[2]), None, False
        elif kind == "check":
            body, entry, raw = (check_body(items[item[1]][1], item[2], item[3]), (item[4] if len(item) > 4 else None),
                                False)
            split = split_assert(body, entry)
        else:
            body, entry, raw = item[1], (item[2] if len(item) > 2 else None), True
            split = split_assert(body, entry)
        indices = tuple(plan.probe(t) for t in split.probes)
        for p in indices:
            plan.want[p] = True
        code = None
        if split.remainder is not None and split.fast is None:
            try:
                code = compile(split.remainder, "<test>", "eval")
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                split = Split((), None)
        plan.tests[idx] = (split, indices, code, raw)
        if split.fast is not None and split.fast[0] == "==":
            try:
                enc = encode_value(split.fast[2])
                if decode_value(enc) == split.fast[2]:
                    plan.expected_bytes[idx] = enc
            except Exception:  # noqa: BLE001 - not encodable, or == raised: decoded and compared each time
                pass
    return plan


def _stdout_split(call: str, expected: Optional[str]) -> Split:
    """A stdin check: one probe (the call, which returns the output) and the fast form ("stdout", 0, expected text);
    an expected side that is not a string literal cannot be decided (ERROR)."""
    try:
        value = ast.literal_eval(expected or "")
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return Split((), None)
    if not isinstance(value, str):
        return Split((), None)
    return Split((call,), f"{PROBE}(0) == {expected}", (STDOUT, 0, value))


_MEMO_BYTES = 256  # reported values up to this size are remembered with their verdict (per plan, per item)
_MEMO_MAX = 1 << 16  # entries per plan


class _ProbeFailed(Exception):
    """A probe raised, was cut off or returned a value that cannot be carried: the assert errs."""


class _ProbeTimedOut(BaseException):
    pass


def _probe_value(result: tuple[int, int], value: Optional[bytes], raw: bool) -> Any:
    """A probe's value as the remainder sees it (a fresh copy at every use: a remainder may change it), or the
    exception that gives the assert its outcome: timed out → TIMEOUT; raised → ERROR, or FAIL where a raw
    assert's candidate raised AssertionError (as ``exec("assert ...")`` counted it); a value the report format
    cannot carry → ERROR (not compared: its own ``==`` would decide)."""
    status, digest = result
    if status == TIMED_OUT:
        raise _ProbeTimedOut()
    if status != RETURNED:
        if raw and digest == _ASSERTION_DIGEST:
            raise AssertionError()
        raise _ProbeFailed()
    if value is None:
        raise _ProbeFailed()
    return decode_value(value)


def _fast_verdict(form: tuple, result: tuple[int, int], value: Optional[bytes], raw: bool) -> int:
    try:
        v = _probe_value(result, value, raw)
        kind = form[0]
        if kind == "==":
            ok = bool(v == form[2])
        elif kind == "is":
            ok = v is form[2]
        elif kind == STDOUT:
            ok = type(v) is str and stdout_matches(v, form[2])
        elif kind == "truthy":
            ok = bool(v)
        else:
            ok = not v
    except _ProbeTimedOut:
        return TIMEOUT
    except AssertionError:
        return FAIL
    except Exception:  # noqa: BLE001 - a probe that failed, a malformed report, a comparison that raised
        return ERROR
    return PASS if ok else FAIL


def fail_every_item(results: dict, items: Sequence[tuple], todo: Sequence[int], status: int, digest: int) -> None:
    """The program never got past its own top level: each test without a result fails the same way."""
    for idx in todo:
        if idx not in results:
            if items[idx][0] == "call":
                results[idx] = (TIMED_OUT if status == TIMEOUT else RAISED, digest)
            else:
                results[idx] = (status, 0)


def decide(plan: ProbePlan, items: Sequence[tuple], todo: Sequence[int], failure: Optional[tuple[int, int]],
           probe_results: dict[int, tuple[int, int]], values: dict[int, Optional[bytes]], cpu: float, wall: float,
           defer: Optional[list] = None) -> dict[int, tuple[int, int]]:
    """{item: (status, digest)} for the items ``todo`` from what ``runner.run_probes`` returned: a call's result
    is its probe's; a check's or assert's verdict is decided from its probes' values. ``defer``: the remainders
    that need evaluating (not a fast form) go there as ``(item, code, probe indices, raw, results, values)``
    instead of being evaluated now (``slow_verdicts`` takes a batch of them)."""
    results: dict[int, tuple[int, int]] = {}
    if failure is not None:
        fail_every_item(results, items, todo, *failure)
        return results
    crash = (RAISED, digest_text("crash"))
    call_probe, get = plan.call_probe, probe_results.get
    for idx in todo:
        p = call_probe.get(idx)
        if p is not None:
            results[idx] = get(p, crash)
    results.update(verdicts(plan, todo, probe_results, values, cpu, wall, defer))
    return results


def verdicts(plan: ProbePlan, todo: Sequence[int], results: dict[int, tuple[int, int]],
             values: dict[int, Optional[bytes]], cpu: float, wall: float, defer: Optional[list] = None
             ) -> dict[int, tuple[int, int]]:
    """(outcome, 0) of every check / assert item in ``todo`` from its probes' ``results`` and ``values``."""
    out: dict[int, tuple[int, int]] = {}
    slow: list[tuple] = []
    memo, call_probe, tests, expected_bytes = plan.memo, plan.call_probe, plan.tests, plan.expected_bytes
    for idx in todo:
        if idx in call_probe:
            continue
        split, indices, code, raw = tests[idx]
        if split.remainder is None or (indices[0] not in results if len(indices) == 1 else
                                       any(p not in results for p in indices)):
            out[idx] = (ERROR, 0)
        elif split.fast is not None:
            p = indices[split.fast[1]]
            value = values.get(p)
            if value is None or results[p][0] != RETURNED:
                out[idx] = (_fast_verdict(split.fast, results[p], value, raw), 0)
            elif expected_bytes.get(idx) == value:  # decodes to a copy of the literal: == holds
                out[idx] = (PASS, 0)
            elif len(value) <= _MEMO_BYTES:
                got = memo.get((idx, value))
                if got is None:
                    got = _fast_verdict(split.fast, results[p], value, raw)
                    if len(memo) < _MEMO_MAX:
                        memo[(idx, value)] = got
                out[idx] = (got, 0)
            else:
                out[idx] = (_fast_verdict(split.fast, results[p], value, raw), 0)
        else:
            needed = {p: results[p] for p in indices}
            slow.append((idx, code, indices, raw, needed, {p: values.get(p) for p in indices}))
    if defer is not None:
        defer.extend(slow)
    elif slow:
        out.update(slow_verdicts(slow, cpu, wall))
    return out


class _RemainderTimedOut(BaseException):
    pass


def slow_verdicts(slow: Sequence[tuple], cpu: float, wall: float) -> dict[Any, tuple[int, int]]:
    """{item: (outcome, 0)} for remainders that are not a fast form (``decide``'s deferred tuples), evaluated in
    one confined child: they are test code, run on the probes' decoded values; no candidate code is there."""
    import builtins
    import importlib

    modules = {}
    for name in TRUSTED_MODULES:  # imported here, before the fork: the child imports nothing
        try:
            modules[name] = importlib.import_module(name)
        except Exception:  # noqa: BLE001
            pass

    def target(workdir: str) -> bytes:  # pragma: no cover - runs in the child
        def on_timer(signum, frame):
            raise _RemainderTimedOut()

        signal.signal(signal.SIGPROF, on_timer)
        signal.signal(signal.SIGALRM, on_timer)
        out = bytearray()
        for _, code, indices, raw, results, values in slow:

            def probe(i: int, indices=indices, raw=raw, results=results, values=values) -> Any:
                return _probe_value(results[indices[i]], values.get(indices[i]), raw)

            env = {"__builtins__": dict(builtins.__dict__), PROBE: probe, **modules}
            signal.setitimer(signal.ITIMER_PROF, cpu, 0.05)
            signal.setitimer(signal.ITIMER_REAL, 3 * cpu + 0.5, 0.25)
            try:
                outcome = PASS if eval(code, env) else FAIL
            except (_ProbeTimedOut, _RemainderTimedOut):
                outcome = TIMEOUT
            except AssertionError:
                outcome = FAIL
            except BaseException:  # noqa: BLE001
                outcome = ERROR
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
                signal.setitimer(signal.ITIMER_REAL, 0)
            out.append(outcome)
        return bytes(out)

    n = len(slow)
    got = run_in_workdir(target, wall_timeout=2.0 + n * (3 * cpu + 0.5) + wall, cpu_budget=int(2 + n * cpu * 1.5))
    if got is None or len(got) != n:
        return {idx: (ERROR, 0) for idx, *_ in slow}
    return {idx: (got[k] if got[k] in (PASS, FAIL, ERROR, TIMEOUT) else ERROR, 0) for k, (idx, *_) in enumerate(slow)}


def run_program(program: str, items: Sequence[tuple], limits: Limits, mem_bytes: Optional[int] = None,
                compiled_items: Optional[ProbePlan] = None, todo: Optional[Sequence[int]] = None
                ) -> tuple[bool, dict[int, tuple[int, int]]]:
    """Run ``program`` on the test items ``todo`` (default all); return (imported, {item: (status, digest)}).

    Everything in one process, for callers that hold the tests anyway: the execution engine instead sends its
    workers the probes only (``run_probes``) and decides the verdicts where the expected values are."""
    todo = list(range(len(items))) if todo is None else list(todo)
    plan = compiled_items if compiled_items is not None else plan_items(items)
    imported, failure, probe_results, values = run_probes(program, plan.codes, plan.want, plan.probes_for(todo),
                                                          limits, mem_bytes)
    return imported, decide(plan, items, todo, failure, probe_results, values, limits.cpu, limits.wall)
