"""LiveCodeBench's code-generation problems (``livecodebench/code_generation_lite``) as ``Problem``s.

A record has ``question_title, question_content, platform, question_id, contest_id, contest_date, starter_code,
difficulty, public_test_cases`` (a JSON string: a list of ``{input, output, testtype}``), ``private_test_cases`` (a
JSON string, or LiveCodeBench's compressed form: base64 → zlib → pickle of a JSON string) and ``metadata`` (a JSON
string; ``func_name`` for a LeetCode problem). Records are recognised by these fields, in a problem file
(``io/problems.load_problem_file``: JSON lines or a JSON list, beside problems of your own) or loaded from the hub
through ``datasets`` (``livecodebench[:release_vN]``).

The shape is decided as for every problem (``engine/shapes.decide``, through ``io/problem_fields.build_problem``): a
LeetCode problem (``func_name``) becomes a method (``Solution().<func_name>``), an AtCoder / Codeforces one a stdin
program; its tests (public then private) are the judge's, with LiveCodeBench's grader's rules (``engine/lcb.py``);
the public ones are also its trial tests (the prompt shows them). The pickle is read by an unpickler that builds a
plain string and nothing else (a pickle can run code).

Filters as LiveCodeBench's own: platform, contest date range (its ``--start_date`` / ``--end_date``: a problem
whose contest is on or after the start, and at or before the end, midnight), difficulty. They follow the dataset's
name after ``?``: ``lcb.jsonl?platform=leetcode,atcoder&start_date=2024-08-01&difficulty=easy``; a problem of your
own in the same file has none of these fields and passes no filter.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import pickle
import zlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Iterable, Optional
from urllib.parse import parse_qs

from coderank_evalplus.io.jsonl import SampleFileError
from coderank_evalplus.io.problem_fields import build_problem
from coderank_evalplus.types import IOTest, Problem

DATASET = "livecodebench"
HUB_NAME = "livecodebench/code_generation_lite"
FIELDS = ("question_title", "question_content", "platform", "question_id", "contest_id", "contest_date",
          "starter_code", "difficulty", "public_test_cases", "private_test_cases", "metadata")
RECORD_KEYS = frozenset({"question_id", "public_test_cases", "private_test_cases"})  # the fields that make a record
PLATFORMS = ("leetcode", "codeforces", "atcoder")
DIFFICULTIES = ("easy", "medium", "hard")
MAX_TESTS_BYTES = 1 << 30  # a compressed private-test field may expand to this much text, no more


class HubUnavailable(FileNotFoundError):
    """The hub could not give the dataset (offline, no ``datasets``); ``io.problems`` raises it as DataNotFoundError."""


class _StringOnly(pickle.Unpickler):
    """Unpickles a plain ``str`` and nothing else: no class is ever looked up (no code can run), and whatever the
    pickle builds must be a string."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refused: the pickle names {module}.{name} (only a string is accepted)")

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("refused: a persistent id (only a string is accepted)")


def decode_private(text: str) -> str:
    """The JSON text of LiveCodeBench's compressed private tests: base64 → zlib → pickle (of a plain string)."""
    raw = base64.b64decode(text.encode("utf-8"), validate=False)
    inflater = zlib.decompressobj()
    data = inflater.decompress(raw, MAX_TESTS_BYTES)
    if inflater.unconsumed_tail:
        raise ValueError(f"decompresses to more than {MAX_TESTS_BYTES} bytes")
    value = _StringOnly(io.BytesIO(data)).load()
    if type(value) is not str:
        raise pickle.UnpicklingError(f"refused: the pickle holds a {type(value).__name__}, not a string")
    return value


def encode_private(tests_json: str) -> str:
    """LiveCodeBench's compressed form of a JSON text (the inverse of ``decode_private``; for writing problem files)."""
    return base64.b64encode(zlib.compress(pickle.dumps(tests_json))).decode("ascii")


def is_record(rec: Any) -> bool:
    """Whether a JSON object is a LiveCodeBench problem record (it has the fields that make one)."""
    return isinstance(rec, dict) and RECORD_KEYS <= set(rec)


