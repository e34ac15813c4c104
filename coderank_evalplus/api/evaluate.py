"""The one path from inputs to results: load → tests → select → features → cache → rank and judge → folder.

Every entry point parses its own arguments into ``RerankOptions`` and calls ``run_rerank``: ``coderank-evalplus
rerank``, ``run`` (after sampling), suites, ``evalplus.evaluate --rerank`` (after evalplus evaluated), the lm-eval
tasks (after lm-eval generated) and ``coderank_evalplus.rerank``. A front end that already holds some inputs (problems,
programs, test samples, features) hands them in; the rest comes from the options. Messages go through ``logging``
(logger ``coderank_evalplus``); the CLI shows them as lines on stderr.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import tempfile
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Optional, Sequence

from coderank_evalplus.api.options import RESULTS_ROOT, RerankOptions
from coderank_evalplus.api.output import RerankOutput
from coderank_evalplus.types import CoderankError, InputNotFound, Problem

if TYPE_CHECKING:
    from coderank_evalplus.testgen.mutate import TestSources

log = logging.getLogger("coderank_evalplus")

DEFAULT_ROOT = RESULTS_ROOT  # where a run without an output folder writes its own (the `output` option's help)
RUN_FILE = "rerank_results.json"
# files only a folder this tool wrote holds (a folder written before the mark, or a run stopped before its results:
# its execution cache is written first)
OURS = (RUN_FILE, "cache/executions.sqlite")
# how each entry point says "replace another run's results" (evalplus's own flag for "evaluate again")
OVERWRITE_FLAG = {"python": "overwrite=True", "evalplus": "--i_just_wanna_run"}
# how each entry point names the model of a run (the CLI's --model otherwise)
MODEL_FLAG = {"python": "model=NAME", "evalplus": "--model NAME",
              "lm-eval": "pretrained=NAME or model=NAME in --model_args, or {\"model\": \"NAME\"} in --metadata"}


# a setting of the stage whose name or form is not its option's, and how it reads the options; every other setting
# is the option of the same name (``stage_config``)
_DERIVED: dict[str, Callable[[RerankOptions], Any]] = {
    "methods": lambda o: list(o.methods), "ks": lambda o: list(o.k), "plus": lambda o: not o.base_only,
    "tests_per_sample": lambda o: o.tests_per_sample or None, "limit": lambda o: o.limit or None}


def stage_config(options: RerankOptions, tests: Optional[TestSources] = None):
    """The pipeline's settings (``pipeline.RerankConfig``) that ``options`` describe, over its fields: each the
    option of its name (or ``_DERIVED`` from the options); ``mutate`` from the parsed test sources (``tests``,
    None: no examples+mutate)."""
    from coderank_evalplus.pipeline import RerankConfig

    def value(name: str) -> Any:
        if name == "mutate":
            return tests.mutate if tests is not None else None
        return _DERIVED[name](options) if name in _DERIVED else getattr(options, name)

    return RerankConfig(**{f.name: value(f.name) for f in fields(RerankConfig)})


@dataclass(frozen=True)
class RunSetup:
    """What a run's options settle before anything runs, for ``run_rerank`` and a streamed ``run`` alike: the
    methods (the baselines with them), the test sources parsed once (``defaulted``: none were given, so
    examples+mutate), and the stage's settings."""

    methods: list[str]
    tests: TestSources
    config: Any  # pipeline.RerankConfig
    defaulted: bool = False


def run_setup(options: RerankOptions, default_tests: bool = True) -> RunSetup:
    """``options`` checked, the method names checked (before any executor starts), the test sources parsed (none
    given and ``default_tests``: examples+mutate) and the stage's settings derived from both."""
    from coderank_evalplus.pipeline import all_methods
    from coderank_evalplus.testgen.mutate import SOURCE, TestSources

    options.check()
    methods = all_methods(options.methods)
    defaulted = not options.tests and default_tests
    tests = TestSources.parse([SOURCE] if defaulted else options.tests)
    return RunSetup(methods, tests, stage_config(options, tests), defaulted)


