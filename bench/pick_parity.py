"""Does picking with only the prompt text pass as often as ``rerank --methods recommended``? (issue 48)

For each real HumanEval sample set: ``rerank --methods recommended`` (examples+mutate pool, no model's tests) on
HumanEval+, and ``api.Picker.pick(prompt, programs)`` per problem on the same programs, given nothing but the
problem's prompt (entry point found in it, trial tests from its examples, inputs grown from them seeded by the
prompt's text). The benchmark's tests are used only afterwards: the rerank's verdicts of every candidate score the
pick's top group (pass@1 = its share that passes, as ranked pass@1 scores a tie). Prints per set both pass@1, their
difference, the problems where the two top groups differ, and where the entry point found differs from the
dataset's. Sets run smallest first; ``--sets`` picks some by file name. ``--also-seed 1`` adds how far the rerank
itself moves when only the seed of its grown inputs changes (the one thing pick does differently: it seeds them
from the prompt's text, not the task id); ``--same-seed`` gives pick the task id instead.

    python bench/pick_parity.py --data-dir ../shared/data --workers 2 [--base-only] [--sets gpt-4,codegen]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path


def sample_sets(data_dir: Path) -> list[Path]:
    """Every real HumanEval sample set: CodeT's CodeGen-16B solutions and extra_humaneval's, smallest first."""
    files = sorted((data_dir / "extra_humaneval" / "samples").glob("*.jsonl*"))
    files.append(data_dir / "microsoft_CodeT" / "generated_data" /
                 "HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_code_solution.jsonl")
    return sorted((f for f in files if f.is_file()), key=lambda f: f.stat().st_size)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", default="../shared/data")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--base-only", action="store_true", help="judge base tests only (half the judging)")
    ap.add_argument("--sets", default="", help="comma-separated parts of file names (default: every set)")
    ap.add_argument("--cache-dir", default="/tmp/coderank_pick_parity", help="execution and verdict cache")
    ap.add_argument("--same-seed", action="store_true",
                    help="give pick the task id (the rerank's seed of the grown inputs) instead of the prompt's")
    ap.add_argument("--also-seed", type=int, default=None,
                    help="also rerank with this --seed (other grown inputs): how far rerank moves with the seed alone")
    args = ap.parse_args()

    import numpy as np

    from coderank_evalplus.api import Picker
    from coderank_evalplus.api.evaluate import stage_config
    from coderank_evalplus.api.options import RerankOptions
    from coderank_evalplus.engine.execution.execute import ResultCache
    from coderank_evalplus.io.problems import load_problems
    from coderank_evalplus.io.samples import read_solutions
    from coderank_evalplus.pipeline import rank_and_judge
    from coderank_evalplus.testgen.mutate import GROWN_INPUTS

    data_dir = Path(args.data_dir)
    problems = load_problems("humaneval", str(data_dir))
    wanted = [s for s in args.sets.split(",") if s]
    sets = [f for f in sample_sets(data_dir) if not wanted or any(w in f.name for w in wanted)]
    splits = ("base",) if args.base_only else ("base", "plus")
    print("| set | problems | samples | split | rerank recommended pass@1 | pick (prompt only) pass@1 | difference |"
          " top groups differ | entry point differs | rerank s | pick s |"
          + (f" rerank seed {args.also_seed} − seed 0 |" if args.also_seed is not None else ""))
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|" + ("---:|" if args.also_seed is not None else ""))
    for path in sets:
        sols = read_solutions(path, problems, str(data_dir))
        cfg = stage_config(RerankOptions(methods=["recommended"], base_only=args.base_only, progress=False,
                                         workers=args.workers), GROWN_INPUTS)
        cache = ResultCache(Path(args.cache_dir) / "executions.sqlite")
        t0 = time.monotonic()
        try:
            result = rank_and_judge("humaneval", problems, sols, {}, cfg, cache)
        finally:
            cache.close()
        rerank_s = time.monotonic() - t0
        other = None
        if args.also_seed is not None:
            cache = ResultCache(Path(args.cache_dir) / "executions.sqlite")
            try:
                other = rank_and_judge("humaneval", problems, sols, {}, replace(cfg, seed=args.also_seed), cache)
            finally:
                cache.close()
        picked: dict[str, list[int]] = {}
        entry_differs = 0
        t0 = time.monotonic()
        with Picker(workers=args.workers, cache_dir=args.cache_dir) as picker:
            for tid in result.outcomes:
                prob = problems[tid]
                choice = picker.pick(prob.prompt, sols[tid], name=tid if args.same_seed else None)
                picked[tid] = choice.group
                entry_differs += choice.entry_point != prob.entry_point
        pick_s = time.monotonic() - t0
        differ = 0
        for tid, o in result.outcomes.items():
            from coderank_evalplus.metrics import pick_pool

            differ += pick_pool(o.rankings["recommended"], o.n_candidates) != picked[tid]
        n_samples = sum(o.n_candidates for o in result.outcomes.values())
        for split in splits:
            scores = []
            for tid, o in result.outcomes.items():
                ok = [bool(o.verdicts[c].base if split == "base" else o.verdicts[c].plus) for c in picked[tid]]
                scores.append(float(np.mean(ok)))
            ours = 100.0 * float(np.mean(scores))
            theirs = float(result.methods["recommended"][split]["pass@1"])
            seeded = (f" {float(other.methods['recommended'][split]['pass@1']) - theirs:+.2f} |"
                      if other is not None else "")
            print(f"| {path.name} | {result.n_problems} | {n_samples} | {split} | {theirs:.2f} | {ours:.2f} | "
                  f"{ours - theirs:+.2f} | {differ} | {entry_differs} | {rerank_s:.0f} | {pick_s:.0f} |{seeded}",
                  flush=True)


if __name__ == "__main__":
    main()
