"""How many problems does a bootstrap interval over problems need? Coverage of the leaderboard's intervals at
small n, measured on real per-problem pass@1 (issue 51 item 4; ``stats.py``'s ``MIN_PROBLEMS``).

A results folder's problems are taken as the population: their mean pass@1 (or mean paired difference) is the true
value. Each replication draws n problems from them with replacement, computes the interval exactly as the
leaderboard does (``stats.mean_estimate``, ``stats.paired_difference``: percentile bootstrap, ``--resamples``
resamples) and checks whether it holds the true value; the p-value of a method − random difference is checked under
a null made by centring the per-problem differences (true mean 0): how often p < 0.05. Columns:

- normal theory: coverage of the percentile interval of a mean of normal data, P(|t_{n−1}| ≤ 1.96 · √((n−1)/n))
  (it behaves as a z interval with the plug-in standard deviation; Hesterberg 2015);
- pass@1, method − random: coverage of the 95 % intervals (lowest and median over folders × methods × splits);
- p < 0.05 under the null: the type-I error of the bootstrap p-value (median and highest);
- smallest exact p: the smallest two-sided p-value an exact sign-flip test of n paired problems can give, 2 / 2^n.

With two folders of the same problems, the τ part treats the methods as "models" and each folder as one order of
them (as the leaderboard's τ compares two orders of models whose scores are means over the same problems), the
second folder's methods mapped onto the first's in every one of ``--tau-mappings`` seeded ways (true τ from
the folders' means: 1 for the identity, other values for other mappings). It reports how often each 95 % interval
of Kendall's τ holds the true τ, and how often it holds the estimate strictly inside (|τ̂| < 1).

    coderank-evalplus leaderboard --example --limit 0 --no-curves --output /tmp/example164
    python bench/bootstrap_coverage.py /tmp/example164/runs/codegen-16B--own_tests \\
        /tmp/example164/runs/codegen-16B--gpt-4_tests
"""

from __future__ import annotations

import argparse

import numpy as np

SIZES = (3, 5, 8, 10, 15, 20, 30, 50, 100)
METHODS = ("codet", "srank", "mbr_exec", "recommended")


def normal_theory(n: int, level: float = 0.95) -> float:
    from scipy.stats import norm, t

    z = norm.ppf(0.5 + level / 2)
    return float(2 * t.cdf(z * np.sqrt((n - 1) / n), n - 1) - 1)


def mean_coverage(pop: np.ndarray, n: int, reps: int, resamples: int, rng: np.random.Generator) -> float:
    """Share of ``reps`` percentile intervals (``stats.mean_estimate``) of n problems drawn from ``pop`` that hold
    its mean."""
    from coderank_evalplus.stats import mean_estimate, resample_indices

    truth = 100.0 * pop.mean()
    hits = 0
    for r in range(reps):
        sample = pop[rng.integers(0, pop.size, n)]
        lo, hi = mean_estimate(sample, resample_indices(n, resamples, seed=r)).ci95
        hits += lo - 1e-9 <= truth <= hi + 1e-9
    return hits / reps


def diff_coverage(a: np.ndarray, b: np.ndarray, n: int, reps: int, resamples: int,
                  rng: np.random.Generator) -> tuple[float, float]:
    """(coverage of the paired difference's interval, share of p < 0.05 with the differences centred on 0)."""
    from coderank_evalplus.stats import paired_difference, resample_indices

    d = a - b
    truth = 100.0 * d.mean()
    null = d - d.mean()
    hits = rejected = 0
    for r in range(reps):
        pick = rng.integers(0, d.size, n)
        idx = resample_indices(n, resamples, seed=r)
        lo, hi = paired_difference(a[pick], b[pick], idx).ci95
        hits += lo - 1e-9 <= truth <= hi + 1e-9
        # null: a − b has mean 0 and the same spread (a = b + centred difference)
        rejected += paired_difference(b[pick] + null[pick], b[pick], idx).p_value < 0.05
    return hits / reps, rejected / reps


def outward(ci: tuple[float, float], n_models: int) -> tuple[float, float]:
    """``ci`` widened to the values τ of ``n_models`` untied models can take (steps of 4 / (m (m − 1)))."""
    step = 4.0 / (n_models * (n_models - 1))
    lo = -1.0 + step * np.floor((ci[0] + 1.0) / step + 1e-9)
    hi = -1.0 + step * np.ceil((ci[1] + 1.0) / step - 1e-9)
    return max(-1.0, float(lo)), min(1.0, float(hi))


def tau_intervals(est: float, boot: np.ndarray, n_models: int) -> dict[str, tuple[float, float]]:
    """The candidate intervals of τ from its bootstrap replicates: the percentile interval, the one the
    leaderboard uses (``stats.tau_interval``: the normal one moved out to τ's values) and, for comparison, the
    normal interval clipped to [−1, 1] and the Fisher-z normal interval, the latter also moved out."""
    from scipy.stats import norm

    from coderank_evalplus.stats import percentile_interval, tau_interval

    b = boot[~np.isnan(boot)]
    out = {"percentile": percentile_interval(b), "leaderboard": tau_interval(est, b, n_models)}
    sd = float(b.std(ddof=1))
    half = float(norm.ppf(0.975)) * sd
    out["normal"] = (max(-1.0, est - half), min(1.0, est + half))
    if abs(est) < 1:
        z, hz = float(np.arctanh(est)), half / (1 - est ** 2)
        out["Fisher z"] = (float(np.tanh(z - hz)), float(np.tanh(z + hz)))
    else:
        out["Fisher z"] = out["percentile"]
    out["Fisher z, to τ's values"] = outward(out["Fisher z"], n_models)
    return out


