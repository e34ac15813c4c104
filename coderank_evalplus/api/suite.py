"""Leaderboard suites: a TOML file naming (model samples, test pool) entries, run into results folders.

```toml
methods = ["codet", "srank"]        # optional; random and oracle are always there
compare_to = ["random", "codet"]    # optional: paired comparisons against these
limit = 0                           # optional: the dataset's first N problems (0: all)
[[entry]]
name = "codex-davinci-002"          # the row's model
dataset = "humaneval"               # as in `rerank`; your own problems.jsonl: a path, as solutions
solutions = "samples.jsonl.gz"      # paths absolute or relative to this file
tests = "tests.jsonl"
tests_label = "gpt-4 tests"         # optional: which test pool
pool = "gpt-4"                      # optional: rows with the same dataset and pool are compared as models
                                    # (default: tests_label without a trailing " (own)")
drop_extra_problems = false         # optional (also top level): drop samples of problems the dataset lacks
raw_field = "raw"                   # optional: the records' field holding a chat model's raw reply (as
                                    # `rerank --raw-field`: read as evalplus.sanitize would)
# strict = true                     # optional, top level: a pass only the candidate's own == decided fails
# pass_at_k_rule = "codet"          # optional, top level: the folders' pass@k rule (default "ranked"; docs/usage.md)
# tests may also be "examples+mutate" (or "examples+mutate:N": inputs grown from the prompt's examples, no model;
# an entry without tests gets "examples+mutate")
# or a list combining a pool file with it: tests = ["tests.jsonl", "examples+mutate"]
# or, instead of solutions/tests: results = "runs/existing-results-folder"
```

Each entry's results folder is ``<output>/runs/<name>--<tests_label>``; it is reused when its inputs are unchanged
(same file contents and settings, recorded as a fingerprint), else `rerank` runs again through the shared
execution cache, so nothing already executed or judged is done twice.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from coderank_evalplus.api.options import OptionError, check_rules
from coderank_evalplus.api.options import default as _option_default
from coderank_evalplus.io.problems import is_problem_file
from coderank_evalplus.io.results_folder import ResultsFolderError, pool_of, read_summary
from coderank_evalplus.testgen.mutate import SOURCE, no_pool_note
from coderank_evalplus.types import CoderankError

_TOP_KEYS = {"methods", "compare_to", "limit", "task_ids", "data_dir", "time_limit", "tests_per_sample", "resamples",
             "seed", "draws", "entry", "base_only", "drop_extra_problems", "strict", "pass_at_k_rule"}
_ENTRY_KEYS = {"name", "dataset", "solutions", "tests", "tests_label", "results", "limit", "task_ids", "time_limit",
               "tests_per_sample", "data_dir", "pool", "drop_extra_problems", "raw_field"}
_RENAMED = {"n_resamples": "resamples"}  # keys of suites written before 0.2.0



class SuiteError(CoderankError):
    """A suite file is malformed; the message names the file and the entry."""


def _default(key: str) -> Any:
    """A suite key's default: its option's on this front end (``api.options``), never written here."""
    return _option_default(key, "suite")


@dataclass
class SuiteEntry:
    name: str
    dataset: str = _default("dataset")
    solutions: Optional[Path] = None
    tests: Optional[Path] = None  # the first test-sample file (None: examples+mutate alone)
    test_sources: list = field(default_factory=list)  # every test source: Paths and/or an examples+mutate spec
    tests_label: str = ""
    results: Optional[Path] = None
    limit: Optional[int] = None
    task_ids: Optional[list[str]] = None
    time_limit: float = _default("time_limit")
    tests_per_sample: Optional[int] = _default("tests_per_sample")
    data_dir: Optional[str] = None
    pool: str = ""
    drop_extra_problems: bool = False
    raw_field: Optional[str] = None

    def __post_init__(self) -> None:
        # an entry made in code with only ``tests`` (the bundled example, scripts) has that file as its one source
        if not self.test_sources and self.tests is not None:
            self.test_sources = [self.tests]

    @property
    def solutions_file(self) -> Path:
        """The samples to rerank (an entry given as an existing ``results`` folder has none to rerank)."""
        if self.solutions is None:
            raise SuiteError(f"entry {self.name!r} ({self.tests_label}): no 'solutions' to rerank")
        return self.solutions


@dataclass
class Suite:
    path: Optional[Path]
    entries: list[SuiteEntry] = field(default_factory=list)
    methods: list[str] = field(default_factory=lambda: list(_default("methods")))
    compare_to: list[str] = field(default_factory=lambda: list(_default("compare_to")))
    n_resamples: int = _default("resamples")
    seed: int = _default("seed")
    draws: int = _default("draws")
    base_only: bool = _default("base_only")
    strict: bool = _default("strict")  # the judge's suspicious passes (the candidate's own == decided) fail
    pass_at_k_rule: str = _default("pass_at_k_rule")  # how the folders' pass@k tables take k picks (metrics.py)


def _load_toml(path: Path) -> dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10: the same parser, from PyPI (a dependency there)
        import tomli as tomllib
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise SuiteError(f"{path}: no such suite file") from None
    except tomllib.TOMLDecodeError as exc:
        raise SuiteError(f"{path}: not valid TOML ({exc})") from None


def _typed(where: str, key: str, value: Any, kind: type | tuple) -> Any:
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise SuiteError(f"{where}: {key!r} must be a {names} (got {value!r})")
    return value


DATA_DIR = "{data_dir}"  # in a path: the suite's data_dir, else $CODERANK_DATA


def _expand_data_dir(text: str, where: str, data_dir: Optional[str]) -> str:
    """``{data_dir}/x`` → the suite's ``data_dir`` (else ``CODERANK_DATA``) + ``/x``."""
    if DATA_DIR not in text:
        return text
    import os

    root = data_dir or os.environ.get("CODERANK_DATA")  # (a relative CODERANK_DATA is the working folder's)
    if not root:
        raise SuiteError(f"{where}: {text!r} names a file under {DATA_DIR}: set CODERANK_DATA (or the suite's "
                         f"data_dir) to the folder that holds the data")
    return text.replace(DATA_DIR, str(Path(root).expanduser().resolve()))


