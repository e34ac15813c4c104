"""``coderank-evalplus``: rerank existing samples, pick for one prompt, run the whole pipeline from a model, list
methods, leaderboards and budgets. Each subcommand parses its flags (``cli.options``, one table of options) and
calls the library (``api``): no pipeline logic lives here."""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
import warnings
from pathlib import Path
from typing import Optional, Sequence

from coderank_evalplus.cli.options import Parser, add_options, check_combinations, rerank_options

# the top-level page: what the tool does for its user (this module's docstring is for its readers)
DESCRIPTION = ("Rerank sampled code solutions by executing them on tests (CodeT, SRank, MBR-exec, the default "
               "pick recommended) and report pass@1 of the pick, on HumanEval(+), MBPP(+) or problems of your own.")
EPILOG = "`coderank-evalplus COMMAND --help` shows a command's flags."


def build_parser() -> argparse.ArgumentParser:
    from coderank_evalplus import __version__

    parser = Parser(prog="coderank-evalplus", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"coderank-evalplus {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("rerank", help="rerank existing solution samples (with test samples, or examples+mutate)",
                       description="Rerank existing samples: execute them on tests, rank, judge, report pass@k.")
    add_options(p, "rerank")
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
    from coderank_evalplus.rankers.registry import list_aliases

    print("random  (unbiased pass@k of a random pick; always reported)")
    print("oracle  (any correct candidate; always reported)")
    for name in sorted([*list_rankers(), *list_aliases()]):
        if name in ("random", "oracle"):
            continue
        print(f"{name:22s} {describe_ranker(name)}")
    print("filter+<method>        DOCE trial-test filtering (docstring examples) before <method>")
    print("ll+<method>            <method>'s score × exp(ll) (DOCE); also coder_reviewer+<method>")
    from coderank_evalplus.rankers.registry import SELECTION_STEPS

    for step, what in SELECTION_STEPS.items():
        print(f"{'<method>+' + step:22s} after <method>: {what}")
    return 0


def cmd_rerank(args: argparse.Namespace) -> int:
    """``rerank``: the one path (``api.evaluate.run_rerank``) with the flags' options, then the tables."""
    from coderank_evalplus.api.evaluate import run_rerank
    from coderank_evalplus.report import print_result

    out = run_rerank(rerank_options(args, "rerank"), frontend="rerank")
    assert out.folder is not None  # the CLI always writes its folder
    print_result(out.result, f"{out.provenance.get('model')} on {args.dataset}")
    print(f"\nwrote {out.folder / 'rerank_results.json'} and {out.folder / 'verdicts.jsonl'}")
    return 0


def add_pick_parser(sub) -> None:
    """``pick``: the candidate to keep for one prompt, no benchmark needed."""
    from coderank_evalplus.testgen.mutate import GROWN_INPUTS

    p = sub.add_parser("pick", help="pick the candidate to keep for a prompt (no benchmark: nothing is judged)",
                       description="Pick the candidate to keep for one prompt: its examples (and your tests) test "
                                   "the candidates in the sandbox; the reasons say why the others lost.",
                       epilog=f"Tests: by default the prompt's examples and {GROWN_INPUTS} inputs grown from them "
                              "(examples+mutate). A test file adds its asserts to the examples and replaces the grown "
                              "inputs; to have both: --tests asserts.py,examples+mutate (or examples+mutate:N).")
    p.add_argument("prompt", help="a file holding the prompt (a function's signature and docstring, or a class with "
                                  "a method); with --dataset and --task-id: the candidates")
    p.add_argument("candidates", nargs="?", help="candidates: JSON lines with solution|completion (or --raw-field), "
                                                 "or a folder of .py files")
    add_options(p, "pick")


