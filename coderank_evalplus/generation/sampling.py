"""The sampling loop: solutions and test samples for each problem, appended to jsonl files as they come.

``out_dir/samples.jsonl``: one ``{"task_id", "solution"[, "raw", "logprob", "logprob_tokens"]}`` line per sample
(evalplus format, which ignores the extra fields; the solution is the full program: prompt + completion for base
models, a chat model's reply read as ``rerank --raw-field`` reads it, the reply itself in ``raw``). ``logprob`` is
the sum of the sampled tokens' log-probabilities and ``logprob_tokens`` their number (for a chat model: the whole
reply's tokens), when the backend reports them.
``out_dir/tests_raw.jsonl``: one ``{"task_id", "samples": [raw test texts][, "logprobs": [...]]}`` line per
problem (CodeT format: continuations after ``assert ``).

While sampling, records are appended to ``samples.jsonl.partial`` and ``tests_raw.jsonl.partial`` (copies of the
complete files of an earlier run, if any), which are renamed to their final names when the loop ends: the final
files are always complete, never half-written. Resuming: solutions already there count toward ``n_samples`` (only
the missing ones are drawn) and problems already in the tests file are skipped. A torn last line (a killed run) is
dropped. Every write is flushed, so a killed run loses at most the problem in progress.

Adaptive budget (``stopper``): a problem's test samples are drawn first (their number stays as configured), then
its solutions in rounds (``adaptive_rounds``: 1, 2, … 10, 15, 20, … up to ``n_samples``); after each round the
stopper (``pipeline.adaptive_stopper``: the per-problem path on the solutions so far, with their recorded
log-probabilities, up to the pick's confidence) says whether to stop.
``out_dir/adaptive.jsonl`` gets one ``{"task_id", "samples", "confidence", "stopped"}`` line per problem (samples
used; ``stopped``: the confidence reached τ before the cap); a resumed run skips the problems listed there.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import threading
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional, Sequence, Union, cast

from coderank_evalplus.generation.base import Generator, Sample, Scorer, generate_each, generate_mixed
from coderank_evalplus.io.evalplus_samples import record_features
from coderank_evalplus.storage import atomic_copy, os_storage_error, replace_file
from coderank_evalplus.testgen.prompts import (
    CODET_STOP,
    base_program,
    base_stops,
    chat_solution_messages,
    chat_test_messages,
    solution_prompt,
    test_generation_prompt,
)
from coderank_evalplus.testgen.replies import chat_test_sample, parse_chat_solution
from coderank_evalplus.types import Problem

SAMPLES_FILE = "samples.jsonl"
TESTS_FILE = "tests_raw.jsonl"
ADAPTIVE_FILE = "adaptive.jsonl"
PARTIAL = ".partial"  # suffix of a file being appended to
ROUNDS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 30, 50, 75, 100, 150, 200)  # the adaptive rule's rounds
# stopper(problem, solutions so far, raw test samples, the solutions' likelihood features: field → one value per
# solution, as a samples file's records give them) -> (stop now, the pick's confidence), or a Future of it
Stopper = Callable[[Problem, list[str], list[str], dict[str, list[float]]], Union[tuple[bool, float], Future]]
# on_problem(problem, its solution records as written, its raw test samples or None without a test record): the
# problem's samples are complete
OnProblem = Callable[[Problem, list[dict], Optional[list[str]]], None]
# on_solutions(problem, its solution records so far): new solutions of a problem not complete yet
OnSolutions = Callable[[Problem, list[dict]], None]


def adaptive_rounds(n_samples: int) -> list[int]:
    """Samples per problem after each round: ``ROUNDS`` below ``n_samples``, then ``n_samples`` itself."""
    return [r for r in ROUNDS if r < n_samples] + [n_samples] if n_samples > 0 else []


def _working_file(final: str) -> str:
    """The file the loop appends to: ``<final>.partial``, started (atomically) as a copy of ``final`` if only that
    exists; an existing ``.partial`` is the newer one (a killed run never renamed it)."""
    work = final + PARTIAL
    if not os.path.exists(work) and os.path.exists(final):
        atomic_copy(final, work)
    return work


def _read_jsonl_repair(path: str) -> list[dict]:
    """Records of a jsonl file. A torn or unparsable line (a killed run) and everything after it are cut off."""
    if not os.path.exists(path):
        return []
    records: list[dict] = []
    good = 0
    with open(path, "rb") as f:
        data = f.read()
    for raw in io.BytesIO(data):  # splits on b"\n" only
        if not raw.endswith(b"\n"):
            break
        try:
            if raw.strip():
                records.append(json.loads(raw))
        except ValueError:
            break
        good += len(raw)
    if good < len(data):
        with open(path, "r+b") as f:
            f.truncate(good)
    return records


def _append(f, record: dict) -> None:
    f.write(json.dumps(record) + "\n")
    f.flush()


def _prompts(problems: Sequence[Problem], generator: Generator, kind: str, n_asserts: int) -> list:
    out = []
    for p in problems:
        if generator.is_chat:
            msgs = chat_solution_messages(p) if kind == "solution" else chat_test_messages(p, n_asserts)
            template = getattr(generator, "apply_chat_template", None)
            out.append(template(msgs) if template else msgs)
        else:
            out.append(solution_prompt(p) if kind == "solution" else test_generation_prompt(p))
    return out


def generate_samples(
    problems: Iterable[Problem],
    generator: Generator,
    n_samples: int,
    n_test_samples: int,
    temperature: float = 0.8,
    top_p: float = 0.95,
    max_tokens: int = 300,
    out_dir: str = ".",
    progress: bool = True,
    stop: Optional[Sequence[str]] = None,
    n_asserts: int = 5,
    problems_per_call: Optional[int] = None,
    stopper: Optional[Stopper] = None,
    on_problem: Optional[OnProblem] = None,
    score: Sequence[str] = (),
    halt: Optional[threading.Event] = None,
    on_solutions: Optional[OnSolutions] = None,
) -> tuple[str, str]:
    """Sample ``n_samples`` solutions and ``n_test_samples`` test samples per problem; returns the two file paths.

    Base generators get CodeT's stop sequences (``stop`` overrides them); chat generators get none (the reply is
    parsed instead). ``problems_per_call`` problems go to one call (default: the generator's own
    ``problems_per_call`` attribute, else 1): a local engine batches their prompts, a server has them in flight at
    once, a problem's solutions beside its test samples (``generate_mixed``); each prompt's samples are written as
    they arrive. With ``stopper``, solutions come in rounds and a problem stops when the stopper says so (module
    docstring); a stopper may answer later (a ``Future``), the loop drawing for the other problems meanwhile.

    ``on_problem(problem, records, tests)`` is called, in the loop's thread, once a problem's samples are all
    written: its solution records as written (program, reply, likelihood fields) and its raw test samples (None
    when it has no test record: no test samples asked for); the problems an earlier run completed come first,
    before anything is drawn. ``on_solutions(problem, records)``: a problem has new solutions but is not complete
    yet (its tests, or the stopper's answer, are still to come): what needs only the programs may start on them (a
    streamed run's judge). ``score``: likelihood features (``generation.likelihood.FIELDS``: "coder",
    "reviewer") every solution record must carry; what the generator did not report is scored by it before the
    record is written (records of an earlier run first). ``halt``: set from another thread, the loop stops at the
    next answer (``SamplingHalted``), keeping what it wrote.
    """
    problems = list(problems)
    per_call = max(1, problems_per_call or getattr(generator, "problems_per_call", 1) or 1)
    try:
        return _Loop(problems, generator, n_samples, n_test_samples, temperature, top_p, max_tokens, out_dir,
                     stop, n_asserts, per_call, stopper, on_problem, list(score), halt, on_solutions).run(progress)
    except OSError as exc:  # a full disk or a read-only folder: one line naming the folder
        err = os_storage_error(exc, out_dir, "samples")
        if err is None:
            raise
        raise err from None


class SamplingHalted(Exception):
    """The sampling loop stopped because another thread asked it to (``generate_samples``' ``halt``)."""


@dataclass
class _State:
    """One problem in the loop: its solution records and raw test samples so far (None: not drawn yet), the
    solutions it wants now, the stopper's answer it waits for, and whether it is done."""

    problem: Problem
    records: list[dict]
    tests: Optional[list[str]]
    want: int = 0
    decided_at: int = -1  # the sample count the stopper last answered for
    waiting: Optional[Future] = None
    confidence: float = float("nan")
    done: bool = False


class _Loop:
    """The sampling loop of ``generate_samples``: what each problem still needs goes out in calls of
    ``per_call`` problems (in the problems' order), each answer is written as it arrives, and a problem whose
    samples are complete is decided (``stopper``) or handed over (``on_problem``)."""

    def __init__(self, problems: list[Problem], generator: Generator, n_samples: int, n_test_samples: int,
                 temperature: float, top_p: float, max_tokens: int, out_dir: str, stop: Optional[Sequence[str]],
                 n_asserts: int, per_call: int, stopper: Optional[Stopper], on_problem: Optional[OnProblem],
                 score: list[str], halt: Optional[threading.Event], on_solutions: Optional[OnSolutions]) -> None:
        self.problems, self.generator = problems, generator
        self.n_samples, self.n_tests = n_samples, n_test_samples
        self.temperature, self.top_p, self.max_tokens = temperature, top_p, max_tokens
        self.out_dir, self.stop, self.n_asserts, self.per_call = out_dir, stop, n_asserts, per_call
        self.stopper, self.on_problem, self.score, self.halt = stopper, on_problem, score, halt
        self.on_solutions = on_solutions
        # a server takes every prompt of a call at once: its solutions go first, so that what needs only them
        # (a streamed run's judge) starts while the tests are drawn; a local engine's calls keep their order
        self.solutions_first = getattr(generator, "generate_iter_mixed", None) is not None
        self.stops = [] if generator.is_chat else list(CODET_STOP if stop is None else stop)
        self.rounds = adaptive_rounds(n_samples) if stopper is not None else [n_samples]
        self.bar: Any = None

    def run(self, progress: bool) -> tuple[str, str]:
        os.makedirs(self.out_dir, exist_ok=True)
        spath, tpath = os.path.join(self.out_dir, SAMPLES_FILE), os.path.join(self.out_dir, TESTS_FILE)
        apath = os.path.join(self.out_dir, ADAPTIVE_FILE)
        adaptive = self.stopper is not None
        swork, twork = _working_file(spath), _working_file(tpath)
        awork = _working_file(apath) if adaptive else None
        written = _read_jsonl_repair(swork)
        records: dict[str, list[dict]] = {}
        for r in written:
            records.setdefault(r["task_id"], []).append(r)
        tests = {r["task_id"]: list(r.get("samples", [])) for r in _read_jsonl_repair(twork)}
        finished = {r["task_id"] for r in _read_jsonl_repair(awork)} if awork else set()
        if self.score:
            self._score_earlier(swork, written)
        self.states = {p.task_id: _State(p, records.get(p.task_id, []), tests.get(p.task_id)) for p in self.problems}
        with open(swork, "a", encoding="utf-8") as self.sf, open(twork, "a", encoding="utf-8") as self.tf, \
                (open(awork, "a", encoding="utf-8") if awork else contextlib.nullcontext()) as self.af:
            for st in self.states.values():  # what an earlier run completed goes first
                if st.problem.task_id in finished:
                    self._finish(st, logged=True)
                else:
                    self._advance(st)
                    self._more_solutions(st)
            if progress:
                from coderank_evalplus.io.progress import progress_bar

                left = [st for st in self.states.values() if not st.done]
                total = len(left) if adaptive else sum(k > 0 for st in left for k in self._needs(st))
                self.bar = progress_bar(total=total, desc="generate (adaptive)" if adaptive else "generate",
                                unit="problem" if adaptive else "prompt")
            self._drive()
        if self.bar is not None:
            self.bar.close()
        replace_file(swork, spath)
        replace_file(twork, tpath)
        if awork:
            replace_file(awork, apath)
        return spath, tpath

    # --- what a problem needs, and what happens when it has it -------------------------------------------------
    def _needs(self, st: _State) -> tuple[int, int]:
        """(solutions, test samples) to draw for the problem now."""
        if st.done or st.waiting is not None:
            return 0, 0
        tests = self.n_tests if self.n_tests > 0 and st.tests is None else 0
        return max(0, st.want - len(st.records)), tests

    def _advance(self, st: _State) -> None:
        """What the problem does next: wait for its samples, ask the stopper, or finish. Without a stopper it wants
        ``n_samples``; with one, the next round's count (a resumed problem is first decided on what it has)."""
        if st.done or st.waiting is not None:
            return
        have = len(st.records)
        if self.stopper is None:
            st.want = self.n_samples
        elif not self.rounds:
            return self._finish(st)
        elif st.decided_at == have:  # the stopper said go on at this count: the next round
            st.want = next((r for r in self.rounds if r > have), have)
        elif st.want == 0:
            st.want = have or self.rounds[0]
        if have < st.want or (self.n_tests > 0 and st.tests is None):
            return  # its calls are out, or still to go
        if self.stopper is None or st.decided_at == have:
            return self._finish(st)
        st.decided_at = have
        answer = self.stopper(st.problem, [r["solution"] for r in st.records], list(st.tests or []),
                              record_features(st.records))
        if isinstance(answer, Future):
            st.waiting = answer
            return
        self._decided(st, answer)

    def _decided(self, st: _State, answer: tuple[bool, float]) -> None:
        stop, st.confidence = answer
        have = len(st.records)
        if (stop and have < self.n_samples) or have >= self.n_samples:
            return self._finish(st, stopped=bool(stop) and have < self.n_samples)
        self._advance(st)

    def _finish(self, st: _State, stopped: bool = False, logged: bool = False) -> None:
        st.done = True
        if self.stopper is not None and not logged:
            conf = st.confidence
            _append(self.af, {"task_id": st.problem.task_id, "samples": len(st.records),
                              "confidence": None if conf != conf else round(conf, 4), "stopped": stopped})
        if self.stopper is not None and self.bar is not None:
            _progress(self.bar, self.generator)
        if self.on_problem is not None:
            self.on_problem(st.problem, st.records, None if st.tests is None else list(st.tests))

    # --- the calls --------------------------------------------------------------------------------------------
    def _drive(self) -> None:
        order = list(self.states.values())
        while True:
            self._check_halt()
            for st in order:
                if st.waiting is not None and st.waiting.done():
                    answer, st.waiting = st.waiting.result(), None
                    self._decided(st, answer)
            chunk = self._next_chunk(order)
            if chunk:
                self._call(chunk)
                continue
            waiting = [st.waiting for st in order if st.waiting is not None]
            if not waiting:
                return
            wait(waiting, timeout=0.2, return_when=FIRST_COMPLETED)

    def _next_chunk(self, order: list[_State]) -> list[tuple[_State, str, int]]:
        """The jobs of the first ``per_call`` problems (by position) of which one needs samples now."""
        for start in range(0, len(order), self.per_call):
            jobs = [(st, kind, k) for st in order[start:start + self.per_call]
                    for kind, k in zip(("solution", "test"), self._needs(st)) if k > 0]
            if jobs:
                return sorted(jobs, key=lambda job: job[1] == "test") if self.solutions_first else jobs
        return []

    def _call(self, jobs: list[tuple[_State, str, int]]) -> None:
        """One call's answers, each written as it comes. Asked to halt, a generator that can be interrupted
        (``interrupt``: a server's) starts nothing more and what it has in flight is still written; any other
        stops at its next answer."""
        gen = self.generator
        prompts = [_prompts([st.problem], gen, kind, self.n_asserts)[0] for st, kind, _ in jobs]
        stops = [_stops(st.problem, kind, self.stops, self.stop) for st, kind, _ in jobs]
        answers = generate_mixed(gen, prompts, [k for _, _, k in jobs], stops, self.temperature, self.top_p,
                                 self.max_tokens)
        interrupt = getattr(gen, "interrupt", None)
        drains = interrupt is not None
        try:
            self._write(jobs, answers, interrupt)
        except KeyboardInterrupt:
            if drains and self.halt is not None and self.halt.is_set():
                raise SamplingHalted("the sampling loop was asked to stop") from None
            raise

    def _write(self, jobs: list[tuple[_State, str, int]], answers: Any,
               interrupt: Optional[Callable[[], None]]) -> None:
        gen = self.generator
        with contextlib.closing(answers):
            for i, samples in answers:
                st, kind, k = jobs[i]
                if kind == "solution":
                    recs = [_solution_record(st.problem, s, gen.is_chat) for s in samples[:k]]
                    if self.score:
                        from coderank_evalplus.generation.likelihood import score_records

                        score_records(recs, {st.problem.task_id: st.problem}, cast(Scorer, gen), self.score)
                    for rec in recs:
                        _append(self.sf, rec)
                    st.records.extend(recs)
                else:
                    rec = _test_record(st.problem, samples[:k], gen.is_chat)
                    _append(self.tf, rec)
                    st.tests = rec["samples"]
                if self.bar is not None and self.stopper is None:
                    _progress(self.bar, gen)
                self._advance(st)
                if kind == "solution":
                    self._more_solutions(st)
                if interrupt is not None and self.halt is not None and self.halt.is_set():
                    interrupt()  # (asked already by whoever halted, probably: it raises once it is drained)
                else:
                    self._check_halt()

    def _more_solutions(self, st: _State) -> None:
        """``on_solutions`` for a problem that has solutions and is not handed over yet."""
        if self.on_solutions is not None and st.records and not st.done:
            self.on_solutions(st.problem, st.records)

    def _check_halt(self) -> None:
        if self.halt is not None and self.halt.is_set():
            raise SamplingHalted("the sampling loop was asked to stop")

    def _score_earlier(self, swork: str, written: list[dict]) -> None:
        """Score the likelihood features the records of an earlier run lack (and write them back, in their
        order), so that every record a problem hands over carries them."""
        from coderank_evalplus.generation.likelihood import missing, score_records
        from coderank_evalplus.storage import atomic_write_jsonl

        mine = {p.task_id: p for p in self.problems}
        ours = [r for r in written if r["task_id"] in mine]
        if any(missing(r, kind) for r in ours for kind in self.score):
            score_records(ours, mine, cast(Scorer, self.generator), self.score)
            atomic_write_jsonl(swork, written)


def _progress(bar, generator: Generator) -> None:
    """One more prompt done; a server's generator adds its requests per second (``progress_note``)."""
    note = getattr(generator, "progress_note", None)
    if note is not None:
        bar.set_postfix_str(note(), refresh=False)
    bar.update(1)


def _solution_record(p: Problem, s: Sample, is_chat: bool) -> dict[str, Any]:
    rec: dict[str, Any] = {"task_id": p.task_id, "solution": _solution(p, s, is_chat)}
    if is_chat:
        rec["raw"] = s.text  # the reply as written (``rerank --raw-field raw`` reads it again)
    if s.logprob is not None:
        rec["logprob"] = s.logprob
        if s.n_tokens is not None:
            rec["logprob_tokens"] = s.n_tokens
    return rec


def _test_record(p: Problem, samples: Sequence[Sample], is_chat: bool) -> dict[str, Any]:
    rec: dict[str, Any] = {"task_id": p.task_id, "samples": [_test_text(p, s, is_chat) for s in samples]}
    if any(s.logprob is not None for s in samples):
        rec["logprobs"] = [s.logprob for s in samples]
    return rec


def _solution(problem: Problem, s: Sample, is_chat: bool) -> str:
    if is_chat:
        return parse_chat_solution(s.text, problem)
    return base_program(problem, s.text)


def _test_text(problem: Problem, s: Sample, is_chat: bool) -> str:
    return chat_test_sample(s.text, problem) if is_chat else s.text


def _stops(problem: Problem, kind: str, stops: list[str], stop: Optional[Sequence[str]]) -> tuple[str, ...]:
    """The stop sequences of one prompt: none for chat (``stops`` empty), the user's, else ``prompts.base_stops``."""
    if not stops:
        return ()
    return tuple(stop) if stop is not None else tuple(base_stops(problem, kind))


# --- keyed replies: one reply per request, logged as they come (model-assisted selection, selection/sstar.py) ---

@dataclass(frozen=True)
class Request:
    """One prompt to draw a single reply for. ``key`` names it in the log (a content address of everything that
    decides the reply: the model, the prompt, the sampling settings); ``prompt`` is chat messages or text, as
    ``chat_prompt`` made it."""

    key: str
    prompt: Any
    temperature: float
    max_tokens: int
    stop: tuple[str, ...] = ()
    top_p: float = 1.0
    note: dict = field(default_factory=dict, compare=False)  # written beside the reply (task id, step)


def chat_prompt(generator: Generator, messages: list[dict], text: str) -> Any:
    """The prompt for ``generator``: the messages (templated here by a local chat model, as the loop above does)
    for a chat generator, else ``text`` (a base model continues it)."""
    if generator.is_chat:
        template = getattr(generator, "apply_chat_template", None)
        return template(messages) if template else messages
    return text


def request_key(model: str, prompt: Any, temperature: float, max_tokens: int, stop: Sequence[str],
                top_p: float = 1.0) -> str:
    """The content address of a request (hex): the same question to the same model with the same settings."""
    import hashlib

    h = hashlib.blake2b(digest_size=16)
    h.update(json.dumps([model, prompt, temperature, max_tokens, list(stop), top_p], sort_keys=True,
                        ensure_ascii=False).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def draw_logged(generator: Generator, requests: Sequence[Request], log_path: str, progress: bool = False,
                desc: str = "ask") -> tuple[dict[str, str], set[str]]:
    """One reply per request: read from ``log_path`` where an earlier run drew it (same key), else drawn now and
    appended there as it arrives (flushed; a torn last line of a killed run is dropped), so a rerun makes no call
    it already made. Requests with the same settings go to the model together (``generate_each``: a local engine
    batches them, a server has them in flight at once). Returns (reply per key, the keys drawn now)."""
    from coderank_evalplus.generation.base import logprobs_off

    os.makedirs(os.path.dirname(os.path.abspath(log_path)), exist_ok=True)
    got = {r["key"]: r["reply"] for r in _read_jsonl_repair(log_path) if "key" in r and "reply" in r}
    todo = list({r.key: r for r in requests if r.key not in got}.values())
    bar = None
    if progress and todo:
        from coderank_evalplus.io.progress import progress_bar

        bar = progress_bar(total=len(todo), desc=desc, unit="prompt")
    drawn: set[str] = set()
    with open(log_path, "a", encoding="utf-8") as fh, logprobs_off(generator):
        for setting in dict.fromkeys((r.temperature, r.top_p, r.max_tokens, r.stop) for r in todo):
            call = [r for r in todo if (r.temperature, r.top_p, r.max_tokens, r.stop) == setting]
            for i, samples in generate_each(generator, [r.prompt for r in call], 1, setting[0], setting[1],
                                            setting[2], list(setting[3])):
                reply = samples[0].text if samples else ""
                got[call[i].key] = reply
                _append(fh, {**call[i].note, "key": call[i].key, "reply": reply})
                drawn.add(call[i].key)
                if bar is not None:
                    _progress(bar, generator)
    if bar is not None:
        bar.close()
    return {r.key: got[r.key] for r in requests}, drawn
