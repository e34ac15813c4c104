"""``coderank-evalplus``: rerank existing samples, run the whole pipeline from a model, list methods."""

from __future__ import annotations

import argparse
import logging
import sys
import time
import warnings
from pathlib import Path
from typing import Optional, Sequence

from coderank_evalplus.cli.options import (
    add_common_options,
    add_drop_extra_option,
    add_raw_field_option,
    config_from_args,
)
from coderank_evalplus.io.samples import SampleFileError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="coderank-evalplus", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("rerank", help="rerank existing solution samples with existing test samples")
    p.add_argument("--solutions", "--samples", dest="solutions", required=True,
                   help="solutions: evalplus jsonl ({task_id, solution|completion}), sample folder, or CodeT "
                        "{prompt, samples} jsonl")
    p.add_argument("--tests", action="append", default=None,
                   help="test samples: {task_id, samples|asserts} or CodeT jsonl; or examples+mutate[:N] (no model: "
                        "N inputs per problem grown from the prompt's examples); repeat to combine a pool with it "
                        "(default: examples+mutate)")
    p.add_argument("--eval-results", default=None,
                   help="evalplus's *_eval_results.json for these solutions: its verdicts are used instead of judging "
                        "(checked against the solutions: dataset hash, sample count, program text; else judged)")
    add_common_options(p)
    add_drop_extra_option(p)
    add_raw_field_option(p)
    sub.add_parser("methods", help="list the ranking methods")
    from coderank_evalplus.integrations.evalplus import add_evaluate_parser

    add_evaluate_parser(sub)
    from coderank_evalplus.cli.run import add_likelihood_parser, add_run_parser

    add_run_parser(sub)
    add_likelihood_parser(sub)
    from coderank_evalplus.cli.leaderboard import add_leaderboard_parser

    add_leaderboard_parser(sub)
    from coderank_evalplus.cli.budget import add_budget_parser

    add_budget_parser(sub)
    return parser


def cmd_methods() -> int:
    from coderank_evalplus.rankers import describe_ranker, list_rankers

    print("random  (unbiased pass@k of a random pick; always reported)")
    print("oracle  (any correct candidate; always reported)")
    for name in list_rankers():
        if name in ("random", "oracle"):
            continue
        print(f"{name:22s} {describe_ranker(name)}")
    print("filter+<method>        DOCE trial-test filtering (docstring examples) before <method>")
    print("ll+<method>            <method>'s score × exp(ll) (DOCE); also coder_reviewer+<method>")
    return 0