def _tests(value: Any, name: str, where: str) -> list[dict]:
    if not isinstance(value, str):
        raise SampleFileError(f"{where}: field '{name}': expected a string, got {type(value).__name__}")
    try:
        tests = json.loads(value)
    except ValueError:
        if name != "private_test_cases":
            raise SampleFileError(f"{where}: field '{name}': not a JSON list") from None
        try:
            tests = json.loads(decode_private(value))
        except Exception as exc:  # noqa: BLE001 - base64, zlib, the unpickler, JSON: one message
            raise SampleFileError(f"{where}: field '{name}': neither JSON nor LiveCodeBench's compressed form "
                                  f"({type(exc).__name__}: {str(exc)[:120]})") from None
    if not isinstance(tests, list) or not all(isinstance(t, dict) and isinstance(t.get("input"), str)
                                              and isinstance(t.get("output"), str) for t in tests):
        raise SampleFileError(f"{where}: field '{name}': expected a list of {{input, output, testtype}} with string "
                              "input and output")
    return tests


def make_problem(rec: dict, where: str, dataset_hash: str = "") -> Problem:
    """One record as a Problem (SampleFileError naming the line and the field when it is malformed)."""
    if not is_record(rec):
        missing = ", ".join(sorted(RECORD_KEYS - set(rec)))
        raise SampleFileError(f"{where}: not a LiveCodeBench record (missing {missing})")
    for name in ("question_id", "platform", "contest_date"):
        if not isinstance(rec.get(name), str) or not rec[name].strip():
            raise SampleFileError(f"{where}: field '{name}': expected a non-empty string")
    public = _tests(rec["public_test_cases"], "public_test_cases", where)
    private = _tests(rec["private_test_cases"], "private_test_cases", where)
    meta_text = rec.get("metadata") or "{}"
    try:
        meta = json.loads(meta_text) if isinstance(meta_text, str) else dict(meta_text)
    except (ValueError, TypeError):
        raise SampleFileError(f"{where}: field 'metadata': not a JSON object") from None
    func = meta.get("func_name") if isinstance(meta, dict) else None
    testtypes = {t.get("testtype", "stdin") for t in public + private}
    functional = bool(func) or testtypes == {"functional"}
    if functional and not (isinstance(func, str) and func.isidentifier()):
        raise SampleFileError(f"{where}: field 'metadata': a functional problem needs func_name (a Python name)")
    try:
        contest_date = datetime.fromisoformat(rec["contest_date"])
    except ValueError:
        raise SampleFileError(f"{where}: field 'contest_date': not an ISO date ({rec['contest_date']!r})") from None
    info = {k: rec.get(k) for k in ("question_title", "question_content", "platform", "contest_id", "difficulty")}
    info["contest_date"] = contest_date.isoformat()
    info["starter_code"] = starter = str(rec.get("starter_code") or "")
    try:  # the shape as every reader decides it: func_name a method of Solution, else a stdin program
        return build_problem(rec["question_id"], starter, str(func) if functional else None,
                             public=[IOTest(t["input"], t["output"]) for t in public],
                             private=[IOTest(t["input"], t["output"]) for t in private], dataset=DATASET,
                             dataset_hash=dataset_hash, metadata=info)
    except ValueError as exc:
        raise SampleFileError(f"{where}: field 'starter_code': {exc}") from None


# --- selection ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Filters:
    """LiveCodeBench's own selection: platforms, contest date range (inclusive, dates at midnight), difficulties."""

    platforms: tuple[str, ...] = ()
    start_date: Optional[str] = None
    end_date: Optional[str] = None
    difficulties: tuple[str, ...] = ()

    def keeps(self, p: Problem) -> bool:
        """Whether the problem passes every filter set; a problem without LiveCodeBench's fields (one of your own
        in the same file) passes none, and is kept only when no filter is set."""
        if self == Filters():
            return True
        if "contest_date" not in p.metadata:
            return False
        date = datetime.fromisoformat(p.metadata["contest_date"])
        if self.platforms and p.metadata.get("platform") not in self.platforms:
            return False
        if self.difficulties and p.metadata.get("difficulty") not in self.difficulties:
            return False
        if self.start_date and date < datetime.strptime(self.start_date, "%Y-%m-%d"):
            return False
        return not (self.end_date and date > datetime.strptime(self.end_date, "%Y-%m-%d"))


