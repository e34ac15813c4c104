"""lm-evaluation-harness ``--log_samples`` output of this package's tasks (``humaneval_codet``, ``mbpp_plus_srank``…).

lm-eval (0.4.x, ``EvaluationTracker.save_results_samples``) writes
``<output_path>/<model>/samples_<task>_<date>.jsonl``, one JSON object per document and filter: ``doc`` (our task's
document: ``task_id``, ``prompt`` — the solution prompt —, ``test_prompt``…), ``resps`` (one list of raw
generations per request: the solution request's ``n_samples`` answers, then, when the task asked for tests, the
test request's ``n_test_samples`` answers), ``filtered_resps``, ``filter``, ``arguments``, metrics and hashes.

From such a record, as :class:`~coderank_evalplus.integrations.lm_eval.CodeRankTask` builds them: the programs are
``doc["prompt"]`` + each raw solution cut at CodeT's stop sequences, and the raw test samples are the test request's
answers (the text after ``assert ``). A chat-mode run (``lm_eval … --apply_chat_template``; its solution record,
``filtered_resps[0]``, says ``"chat": true``) is read as the task read it: each solution reply as
:func:`~coderank_evalplus.io.sanitize.raw_program` (``doc["prompt"]`` and ``doc["entry_point"]``), each test reply
:func:`~coderank_evalplus.testgen.replies.parse_chat_tests`. lm-eval logs a document once per filter with the same
``resps``; the records of the first filter in the file are read.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from coderank_evalplus.io.jsonl import SampleFileError
from coderank_evalplus.testgen.extract import truncate
from coderank_evalplus.types import Problem

SAMPLES_GLOB = "samples_*.jsonl"


@dataclass(frozen=True)
class LoggedSample:
    """One document of an lm-eval samples file."""

    task_id: str
    prompt: str
    solutions: list[str]  # raw answers to the solution request
    # raw test samples: the test request's answers (in chat mode each reply's asserts, parse_chat_tests); None when
    # the task issued none
    tests: Optional[list[str]]
    filter: str
    chat: bool = False  # a chat-mode run (--apply_chat_template): answers are whole chat replies
    entry_point: Optional[str] = None  # doc["entry_point"] (read in chat mode)

    def programs(self) -> list[str]:
        """Full programs, as the task ranks them: the prompt the model continued + the cut completion; in chat mode
        each reply as ``raw_program`` (``""`` when it defines no entry point)."""
        return read_answers(self._problem(), self.prompt, self.solutions, [], self.chat)[1]

    def _problem(self) -> Problem:
        """What ``raw_program`` reads of the problem: the prompt the model saw and the entry point."""
        return Problem(task_id=self.task_id, dataset="mbpp" if self.task_id.startswith("Mbpp/") else "humaneval",
                       prompt=self.prompt, entry_point=self.entry_point or "")


def read_answers(problem: Problem, prompt: str, answers: list[str], tests: list[str],
                 chat: bool) -> tuple[list[str], list[str], list[str]]:
    """(candidates as recorded, programs to rank, raw test samples) of one problem's answers. Without chat mode:
    completions cut at CodeT's stop sequences, appended to the prompt the model continued; tests as answered. In
    chat mode, what ``rerank --raw-field`` reads: each solution reply as ``raw_program`` (a full program, ``""``
    without a definition of the entry point; the candidate is the program), each test reply ``parse_chat_tests``."""
    if not chat:
        completions = [truncate(t) for t in answers]
        return completions, [prompt + c for c in completions], tests
    from coderank_evalplus.io.sanitize import raw_program
    from coderank_evalplus.testgen.replies import parse_chat_tests

    programs = [raw_program(t, problem) for t in answers]
    return programs, programs, [parse_chat_tests(t, problem.entry_point) for t in tests]


def is_logged_sample(rec: dict) -> bool:
    """Whether a JSON-lines record is an lm-eval ``--log_samples`` record."""
    return "doc" in rec and "resps" in rec


def parse_logged_sample(rec: dict, path: Path, lineno: int) -> LoggedSample:
    """Check and unpack one record; malformed ones raise a one-line SampleFileError naming file and line."""
    where = f"{path}:{lineno}: lm-eval sample"
    doc = rec.get("doc")
    if not isinstance(doc, dict):
        raise SampleFileError(f"{where}: field 'doc' must be an object (got {type(doc).__name__})")
    fields = {}
    for key in ("task_id", "prompt"):
        value = doc.get(key)
        if not isinstance(value, str):
            got = "missing" if key not in doc else f"got {type(value).__name__}"
            raise SampleFileError(f"{where}: doc field {key!r} must be a string ({got}; is this a log of a "
                                  f"coderank task such as humaneval_codet?)")
        fields[key] = value
    resps = rec.get("resps")
    if not (isinstance(resps, list) and 1 <= len(resps) <= 2 and all(isinstance(r, list) for r in resps)):
        got = f"a list of {len(resps)}" if isinstance(resps, list) else type(resps).__name__
        raise SampleFileError(f"{where}: field 'resps' must hold 1 or 2 lists of answers (solutions, then test "
                              f"samples); got {got}")
    for r, what in zip(resps, ("solution", "test")):
        for i, text in enumerate(r):
            if not isinstance(text, str):
                raise SampleFileError(f"{where}: {what} answer {i} in 'resps' is {type(text).__name__}, "
                                      f"expected a string")
    filt = rec.get("filter", "none")
    if not isinstance(filt, str):
        raise SampleFileError(f"{where}: field 'filter' must be a string (got {type(filt).__name__})")
    tests = list(resps[1]) if len(resps) > 1 else None
    if not is_chat_record(rec):
        return LoggedSample(task_id=fields["task_id"], prompt=fields["prompt"], solutions=list(resps[0]),
                            tests=tests, filter=filt)
    entry_point = doc.get("entry_point")
    if not (isinstance(entry_point, str) and entry_point):
        got = "missing" if "entry_point" not in doc else f"got {entry_point!r}"
        raise SampleFileError(f"{where}: a chat-mode record needs doc field 'entry_point' as a non-empty string "
                              f"({got})")
    if tests is not None:
        from coderank_evalplus.testgen.replies import parse_chat_tests

        tests = [parse_chat_tests(t, entry_point) for t in tests]
    return LoggedSample(task_id=fields["task_id"], prompt=fields["prompt"], solutions=list(resps[0]), tests=tests,
                        filter=filt, chat=True, entry_point=entry_point)


def is_chat_record(rec: dict) -> bool:
    """Whether the record is of a chat-mode run: its solution record (``filtered_resps[0]``, a JSON string as lm-eval
    logs it, or an object) says ``"chat": true``. Anything else (no record, another filter's output) is not."""
    filtered = rec.get("filtered_resps")
    if not (isinstance(filtered, list) and filtered):
        return False
    first = filtered[0]
    if isinstance(first, str):
        if '"chat"' not in first:
            return False
        try:
            first = json.loads(first)
        except ValueError:
            return False
    return isinstance(first, dict) and first.get("chat") is True


def task_of(file: Path) -> str:
    """The task name in ``samples_<task>_<date>.jsonl`` (lm-eval's ``get_file_task_name``)."""
    name = file.name
    return name[name.find("_") + 1: name.rfind("_")]


def find_samples_file(folder: Path) -> Optional[Path]:
    """The lm-eval samples file of the one task in ``folder`` (lm-eval's ``--output_path``, or its per-model
    subfolder), the newest when the task ran several times; None when there is none. Files of several tasks (or
    models) raise SampleFileError listing them."""
    files = [f for f in (*folder.glob(SAMPLES_GLOB), *folder.glob(f"*/{SAMPLES_GLOB}")) if f.is_file()]
    if not files:
        return None
    groups: dict[tuple[Path, str], list[Path]] = defaultdict(list)
    for f in files:
        groups[(f.parent, task_of(f))].append(f)
    if len(groups) > 1:
        names = sorted(f"{task} ({parent.relative_to(folder)}/)" if parent != folder else task
                       for parent, task in groups)
        shown = ", ".join(names[:8]) + (f", … ({len(names)} in all)" if len(names) > 8 else "")
        raise SampleFileError(f"{folder}: lm-eval samples of several tasks: {shown}; pass one "
                              f"samples_<task>_<date>.jsonl file")
    (only,) = groups.values()
    return max(only, key=lambda f: f.name)  # lm-eval's date suffix is ISO 8601: the last name is the newest


def only_first_filter(sample: LoggedSample, state: dict[str, Any]) -> bool:
    """True for records of the first filter seen in a file (``state`` is the caller's per-file dict)."""
    first = state.setdefault("filter", sample.filter)
    return sample.filter == first