def run_pick(args: argparse.Namespace) -> int:
    import json

    from coderank_evalplus.api.picking import Picker, read_pick_tests
    from coderank_evalplus.io.candidates import read_candidates
    from coderank_evalplus.io.problems import problem_from_prompt
    from coderank_evalplus.types import CoderankError

    if args.dataset or args.task_id:  # shapes (issue 53): a problem of a problem file; one positional: candidates
        from coderank_evalplus.io.problems import load_problems

        if not (args.dataset and args.task_id) or args.candidates is not None:
            raise CoderankError("pick --dataset PATH --task-id ID CANDIDATES: give both, and the candidates only")
        problems = load_problems(args.dataset)
        if args.task_id not in problems:
            raise CoderankError(f"--task-id {args.task_id}: not in {args.dataset}")
        problem, args.candidates = problems[args.task_id], args.prompt
    else:
        if args.candidates is None:
            raise CoderankError("pick PROMPT CANDIDATES: give the candidates too")
        problem = problem_from_prompt(_read_text(args.prompt, "prompt"), args.entry_point)
    candidates, names = read_candidates(args.candidates, problem, args.raw_field)
    tests, sources = read_pick_tests(args.tests)
    with Picker(args.method, sources.mutate, args.seed, args.time_limit, args.workers, select_model=args.select_model,
                select_backend=args.select_backend, select_base_url=args.select_base_url,
                select_max_tokens=args.select_max_tokens) as picker:
        # already full programs: the prompt is not prepended again
        chosen = picker.pick(problem, candidates, problem.entry_point, tests, names=names)
    if args.json is not None:
        text = json.dumps(chosen.to_json(), indent=2)
        if args.json == "-":
            print(text)
        else:
            from coderank_evalplus.storage import atomic_write_text

            atomic_write_text(args.json, text + "\n")
            print(f"wrote {args.json}")
        return 0
    tie = f" (drawn from a tie of {len(chosen.tie)} parts)" if chosen.tie else ""
    print(f"# {chosen.name} (candidate {chosen.index} of {chosen.n_candidates}, counting from 0) from "
          f"{args.candidates}; confidence it is right: {chosen.confidence.get('base', float('nan')):.2f}{tie}")
    print(chosen.program.rstrip())
    print("\n# why:")
    for line in chosen.reasons:
        print(f"# - {line}")
    return 0


def _read_text(path: str, what: str) -> str:
    from coderank_evalplus.types import CoderankError, InputNotFound

    file = Path(path)
    if not file.is_file():
        raise InputNotFound(f"{what} {path}: no such file")
    try:
        return file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise CoderankError(f"{what} {path}: not valid UTF-8 (byte {exc.start})") from None


class _Lines(logging.Formatter):
    """The library's log records as the CLI prints them: the message alone (warnings marked as such)."""

    def format(self, record: logging.LogRecord) -> str:
        from coderank_evalplus.cli.options import as_flags

        text = as_flags(record.getMessage())  # the library names options; here they are flags
        return f"warning: {text}" if record.levelno >= logging.WARNING else text