def run_rerank(options: RerankOptions, *, problems: Optional[Mapping[str, Problem]] = None,
               solutions: Optional[Mapping[str, Sequence[str]]] = None,
               test_samples: Optional[Mapping[str, Sequence[str]]] = None,
               features: Optional[Mapping[str, Mapping[str, Sequence[float]]]] = None,
               cache: Any = None, executor: Any = None, frontend: str = "python", write: bool = True,
               extra: Optional[Mapping[str, Any]] = None, load_s: float = 0.0, selector: Any = None) -> RerankOutput:
    """Rerank, judge and (with ``write``) write the results folder, as ``options`` say; returns ``RerankOutput``.

    ``problems``, ``solutions`` (programs per task), ``test_samples`` (raw test samples per task) and ``features``
    are taken as given where the caller holds them, else read from ``options``. ``cache`` / ``executor``: shared
    ones (left open), else made here for this call. ``frontend``: who called ("rerank", "run", "suite", "evalplus",
    "lm-eval", "python"), recorded with the rest of the provenance. ``extra``: more top-level keys for
    ``rerank_results.json``; ``load_s``: seconds the caller spent reading inputs it hands in (the timing line).
    ``selector``: S* after ranking (``selection.sstar.ModelSelector``), else the one ``options.select_model``
    names, its replies logged in the results folder (else the cache folder, else a temporary one)."""
    from coderank_evalplus.pipeline import rank_and_judge

    t0 = time.monotonic()
    setup = run_setup(options, default_tests=test_samples is None)
    given = _inputs(options, setup, problems, solutions, test_samples, features, frontend)
    provenance, folder = provenance_and_folder(options, given.problems, given.chosen, setup.tests, frontend,
                                               None if options.solutions else _mapping_digest(given.solutions), write)
    with _run_files(options, folder, cache, selector) as (cache, selector):
        result = rank_and_judge(provenance["dataset"]["name"], given.problems, given.solutions, given.test_samples,
                                setup.config, cache, given.features, executor=executor,
                                eval_results=options.eval_results, load_s=load_s + time.monotonic() - t0,
                                select=selector)
    return finish(result, provenance, folder, given.sanitized, extra)


def provenance_and_folder(options: RerankOptions, problems: Mapping[str, Problem], chosen: Sequence[str],
                          tests: TestSources, frontend: str, solutions_digest: Optional[str] = None, write: bool = True
                          ) -> tuple[dict, Optional[Path]]:
    """The run's provenance (``describe``) and, with ``write``, its results folder (``output_folder``): what
    ``run_rerank`` settles before ranking and a streamed ``run`` once its samples are all written."""
    provenance = describe(options, problems, chosen, tests, frontend, solutions_digest)
    return provenance, output_folder(options, provenance) if write else None


def finish(result, provenance: Mapping[str, Any], folder: Optional[Path], sanitized: Optional[dict] = None,
           extra: Optional[Mapping[str, Any]] = None) -> RerankOutput:
    """A run's result with its provenance (and the sanitizer's tally, the caller's ``extra`` keys), written to
    ``folder`` when there is one: the end of ``run_rerank`` and of a streamed ``run`` (``api.stream``)."""
    from coderank_evalplus.pipeline import write_results

    result.extra["provenance"] = {**provenance, "uses_prompt_examples": {
        m: row["uses_prompt_examples"] for m, row in result.methods.items()}}
    if sanitized is not None:
        result.extra["sanitized"] = sanitized
    result.extra.update(extra or {})
    if folder is not None:
        write_results(result, folder)
    return RerankOutput(result, folder)


@dataclass
class _Inputs:
    """What a run ranks: the dataset's problems, the chosen ones (``chosen``) with their programs, their raw test
    samples and likelihood features; the test sources, parsed (``tests``), and the sanitizer's tally
    (``raw_field``)."""

    problems: Mapping[str, Problem]
    chosen: list[str]
    solutions: dict[str, Sequence[str]]
    test_samples: Mapping[str, Sequence[str]]
    features: Optional[Mapping[str, Mapping[str, Sequence[float]]]]
    tests: TestSources
    sanitized: Optional[dict]


