"""``coderank-evalplus``: rerank existing samples, pick for one prompt, run the whole pipeline from a model, list
methods."""

from __future__ import annotations

import argparse
import logging
import sys
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
    add_pick_parser(sub)
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
    """``rerank``: the Python API's ``rerank`` with the flags' values (one path), then the table."""
    from coderank_evalplus.api import rerank
    from coderank_evalplus.report import markdown_table, timing_line
    from coderank_evalplus.report.calibration import calibration_markdown, result_calibration

    cfg = config_from_args(args)  # the flags' checks (--ray-address without --executor ray …)
    out = rerank(solutions_path, tests_path, dataset=args.dataset, methods=cfg.methods, data_dir=args.data_dir,
                 output=args.output or "coderank_results", cache_dir=args.cache_dir, limit=cfg.limit,
                 tests_per_sample=cfg.tests_per_sample, time_limit=cfg.cpu_limit, workers=cfg.workers,
                 executor=cfg.executor, ray_address=cfg.ray_address, base_only=not cfg.plus,
                 min_time_limit=cfg.min_time_limit, gt_time_limit_factor=cfg.gt_time_limit_factor,
                 strict=cfg.strict, eval_results=args.eval_results,
                 drop_extra_problems=getattr(args, "drop_extra_problems", False),
                 raw_field=getattr(args, "raw_field", None), progress=cfg.progress)
    result, output = out.result, out.folder
    assert output is not None  # an output folder was given
    print(markdown_table(result.methods, f"{args.dataset}: {result.n_problems} problems, reranked pass@k (%)"))
    print("\n" + calibration_markdown(result_calibration(result)))
    print(f"\nwrote {output / 'rerank_results.json'} and {output / 'verdicts.jsonl'}")
    print(timing_line(result.timing))
    return 0


def add_pick_parser(sub) -> None:
    """``pick``: the candidate to keep for one prompt, no benchmark needed."""
    from coderank_evalplus.testgen.mutate import DEFAULT_N

    p = sub.add_parser("pick", help="pick the candidate to keep for a prompt (no benchmark: nothing is judged)")
    p.add_argument("prompt", help="a file holding the prompt (a function's signature and docstring, or a class with "
                                  "a method); with --dataset and --task-id, leave it out")
    p.add_argument("candidates", nargs="?", help="candidates: JSON lines with solution|completion (or --raw-field), "
                                                 "or a folder of .py files")
    # shapes (issue 53): a problem of a problem file (LiveCodeBench's records: its public tests are the trial tests)
    p.add_argument("--dataset", default=None, help="a problem file (e.g. LiveCodeBench's records); with --task-id")
    p.add_argument("--task-id", default=None, help="the problem of --dataset to pick for (its question_id)")
    p.add_argument("--entry-point", default=None, help="the function asked for (default: the prompt's last def)")
    p.add_argument("--tests", default=None, help="a file of assert statements you have (optional)")
    p.add_argument("--method", default="recommended", help="the ranker (default: recommended)")
    p.add_argument("--mutate", type=int, default=DEFAULT_N,
                   help=f"inputs grown from the prompt's examples (default: {DEFAULT_N}; 0: none)")
    p.add_argument("--time-limit", type=float, default=0.1, help="CPU seconds per test (as rerank)")
    p.add_argument("--workers", type=int, default=None, help="parallel workers (default: all cores)")
    p.add_argument("--seed", type=int, default=0, help="seed of the grown inputs")
    p.add_argument("--json", action="store_true", help="print the pick as one JSON object")
    add_raw_field_option(p)


def run_pick(args: argparse.Namespace) -> int:
    import json

    from coderank_evalplus.api import Picker
    from coderank_evalplus.io.candidates import read_candidates
    from coderank_evalplus.io.problems import problem_from_prompt

    tests = _read_text(args.tests, "--tests") if args.tests else None
    if args.dataset or args.task_id:  # shapes (issue 53): a problem of a problem file; one positional: candidates
        from coderank_evalplus.io.problems import load_problems

        if not (args.dataset and args.task_id) or args.candidates is not None:
            raise ValueError("pick --dataset PATH --task-id ID CANDIDATES: give both, and the candidates only")
        problems = load_problems(args.dataset)
        if args.task_id not in problems:
            raise ValueError(f"--task-id {args.task_id}: not in {args.dataset}")
        problem, args.candidates = problems[args.task_id], args.prompt
    else:
        if args.candidates is None:
            raise ValueError("pick PROMPT CANDIDATES: give the candidates too")
        problem = problem_from_prompt(_read_text(args.prompt, "prompt"), args.entry_point)
    candidates = read_candidates(args.candidates, problem, args.raw_field)
    with Picker(args.method, args.mutate, args.seed, args.time_limit, args.workers) as picker:
        # already full programs: the prompt is not prepended again
        chosen = picker.pick(problem, candidates, problem.entry_point, tests)
    if args.json:
        print(json.dumps(chosen.to_json(), indent=2))
        return 0
    print(f"# candidate {chosen.index} (counting from 0) of {chosen.n_candidates} in {args.candidates}, "
          f"confidence {chosen.confidence.get('base', float('nan')):.2f}")
    print(chosen.program.rstrip())
    print("\n# why:")
    for line in chosen.reasons:
        print(f"# - {line}")
    return 0


def _read_text(path: str, what: str) -> str:
    file = Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"{what} {path}: no such file")
    try:
        return file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{what} {path}: not valid UTF-8 (byte {exc.start})") from None


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
    if args.command not in ("methods", "leaderboard", "pick"):  # these never reach evalplus
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
        if args.command == "pick":
            return run_pick(args)
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
