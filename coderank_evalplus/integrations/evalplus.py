"""``--rerank`` for ``evalplus.evaluate``: evalplus evaluates as usual, then the samples are reranked.

Reached three ways, all running the same ``evaluate`` wrapper:

* ``evalplus.evaluate humaneval --samples s.jsonl --rerank codet --tests t.jsonl`` (console script) and
  ``python -m evalplus.evaluate …``: the start-up hook (``coderank_evalplus/_hook.py``) patches evalplus's module
  while it is being loaded, through ``patch_namespace`` below;
* ``coderank-evalplus evaluate …`` with the same flags (``evaluate_main``), which patches the module itself.

Two ways in: existing samples (``--samples`` + ``--tests``; ``--model NAME`` alone names them), or a model
(``--model --backend --n_samples --temperature``): evalplus generates the solutions as usual, then the same
backend generates the test samples (saved as ``<samples>_tests.jsonl`` and reused when they cover every task). With
a model, likelihood methods (``ll``, ``coder_reviewer``, ``ll+mbr_exec``…) get their features scored into the
samples file, and ``--self_debug sd1|multi`` debugs candidates with trial-test feedback after reranking
(``selfdebug.py``); one model instance serves all of it, loaded only when something needs it. With ``--model`` and
``--adaptive [--tau T]`` the same backend, through our generator, draws the solutions in rounds instead of evalplus's
codegen and stops each problem once the pick is confident (``evalplus_adaptive.py``).

Files written next to the samples (evalplus writes ``<samples>_eval_results.json`` there as always):
``<samples>_rerank_results.json`` (``RerankResult.to_json()``) and ``<samples>_rerank/`` (execution cache,
``verdicts.jsonl``, ``rankings.jsonl``). For a sample folder: ``<dir>/rerank_results.json``, ``<dir>/tests.jsonl``
and ``<dir>_rerank/``. Samples are judged once: the verdicts come from evalplus's ``*_eval_results.json`` when it
matches the samples (``coderank_evalplus.io.eval_results``), and our judge runs only when it does not.

Without ``--rerank`` the wrapper calls evalplus's ``evaluate`` with exactly the arguments it was given.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

from coderank_evalplus.api.options import default as _default
from coderank_evalplus.types import CoderankError

if TYPE_CHECKING:
    from coderank_evalplus.generation.base import Generator
    from coderank_evalplus.testgen.mutate import TestSources

__all__ = ["RerankError", "patch_namespace", "evaluate_main", "add_evaluate_parser", "rerank_paths", "OPTIONS"]


class RerankError(CoderankError):
    """Bad ``--rerank`` usage or input; the CLI prints the message and exits with status 2."""


def _our_options() -> dict[str, tuple[Any, str]]:
    """name -> (annotation, help): the options of ours that evalplus.evaluate takes (``api.options``: those whose
    evalplus name is their own), after evalplus's own parameters (so its positional order is unchanged); their
    defaults are ``DEFAULTS``."""
    from coderank_evalplus.api.options import FLAG
    from coderank_evalplus.api.options import OPTIONS as ALL

    out: dict[str, tuple[Any, str]] = {
        "rerank": (Optional[str], "ranking method(s), comma-separated, e.g. recommended or codet,srank,mbr_exec "
                                  "(`coderank-evalplus methods` lists them; a bare --rerank means "
                                  "recommended,codet,srank,mbr_exec). After evalplus's evaluation, writes "
                                  "<samples>_rerank_results.json and prints reranked pass@1 (base, plus) beside random "
                                  "and oracle."),
    }
    for o in ALL:
        if o.frontend_name("evalplus") == f"--{o.name}":
            annotation = Optional[bool] if o.kind is FLAG else Optional[str]
            out[o.name] = (annotation, o.help)
    out["limit"] = (Optional[int], "the dataset's first N problems: evalplus evaluates (and we rerank) the samples "
                                   "of those only, written to <samples>_limit<N>.jsonl (its results beside it)")
    out["task_ids"] = (Optional[str], "comma-separated task ids instead of --limit (their samples are written to "
                                      "<samples>_tasks<K>.jsonl, evaluated and reranked there)")
    return out


OPTIONS: dict[str, tuple[Any, str]] = _our_options()
# each one's default on this front end: the table's (``api.options``, ``default_for("evalplus")``); --rerank: not given
DEFAULTS: dict[str, Any] = {name: None if name == "rerank" else _default(name, "evalplus") for name in OPTIONS}
DEBUG_MAX_TOKENS = 512  # tokens per self-debug rewrite (a whole solution)

_DOC = """EvalPlus evaluation; with --rerank, the samples are reranked on model-generated tests (coderank_evalplus).

