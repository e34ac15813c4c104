"""``coderank-evalplus leaderboard SUITE.toml | RESULTS_FOLDER… --output DIR``: models × rerankers side by side."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

DEFAULT_OUTPUT = "coderank_leaderboard"


def add_leaderboard_parser(sub) -> None:
    p = sub.add_parser("leaderboard", help="compare models × rerankers: a suite file or existing results folders → "
                                           "tables with bootstrap intervals, budget curves, test quality, a page")
    p.add_argument("inputs", nargs="*", help="one suite .toml file, or results folders written by rerank/run")
    p.add_argument("--example", action="store_true",
                   help="the bundled example: CodeT's CodeGen-16B HumanEval samples and tests (MIT), first problems")
    p.add_argument("--output", default=None, help=f"report folder (default: {DEFAULT_OUTPUT})")
    p.add_argument("--methods", default=None, help="comma-separated methods (default: the suite's, else "
                                                   "codet,srank,mbr_exec); random and oracle are always there")
    p.add_argument("--compare-to", default=None, help="paired comparisons against these (default: random,codet)")
    p.add_argument("--resamples", type=int, default=None, help="bootstrap resamples (default 2000)")
    p.add_argument("--draws", type=int, default=None, help="seeded draws per budget-curve point (default 20)")
    p.add_argument("--seed", type=int, default=None, help="bootstrap and sub-sampling seed (default 0)")
    p.add_argument("--no-curves", action="store_true", help="skip the budget curves")
    p.add_argument("--limit", type=int, default=None, help="the example / suite: the dataset's first N problems")
    p.add_argument("--cache-dir", default=None, help="execution cache folder (default: <output>/cache)")
    p.add_argument("--workers", type=int, default=None,
                   help="parallel workers (default: all cores; with --executor ray: per node, default its CPUs)")
    p.add_argument("--executor", choices=("local", "ray"), default="local",
                   help="where the reranks' programs run: this machine's worker pool, or a Ray cluster")
    p.add_argument("--ray-address", default=None, help="--executor ray: the cluster's address (default: join the "
                                                       "one `ray start` began on this machine, or start one)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--strict", action="store_true",
                   help="suites: a sample the judge passed only through its own == (listed as suspicious) fails "
                        "(as `rerank --strict`; entries judged without it are judged again)")


def _entries_from_folders(folders: list[str]):
    from coderank_evalplus.io.results_folder import read_summary
    from coderank_evalplus.report.leaderboard import Entry

    entries = []
    for f in folders:
        path = Path(f)
        summary = read_summary(path)
        meta = summary.get("entry") or {}
        tests = (summary.get("inputs") or {}).get("tests")
        entries.append(Entry(name=meta.get("name") or path.resolve().name, folder=path,
                             tests_label=meta.get("tests_label") or (Path(tests).name if tests else ""),
                             pool=meta.get("pool") or ""))
    return entries


def run_leaderboard(args: argparse.Namespace) -> int:
    from coderank_evalplus.report import leaderboard as lbm
    from coderank_evalplus.report.suite import Suite, ensure_results, load_suite

    t0 = time.monotonic()
    if args.ray_address and args.executor != "ray":
        raise ValueError("--ray-address needs --executor ray")
    output = Path(args.output or DEFAULT_OUTPUT)
    suite: Suite | None = None
    if args.example:
        from coderank_evalplus.examples import example_suite

        suite = example_suite(limit=args.limit)
    elif len(args.inputs) == 1 and args.inputs[0].endswith(".toml"):
        suite = load_suite(args.inputs[0])
    elif not args.inputs:
        raise ValueError("leaderboard needs a suite .toml file, results folders, or --example")
    elif args.strict:
        raise ValueError("--strict needs a suite .toml file or --example (results folders are already judged; "
                         "rerank them with `rerank --strict`)")
    if suite is not None:
        if args.limit is not None and not args.example:
            for e in suite.entries:
                e.limit = args.limit
        if args.methods:
            suite.methods = args.methods.split(",")
        if args.strict:
            suite.strict = True
        from coderank_evalplus.engine.workers import CANDIDATE_LOG, log_candidates_to
        from coderank_evalplus.storage import ensure_writable_dir

        log_candidates_to(ensure_writable_dir(output) / CANDIDATE_LOG)
        ran = ensure_results(suite, output, Path(args.cache_dir) if args.cache_dir else None, args.workers,
                             not args.quiet, args.executor, args.ray_address)
        entries = [lbm.Entry(e.name, folder, e.tests_label, e.pool) for e, folder, _ in ran]
        run_s = sum(info["seconds"] for _, _, info in ran)
        reused = sum(1 for _, _, info in ran if info["reused"])
        methods, compare_to = suite.methods, suite.compare_to
        n_resamples, seed, draws = suite.n_resamples, suite.seed, suite.draws
    else:
        entries = _entries_from_folders(args.inputs)
        run_s, reused = 0.0, len(entries)
        methods, compare_to = ["codet", "srank", "mbr_exec"], ["random", "codet"]
        n_resamples, seed, draws = 2000, 0, 20
    cfg = lbm.LeaderboardConfig(
        methods=args.methods.split(",") if args.methods else methods,
        compare_to=args.compare_to.split(",") if args.compare_to else compare_to,
        n_resamples=args.resamples or n_resamples, seed=args.seed if args.seed is not None else seed,
        draws=args.draws or draws, curves=not args.no_curves, workers=args.workers, progress=not args.quiet,
        cache_dir=Path(args.cache_dir) if args.cache_dir else output / "cache")
    if cfg.n_resamples < 1000:
        raise ValueError(f"--resamples {cfg.n_resamples}: use at least 1000 for a 95 % interval")
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

