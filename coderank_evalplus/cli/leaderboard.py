"""``coderank-evalplus leaderboard SUITE.toml | RESULTS_FOLDER… --output DIR``: models × rerankers side by side."""

from __future__ import annotations

import argparse
import time
from pathlib import Path


def add_leaderboard_parser(sub) -> None:
    from coderank_evalplus.cli.options import add_options

    p = sub.add_parser("leaderboard", help="compare models × rerankers: a suite file or existing results folders → "
                                           "tables with bootstrap intervals, budget curves, test quality, a page")
    p.add_argument("inputs", nargs="*", help="one suite .toml file, or results folders written by rerank/run")
    p.add_argument("--example", action="store_true",
                   help="the bundled example: CodeT's CodeGen-16B HumanEval samples and tests (MIT), first problems")
    p.add_argument("--no-curves", action="store_true", help="skip the budget curves")
    add_options(p, "leaderboard")


def _entries_from_folders(folders: list[str]):
    """Leaderboard rows from results folders, named as their runs recorded them (``provenance``: the model, the
    test pool); folders written before 0.2.0 fall back to their suite entry, then to the folder's name. Same-named
    runs are told apart by ``report.run_names`` when the board is built."""
    from coderank_evalplus.io.results_folder import pool_of, read_summary
    from coderank_evalplus.report.leaderboard import Entry

    entries = []
    for f in folders:
        path = Path(f)
        summary = read_summary(path)
        prov = summary.get("provenance") or {}
        meta = summary.get("entry") or {}
        tests = (summary.get("inputs") or {}).get("tests")
        label = prov.get("tests") or meta.get("tests_label") or (Path(tests).name if tests else "unknown tests")
        entries.append(Entry(name=prov.get("model") or meta.get("name") or path.resolve().name, folder=path,
                             tests_label=label, pool=prov.get("pool") or meta.get("pool") or pool_of(label)))
    return entries  # rows that would show one name are told apart where every leaderboard is built (run_names)


def _methods_the_folders_give(entries, methods: list[str]) -> list[str]:
    """The default methods less those a folder cannot give: a method ending with a step after ranking
    (``recommended``) runs programs, so it is read from a folder that ran it, never ranked again from the stored
    matrices; left out, with one warning, when some folder was reranked without it (a folder written before the
    step joined ``recommended`` reads it as its ranker alone). Methods a user names are kept, and fail loudly."""
    import logging

    from coderank_evalplus.io.results_folder import read_summary
    from coderank_evalplus.rankers.registry import split_selection
    from coderank_evalplus.report.scores import name_read_as

    summaries = [(e.folder, read_summary(Path(e.folder))) for e in entries]
    kept = []
    for m in methods:
        missing = [str(f) for f, s in summaries if m not in (s.get("methods") or {})
                   and split_selection(name_read_as(s.get("config") or {}, m, False))[1] is not None]
        if missing:
            logging.getLogger("coderank_evalplus").warning(
                "%s left out: it ends with a step after ranking, which runs programs, and %s was reranked without it "
                "(rerank with it among --methods to compare it)", m, ", ".join(missing))
        else:
            kept.append(m)
    return kept


def run_leaderboard(args: argparse.Namespace) -> int:
    from coderank_evalplus.api.options import option
    from coderank_evalplus.api.suite import Suite, ensure_results, load_suite
    from coderank_evalplus.report import leaderboard as lbm
    from coderank_evalplus.types import CoderankError

    t0 = time.monotonic()
    output = Path(args.output)  # (the table's default for leaderboard: coderank_leaderboard)
    suite: Suite | None = None
    if args.example:
        from coderank_evalplus.api.examples import example_suite

        suite = example_suite(limit=args.limit)
    elif len(args.inputs) == 1 and args.inputs[0].endswith(".toml"):
        suite = load_suite(args.inputs[0])
    elif not args.inputs:
        raise CoderankError("leaderboard needs a suite .toml file, results folders, or --example")
    elif args.strict:
        raise CoderankError("--strict needs a suite .toml file or --example (results folders are already judged; "
                         "rerank them with `rerank --strict`)")
    from coderank_evalplus.storage import open_output_dir

    output = open_output_dir(output, "leaderboard", ours=("leaderboard.json",))  # never a user's own folder
    if suite is not None:
        if (args.limit is not None or args.task_ids is not None) and not args.example:
            for e in suite.entries:
                e.limit, e.task_ids = args.limit, args.task_ids
        if args.methods:
            suite.methods = list(args.methods)
        if args.strict:
            suite.strict = True
        from coderank_evalplus.engine.execution.workers import CANDIDATE_LOG, log_candidates_to

        log_candidates_to(output / CANDIDATE_LOG)
        ran = ensure_results(suite, output, Path(args.cache_dir) if args.cache_dir else None, args.workers,
                             args.progress, args.executor, args.ray_address)
        entries = [lbm.Entry(e.name, folder, e.tests_label, e.pool) for e, folder, _ in ran]
        run_s = sum(info["seconds"] for _, _, info in ran)
        reused = sum(1 for _, _, info in ran if info["reused"])
        methods, compare_to = suite.methods, suite.compare_to
        n_resamples, seed, draws = suite.n_resamples, suite.seed, suite.draws
    else:
        entries = _entries_from_folders(args.inputs)
        run_s, reused = 0.0, len(entries)
        methods = _methods_the_folders_give(entries, list(option("methods").default))
        compare_to = list(option("compare_to").default)
        n_resamples, seed, draws = option("resamples").default, option("seed").default, option("draws").default
    from coderank_evalplus.selection.stored import stored_steps

    cache_dir = Path(args.cache_dir) if args.cache_dir else output / "cache"
    with stored_steps(cache_dir, args.workers) as subset_steps:  # a stepped method's step on the curves' sub-samples
        cfg = lbm.LeaderboardConfig(
            methods=list(args.methods) if args.methods else methods,
            compare_to=list(args.compare_to) if args.compare_to else compare_to,
            n_resamples=args.resamples or n_resamples, seed=args.seed if args.seed is not None else seed,
            draws=args.draws or draws, curves=not args.no_curves, workers=args.workers, progress=args.progress,
            cache_dir=cache_dir, subset_steps=subset_steps)
        lb = lbm.build(entries, cfg)
    written = lbm.write(lb, output)
    print()
    print(lbm.to_markdown(lb))
    total = time.monotonic() - t0
    t = lb.timing
    print(f"\ntime: {total:.1f} s in all — rerank of missing entries {run_s:.1f} s ({reused} of {len(entries)} "
          f"reused), load {t['load_s']:.1f} s, scores and intervals {t['score_s']:.1f} s, "
          f"curves {t['curves_s']:.1f} s, "
          f"model comparisons {t.get('models_s', 0.0):.1f} s, tables/figures/page {t['report_s']:.1f} s")
    print(f"wrote {len(written)} files in {output}; open {output / 'index.html'}")
    return 0