Args:
""" + "".join(f"    {name}: {text}\n" for name, (_, text) in OPTIONS.items())


# ----------------------------------------------------------------------------------------------------------------
# patching evalplus.evaluate
# ----------------------------------------------------------------------------------------------------------------


def widened_signature(original: Callable) -> inspect.Signature:
    """evalplus's signature with our options inserted after its own parameters, before its ``**model_kwargs``. Not
    keyword-only: Fire gives a short flag (``-s``) to a first letter that no other flag shares, and counts
    keyword-only flags apart from the others, so ``--help`` would show ``-s`` for evalplus's ``--samples`` and for
    our ``--self_debug`` alike while Fire itself refuses ``-s`` as ambiguous; counted together, no short flag is
    shown twice (issue 52)."""
    sig = inspect.signature(original)
    params = [p for p in sig.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    var_kw = [p for p in sig.parameters.values() if p.kind is inspect.Parameter.VAR_KEYWORD]
    taken = {p.name for p in params}
    kind = (inspect.Parameter.KEYWORD_ONLY if any(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params)
            else inspect.Parameter.POSITIONAL_OR_KEYWORD)  # (after a keyword-only one, only keyword-only may follow)
    params += [inspect.Parameter(name, kind, default=DEFAULTS[name], annotation=ann)
               for name, (ann, _) in OPTIONS.items() if name not in taken]
    return sig.replace(parameters=params + var_kw)


def make_evaluate(original: Callable, namespace: dict) -> Callable:
    """Wrap evalplus's ``evaluate``: same call without ``--rerank``; evaluate then rerank with it."""
    sig = widened_signature(original)
    var_kw = next((p.name for p in sig.parameters.values() if p.kind is inspect.Parameter.VAR_KEYWORD), None)

    own = [p.name for p in inspect.signature(original).parameters.values()
           if p.kind is not inspect.Parameter.VAR_KEYWORD]

    @functools.wraps(original)
    def evaluate(*args, **kwargs):
        if len(args) > len(own):  # Fire hands every parameter of the widened signature positionally
            extra = dict(zip([n for n in sig.parameters if n not in own and n != var_kw], args[len(own):]))
            args, kwargs = args[: len(own)], {**extra, **kwargs}
        ours = {name: kwargs.pop(name, DEFAULTS[name]) for name in OPTIONS}
        if ours["rerank"] is None or ours["rerank"] is False:
            given = [f"--{n}" for n, v in ours.items() if v != DEFAULTS[n] and n != "rerank"]
            if given:
                raise RerankError(f"{', '.join(given)} only appl{'ies' if len(given) == 1 else 'y'} with --rerank "
                                  f"METHOD (e.g. --rerank codet)")
            return original(*args, **kwargs)  # exactly what evalplus would have been called with
        bound = inspect.signature(original).bind(*args, **kwargs)
        bound.apply_defaults()
        params = dict(bound.arguments)
        model_kwargs = dict(params.pop(var_kw, {}) or {}) if var_kw else {}
        evaluate_and_rerank(original, namespace, params, model_kwargs, ours)
        return None  # Fire prints return values; evalplus's evaluate returns None too

    evaluate.__signature__ = sig  # type: ignore[attr-defined]  # mypy rejects function attributes
    evaluate.__doc__ = _DOC
    evaluate.__coderank_original__ = original  # type: ignore[attr-defined]  # mypy rejects function attributes
    return evaluate