def _inputs(options: RerankOptions, setup: RunSetup, problems: Optional[Mapping[str, Problem]],
            solutions: Optional[Mapping[str, Sequence[str]]], test_samples: Optional[Mapping[str, Sequence[str]]],
            features: Optional[Mapping[str, Mapping[str, Sequence[float]]]], frontend: str) -> _Inputs:
    """The inputs the caller handed in, the rest read as ``options`` say; the problems chosen (``limit``,
    ``task_ids``) among those with solutions."""
    from coderank_evalplus.io.problems import load_problems, select_problems, selection_note

    if problems is None:
        problems = load_problems(options.dataset, options.data_dir)
    sanitized = None
    if solutions is None:
        solutions, sanitized = _read_solutions(options, problems)
    tests = setup.tests
    if setup.defaulted:  # said once the problems and solutions read (a bad file is refused first)
        from coderank_evalplus.testgen.mutate import no_pool_note

        log.warning(no_pool_note("tests=FILE" if frontend == "python" else "--tests FILE"))
    if test_samples is None:
        from coderank_evalplus.pipeline import read_tests

        test_samples = read_tests(tests.files, problems, options.data_dir, drop_extra=options.drop_extra_problems)
    chosen = select_problems(problems, solutions, options.limit, options.task_ids)
    if not chosen:
        what = f"the first {options.limit} problems" if options.limit else "the problems asked for"
        raise CoderankError((f"limit {options.limit}: " if options.limit else "")
                            + f"none of {what} of {options.dataset} has solutions"
                            + (f" in {options.solutions}" if options.solutions else ""))
    note = selection_note(problems, chosen, options.limit, solutions)
    if note:
        log.info(note)
    solutions = {t: solutions[t] for t in chosen}
    if features is None and options.solutions is not None:
        from coderank_evalplus.generation.likelihood import features_for

        features = features_for(options.methods, options.solutions, problems, solutions)
    warn_untested(solutions, test_samples, tests.mutate)
    return _Inputs(problems, list(chosen), dict(solutions), test_samples, features, tests, sanitized)


def warn_untested(solutions: Mapping[str, Sequence[str]], test_samples: Mapping[str, Sequence[str]],
                  mutate: Optional[int]) -> None:
    """One warning naming the tasks that have no test samples (and no grown inputs): they fall back to a random
    pick."""
    missing = [t for t in solutions if t not in test_samples]
    if missing and mutate is None:
        log.warning("%d task(s) have no test samples (they fall back to a random pick): %s", len(missing),
                    ", ".join(missing[:5]) + (" …" if len(missing) > 5 else ""))


@contextlib.contextmanager
def _run_files(options: RerankOptions, folder: Optional[Path], cache: Any, selector: Any) -> Iterator[tuple[Any, Any]]:
    """For the run: the execution cache (``cache``, else one in ``cache_dir`` or the results folder), S*
    (``selector``, else the one ``select_model`` names, its replies logged in the folder, the cache folder or a
    temporary one), and what the candidates print going to the folder's log; closed and restored on leaving."""
    from coderank_evalplus.engine.execution.execute import ResultCache
    from coderank_evalplus.engine.execution.workers import CANDIDATE_LOG, CANDIDATE_LOG_ENV, log_candidates_to

    log_before = os.environ.get(CANDIDATE_LOG_ENV)
    if folder is not None:  # what the candidates print goes to the folder's log, for this call only
        log_candidates_to(folder.resolve() / CANDIDATE_LOG)
    with contextlib.ExitStack() as stack:
        if cache is None:
            root = Path(options.cache_dir) if options.cache_dir else (folder / "cache" if folder is not None else None)
            cache = stack.enter_context(contextlib.closing(ResultCache(root / "executions.sqlite"))) \
                if root is not None else None
        if selector is None and options.select_model:
            from coderank_evalplus.selection.sstar import selector_from_options

            where = folder if folder is not None else Path(options.cache_dir) if options.cache_dir else None
            if where is None:
                where = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="coderank_sstar_")))
            selector = selector_from_options(options, where)
        try:
            yield cache, selector
        finally:
            if log_before is None:
                os.environ.pop(CANDIDATE_LOG_ENV, None)
            else:
                os.environ[CANDIDATE_LOG_ENV] = log_before