class _ToStderr(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is when a record comes (a test's capture, a redirected stream)."""

    @property  # (StreamHandler's attribute, read at each record here)
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass


@contextlib.contextmanager
def library_messages():
    """While a command runs, the package's log records (``coderank_evalplus.*``, INFO and up) are printed on stderr
    as plain lines, and other libraries' warnings (matplotlib's while a figure is drawn, …) are kept off the
    terminal unless asked for (``-W`` / ``PYTHONWARNINGS``): they say nothing a user of the command can act on. The
    package's own warnings still show. Afterwards the logger and the filters are as they were."""
    logger = logging.getLogger("coderank_evalplus")
    handler = _ToStderr()
    handler.setFormatter(_Lines())
    before = (logger.level, logger.propagate)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        with warnings.catch_warnings():
            if not sys.warnoptions:  # every module but the package's (whose warnings keep Python's filters)
                warnings.filterwarnings("ignore", module=r"(?!coderank_evalplus(\.|$))")
            yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(before[0])
        logger.propagate = before[1]


def main(argv: Optional[Sequence[str]] = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    with library_messages():
        return _main(list(sys.argv[1:] if argv is None else argv))


def _main(argv: list[str]) -> int:
    from coderank_evalplus.generation.openai_backend import ServerRefused, ServerUnavailable
    from coderank_evalplus.storage import StorageError
    from coderank_evalplus.types import CoderankError

    if argv[:1] == ["evaluate"] and {"-h", "--help"} & set(argv[1:]):
        page = evaluate_help()
        if page is not None:
            print(page, end="")
            return 0
    if argv[:1] == ["evaluate"]:  # evalplus.evaluate's own flags (Fire), without the start-up hook
        from coderank_evalplus.integrations.evalplus import evaluate_main

        return evaluate_main(argv[1:])
    try:
        args = build_parser().parse_args(argv)
        check_combinations(args)
    except CoderankError as exc:  # a check that needs more than one flag's value
        print(f"error: {exc}", file=sys.stderr)
        return 2
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
        return _dispatch(args)
    except CoderankError as exc:  # the library names options; here they are flags
        from coderank_evalplus.cli.options import as_flags

        print(f"error: {as_flags(str(exc))}", file=sys.stderr)
        return 2
    except (ValueError, FileNotFoundError, StorageError, ServerUnavailable, ServerRefused,
            RuntimeError) as exc:  # (the last two: a check of a dependency that fails in one line)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: finished work is kept in the cache; rerun the same command to resume", file=sys.stderr)
        return 130


def evaluate_help() -> Optional[str]:
    """``evaluate --help`` laid out as every other page (argparse's, exit status 0), not Fire's: evalplus.evaluate's
    own parameters, then ours, from the signature the command calls evalplus with. None where evalplus is missing
    or too old (``evaluate_main`` says so)."""
    import inspect

    from coderank_evalplus.cli.options import escaped
    from coderank_evalplus.integrations.versions import evalplus_too_old

    if evalplus_too_old():
        return None
    import evalplus.evaluate as ev

    from coderank_evalplus.integrations.evalplus import OPTIONS, widened_signature

    original = getattr(ev.evaluate, "__coderank_original__", ev.evaluate)
    p = Parser(prog="coderank-evalplus evaluate",
               usage="coderank-evalplus evaluate [DATASET] --samples FILE [FLAG ...] --rerank METHODS",
               description="evalplus.evaluate with --rerank: evalplus's evaluation, unchanged, then the samples "
                           "reranked and pass@1 of the pick beside random and oracle. Flags as evalplus takes them "
                           "(--flag VALUE or --flag=VALUE).",
               epilog="Without --samples, evalplus samples first: its codegen flags (--model, --backend, "
                      "--n_samples, --greedy, …) pass through to it.")
    groups = {False: p.add_argument_group("evalplus.evaluate's own flags"),
              True: p.add_argument_group("reranking (coderank_evalplus)")}
    for param in widened_signature(original).parameters.values():
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            continue
        ours = param.name in OPTIONS
        text = OPTIONS[param.name][1] if ours else ("humaneval or mbpp (also the first argument)"
                                                     if param.name == "dataset" else "")
        default = None if param.default is inspect.Parameter.empty else param.default
        if isinstance(default, bool):  # Fire takes a bare --flag as True
            groups[ours].add_argument(f"--{param.name}", action="store_true", help=escaped(text))
        else:
            groups[ours].add_argument(f"--{param.name}", default=default, help=escaped(text),
                                      metavar=param.name.upper())
    return p.format_help()


def _dispatch(args: argparse.Namespace) -> int:
    # (the subcommands' modules are imported already: the parser was built from them)
    from coderank_evalplus.cli import budget, leaderboard, run

    commands = {"methods": lambda _: cmd_methods(), "rerank": cmd_rerank, "pick": run_pick,
                "leaderboard": leaderboard.run_leaderboard, "budget": budget.run_budget, "run": run.run_command,
                "likelihood": run.likelihood_command}
    return commands[args.command](args) if args.command in commands else 1


if __name__ == "__main__":
    sys.exit(main())