def patch_namespace(namespace: dict) -> None:
    """Wrap ``evaluate`` (and ``main``, to turn RerankError into a one-line message) in evalplus's module globals.

    Idempotent; called by the start-up hook while evalplus/evaluate.py runs, or by ``evaluate_main``. On an
    evalplus older than ``integrations.versions.EVALPLUS_MIN`` evalplus is left as it is, except that our flags get a
    one-line message naming the version needed (``refuse_rerank``).
    """
    from coderank_evalplus.integrations.versions import evalplus_too_old

    original = namespace.get("evaluate")
    if original is None or hasattr(original, "__coderank_original__") or namespace.get("__coderank_refused__"):
        return
    message = evalplus_too_old()
    if message:
        refuse_rerank(namespace, message)
        return
    namespace["evaluate"] = make_evaluate(original, namespace)
    original_main = namespace.get("main")

    def main():
        from fire import Fire

        from coderank_evalplus.generation.openai_backend import ServerRefused, ServerUnavailable
        from coderank_evalplus.storage import StorageError

        try:
            Fire(namespace["evaluate"])
        except (RerankError, StorageError, ServerUnavailable, ServerRefused) as exc:  # one line, no traceback
            print(f"error: {exc}", file=sys.stderr)
            sys.exit(2)

    if original_main is not None:
        functools.update_wrapper(main, original_main)
    namespace["main"] = main


def our_flags(argv: Sequence[str]) -> list[str]:
    """The flags of ours (``--rerank``, ``--tests``…) among command-line arguments."""
    names = {f"--{name}" for name in OPTIONS}
    return [a.split("=", 1)[0] for a in argv if a.split("=", 1)[0] in names]


def refuse_rerank(namespace: dict, message: str) -> None:
    """An evalplus too old for ``--rerank``: its ``main`` runs unchanged, unless our flags are given; then the
    message (the version needed) and exit status 2, instead of evalplus's own parser error."""
    original_main = namespace.get("main")
    namespace["__coderank_refused__"] = True
    if original_main is None:
        return

    @functools.wraps(original_main)
    def main(*args, **kwargs):
        given = our_flags(sys.argv[1:])
        if given:
            print(f"error: {', '.join(given)}: {message}", file=sys.stderr)
            sys.exit(2)
        return original_main(*args, **kwargs)

    namespace["main"] = main


# ----------------------------------------------------------------------------------------------------------------
# evaluate, then rerank
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RerankPaths:
    results: Path  # <samples>_rerank_results.json
    tests: Path  # where generated tests are saved / reused
    workdir: Path  # execution cache, verdicts.jsonl, rankings.jsonl, generation scratch


def rerank_paths(samples: str) -> RerankPaths:
    """Where our files go, next to evalplus's ``*_eval_results.json``."""
    s = str(samples).rstrip("/\\")
    if os.path.isdir(s):
        return RerankPaths(Path(s) / "rerank_results.json", Path(s) / "tests.jsonl", Path(s + "_rerank"))
    stem = s[: -len(".jsonl")] if s.endswith(".jsonl") else s
    return RerankPaths(Path(stem + "_rerank_results.json"), Path(stem + "_tests.jsonl"), Path(stem + "_rerank"))


def parse_methods(value: Any) -> list[str]:
    """``--rerank`` as Fire parses it (a string, a tuple for ``a,b``, True for a bare flag) → method names."""
    from coderank_evalplus.rankers.registry import DEFAULT_METHODS

    if value is True:
        names = list(DEFAULT_METHODS)
    elif isinstance(value, str):
        names = value.split(",")
    elif isinstance(value, (list, tuple)):
        names = [n for v in value for n in str(v).split(",")]
    else:
        raise RerankError(f"--rerank expects method names (e.g. codet,srank), got {value!r}")
    names = [n.strip() for n in names if n.strip()]
    if not names:
        raise RerankError("--rerank expects at least one method name (e.g. --rerank codet)")
    return names


def samples_model_name(params: dict, model_kwargs: dict) -> Any:
    """``--samples F --model NAME`` with no other model flag: NAME names the given samples in the results and the
    leaderboard (evalplus's codegen is not run; with ``--backend`` and the other model flags it is, as evalplus
    does). Taken out of ``model_kwargs``; None otherwise. (Fire reads ``--model 7`` as a number: its text.)"""
    if params.get("samples") is None or set(model_kwargs) != {"model"}:
        return None
    name = model_kwargs.pop("model")
    return str(name) if isinstance(name, (int, float)) and not isinstance(name, bool) else name