def run_rerank(args: argparse.Namespace, solutions_path: str, tests_path: "str | Sequence[str] | None") -> int:
    from dataclasses import replace

    from coderank_evalplus.engine.execution import ResultCache
    from coderank_evalplus.engine.workers import CANDIDATE_LOG, log_candidates_to
    from coderank_evalplus.io.problems import load_problems, select_problems, selection_note
    from coderank_evalplus.io.samples import read_solutions
    from coderank_evalplus.io.sanitize import SanitizeTally
    from coderank_evalplus.pipeline import all_methods, read_tests, rerank, write_results
    from coderank_evalplus.report import markdown_table, timing_line
    from coderank_evalplus.report.calibration import calibration_markdown, result_calibration
    from coderank_evalplus.storage import ensure_writable_dir

    cfg = config_from_args(args)
    all_methods(cfg.methods)  # fail fast on an unknown method, before any work
    if args.eval_results is not None and not Path(args.eval_results).is_file():
        raise FileNotFoundError(f"--eval-results {args.eval_results}: no such file")
    t0 = time.monotonic()
    problems = load_problems(args.dataset, args.data_dir)
    drop = getattr(args, "drop_extra_problems", False)
    raw_field = getattr(args, "raw_field", None)
    tally = SanitizeTally(raw_field) if raw_field else None
    solutions = read_solutions(solutions_path, problems, args.data_dir, drop_extra=drop, raw_field=raw_field,
                               tally=tally)
    if tally is not None:
        print(tally.line(), file=sys.stderr)
    if not tests_path:  # no pool given: the one that needs no model
        from coderank_evalplus.testgen.mutate import SOURCE, no_pool_note

        print(no_pool_note(), file=sys.stderr)
        tests_path = [SOURCE]
    tests, mutate = read_tests([tests_path] if isinstance(tests_path, str) else tests_path, problems, args.data_dir,
                               drop_extra=drop)
    cfg = replace(cfg, mutate=mutate)
    chosen = select_problems(problems, solutions, cfg.limit)  # the dataset's first N, not the file's
    if not chosen:
        first = f"the first {cfg.limit} problems" if cfg.limit else "the problems"
        raise ValueError(f"--limit {cfg.limit}: none of {first} of {args.dataset} has solutions in {solutions_path}")
    note = selection_note(problems, chosen, cfg.limit, solutions)
    if note:
        print(note, file=sys.stderr)
    solutions = {t: solutions[t] for t in chosen}
    from coderank_evalplus.generation.likelihood import features_for

    features = features_for(cfg.methods, solutions_path, problems, solutions)
    missing = [t for t in solutions if t not in tests]
    if missing and mutate is None:
        print(f"warning: {len(missing)} task(s) have no test samples (they fall back to a random pick): "
              f"{', '.join(missing[:5])}{' …' if len(missing) > 5 else ''}", file=sys.stderr)
    output = ensure_writable_dir(Path(args.output or "coderank_results"))  # before any work, not after it
    log_candidates_to(output / CANDIDATE_LOG)
    cache = ResultCache(Path(args.cache_dir or output / "cache") / "executions.sqlite")
    try:
        result = rerank(args.dataset, problems, solutions, tests, cfg, cache, features,
                        eval_results=args.eval_results, load_s=time.monotonic() - t0)
    finally:
        cache.close()
    if tally is not None:
        result.extra["sanitized"] = tally.to_json()
    path = write_results(result, output)
    print(markdown_table(result.methods, f"{args.dataset}: {result.n_problems} problems, reranked pass@k (%)"))
    print("\n" + calibration_markdown(result_calibration(result)))
    print(f"\nwrote {path} and {output / 'verdicts.jsonl'}")
    print(timing_line(result.timing))
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["evaluate"]:  # evalplus.evaluate's own flags (Fire), without the start-up hook
        from coderank_evalplus.integrations.evalplus import evaluate_main

        return evaluate_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    # model-written text is compiled and parsed in this process too (samples, asserts, trial tests): its
    # SyntaxWarnings ("is" with a literal, invalid escapes) are the candidates' business, not the user's
    warnings.filterwarnings("ignore", category=SyntaxWarning)
    if args.command not in ("methods", "leaderboard"):  # these two never reach evalplus
        from coderank_evalplus.integrations.versions import evalplus_too_old

        message = evalplus_too_old()
        if message:
            print(f"error: {message}", file=sys.stderr)
            return 2
    try:
        if args.command == "methods":
            return cmd_methods()
        if args.command == "rerank":
            return run_rerank(args, args.solutions, args.tests)
        if args.command == "leaderboard":
            from coderank_evalplus.cli.leaderboard import run_leaderboard

            return run_leaderboard(args)
        if args.command == "budget":
            from coderank_evalplus.cli.budget import run_budget

            return run_budget(args)
        if args.command == "run":
            from coderank_evalplus.cli.run import run_command

            return run_command(args)
        if args.command == "likelihood":
            from coderank_evalplus.cli.run import likelihood_command

            return likelihood_command(args)
    except (SampleFileError, ValueError, FileNotFoundError, RuntimeError) as exc:  # StorageError is a RuntimeError
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: finished work is kept in the cache; rerun the same command to resume", file=sys.stderr)
        return 130
    return 1


if __name__ == "__main__":
    sys.exit(main())
