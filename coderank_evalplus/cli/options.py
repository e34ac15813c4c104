"""Command-line options shared by ``coderank-evalplus rerank`` and ``run``, and the RerankConfig they describe.

Its own module so that ``console`` (which adds the ``run`` parser) and ``run`` (which runs it) both
import it without importing each other.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from coderank_evalplus.rankers.registry import DEFAULT_METHODS

if TYPE_CHECKING:
    from coderank_evalplus.pipeline import RerankConfig


def add_common_options(p: argparse.ArgumentParser) -> None:
    """Options shared by ``rerank`` and ``run``: data, methods, output, limits, workers, executor."""
    p.add_argument("--dataset", default="humaneval",
                   help="humaneval | humaneval+ | mbpp | mbpp+ | humaneval-original | mbpp-sanitized "
                        "(humaneval and mbpp mean HumanEval+ / MBPP+ data, judged on base and plus tests), or "
                        "PATH.jsonl: your own problems {task_id, prompt, entry_point, test} (docs/usage.md)")
    p.add_argument("--data-dir", default=None, help="folder with local dataset files (default: $CODERANK_DATA, "
                                                    "then evalplus's cache / download)")
    p.add_argument("--methods", default=",".join(DEFAULT_METHODS),
                   help="comma-separated ranking methods; `coderank-evalplus methods` lists them (default: "
                        "recommended — the default pick, which uses the prompt's examples — beside CodeT, SRank and "
                        "MBR-exec in their published setting)")
    p.add_argument("--output", default=None, help="results folder (rerank_results.json, verdicts.jsonl, cache)")
    p.add_argument("--tests-per-sample", type=int, default=5, help="asserts kept per test sample (CodeT: 5; 0: all)")
    p.add_argument("--time-limit", type=float, default=0.1, help="CPU seconds per generated test (CodeT: 0.1)")
    p.add_argument("--workers", type=int, default=None,
                   help="parallel workers (default: all cores; with --executor ray: per node, default its CPUs)")
    p.add_argument("--executor", choices=("local", "ray"), default="local",
                   help="where programs run: this machine's worker pool, or a Ray cluster (pip install '.[ray]')")
    p.add_argument("--ray-address", default=None,
                   help="--executor ray: the cluster's address (default: join the one `ray start` began on this "
                        "machine, or start a local one)")
    p.add_argument("--base-only", action="store_true", help="judge on base tests only")
    p.add_argument("--limit", type=int, default=None,
                   help="the dataset's first N problems (HumanEval/0 … N-1; 0: all), whatever the input files' order")
    p.add_argument("--cache-dir", default=None, help="execution cache folder (default: <output>/cache)")
    p.add_argument("--min-time-limit", type=float, default=1.0, help="judge: evalplus's --min_time_limit")
    p.add_argument("--gt-time-limit-factor", type=float, default=4.0, help="judge: evalplus's factor")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--strict", action="store_true",
                   help="judge: a sample that passed only through its own == (listed as suspicious) fails")


def add_drop_extra_option(p: argparse.ArgumentParser) -> None:
    """``rerank``'s input files may cover more problems than the dataset (sanitized MBPP's 427 against MBPP+'s 378)."""
    p.add_argument("--drop-extra-problems", action="store_true",
                   help="keep the dataset's problems and drop the input files' records of others, with one warning "
                        "that counts them (default: such records are an error)")


def add_raw_field_option(p: argparse.ArgumentParser) -> None:
    """``rerank``'s samples may be a chat model's raw replies (prose around a fenced block)."""
    p.add_argument("--raw-field", default=None, metavar="FIELD",
                   help="the samples' records hold a chat model's raw reply in FIELD (e.g. raw, solution): each is "
                        "read as evalplus.sanitize would (the code, with the prompt's imports); the results count "
                        "them")


def config_from_args(args: argparse.Namespace) -> "RerankConfig":
    """The RerankConfig that ``add_common_options``'s flags describe."""
    from coderank_evalplus.pipeline import RerankConfig

    if args.ray_address and args.executor != "ray" and getattr(args, "dp", 1) == 1:
        raise ValueError("--ray-address needs --executor ray (or --dp with --backend vllm)")
    return RerankConfig(methods=args.methods.split(","), tests_per_sample=args.tests_per_sample or None,
                        cpu_limit=args.time_limit, workers=args.workers, plus=not args.base_only,
                        min_time_limit=args.min_time_limit, gt_time_limit_factor=args.gt_time_limit_factor,
                        progress=not args.quiet, executor=args.executor, ray_address=args.ray_address,
                        limit=args.limit or None, strict=getattr(args, "strict", False))