def check_request(params: dict, model_kwargs: dict, ours: dict) -> list[str]:
    """Validate everything that can be checked before evalplus runs; returns the full method list."""
    from coderank_evalplus.pipeline import all_methods

    name = samples_model_name(params, model_kwargs)
    if name is not None:
        ours["model"] = name  # checked below as the option ``model`` is everywhere
    try:
        methods = all_methods(parse_methods(ours["rerank"]))
    except RerankError:
        raise
    except ValueError as exc:
        raise RerankError(str(exc)) from None
    from coderank_evalplus.api.options import check_rules, check_value, option

    try:
        for name, value in ours.items():  # each value checked as the option is everywhere (api.options)
            if name != "rerank" and value is not None:
                ours[name] = check_value(name, option(name).kind, value, f"--{name}")
        check_rules(ours, shown=lambda o: f"--{o.name}")  # and the options it joins (api.options.RULES)
    except ValueError as exc:
        raise RerankError(str(exc)) from None
    if ours["self_debug"] is not None and "model" not in model_kwargs:
        raise RerankError("--self_debug needs the model: give --model and --backend")
    from coderank_evalplus.integrations.evalplus_adaptive import AdaptiveError, check_adaptive

    try:
        check_adaptive(model_kwargs, ours)
    except AdaptiveError as exc:
        raise RerankError(str(exc)) from None
    dataset = params.get("dataset")
    if dataset not in ("humaneval", "mbpp"):
        raise RerankError(f"--rerank supports --dataset humaneval or mbpp, not {dataset!r}")
    unsupported = [f"--{k}" for k in ("mini", "noextreme") if params.get(k)]
    if params.get("version", "default") != "default":
        unsupported.append("--version")
    if unsupported:
        raise RerankError(f"--rerank judges on the full default HumanEval+/MBPP+ tests; drop {', '.join(unsupported)}")
    if (ours.get("limit") is not None or ours.get("task_ids") is not None) and "model" in model_kwargs:
        raise RerankError("--limit / --task_ids apply to given --samples (evalplus's codegen samples every "
                          "problem); rerank a subset of generated samples with them afterwards")
    if "model" not in model_kwargs:
        if model_kwargs:  # they would reach evalplus's run_codegen, which needs --model
            raise RerankError(f"flags not known to evalplus.evaluate: {', '.join('--' + k for k in model_kwargs)} "
                              f"(model flags apply only with --model and --backend)")
        if params.get("samples") is None:
            raise RerankError("--rerank needs solutions: give --samples FILE, or --model and --backend to generate "
                              "them")
        if not os.path.exists(params["samples"]):
            raise RerankError(f"--samples {params['samples']}: no such file or folder")
        if ours["tests"] is None:  # no pool and no model to write one: the pool that needs neither
            from coderank_evalplus.testgen.mutate import SOURCE, no_pool_note

            print(no_pool_note("--tests FILE (or --model and --backend)"), file=sys.stderr)
            ours["tests"] = SOURCE
    try:
        files = test_sources(ours["tests"]).files
    except ValueError as exc:
        raise RerankError(str(exc)) from None
    for f in files:
        if not os.path.isfile(f):
            raise RerankError(f"--tests {f}: no such file")
    return methods


def test_sources(value: Any) -> "TestSources":
    """``--tests`` as Fire gives it (a string, or a tuple for ``a,b``), parsed: test-sample files, examples+mutate's
    N."""
    from coderank_evalplus.testgen.mutate import TestSources

    if value is None:
        return TestSources()
    values = [str(v) for v in value] if isinstance(value, (list, tuple)) else str(value).split(",")
    return TestSources.parse([v for v in values if v.strip()])