def _read_solutions(options: RerankOptions, problems: Mapping[str, Problem]):
    """The programs of ``options.solutions`` per task, and the sanitizer's tally (None without ``raw_field``)."""
    from coderank_evalplus.io.samples import read_solutions
    from coderank_evalplus.io.sanitize import SanitizeTally

    if options.solutions is None:
        raise CoderankError("solutions: give a samples file or folder")
    if not Path(options.solutions).exists():
        raise InputNotFound(f"solutions {options.solutions}: no such file or folder")
    tally = SanitizeTally(options.raw_field) if options.raw_field else None
    sols = read_solutions(options.solutions, problems, options.data_dir, drop_extra=options.drop_extra_problems,
                          raw_field=options.raw_field, tally=tally)
    if tally is not None:
        log.info(tally.line())
    return sols, (tally.to_json() if tally is not None else None)


# --- where a result came from, and where it goes ----------------------------------------------------------------
def _mapping_digest(solutions: Mapping[str, Sequence[str]]) -> str:
    """A digest of programs held in memory (a harness's answers): what names them when there is no file."""
    return hashlib.sha256(json.dumps({t: list(p) for t, p in solutions.items()}, sort_keys=True).encode()
                          ).hexdigest()[:16]


def describe(options: RerankOptions, problems: Mapping[str, Problem], chosen: Sequence[str], tests: TestSources,
             frontend: str, solutions_digest: Optional[str] = None) -> dict:
    """The run's provenance: the model (and what named it), the dataset (name, version, hash), the test pool, who
    ran it, the samples' digest (the leaderboard tells same-named runs of other samples apart by it) and a
    fingerprint of its inputs (what makes two runs the same run)."""
    from coderank_evalplus.io.problems import dataset_version
    from coderank_evalplus.io.results_folder import pool_of

    model, named_by = run_model(options, frontend)
    label = options.tests_label or tests_label(tests)
    first = problems[chosen[0]]
    dataset = {"name": options.dataset, "version": dataset_version(options.dataset, first),
               "hash": first.dataset_hash or None, "problems": len(chosen)}
    inputs = {"solutions": solutions_digest or _digest(options.solutions), "tests": [_digest(s) for s in tests.given],
              "dataset": [options.dataset, first.dataset_hash]}
    fingerprint = hashlib.sha256(json.dumps(inputs, sort_keys=True, default=str).encode()).hexdigest()[:16]
    return {"model": model, "model_named_by": named_by, "dataset": dataset, "tests": label, "pool": pool_of(label),
            "frontend": frontend, "solutions": str(options.solutions) if options.solutions else None,
            "solutions_digest": inputs["solutions"], "test_sources": list(tests.given),
            "inputs_fingerprint": fingerprint}


def run_model(options: RerankOptions, frontend: str) -> tuple[str, str]:
    """The run's model name and what named it: the name the user gave (``"given"``), else the samples' file name
    (``"file name"``, with a line saying so and how to give one), else ``"unnamed"`` (``"none"``)."""
    if options.model:
        return str(options.model), "given"
    name, named_by = (model_name(options.solutions), "file name") if options.solutions else ("unnamed", "none")
    how = "from the samples' file name" if options.solutions else "no samples file names it"
    log.warning("the model's name: %s (%s; give %s to name it)", name, how, MODEL_FLAG.get(frontend, "--model NAME"))
    return name, named_by


def model_name(solutions: Optional[str]) -> str:
    """A model's name from its samples' path: the file's stem (``gpt-4_n10_t0.2.jsonl.gz`` → ``gpt-4_n10_t0.2``), a
    folder's name; evalplus's ``<model>_<backend>_temp_<t>`` names lose their backend and temperature."""
    if not solutions:
        return "unnamed"
    name = Path(str(solutions).rstrip("/\\")).name
    for suffix in (".gz", ".jsonl", ".json"):
        name = name[: -len(suffix)] if name.endswith(suffix) else name
    m = re.match(r"^(.+?)_(?:vllm|hf|openai|anthropic|google|bedrock|gptqmodel|ollama|mlx)_temp_[\d.]+$", name)
    return m.group(1) if m else name


def tests_label(tests: TestSources) -> str:
    """The test pool's name from its sources: the files' names (without .jsonl) and ``examples+mutate:N``."""
    from coderank_evalplus.testgen.mutate import MODEL_TESTS

    parts = []
    for s in tests.given:
        if s == MODEL_TESTS:
            parts.append("model's own tests")
        elif s in tests.files:
            parts.append(model_name(s))
        elif tests.spec is not None:
            parts.append(tests.spec.label())
    return " + ".join(parts) or "no tests"


