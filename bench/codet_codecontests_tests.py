"""Do we extract the same asserts from CodeT's released CodeContests test samples as CodeT's own parser?

    python bench/codet_codecontests_tests.py --codet /tmp/ref/CodeT/CodeT [--data ../shared/data]
        [--write-counts tests/data/codet_codecontests_counts.json]

CodeT's side runs in a subprocess with its repository (``--codet``: the ``CodeT`` folder of microsoft/CodeT, outside
this repository) on the path: ``PostProcessor.map_task_id_for_test_case`` on the davinci-002 samples (165 problems,
50 samples each) and its problem file -- the asserts of each sample, in order -- then the first 5 per sample, as its
``DataManager`` keeps them (``--test_case_limit 5``). Ours: the problems from ``io.codet.load_codecontests``, the
samples through ``io.samples.read_test_samples`` (matched by prompt), each sample through
``testgen.extract.extract_asserts`` and the suite through ``build_suite`` (first 5 per sample, counted). Prints one
row per problem whose counts differ (and the totals), and exits 1 if any list of asserts differs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
SAMPLES = "generated_data/CodeContests_zeroshot_davinci002_temp0.8_topp0.95_num50_max300_test_case.jsonl"
PROBLEMS = "dataset/CodeContests_zeroshot_for_test_case_generation.jsonl"
LIMIT = 5

_DRIVER = r"""
import json, sys
from src.postprocess import PostProcessor
predict, source, out = sys.argv[1:4]
by_task = PostProcessor.map_task_id_for_test_case(predict, source)
json.dump({t: lists for t, lists in by_task.items()}, open(out, "w"))
"""


def codet_asserts(codet_root: Path, data: Path) -> dict[str, list[list[str]]]:
    with tempfile.TemporaryDirectory(prefix="codet_cc_") as tmp:
        driver, out = Path(tmp) / "driver.py", Path(tmp) / "asserts.json"
        driver.write_text(_DRIVER)
        subprocess.run([sys.executable, str(driver), str(data / SAMPLES), str(data / PROBLEMS), str(out)],
                       env=dict(os.environ, PYTHONPATH=str(codet_root)), cwd=tmp, check=True)
        return json.loads(out.read_text())


def our_asserts(data: Path) -> tuple[dict[str, list[list[str]]], dict[str, Counter]]:
    from coderank_evalplus.io.codet import load_codecontests
    from coderank_evalplus.io.samples import read_test_samples
    from coderank_evalplus.testgen.extract import build_suite, extract_asserts

    problems = load_codecontests(data / PROBLEMS)
    raw = read_test_samples(data / SAMPLES, problems, str(data.parent))
    per_sample = {t: [extract_asserts(s, problems[t].entry_point) for s in samples] for t, samples in raw.items()}
    suites = {}
    for t, samples in raw.items():
        suite = build_suite(samples, problems[t].entry_point, LIMIT)
        suites[t] = Counter({f"assert {a}": c for a, c in zip(suite.asserts, suite.counts)})
    return per_sample, suites


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--codet", required=True, type=Path, help="the CodeT folder of a microsoft/CodeT checkout")
    ap.add_argument("--data", type=Path, default=Path(os.environ.get("CODERANK_DATA", REPO.parent / "shared" / "data")),
                    help="the shared data folder (its microsoft_CodeT/ holds CodeT's files; default $CODERANK_DATA)")
    ap.add_argument("--write-counts", type=Path, help="store CodeT's per-problem counts here (JSON)")
    args = ap.parse_args()
    data = args.data.resolve() / "microsoft_CodeT"
    t0 = time.monotonic()
    theirs = codet_asserts(args.codet.resolve(), data)
    t1 = time.monotonic()
    ours, suites = our_asserts(data)
    t2 = time.monotonic()
    print(f"{'problem':18} {'samples':>7} {'CodeT asserts':>13} {'ours':>6} {'CodeT first5':>12} {'ours':>6} "
          f"{'distinct':>8} same")
    rows, differ, counts = 0, [], {}
    totals = Counter()
    for tid in sorted(set(theirs) | set(ours), key=lambda t: int(t.split("/")[1])):
        a, b = theirs.get(tid, []), ours.get(tid, [])
        first_a = Counter(x for lists in a for x in lists[:LIMIT])
        same = a == b and first_a == suites.get(tid, Counter())
        row = (len(a), sum(map(len, a)), sum(map(len, b)), sum(first_a.values()),
               sum(suites.get(tid, Counter()).values()), len(first_a))
        counts[tid] = {"samples": row[0], "asserts": row[1], "first5": row[3], "distinct": row[5]}
        totals.update(dict(zip(("samples", "codet", "ours", "codet5", "ours5", "distinct"), row)))
        if not same or rows < 5:
            print(f"{tid:18} {row[0]:7d} {row[1]:13d} {row[2]:6d} {row[3]:12d} {row[4]:6d} {row[5]:8d} "
                  f"{'yes' if same else 'NO'}")
            rows += 1
        if not same:
            differ.append(tid)
    print(f"{'all ' + str(len(counts)):18} {totals['samples']:7d} {totals['codet']:13d} {totals['ours']:6d} "
          f"{totals['codet5']:12d} {totals['ours5']:6d} {totals['distinct']:8d} "
          f"{'yes' if not differ else f'NO ({len(differ)})'}")
    print(f"CodeT's parser {t1 - t0:.1f} s, ours {t2 - t1:.1f} s (load {os.getloadavg()[0]:.1f}); problems whose lists "
          f"differ: {len(differ)}")
    if args.write_counts:
        args.write_counts.write_text(json.dumps(counts, indent=0, sort_keys=True) + "\n")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