def evaluate_and_rerank(original: Callable, namespace: dict, params: dict, model_kwargs: dict, ours: dict) -> None:
    from coderank_evalplus.io.eval_results import evalplus_results_path
    from coderank_evalplus.io.problems import (
        DataNotFoundError,
        evalplus_reads,
        file_for_evalplus,
        load_evalplus_problems,
    )
    from coderank_evalplus.io.samples import SampleFileError, read_solutions, read_test_samples
    from coderank_evalplus.io.sanitize import SanitizeTally
    from coderank_evalplus.pipeline import read_tests

    methods = check_request(params, model_kwargs, ours)
    dataset = params["dataset"]
    t0 = time.monotonic()
    try:
        # the very file evalplus reads (its override path or cache; CODERANK_DATA's only instead of a download),
        # hashed by evalplus's function: its verdicts are then recognised as being about these problems
        source = file_for_evalplus(dataset)
        problems = load_evalplus_problems(dataset, source)
        if ours.get("limit") is not None or ours.get("task_ids") is not None:
            source, params["samples"] = cut_subset(dataset, source, params["samples"], problems, ours)
            problems = load_evalplus_problems(dataset, source)
        sources = test_sources(ours["tests"])
        subset = ours.get("limit") is not None or ours.get("task_ids") is not None  # (a pool covers all problems)
        test_samples = (read_tests(sources.files, problems, drop_extra=subset)
                        if sources.files or sources.mutate is not None else None)
        if "model" not in model_kwargs:  # likelihood methods on given samples: their fields must be there already
            from coderank_evalplus.generation.likelihood import features_for

            features_for(methods, params["samples"], problems,
                         read_solutions(params["samples"], problems, allow_unknown=True,
                                        raw_field=ours.get("raw_field")))
    except DataNotFoundError as exc:
        raise RerankError(exc.worded_for("evalplus")) from None
    except (SampleFileError, ValueError) as exc:
        raise RerankError(str(exc)) from None
    load_s = time.monotonic() - t0
    model = LazyModel(model_kwargs) if "model" in model_kwargs else None

    # 1. evalplus, unchanged (codegen as evalplus.evaluate does it, then its evaluation); with --adaptive our
    #    generator draws the solutions in rounds into the file evalplus's codegen would have written
    adaptive = None
    if ours.get("adaptive") and model is not None:  # check_request: --adaptive comes with --model
        from coderank_evalplus.integrations.evalplus_adaptive import adaptive_codegen, codegen_target

        params["samples"] = codegen_target(dataset, model_kwargs)
        try:
            changed, adaptive = adaptive_codegen(params["samples"], rerank_paths(params["samples"]), problems,
                                                 model_kwargs, ours,
                                                 rerank_config(params, ours, methods, sources),
                                                 model.get, test_samples)
        except (SampleFileError, ValueError) as exc:
            raise RerankError(str(exc)) from None
        if changed:  # evalplus would reuse the *_eval_results.json of the file's earlier samples
            params["i_just_wanna_run"] = True
    with evalplus_reads(dataset, source):
        if model_kwargs and adaptive is None:
            os.environ["TOKENIZERS_PARALLELISM"] = os.environ.get("TOKENIZERS_PARALLELISM", "false")
            params["samples"] = namespace["run_codegen"](dataset=dataset, **model_kwargs)
        original(**params)

    # 2. test samples (given, reused, or generated by the same model)
    samples = params["samples"]
    paths = rerank_paths(samples)
    t0 = time.monotonic()
    try:
        tally = SanitizeTally(ours["raw_field"]) if ours.get("raw_field") else None
        solutions = read_solutions(samples, problems, allow_unknown=True, raw_field=ours.get("raw_field"),
                                   tally=tally)
        if tally is not None:
            print(tally.line(), file=sys.stderr)
        generated = test_samples is None
        if generated:
            tests_path = model_tests(problems, list(solutions), model_kwargs, ours, paths, model)
            test_samples = read_test_samples(tests_path, problems)
            ours["tests"] = [str(tests_path)] + ([sources.spec.label()] if sources.spec is not None else [])
        features = likelihood_features(methods, samples, problems, solutions, model)
    except (SampleFileError, ValueError) as exc:
        raise RerankError(str(exc)) from None

    load_s += time.monotonic() - t0

    # 3. rerank and report (then self-debug); the verdicts are those evalplus has just written (judged once)
    rerank_evaluated(dataset, problems, solutions, test_samples, methods, params, ours, paths, features, model,
                     eval_results=evalplus_results_path(samples),
                     sanitized=tally.to_json() if tally is not None else None, adaptive=adaptive,
                     generated_tests=generated, load_s=load_s)


