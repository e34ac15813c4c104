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

import io
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional, Sequence

from coderank_evalplus.generation.base import Generator, Sample, generate_each
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
# solution, as a samples file's records give them) -> (stop now, the pick's confidence)
Stopper = Callable[[Problem, list[str], list[str], dict[str, list[float]]], tuple[bool, float]]


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
) -> tuple[str, str]:
    """Sample ``n_samples`` solutions and ``n_test_samples`` test samples per problem; returns the two file paths.

    Base generators get CodeT's stop sequences (``stop`` overrides them); chat generators get none (the reply is
    parsed instead). ``problems_per_call`` problems go to one ``generate`` call (default: the generator's own
    ``problems_per_call`` attribute, else 1): a local engine batches their prompts, a server has them in flight at
    once; each prompt's samples are written as they arrive (``generate_each``).
    With ``stopper``, solutions come in rounds and a problem stops when the stopper says so (module docstring).
    """
    problems = list(problems)
    try:
        if stopper is not None:
            return _generate_adaptive(problems, generator, n_samples, n_test_samples, temperature, top_p, max_tokens,
                                      out_dir, progress, stop, n_asserts, stopper)
        return _generate(problems, generator, n_samples, n_test_samples, temperature, top_p, max_tokens, out_dir,
                         progress, stop, n_asserts, problems_per_call)
    except OSError as exc:  # a full disk or a read-only folder: one line naming the folder
        err = os_storage_error(exc, out_dir, "samples")
        if err is None:
            raise
        raise err from None


def _generate(problems: list[Problem], generator: Generator, n_samples: int, n_test_samples: int,
              temperature: float, top_p: float, max_tokens: int, out_dir: str, progress: bool,
              stop: Optional[Sequence[str]], n_asserts: int, problems_per_call: Optional[int]) -> tuple[str, str]:
    os.makedirs(out_dir, exist_ok=True)
    spath, tpath = os.path.join(out_dir, SAMPLES_FILE), os.path.join(out_dir, TESTS_FILE)
    swork, twork = _working_file(spath), _working_file(tpath)
    have = Counter(r["task_id"] for r in _read_jsonl_repair(swork))
    tests_done = {r["task_id"] for r in _read_jsonl_repair(twork)}
    stops = [] if generator.is_chat else list(CODET_STOP if stop is None else stop)
    # what is still to draw: (problem, "solution" | "test", how many)
    jobs = [(p, kind, k) for p in problems for kind, k in (
        ("solution", max(0, n_samples - have[p.task_id])),
        ("test", n_test_samples if p.task_id not in tests_done else 0)) if k > 0]
    per_call = max(1, problems_per_call or getattr(generator, "problems_per_call", 1) or 1)

    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(jobs), desc="generate", unit="prompt")
    with open(swork, "a", encoding="utf-8") as sf, open(twork, "a", encoding="utf-8") as tf:
        for start in range(0, len(problems), per_call):
            chunk = {p.task_id for p in problems[start : start + per_call]}
            todo = [j for j in jobs if j[0].task_id in chunk]
            # one generate call per distinct count: a problem's solutions and tests go together when the counts
            # match (a local engine batches them, a server has them in flight at once)
            # (a call per stop list too: LiveCodeBench's solutions stop elsewhere than tests, prompts.base_stops)
            for k, stop_key in dict.fromkeys((j[2], _stops(j[0], j[1], stops, stop)) for j in todo):
                call = [j for j in todo if (j[2], _stops(j[0], j[1], stops, stop)) == (k, stop_key)]
                prompts = [_prompts([p], generator, kind, n_asserts)[0] for p, kind, _ in call]
                for i, samples in generate_each(generator, prompts, k, temperature, top_p, max_tokens,
                                                list(stop_key)):
                    p, kind, _ = call[i]
                    if kind == "solution":
                        for s in samples[:k]:
                            _append(sf, _solution_record(p, s, generator.is_chat))
                    else:
                        _append(tf, _test_record(p, samples[:k], generator.is_chat))
                    if bar is not None:
                        _progress(bar, generator)
    if bar is not None:
        bar.close()
    replace_file(swork, spath)
    replace_file(twork, tpath)
    return spath, tpath


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


def _generate_adaptive(problems: list[Problem], generator: Generator, n_samples: int, n_test_samples: int,
                       temperature: float, top_p: float, max_tokens: int, out_dir: str, progress: bool,
                       stop: Optional[Sequence[str]], n_asserts: int, stopper: Stopper) -> tuple[str, str]:
    """One problem at a time: its test samples, then solutions round by round until the stopper says stop."""
    os.makedirs(out_dir, exist_ok=True)
    spath, tpath = os.path.join(out_dir, SAMPLES_FILE), os.path.join(out_dir, TESTS_FILE)
    apath = os.path.join(out_dir, ADAPTIVE_FILE)
    swork, twork, awork = _working_file(spath), _working_file(tpath), _working_file(apath)
    sols: dict[str, list[dict]] = {}  # the solution records so far (their likelihood fields feed the stopper)
    for r in _read_jsonl_repair(swork):
        sols.setdefault(r["task_id"], []).append(r)
    tests = {r["task_id"]: list(r.get("samples", [])) for r in _read_jsonl_repair(twork)}
    finished = {r["task_id"] for r in _read_jsonl_repair(awork)}
    stops = [] if generator.is_chat else list(CODET_STOP if stop is None else stop)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(problems), desc="generate (adaptive)", unit="problem")
    with open(swork, "a", encoding="utf-8") as sf, open(twork, "a", encoding="utf-8") as tf, \
            open(awork, "a", encoding="utf-8") as af:
        for p in problems:
            if p.task_id in finished:
                if bar is not None:
                    bar.update(1)
                continue
            if n_test_samples > 0 and p.task_id not in tests:
                samples = generator.generate(_prompts([p], generator, "test", n_asserts), n_test_samples,
                                             temperature, top_p, max_tokens, list(_stops(p, "test", stops, stop)))[0]
                rec = _test_record(p, samples, generator.is_chat)
                _append(tf, rec)
                tests[p.task_id] = rec["samples"]
            have = sols.setdefault(p.task_id, [])
            conf, stopped = float("nan"), False
            for target in adaptive_rounds(n_samples):
                if len(have) < target:
                    outs = generator.generate(_prompts([p], generator, "solution", n_asserts), target - len(have),
                                              temperature, top_p, max_tokens,
                                              list(_stops(p, "solution", stops, stop)))[0]
                    for s in outs[: target - len(have)]:
                        rec = _solution_record(p, s, generator.is_chat)
                        _append(sf, rec)
                        have.append(rec)
                if len(have) < target:
                    continue
                stopped, conf = stopper(p, [r["solution"] for r in have], tests.get(p.task_id, []),
                                        record_features(have))
                if stopped and target < n_samples:
                    break
                stopped = False
            _append(af, {"task_id": p.task_id, "samples": len(have),
                         "confidence": None if conf != conf else round(conf, 4), "stopped": bool(stopped)})
            if bar is not None:
                _progress(bar, generator)
    if bar is not None:
        bar.close()
    replace_file(swork, spath)
    replace_file(twork, tpath)
    replace_file(awork, apath)
    return spath, tpath


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
        from tqdm.auto import tqdm

        bar = tqdm(total=len(todo), desc=desc, unit="prompt")
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