def content_digest(path: Path) -> str:
    """sha256 of a file's bytes, or of a folder's files (their relative names and bytes, in name order): what says
    two runs read the same inputs."""
    h = hashlib.sha256()
    files = sorted(f for f in path.rglob("*") if f.is_file()) if path.is_dir() else [path]
    for f in files:
        h.update(str(f.relative_to(path) if path.is_dir() else "").encode())
        with open(f, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    return h.hexdigest()


def _digest(path: Optional[str]) -> Optional[str]:
    """A file's or folder's content digest, short (a spec such as examples+mutate:10 stands for itself)."""
    if not path:
        return None
    p = Path(path)
    return content_digest(p)[:16] if p.exists() else str(path)


def folder_fingerprint(folder: Path) -> Optional[str]:
    """The inputs' fingerprint of the run whose results ``folder`` holds ("" for results written before runs
    recorded one), None when it holds none (or a summary that does not read)."""
    summary = folder / RUN_FILE
    if not summary.is_file():
        return None
    try:
        data = json.loads(summary.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # not a complete run's summary (the storage rules write it whole or not at all)
        return None
    return str((data.get("provenance") or {}).get("inputs_fingerprint") or "")


def output_folder(options: RerankOptions, provenance: Mapping[str, Any]) -> Path:
    """Where this run's results go. Given ``output``: there, unless it holds another run's results (refused
    without ``overwrite``; the same run again may update them). Not given: a folder of its own under
    ``coderank_results/`` named after the model, dataset and test pool (a suffix keeps another run's). A folder
    a user names that holds anything but this tool's output is refused (``storage.open_output_dir``);
    evalplus.evaluate's is named after the samples file and already holds the run's cache."""
    from coderank_evalplus.storage import ensure_writable_dir, open_output_dir

    mine = provenance["inputs_fingerprint"]
    if options.output:
        folder = Path(options.output)
        held = folder_fingerprint(folder)
        if held is not None and held != mine and not options.overwrite:
            what = ("results written before 0.2.0, which do not record their inputs" if held == "" else
                    "the results of another run (other samples, tests or dataset)")
            flag = OVERWRITE_FLAG.get(str(provenance.get("frontend")), "--overwrite")
            raise CoderankError(f"output {folder}: holds {what}; choose another folder, or pass {flag} to replace "
                                f"them")
        if provenance.get("frontend") == "evalplus":
            return ensure_writable_dir(folder)
        return open_output_dir(folder, ours=OURS)
    dataset = Path(options.dataset).name.removesuffix(".gz").removesuffix(".jsonl")
    slug = _slug(f"{provenance['model']}--{dataset}--{provenance['tests']}")
    root = Path(DEFAULT_ROOT)
    for n in range(1, 1000):
        folder = root / (slug if n == 1 else f"{slug}-{n}")
        held = folder_fingerprint(folder)
        if held is None and not (folder.exists() and any(folder.iterdir())) or held == mine:
            log.info("results folder: %s", folder)
            return open_output_dir(folder, ours=OURS)
    raise CoderankError(f"{root}: 999 folders named {slug}-N already; pass an output folder")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", text).strip("_")[:120] or "run"


def rerank(solutions: "str | os.PathLike", tests: "str | os.PathLike | Sequence[str | os.PathLike] | None" = None,
           **options: Any) -> RerankOutput:
    """Rerank a benchmark's samples as ``coderank-evalplus rerank`` does: the same options, names and defaults
    (``api.options``; docs/names.md lists them). ``solutions``: a samples file or folder in any format ``rerank``
    reads; ``tests``: test sample files and/or ``"examples+mutate[:N]"`` (default: ``examples+mutate``, no model
    needed). With ``output`` the results folder is written there (its execution cache in ``output/cache`` unless
    ``cache_dir``); without it nothing is written (``cache_dir`` still keeps a cache). Bad values raise
    ``OptionError`` (a ``CoderankError``, a ``ValueError``) naming the option; missing files ``InputNotFound``."""
    if tests is not None:
        options["tests"] = [str(tests)] if isinstance(tests, (str, os.PathLike)) else [str(t) for t in tests]
    opts = RerankOptions.from_mapping({"solutions": str(solutions), **options})
    return run_rerank(opts, frontend="python", write=opts.output is not None)