def cut_subset(dataset: str, source: Optional[Path], samples: str, problems: dict,
               ours: dict) -> tuple[Path, str]:
    """``--limit N`` / ``--task_ids``: evalplus evaluates every problem of its dataset file and wants samples for
    each, so the subset gets files of its own: the dataset file's records of those problems
    (``<samples>_<tag>_rerank/<dataset>-<tag>.jsonl``, which evalplus then reads; its hash keys evalplus's
    expected outputs and our verdicts alike) and their samples (``<samples>_<tag>.jsonl``, where evalplus writes
    its results). Returns (the dataset file, the samples file)."""
    import gzip
    import hashlib
    import json

    from coderank_evalplus.io.problems import evalplus_own_file, select_problems

    limit, task_ids = ours.get("limit"), ours.get("task_ids")
    if not str(samples).endswith(".jsonl") or not os.path.isfile(samples):
        raise RerankError(f"--limit / --task_ids need a .jsonl --samples file (got {samples})")
    with open(samples, encoding="utf-8") as fh:
        records = [(line, json.loads(line).get("task_id")) for line in fh if line.strip()]
    try:  # the dataset's first N problems that have samples (as `rerank --limit`)
        ids = select_problems(problems, {t for _, t in records}, limit, task_ids)
    except ValueError as exc:
        raise RerankError(str(exc)) from None
    if not ids:
        raise RerankError(f"--samples {samples}: no sample of the problems asked for")
    tag = f"limit{limit}" if task_ids is None else \
        f"tasks{len(ids)}-{hashlib.sha256(','.join(ids).encode()).hexdigest()[:8]}"
    src = source or evalplus_own_file(dataset)
    if src is None:
        raise RerankError("--limit / --task_ids: evalplus's dataset file was not found")
    wanted = set(ids)
    stem = str(samples)[: -len(".jsonl")]
    cut_samples = f"{stem}_{tag}.jsonl"
    workdir = Path(f"{stem}_{tag}_rerank")
    workdir.mkdir(parents=True, exist_ok=True)
    cut_data = workdir / f"{Path(str(src)).name.split('.')[0]}-{tag}.jsonl"
    opener = gzip.open if str(src).endswith(".gz") else open
    with opener(src, "rt", encoding="utf-8") as fh:
        kept = [line for line in fh if line.strip() and json.loads(line)["task_id"] in wanted]
    from coderank_evalplus.storage import atomic_write_text

    if not cut_data.is_file() or cut_data.read_text(encoding="utf-8") != "".join(kept):
        atomic_write_text(cut_data, "".join(kept))  # rewritten only when it changed: its hash keys caches
    atomic_write_text(cut_samples, "".join(line for line, tid in records if tid in wanted))
    print(f"--{'limit' if task_ids is None else 'task_ids'}: {len(ids)} problems; their samples in {cut_samples}, "
          f"the dataset's records in {cut_data}", file=sys.stderr)
    return cut_data, cut_samples


class LazyModel:
    """The generator for evalplus's ``--model``/``--backend``, made on first use and then kept (one instance for
    tests, likelihoods and self-debug)."""

    def __init__(self, model_kwargs: dict) -> None:
        self.model_kwargs = model_kwargs
        self.backend = model_kwargs.get("backend", "vllm")
        self._generator: Optional[Generator] = None

    def get(self) -> Generator:
        if self._generator is None:
            from coderank_evalplus import generation

            self._generator = generation.make_generator(self.backend, self.model_kwargs["model"],
                                                        **generator_kwargs(self.backend, self.model_kwargs))
        return self._generator


def likelihood_features(methods: Sequence[str], samples: str, problems: dict, solutions: dict,
                        model: Optional[LazyModel]):
    """Features the methods need: scored into the samples file by the model when there is one, else read."""
    from coderank_evalplus.generation.base import Scorer
    from coderank_evalplus.generation.likelihood import add_likelihoods, features_for
    from coderank_evalplus.rankers.likelihood import features_needed

    kinds = features_needed(methods)
    if kinds and model is not None:
        print(f"Scoring likelihood features ({', '.join(sorted(kinds))}) into {samples}")
        scorer = model.get()
        if not isinstance(scorer, Scorer):  # every backend of make_generator has score()
            raise ValueError(f"the likelihood methods need a model that scores text; {model.backend} cannot")
        add_likelihoods(samples, {t: problems[t] for t in solutions}, scorer, sorted(kinds))
    return features_for(methods, samples, problems, solutions)


