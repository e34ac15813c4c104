"""Can any confidence-threshold stopping rule beat fixed N = 10 at a mean of 10 samples on the large sets?

Rules: stop a problem at the first round whose pick's confidence is ≥ hi, or < lo once the round's budget is ≥ r0,
or whose budget reaches the cap c (``report/adaptive.py``'s rounds and seeded draws; the last round always stops;
hi above 1 never stops on confidence). Each folder's confidences come from
the model leave-one-set-out trains for its family (``study/confidence_loso.train``); the best rule of the grid with
a mean of at most ``--budget`` samples is chosen ON the scored folder itself, so its pass@1 is an upper bound for
the rule family, not a held-out figure. Folders with at most ``--budget`` samples are skipped.

    python bench/adaptive_rule_bound.py 'runs/leaderboard/runs/*' --cache-dir C
"""

from __future__ import annotations

import itertools

import numpy as np

from coderank_evalplus.report import adaptive
from coderank_evalplus.study.confidence_loso import bound_arguments, read_sets, train
from coderank_evalplus.study.learned_loso import folds

HI = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.99, 1.01)
LO = (0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5)
R0 = (1, 2, 3, 5, 10, 20)
CAPS = (10, 15, 20, 30, 50, 75, 100, 150, 200)


def main() -> None:
    args = bound_arguments(__doc__).parse_args()
    sets, tables = read_sets(args.folders, args.cache_dir)
    for model_name, scored, train_sets in folds(sets):
        big = [s for s in scored if tables[id(s)].rounds[-1] > args.budget]
        if not big:
            continue
        fitted = train(train_sets, tables, exclude_model=model_name)
        for sf in big:
            t = tables[id(sf)]
            conf = adaptive.confidences(t, fitted)
            rounds = np.asarray(t.rounds, dtype=float)
            fixed = 100 * t.passed[:, int(np.searchsorted(rounds, args.budget)), :, 0].mean()
            best = None
            for hi, lo, r0, cap in itertools.product(HI, LO, R0, CAPS):
                says_stop = ((conf >= hi) | ((conf < lo) & (rounds[None, :, None] >= r0))
                             | (rounds[None, :, None] >= cap))
                sim = adaptive.outcome(t, adaptive.first_stop(says_stop))
                used, acc = float(sim["samples"].mean()), 100 * float(sim["base"].mean())
                if used <= args.budget and (best is None or acc > best[1]):
                    best = (used, acc, hi, lo, r0, cap)
            line = f"{sf.label}: fixed N={args.budget:g} {fixed:.2f}"
            if best is None:
                print(line + f"; no rule of the grid uses ≤ {args.budget:g} samples on average")
            else:
                print(line + f"; best rule with a mean ≤ {args.budget:g}: {best[1]:.2f} at {best[0]:.2f} samples "
                      f"(hi {best[2]}, lo {best[3]}, r0 {best[4]}, cap {best[5]}); all {t.rounds[-1]} samples "
                      f"{100 * t.passed[:, -1, :, 0].mean():.2f}")


if __name__ == "__main__":
    main()