def _path(base: Path, where: str, key: str, value: Any, must_exist: bool = True,
          data_dir: Optional[str] = None) -> Path:
    p = Path(_expand_data_dir(_typed(where, key, value, str), where, data_dir)).expanduser()
    p = p if p.is_absolute() else (base / p)
    if must_exist and not p.exists():
        raise SuiteError(f"{where}: {key} = {value!r}: {p} does not exist")
    return p.resolve()


def _opt(where: str, key: str, value: Any) -> Any:
    """A value checked as the option of the same name is everywhere (``api.options``), or a SuiteError."""
    from coderank_evalplus.api.options import check_value, option

    try:
        return check_value(key, option(key).kind, value)
    except ValueError as exc:
        raise SuiteError(f"{where}: {exc}") from None


def load_suite(path: str | Path) -> Suite:
    """Parse and check a suite file; every error names the file and the entry (number and name)."""
    path = Path(path)
    data = _load_toml(path)
    suite = _suite_settings(path, data)
    entries = data.get("entry")
    if not isinstance(entries, list) or not entries:
        raise SuiteError(f"{path}: no [[entry]] tables (each needs name, dataset, solutions and tests, or results)")
    base = path.resolve().parent
    top_data = str(_path(base, str(path), "data_dir", data["data_dir"])) if "data_dir" in data else None
    rows = _Rows()
    defaulted: list[int] = []
    for i, raw in enumerate(entries, 1):
        where = f"{path}: entry {i}" + (f" ({raw.get('name')})" if isinstance(raw.get("name"), str) else "")
        e = _entry(raw, data, where, base, top_data)
        if "tests" not in raw and "results" not in raw:  # no pool: the one that needs no model (said once, below)
            defaulted.append(i)
        rows.add(e, i, where)
        suite.entries.append(e)
    if defaulted:
        print(f"{path}: entr{'y' if len(defaulted) == 1 else 'ies'} {', '.join(map(str, defaulted))} "
              f"{'has' if len(defaulted) == 1 else 'have'} no 'tests': " + no_pool_note("tests = FILE"),
              file=sys.stderr)
    return suite