def model_tests(problems: dict, task_ids: Sequence[str], model_kwargs: dict, ours: dict, paths: RerankPaths,
                model: Optional[LazyModel] = None) -> Path:
    """Generate test samples with the backend that generated the solutions; reuse a file that covers every task."""
    from coderank_evalplus.generation import generate_samples
    from coderank_evalplus.integrations.evalplus_adaptive import MAX_TOKENS, saved_tests_cover
    from coderank_evalplus.storage import atomic_copy

    if saved_tests_cover(paths.tests, task_ids):
        return paths.tests
    backend = model_kwargs.get("backend", "vllm")
    n_samples = int(model_kwargs.get("n_samples", 1))
    n_tests = ours["n_test_samples"] or n_samples
    temperature = float(model_kwargs.get("temperature", 0.0))
    if model_kwargs.get("greedy"):
        temperature, n_tests = 0.0, 1
    generator = (model or LazyModel(model_kwargs)).get()
    print(f"Generating {n_tests} test sample(s) per problem with {model_kwargs['model']} ({backend}) → {paths.tests}")
    scratch = paths.workdir / "test_generation"
    _, raw = generate_samples([problems[t] for t in task_ids], generator, n_samples=0, n_test_samples=n_tests,
                              temperature=temperature, top_p=0.95, max_tokens=MAX_TOKENS, out_dir=str(scratch))
    atomic_copy(raw, paths.tests)
    return paths.tests


def generator_kwargs(backend: str, model_kwargs: dict) -> dict:
    """evalplus's model flags → our generator's keyword arguments (chat vs base decided as evalplus does)."""
    kw: dict[str, Any] = {}
    if backend in ("vllm", "hf"):
        if model_kwargs.get("force_base_prompt"):
            kw["chat"] = False
        kw["trust_remote_code"] = bool(model_kwargs.get("trust_remote_code", False))
        kw["dtype"] = model_kwargs.get("dtype", "bfloat16")
        if backend == "vllm" and model_kwargs.get("tp"):
            kw["tp"] = int(model_kwargs["tp"])
    elif backend == "openai":
        kw["chat"] = True  # evalplus's openai backend always chats
        if model_kwargs.get("base_url"):
            kw["base_url"] = model_kwargs["base_url"]
    else:
        raise RerankError(f"--rerank can generate tests with --backend vllm, hf or openai, not {backend!r}; "
                          f"give --tests FILE instead")
    return kw


def rerank_options(params: dict, ours: dict, methods: list[str], samples: Optional[str] = None,
                   model_kwargs: Optional[dict] = None):
    """The ``RerankOptions`` evalplus's flags and ours describe (``api.options``; one path for every front end)."""
    from coderank_evalplus.api.options import RerankOptions

    tests = ours.get("tests")
    return RerankOptions(
        solutions=samples, tests=list(tests) if isinstance(tests, (list, tuple)) else tests, dataset=params["dataset"],
        methods=methods, k=ours["k"], pass_at_k_rule=ours["pass_at_k_rule"],
        tests_per_sample=ours["tests_per_sample"], time_limit=ours["time_limit"],
        seed=ours["seed"], workers=params.get("parallel"), base_only=bool(params.get("base_only", False)),
        strict=ours["strict"],
        min_time_limit=params["min_time_limit"], gt_time_limit_factor=params["gt_time_limit_factor"],
        raw_field=ours.get("raw_field"), model=ours.get("model") or (model_kwargs or {}).get("model"),
        tests_label=ours.get("tests_label"))