def split_spec(spec: str) -> tuple[str, Filters]:
    """``NAME?platform=a,b&start_date=YYYY-MM-DD&end_date=…&difficulty=…`` → (NAME, Filters); ValueError for an
    unknown key or value."""
    name, _, query = str(spec).partition("?")
    if not query:
        return name, Filters()
    opts = {k: ",".join(v).split(",") for k, v in parse_qs(query, keep_blank_values=True, strict_parsing=True).items()}
    allowed = {"platform": PLATFORMS, "difficulty": DIFFICULTIES}
    for key, values in opts.items():
        if key in allowed:
            bad = [v for v in values if v not in allowed[key]]
            if bad:
                raise ValueError(f"--dataset {spec}: {key} {bad[0]!r} is not one of {', '.join(allowed[key])}")
        elif key in ("start_date", "end_date"):
            try:
                datetime.strptime(values[0], "%Y-%m-%d")
            except ValueError:
                raise ValueError(f"--dataset {spec}: {key} must be YYYY-MM-DD, got {values[0]!r}") from None
        else:
            raise ValueError(f"--dataset {spec}: unknown filter {key!r} (platform, start_date, end_date, difficulty)")
    start, end = opts.get("start_date"), opts.get("end_date")
    return name, Filters(tuple(opts.get("platform", ())), start[0] if start else None, end[0] if end else None,
                         tuple(opts.get("difficulty", ())))


# --- reading -----------------------------------------------------------------------------------------------------
MakeProblem = Callable[[dict, str, str], Problem]


def from_records(records: Iterable[tuple[str, dict]], dataset_hash: str, filters: Filters = Filters(),
                 make: Optional[MakeProblem] = None) -> dict[str, Problem]:
    """The problems of (where, record) pairs, each made by ``make`` (default: ``make_problem``, LiveCodeBench's
    records only), filtered, keyed by task id (SampleFileError for an id seen twice)."""
    out: dict[str, Problem] = {}
    for where, rec in records:
        problem = (make or make_problem)(rec, where, dataset_hash)
        if problem.task_id in out:
            name = "question_id" if is_record(rec) else "task_id"
            raise SampleFileError(f"{where}: field '{name}': {problem.task_id!r} appears twice")
        if filters.keeps(problem):
            out[problem.task_id] = problem
    return out


def load_hub(version: str = "release_latest", filters: Filters = Filters()) -> dict[str, Problem]:
    """``livecodebench/code_generation_lite`` at ``version`` through ``datasets`` (as lcb_runner loads it)."""
    try:
        from datasets import load_dataset

        data = load_dataset(HUB_NAME, split="test", version_tag=version, trust_remote_code=True)
    except Exception as exc:  # noqa: BLE001 - offline, no datasets, a refused script: one line with the way out
        raise HubUnavailable(
            f"cannot load {HUB_NAME} ({version}) from the hub ({type(exc).__name__}: {str(exc)[:100]}); download its "
            f"test*.jsonl files and give --dataset PATH.jsonl instead") from None
    digest = hashlib.md5(f"{HUB_NAME}:{version}:{getattr(data, '_fingerprint', '')}".encode()).hexdigest()
    return from_records(((f"{HUB_NAME}[{i}]", dict(rec)) for i, rec in enumerate(data)), digest, filters)


def is_hub_name(name: str) -> bool:
    return name.split("?")[0].split(":")[0].strip().lower() in (DATASET, "lcb")


def load_hub_spec(spec: str) -> dict[str, Problem]:
    """``livecodebench[:release_vN][?filters]`` from the hub."""
    name, filters = split_spec(spec)
    version = name.split(":", 1)[1] if ":" in name else "release_latest"
    return load_hub(version, filters)