def _suite_settings(path: Path, data: dict) -> Suite:
    """The suite's top-level keys, checked (a key renamed since, an unknown one: a SuiteError naming it)."""
    renamed = [k for k in data if k in _RENAMED]
    if renamed:
        raise SuiteError(f"{path}: {renamed[0]!r} is now {_RENAMED[renamed[0]]!r} (as the CLI's --"
                         f"{_RENAMED[renamed[0]]})")
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise SuiteError(f"{path}: unknown key(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(_TOP_KEYS))})")
    suite = Suite(path=path.resolve())
    where = str(path)
    for key in ("methods", "compare_to"):
        if key in data:
            vals = _typed(where, key, data[key], list)
            setattr(suite, key, _opt(where, key, [_typed(where, key, v, str) for v in vals]))
    for key, attr in (("resamples", "n_resamples"), ("seed", "seed"), ("draws", "draws")):
        if key in data:
            setattr(suite, attr, _opt(where, key, _typed(where, key, data[key], int)))
    for key in ("base_only", "strict"):
        if key in data:
            setattr(suite, key, _typed(where, key, data[key], bool))
    if "pass_at_k_rule" in data:
        suite.pass_at_k_rule = _opt(where, "pass_at_k_rule", _typed(where, "pass_at_k_rule", data["pass_at_k_rule"],
                                                                   str))
    return suite


def _entry(raw: dict, data: dict, where: str, base: Path, top_data: Optional[str]) -> SuiteEntry:
    """One ``[[entry]]``: its keys checked, its settings (the entry's, else the suite's, else the option's
    default), then its inputs (``results``, or ``solutions`` and ``tests``) and the pool's name."""
    unknown = set(raw) - _ENTRY_KEYS
    if unknown:
        raise SuiteError(f"{where}: unknown key(s) {', '.join(sorted(unknown))} "
                         f"(known: {', '.join(sorted(_ENTRY_KEYS))})")
    if "name" not in raw:
        raise SuiteError(f"{where}: missing 'name'")
    e = SuiteEntry(name=_typed(where, "name", raw["name"], str))
    no_pool = "tests" not in raw and "results" not in raw
    e.tests_label = _typed(where, "tests_label", raw.get("tests_label", SOURCE if no_pool else ""), str)
    e.pool = _typed(where, "pool", raw.get("pool", pool_of(e.tests_label)), str)
    _entry_settings(e, raw, data, where, base, top_data)
    _entry_inputs(e, raw, where, base)
    return e


def _entry_settings(e: SuiteEntry, raw: dict, data: dict, where: str, base: Path, top_data: Optional[str]) -> None:
    """The entry's dataset and settings, each the entry's key, else the suite's, else the option's default."""
    def value(key: str) -> Any:
        return raw.get(key, data.get(key, _default(key)))

    e.drop_extra_problems = _typed(where, "drop_extra_problems", value("drop_extra_problems"), bool)
    e.dataset = _typed(where, "dataset", raw.get("dataset", _default("dataset")), str)
    if is_problem_file(e.dataset):  # your own problems: a path, relative to this file (LCB's filters after ?)
        name, sep, query = e.dataset.partition("?")
        e.dataset = str(_path(base, where, "dataset", name, data_dir=top_data)) + sep + query
    e.raw_field = _typed(where, "raw_field", raw.get("raw_field"), (str, type(None)))
    limit = raw.get("limit", data.get("limit"))
    e.limit = None if limit is None else _opt(where, "limit", _typed(where, "limit", limit, int))
    task_ids = raw.get("task_ids", data.get("task_ids"))
    e.task_ids = None if task_ids is None else _opt(where, "task_ids", _typed(where, "task_ids", task_ids, list))
    try:
        check_rules({"limit": e.limit, "task_ids": e.task_ids})
    except OptionError as exc:
        raise SuiteError(f"{where}: {exc}") from None
    e.time_limit = _opt(where, "time_limit", _typed(where, "time_limit", value("time_limit"), (int, float)))
    e.tests_per_sample = _opt(where, "tests_per_sample", _typed(where, "tests_per_sample", value("tests_per_sample"),
                                                                 int)) or None
    e.data_dir = str(_path(base, where, "data_dir", raw["data_dir"])) if "data_dir" in raw else top_data