def rerank_evaluated(dataset: str, problems: dict, solutions: dict, test_samples: Optional[dict],
                     methods: list[str], params: dict, ours: dict, paths: RerankPaths,
                     features: Optional[dict] = None, model: Optional[LazyModel] = None,
                     eval_results: Optional[Path] = None, sanitized: Optional[dict] = None,
                     adaptive: Optional[dict] = None, generated_tests: bool = False, load_s: float = 0.0) -> Path:
    """The one path (``api.evaluate.run_rerank``) on what evalplus evaluated: its verdicts reused, the folder at
    ``<samples>_rerank/`` (a rerun on other tests is refused unless ``--i_just_wanna_run``), the summary also at
    ``<samples>_rerank_results.json``; then self-debug when asked, and the tables in evalplus's own style."""
    from dataclasses import replace

    from coderank_evalplus.api.evaluate import run_rerank
    from coderank_evalplus.engine.execution.execute import ResultCache
    from coderank_evalplus.engine.execution.executor_factory import make_executor
    from coderank_evalplus.pipeline import _json_default
    from coderank_evalplus.storage import atomic_write_json, ensure_writable_dir

    options = rerank_options(params, ours, methods, params["samples"], model.model_kwargs if model else None)
    if generated_tests and options.tests_label is None:
        options = replace(options, tests_label="model's own tests")
    options = replace(options, output=str(paths.workdir), cache_dir=str(paths.workdir),
                      overwrite=bool(params.get("i_just_wanna_run")),
                      eval_results=str(eval_results) if eval_results is not None and eval_results.is_file() else None)
    ensure_writable_dir(paths.results.parent)
    cache = ResultCache(ensure_writable_dir(paths.workdir) / "executions.sqlite")
    extra = {k: v for k, v in (("sanitized", sanitized), ("adaptive", adaptive)) if v is not None}
    debug = None
    held = contextlib.ExitStack()
    try:  # one executor: the rerank's workers, then self-debug's
        executor = held.enter_context(make_executor(options.executor, options.workers, options.ray_address))
        out = run_rerank(options, problems=problems, solutions=solutions, test_samples=test_samples, features=features,
                   cache=cache, executor=executor, frontend="evalplus", extra=extra, load_s=load_s)
        result = out.result
        atomic_write_json(paths.results, result.to_json(), indent=2, default=_json_default)
        if ours.get("self_debug"):
            if model is None:  # check_request refuses --self_debug without --model
                raise RerankError("--self_debug needs the model: give --model and --backend")
            from coderank_evalplus.api.evaluate import stage_config
            from coderank_evalplus.doce.selfdebug import DebugSettings, add_to_results, run_self_debug
            from coderank_evalplus.testgen.mutate import TestSources

            settings = DebugSettings(ours["self_debug"], ours.get("debug_rounds"), max_tokens=DEBUG_MAX_TOKENS)
            cfg = stage_config(options, TestSources(mutate=result.config.get("mutate")))  # the run's own
            debug = run_self_debug(dataset, problems, solutions, test_samples or {}, cfg, cache, result, model.get(),
                                   settings, paths.workdir, features, executor=executor).block
            add_to_results(paths.results, paths.workdir)
    finally:
        held.close()
        cache.close()
    from coderank_evalplus.report.text import evalplus_style_lines

    print()
    print("\n".join(evalplus_style_lines(result, f"{dataset}: {result.n_problems} problems, reranked")))
    if debug is not None:
        print()
        print("\n".join(evalplus_style_lines(result, f"after self-debug ({debug['mode']}, up to {debug['rounds']} "
                                                     f"round(s)): {debug['candidates_debugged']} candidates debugged",
                                            methods=debug["methods"])))
        print(f"Self-debug rounds saved to {paths.workdir / ('self_debug_' + debug['mode'] + '.jsonl')}")
    print(f"Rerank results saved to {paths.results}")
    return paths.results


def rerank_config(params: dict, ours: dict, methods: list[str], tests: "TestSources"):
    """The rerank's settings from evalplus's flags and ours, ``tests`` parsed (also the adaptive stopper's, so that
    its executions are the rerank's, cached)."""
    from coderank_evalplus.api.evaluate import stage_config

    return stage_config(rerank_options(params, ours, methods).check(), tests)


# ----------------------------------------------------------------------------------------------------------------
# `coderank-evalplus evaluate` (no hook needed)
# ----------------------------------------------------------------------------------------------------------------


def evaluate_main(argv: Optional[Sequence[str]] = None) -> int:
    """``coderank-evalplus evaluate ARGS``: evalplus.evaluate's flags plus ours, through Fire."""
    from coderank_evalplus.integrations.versions import evalplus_too_old

    message = evalplus_too_old()
    if message:
        print(f"error: {message}", file=sys.stderr)
        return 2
    import evalplus.evaluate as ev
    from fire import Fire

    from coderank_evalplus.storage import StorageError

    patch_namespace(vars(ev))  # no-op when the start-up hook already did it
    try:
        Fire(ev.evaluate, command=list(sys.argv[1:] if argv is None else argv), name="coderank-evalplus evaluate")
    except (RerankError, StorageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def add_evaluate_parser(subparsers) -> None:
    """List ``evaluate`` in ``coderank-evalplus --help``; cli.main hands its arguments to ``evaluate_main``."""
    subparsers.add_parser("evaluate", add_help=False,
                          help="evalplus.evaluate with --rerank (same flags; `coderank-evalplus evaluate --help`)")