def tau_coverage(a: np.ndarray, b: np.ndarray, n: int, reps: int, resamples: int, rng: np.random.Generator):
    """a, b: (models, problems) per-problem scores of the same models' two orders. Per interval kind: coverage of
    the true τ, share holding τ̂ strictly inside among replications with |τ̂| < 1, and mean width."""
    from coderank_evalplus.report.models import kendall_tau_b
    from coderank_evalplus.stats import resample_indices

    truth = float(kendall_tau_b(a.mean(axis=1), b.mean(axis=1)))
    cover: dict[str, int] = {}
    inside: dict[str, int] = {}
    width: dict[str, float] = {}
    inner = used = 0
    for r in range(reps):
        pick = rng.integers(0, a.shape[1], n)
        sa, sb = a[:, pick], b[:, pick]
        est = float(kendall_tau_b(sa.mean(axis=1), sb.mean(axis=1)))
        idx = resample_indices(n, resamples, seed=r)
        boot = kendall_tau_b(sa[:, idx].mean(axis=2).T, sb[:, idx].mean(axis=2).T)
        if np.isnan(est) or np.isnan(boot).all():
            continue
        used += 1
        inner += abs(est) < 1
        for kind, (lo, hi) in tau_intervals(est, boot, a.shape[0]).items():
            cover[kind] = cover.get(kind, 0) + (lo - 1e-9 <= truth <= hi + 1e-9)
            inside[kind] = inside.get(kind, 0) + (abs(est) < 1 and lo < est < hi)
            width[kind] = width.get(kind, 0.0) + hi - lo
    return truth, {k: (cover[k] / max(used, 1), inside[k] / max(inner, 1), width[k] / max(used, 1))
                   for k in cover}, inner / max(used, 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", help="results folders (their problems are the population)")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--reps", type=int, default=1000, help="replications per size")
    ap.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples per interval")
    ap.add_argument("--tau-reps", type=int, default=400)
    ap.add_argument("--tau-mappings", type=int, default=4, help="seeded ways to map the second folder's models")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tau-only", action="store_true", help="only the τ part")
    args = ap.parse_args()

    from coderank_evalplus.io.results_folder import load_folder
    from coderank_evalplus.report.scores import leaderboard_methods, problem_scores, splits_of
    from coderank_evalplus.stats import MIN_PROBLEMS

    methods = leaderboard_methods(args.methods.split(","))
    sizes = [int(x) for x in args.sizes.split(",")]
    scores = []
    for f in args.folders:
        run = load_folder(f)
        s = problem_scores(run, methods)
        scores.append({(m, sp): s[m][sp] for m in methods for sp in splits_of(run)})
        print(f"{f}: {len(run.problems)} problems; pass@1 base " +
              ", ".join(f"{m} {100 * s[m]['base'].mean():.2f}" for m in methods), flush=True)
    rng = np.random.default_rng(args.seed)
    if not args.tau_only:
        print(f"\n95 % percentile-bootstrap intervals ({args.resamples} resamples) of n problems drawn from each "
              f"folder, {args.reps} replications per n; the leaderboard's minimum: {MIN_PROBLEMS}\n")
        print("| n | normal theory | pass@1 coverage (lowest / median) | method − random coverage (lowest / median) | "
              "p < 0.05 under the null (median / highest) | smallest exact p |")
        print("|---:|---:|---:|---:|---:|---:|")
    for n in sizes if not args.tau_only else ():
        est_cov, diff_cov, type1 = [], [], []
        for s in scores:
            for (m, sp), v in s.items():
                est_cov.append(mean_coverage(v, n, args.reps, args.resamples, rng))
                if m not in ("random", "oracle"):
                    c, t1 = diff_coverage(v, s[("random", sp)], n, args.reps, args.resamples, rng)
                    diff_cov.append(c)
                    type1.append(t1)
        print(f"| {n} | {normal_theory(n):.3f} | {min(est_cov):.3f} / {np.median(est_cov):.3f} | "
              f"{min(diff_cov):.3f} / {np.median(diff_cov):.3f} | {np.median(type1):.3f} / {max(type1):.3f} | "
              f"{min(1.0, 2.0 ** (1 - n)):.3g} |", flush=True)
    if len(scores) < 2:
        return
    models = [m for m in methods if (m, "base") in scores[0] and (m, "base") in scores[1]]
    a = np.stack([scores[0][(m, "base")] for m in models])
    b_all = np.stack([scores[1][(m, "base")] for m in models])
    if a.shape != b_all.shape:
        print("\nτ: the two folders do not have the same problems; skipped")
        return
    mappings = [np.arange(len(models))] + [np.random.default_rng([args.seed, k]).permutation(len(models))
                                           for k in range(1, args.tau_mappings)]
    print(f"\nKendall's τ between two orders of {len(models)} models ({', '.join(models)}; the second folder's "
          f"methods mapped onto them), base tests, {args.tau_reps} replications per n: coverage of the true τ / "
          f"share holding τ̂ strictly inside (among |τ̂| < 1) / mean width\n")
    kinds = ["percentile", "leaderboard", "normal", "Fisher z", "Fisher z, to τ's values"]
    print("| true τ | n | share |τ̂| < 1 | " + " | ".join(kinds) + " |")
    print("|---:|---:|---:|" + "---:|" * len(kinds))
    for perm in mappings:
        b = b_all[perm]
        for n in sizes:
            truth, res, inner = tau_coverage(a, b, n, args.tau_reps, args.resamples, rng)
            print(f"| {truth:+.2f} | {n} | {inner:.2f} | " + " | ".join(
                f"{res[k][0]:.3f} / {res[k][1]:.2f} / {res[k][2]:.2f}" for k in kinds) + " |", flush=True)


if __name__ == "__main__":
    main()
