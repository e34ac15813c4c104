"""Is a mean of B samples per problem enough to beat fixed N = B on the large sets, and can a label-free signal
tell which problems gain from more samples?

Three figures per folder with more than B samples per problem (``report/adaptive.py``'s round tables and seeded
draws; nothing is executed):

- oracle: the best pass@1 of any per-problem budget on the round grid with a mean of at most B samples, knowing each
  problem's expected pass@1 at every budget (its labels) -- an exact knapsack (dynamic programming over the total
  samples). What a perfect "will more samples help?" signal could buy.
- two-stage rules without labels: every problem draws r0 samples; the share q = (B - r0) / (c - r0) of problem ×
  draws with the highest predicted gain is taken on to c samples (mean exactly B). Predicted gain: a ridge
  regression or gradient boosting (scikit-learn) of "pass@1 at c minus pass@1 at r0" on the pick's confidence
  features at r0, fitted on the large folders of every OTHER model family (leave one set out, as
  ``study/confidence_loso``); or one feature (low confidence: the LOSO confidence model; many distinct behaviours).
  The whole grid is printed, then the configuration a user could choose: the best on the training folders
  (two folds of their problems: each half scored by gain models fitted on the other half), applied to the scored
  folder.
- Spearman's rank correlation of each feature at r0 with the gain.

    python bench/adaptive_gain_bound.py 'runs/leaderboard/runs/*' --cache-dir C
"""

from __future__ import annotations

import itertools

import numpy as np

from coderank_evalplus.rankers.confidence import FEATURES
from coderank_evalplus.report import adaptive
from coderank_evalplus.study.confidence_loso import bound_arguments, read_sets, train
from coderank_evalplus.study.learned_loso import folds

R0 = (3, 5)
CAPS = (15, 20, 30)
MODELS = ("ridge", "boosting", "low confidence", "distinct behaviours")


def oracle(acc: np.ndarray, rounds: list[int], budget: float) -> float:
    """Best mean of acc[p, r_p] (problems × rounds) over choices with sum rounds[r_p] <= budget × problems (%)."""
    cap = int(budget * acc.shape[0])
    best = np.full(cap + 1, -np.inf)
    best[0] = 0.0
    for row in acc:
        new = np.full(cap + 1, -np.inf)
        for r, c in enumerate(rounds):
            if c <= cap:
                new[c:] = np.maximum(new[c:], best[:cap + 1 - c] + row[r])
        best = new
    return 100.0 * float(best.max()) / acc.shape[0]


def stage(table: adaptive.RoundTable, r0: int, c: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features at r0 (rows: problem × draw), pass at r0 and at c (same rows)."""
    i0, ic = table.rounds.index(r0), table.rounds.index(c)
    acc = table.passed[..., 0]
    return (table.features[:, i0].reshape(-1, len(FEATURES)), acc[:, i0].ravel(), acc[:, ic].ravel())


def gain_scores(kind: str, train_tables: list, table: adaptive.RoundTable, conf: np.ndarray, r0: int,
                c: int) -> np.ndarray:
    X, _, _ = stage(table, r0, c)
    if kind == "low confidence":
        return -conf[:, table.rounds.index(r0)].ravel()
    if kind == "distinct behaviours":
        return X[:, FEATURES.index("clusters")]
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.linear_model import Ridge

    parts = [stage(t, r0, c) for t in train_tables]
    Xt = np.concatenate([p[0] for p in parts])
    yt = np.concatenate([p[2] - p[1] for p in parts])
    model = Ridge(alpha=1.0) if kind == "ridge" else HistGradientBoostingRegressor(max_iter=200, learning_rate=0.05,
                                                                                     random_state=0)
    return model.fit(Xt, yt).predict(X)


def half(table: adaptive.RoundTable, k: int) -> adaptive.RoundTable:
    """The even (k = 0) or odd (k = 1) problems of a round table: two folds for choosing a rule out of fold."""
    return adaptive.RoundTable(table.rounds, table.draws, table.splits, table.features[k::2], table.passed[k::2])


def two_stage(table: adaptive.RoundTable, score: np.ndarray, r0: int, c: int, budget: float) -> float:
    _, at_r0, at_c = stage(table, r0, c)
    chosen = np.argsort(-score, kind="stable")[:int((budget - r0) / (c - r0) * len(score))]
    out = at_r0.copy()
    out[chosen] = at_c[chosen]
    return 100.0 * float(out.mean())


def main() -> None:
    args = bound_arguments(__doc__).parse_args()
    sets, tables = read_sets(args.folders, args.cache_dir)

    def large(t: adaptive.RoundTable) -> bool:
        return t.rounds[-1] > max(CAPS) and all(r in t.rounds for r in (*R0, *CAPS, int(args.budget)))

    grid = list(itertools.product(R0, CAPS, MODELS))
    for model_name, scored, train_sets in folds(sets):
        big = [s for s in scored if large(tables[id(s)])]
        train_big = [tables[id(s)] for s in train_sets if large(tables[id(s)])]
        if not big:
            continue
        if not train_big:
            print(f"[{model_name}] no large folder of another family to learn the gain from: skipped")
            continue
        fitted = train(train_sets, tables, exclude_model=model_name)
        train_conf = [adaptive.confidences(t, fitted) for t in train_big]
        on_training = {}
        for r0, c, kind in grid:  # the choice a user could make: scored on the training folders, out of fold
            on_training[(r0, c, kind)] = np.mean([
                two_stage(half(t, k), gain_scores(kind, [half(u, 1 - k) for u in train_big], half(t, k),
                                                  cf[k::2], r0, c), r0, c, args.budget)
                - 100.0 * half(t, k).passed[:, t.rounds.index(int(args.budget)), :, 0].mean()
                for t, cf in zip(train_big, train_conf) for k in (0, 1)])
        choice = max(on_training, key=on_training.get)
        for sf in big:
            t = tables[id(sf)]
            conf = adaptive.confidences(t, fitted)
            acc = t.passed[..., 0].mean(axis=2)
            fixed = 100.0 * acc[:, t.rounds.index(int(args.budget))].mean()
            print(f"\n{sf.label}: fixed N={args.budget:g} {fixed:.2f}; all {t.rounds[-1]} samples "
                  f"{100 * acc[:, -1].mean():.2f}; oracle allocation with a mean ≤ {args.budget:g} "
                  f"{oracle(acc, t.rounds, args.budget):.2f}")
            results = {}
            for r0, c, kind in grid:
                results[(r0, c, kind)] = two_stage(t, gain_scores(kind, train_big, t, conf, r0, c), r0, c,
                                                   args.budget)
            print("  two-stage, pass@1 − fixed N (r0 → c: " + ", ".join(MODELS) + "):")
            for r0, c in itertools.product(R0, CAPS):
                print(f"    {r0:>2} → {c:>2}: " + "  ".join(f"{results[(r0, c, k)] - fixed:+6.2f}" for k in MODELS))
            print(f"  chosen on the training folders ({choice[0]} → {choice[1]}, {choice[2]}; "
                  f"{on_training[choice]:+.2f} there): {results[choice] - fixed:+.2f}")
            X, at_r0, at_c = stage(t, 5, 20)
            from scipy.stats import spearmanr

            rho = [f"{f} {spearmanr(X[:, k], at_c - at_r0)[0]:+.2f}" for k, f in enumerate(FEATURES)
                   if np.ptp(X[:, k]) > 1e-9]
            print("  Spearman ρ of each feature at 5 samples with the gain 5 → 20: " + ", ".join(rho))


if __name__ == "__main__":
    main()