def _entry_inputs(e: SuiteEntry, raw: dict, where: str, base: Path) -> None:
    """The entry's ``results`` folder, or its ``solutions`` and test sources (default: examples+mutate), and, where
    no ``tests_label`` names the pool, a label made of its files' names (two pools are never one by accident)."""
    if "results" in raw:
        if "solutions" in raw or "tests" in raw:
            raise SuiteError(f"{where}: give either 'results' or 'solutions' + 'tests', not both")
        e.results = _path(base, where, "results", raw["results"], data_dir=e.data_dir)
        return
    if "solutions" not in raw:
        raise SuiteError(f"{where}: missing 'solutions' (or give 'results', an existing results folder)")
    e.solutions = _path(base, where, "solutions", raw["solutions"], data_dir=e.data_dir)
    e.test_sources = _test_sources(base, where, raw.get("tests", SOURCE), e.data_dir)
    e.tests = next((t for t in e.test_sources if isinstance(t, Path)), None)
    if not e.tests_label:
        from coderank_evalplus.api.evaluate import tests_label
        from coderank_evalplus.testgen.mutate import TestSources

        e.tests_label = tests_label(TestSources.parse([str(t) for t in e.test_sources]))
        if "pool" not in raw:
            e.pool = pool_of(e.tests_label)


class _Rows:
    """What makes two entries two rows: a (name, tests_label) and a (name, dataset, pool) are each one entry's."""

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], int] = {}
        self.pools: dict[tuple[str, str, str], int] = {}

    def add(self, e: SuiteEntry, i: int, where: str) -> None:
        row_key = (e.name, e.tests_label)
        if row_key in self.seen:
            raise SuiteError(f"{where}: same name and tests_label as entry {self.seen[row_key]}; rows must differ")
        self.seen[row_key] = i
        group = (e.name, e.dataset, e.pool)
        if group in self.pools:
            raise SuiteError(f"{where}: entry {self.pools[group]} already ranks {e.name} on {e.dataset} with pool "
                             f"{e.pool!r} (from tests_label without \" (own)\"); models are compared per pool, so "
                             f"give one of them another 'pool'")
        self.pools[group] = i


def _test_sources(base: Path, where: str, value: Any, data_dir: Optional[str] = None) -> list:
    """``tests`` as a list of sources: a path (resolved, must exist) or an ``examples+mutate[:N]`` spec string."""
    from coderank_evalplus.testgen.mutate import parse_source

    values = value if isinstance(value, list) else [value]
    if not values:
        raise SuiteError(f"{where}: 'tests' is an empty list")
    out: list = []
    for v in values:
        try:
            spec = parse_source(_typed(where, "tests", v, str))
        except ValueError as exc:
            raise SuiteError(f"{where}: {exc}") from None
        out.append(spec.label() if spec is not None else _path(base, where, "tests", v, data_dir=data_dir))
    if sum(isinstance(t, str) for t in out) > 1:
        raise SuiteError(f"{where}: 'tests' names examples+mutate more than once")
    return out


def sources_text(e: SuiteEntry) -> str:
    """The entry's test sources for a progress line: file names and the spec."""
    return " + ".join(t.name if isinstance(t, Path) else t for t in e.test_sources)


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", text).strip("_") or "entry"


def run_folder(output: Path, e: SuiteEntry) -> Path:
    return output / "runs" / (slug(e.name) + (f"--{slug(e.tests_label)}" if e.tests_label else ""))


def fingerprint(e: SuiteEntry, methods: list[str], base_only: bool, strict: bool = False,
                pass_at_k_rule: str = _option_default("pass_at_k_rule")) -> str:
    """What determines an entry's results folder: its input files' contents and the settings."""
    from coderank_evalplus.api.evaluate import content_digest
    from coderank_evalplus.io.results_folder import LAYOUT

    tests = [content_digest(t) if isinstance(t, Path) else t for t in e.test_sources]
    parts = {"solutions": content_digest(e.solutions_file), "tests": tests[0] if len(tests) == 1 else tests,
             "dataset": ([e.dataset, content_digest(Path(e.dataset.split("?")[0]))] if is_problem_file(e.dataset)
                         else e.dataset),
             "limit": e.limit, "time_limit": e.time_limit, "tests_per_sample": e.tests_per_sample,
             **({"task_ids": e.task_ids} if e.task_ids else {}),
             "data_dir": e.data_dir, "methods": sorted(methods), "base_only": base_only, "layout": LAYOUT}
    if e.drop_extra_problems:  # only when set: the folders of suites written before the key stay valid
        parts["drop_extra_problems"] = True
    if strict:
        parts["strict"] = True
    # only when not the default: the folders written before the key stay valid (the leaderboard reads pass@1, the
    # same under every rule; a folder's own table records the rule it used)
    if pass_at_k_rule != _option_default("pass_at_k_rule"):
        parts["pass_at_k_rule"] = pass_at_k_rule
    if e.raw_field:
        parts["raw_field"] = e.raw_field
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:32]


def ensure_results(suite: Suite, output: Path, cache_dir: Optional[Path], workers: Optional[int],
                   progress: bool, executor: str = "local", ray_address: Optional[str] = None
                   ) -> list[tuple[SuiteEntry, Path, dict]]:
    """Each entry's results folder, running `rerank` for those missing or out of date. Returns
    (entry, folder, {"reused": bool, "seconds": float, "execution": …}) per entry. The reranks share one executor
    (``executors.make_executor``), made when the first entry needs it."""
    import contextlib

    from coderank_evalplus.engine.execution.execute import ResultCache
    from coderank_evalplus.engine.execution.executor_factory import make_executor

    out = []
    cache = None
    runner = None
    stack = contextlib.ExitStack()
    try:
        for k, e in enumerate(suite.entries, 1):
            if e.results is not None:
                read_summary(e.results)  # a clear error now rather than after the other entries ran
                out.append((e, e.results, {"reused": True, "seconds": 0.0}))
                continue
            folder = run_folder(output, e)
            fp = fingerprint(e, suite.methods, suite.base_only, suite.strict, suite.pass_at_k_rule)
            try:
                summary = read_summary(folder)
                if summary.get("fingerprint") == fp:
                    out.append((e, folder, {"reused": True, "seconds": 0.0}))
                    continue
            except ResultsFolderError:
                pass
            if cache is None:
                cache = ResultCache(Path(cache_dir or output / "cache") / "executions.sqlite")
            label = f"{e.name}" + (f" · {e.tests_label}" if e.tests_label else "")
            print(f"[{k}/{len(suite.entries)}] {label}: rerank {e.solutions_file.name} with {sources_text(e)}",
                  file=sys.stderr, flush=True)
            t0 = time.monotonic()
            if runner is None:
                runner = stack.enter_context(make_executor(executor, workers, ray_address))
            result = rerank_entry(e, suite, cache, workers, progress, runner)
            from coderank_evalplus.pipeline import write_results

            result.extra.update(fingerprint=fp, entry={"name": e.name, "tests_label": e.tests_label, "pool": e.pool},
                                inputs={"solutions": str(e.solutions),
                                        "tests": " + ".join(str(t) for t in e.test_sources)})
            write_results(result, folder)
            out.append((e, folder, {"reused": False, "seconds": round(time.monotonic() - t0, 2),
                                    "execution": result.stats}))
    finally:
        stack.close()
        if cache is not None:
            cache.close()
    return out


def rerank_entry(e: SuiteEntry, suite: Suite, cache, workers: Optional[int], progress: bool, executor=None):
    """One entry through the one path (``api.evaluate.run_rerank``), as the `rerank` command runs it; the suite
    writes the folder (its own name and fingerprint)."""
    from coderank_evalplus.api.evaluate import run_rerank
    from coderank_evalplus.api.options import RerankOptions

    options = RerankOptions(solutions=str(e.solutions_file), tests=[str(t) for t in e.test_sources],
                            dataset=e.dataset, data_dir=e.data_dir, limit=e.limit, task_ids=e.task_ids,
                            raw_field=e.raw_field, drop_extra_problems=e.drop_extra_problems,
                            methods=list(suite.methods), tests_per_sample=e.tests_per_sample or 0,
                            time_limit=e.time_limit, workers=workers, base_only=suite.base_only, strict=suite.strict,
                            progress=progress, model=e.name, tests_label=e.tests_label or None,
                            pass_at_k_rule=suite.pass_at_k_rule)
    return run_rerank(options, cache=cache, executor=executor, frontend="suite", write=False).result
