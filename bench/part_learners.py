"""Could another decision among the selection step's parts close the plus gap? Held-out pass@1 of several decisions
over the same findings, beside the ceilings that read the verdicts.

The step's findings per folder come from ``study/select_loso.folder_decisions`` (the search as ``bench/select_loso.py``
runs it, with its flags: ``--edges``, ``--edge-inputs``, ``--step``, ``--unbounded``; kept beside the execution
cache, so a second run reads them). Every learned decision is trained leave one family out: each model family's
folders are ordered by a decision fitted on the other six families' split problems, labels each part's share of
candidates right on plus tests (as the part model's). The decisions:

- ``size``: the part with the most samples (the step as it ships);
- ``part model``: pairwise logistic over ``parts.PART_FEATURES`` (``study/select_loso.heldout_parts``);
- ``+ edge features``: the same over ``parts.EDGE_SPEC`` (what each part does on the edge inputs);
- ``+ output features``: the same with ``OUTPUT_FEATURES`` too, read from the parts' recorded outputs (empty or None
  where the others return a value, a value alone, raising where the others return);
- ``boosted trees``: scikit-learn's gradient-boosted regression trees over all those features, each part's label its
  share of right candidates less its problem's mean (a non-linear decision on the same evidence);
- with ``--population``: every distinct program of the problem (all samples, not only the contenders) runs on the
  separating inputs (sandboxed, through the execution cache), and ``POPULATION_FEATURES`` say how many samples
  return what the part returns there; scored as a part model over the part features and them, and as a fixed vote
  (the part the most samples agree with first, the larger part among equals).

Printed: ``learned_examples``' pick (before the step) and, per decision, the share of the random → oracle gap closed
on the means over model families (base, plus), and the folders better / worse than ``size`` beyond their 95 % paired
interval; then the ceilings (an ideal choice among the step's parts, among all its contenders) and the search's cost
(programs × inputs per problem it looked at).

    python bench/part_learners.py 'runs/recommended/*/runs/*' --cache-dir C --edges returned
    python bench/part_learners.py 'runs/recommended/*/runs/*' --cache-dir C --edges returned --edge-inputs 20 \\
        --step 40 --unbounded
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from coderank_evalplus import metrics
from coderank_evalplus.engine.sandbox.canonical import digest_value
from coderank_evalplus.rankers.learned import FeatureSpec
from coderank_evalplus.report.scores import problem_scores, splits_of
from coderank_evalplus.selection.parts import EDGE_SPEC, LOG_FEATURES, SPEC, first_then_size
from coderank_evalplus.selection.search import EDGE_INPUTS, EDGE_RULES, STEP
from coderank_evalplus.stats import paired_difference, resample_indices
from coderank_evalplus.study.learned_loso import LABEL_SPLIT, folds, gap_closed
from coderank_evalplus.study.select_loso import (
    _ranking,
    after,
    ceiling,
    family_mean,
    folder_decisions,
    heldout_parts,
    helped_hurt,
    parse_folders,
    run_limits,
    sandboxes,
)
from coderank_evalplus.types import RETURNED

OUTPUT_FEATURES = ("empty", "lone_empty", "value_beside_empty", "raised", "alone")
OUTPUT_DOC = {
    "empty": "share of the separating inputs on which the part returns an empty value or None",
    "lone_empty": "... an empty value or None while most of the contenders' samples return another value",
    "value_beside_empty": "... a non-empty value where another part returns an empty value or None",
    "raised": "... raises or times out",
    "alone": "... returns what no other part returns",
}
POPULATION_FEATURES = ("population_agreement", "outside_agreement")
POPULATION_DOC = {
    "population_agreement": "mean over the separating inputs of the problem's samples (all of them) that return what "
                            "the part returns there",
    "outside_agreement": "the same over the samples outside the contenders",
}
POP_SPEC = FeatureSpec("select_parts_population", SPEC.features + POPULATION_FEATURES, LOG_FEATURES,
                       {**SPEC.doc, **POPULATION_DOC}, Path("part_model_population.json"))
OUT_SPEC = FeatureSpec("select_parts_outputs", EDGE_SPEC.features + OUTPUT_FEATURES, LOG_FEATURES,
                       {**EDGE_SPEC.doc, **OUTPUT_DOC}, Path("part_model_outputs.json"))
_EMPTY = [str(digest_value(v)) for v in ("", [], (), {}, set(), None)]


def output_features(rec: dict) -> np.ndarray:
    """``OUTPUT_FEATURES`` of each part of one problem's record (its ``outputs``, ``select_loso.part_outputs``)."""
    o, parts = rec["outputs"], rec["parts"]
    w = np.asarray([len(p) for p in parts], dtype=float)
    w /= w.sum()
    kinds, outs = np.asarray(o["kinds"]), np.asarray(o["outs"])
    sep = np.flatnonzero(np.asarray(o["separating"], dtype=bool))
    if sep.size == 0:
        return np.zeros((len(parts), len(OUTPUT_FEATURES)))
    kinds, outs = kinds[:, sep], outs[:, sep]
    returned = kinds == RETURNED
    empty = returned & np.isin(outs, _EMPTY)
    value = returned & ~empty
    most_value = (w[:, None] * value).sum(axis=0) > 0.5
    same = (outs[:, None, :] == outs[None, :, :]) & (kinds[:, None, :] == kinds[None, :, :])
    alone = same.sum(axis=1) == 1  # part i shares input j's output with no other part
    return np.column_stack([empty.mean(axis=1), (empty & most_value).mean(axis=1),
                            (value & empty.any(axis=0)).mean(axis=1), (~returned).mean(axis=1),
                            alone.mean(axis=1)])


def with_outputs(records: dict[int, list[dict]]) -> dict[int, list[dict]]:
    """The records with ``OUTPUT_FEATURES`` appended to each split problem's ``X`` (``OUT_SPEC``'s columns)."""
    return {k: [dict(r, X=np.hstack([np.asarray(r["X"]), output_features(r)]).tolist()) if r.get("parts") else r
                for r in recs] for k, recs in records.items()}


def with_population(sets: list, records: dict[int, list[dict]], cache_dir: Path, workers: int
                    ) -> dict[int, list[dict]]:
    """The records with ``POPULATION_FEATURES`` after ``SPEC``'s columns of each split problem's ``X``
    (``POP_SPEC``'s): each folder's split problems run in one execution, every distinct sample text on its separating
    inputs (the execution cache keeps them: a second run executes nothing)."""
    from coderank_evalplus.engine.execution.execute import ProblemWork, execute
    from coderank_evalplus.selection.stored import recorded_texts
    from coderank_evalplus.types import TestSuite

    out: dict[int, list[dict]] = {}
    with sandboxes(cache_dir, workers) as (cache, executor):
        for sf in sets:
            texts = recorded_texts(sf.run)
            split = [(sp, r) for sp, r in zip(sf.run.problems, records[id(sf)]) if len(r.get("parts") or []) >= 2]
            works = [ProblemWork(sp.problem, list(dict.fromkeys(texts[sp.problem.task_id])), TestSuite(inputs=[
                c for c, s in zip(r["outputs"]["calls"], r["outputs"]["separating"]) if s])) for sp, r in split]
            done = execute(works, cache, run_limits(sf), workers, progress=False, executor=executor)
            features = {}
            for w, (sp, r) in zip(works, split):
                ex = done[w.problem.task_id]
                row = {t: int(ex.program_of_candidate[i]) for i, t in enumerate(w.programs)}
                samples = np.asarray([row[t] for t in texts[sp.problem.task_id]])
                outside = np.ones(len(samples), dtype=bool)
                outside[[c for g in r["contenders"] for c in g]] = False
                kinds, outs = np.asarray(ex.output_kind), np.asarray(ex.output_matrix)
                rows = []
                for t in r["outputs"]["programs"]:
                    same = (kinds[samples] == kinds[row[t]]) & (outs[samples] == outs[row[t]])  # samples × inputs
                    rows.append([same.mean(), same[outside].mean() if outside.any() else 0.0])
                features[sp.problem.task_id] = np.asarray(rows)
            out[id(sf)] = [dict(r, X=np.hstack([np.asarray(r["X"])[:, :len(SPEC.features)],
                                                features[sp.problem.task_id]]).tolist())
                           if len(r.get("parts") or []) >= 2 else r
                           for sp, r in zip(sf.run.problems, records[id(sf)])]
    return out


def population_vote(raw: np.ndarray) -> np.ndarray:
    """Scores of the fixed vote: the part most samples agree with first, the larger part among equals (``raw``:
    ``POP_SPEC``'s columns)."""
    return first_then_size(raw[:, POP_SPEC.features.index("population_agreement")], raw[:, 0])


def boosted(sets: list, records: dict[int, list[dict]], spec: FeatureSpec) -> dict[str, Callable]:
    """{family: a part scorer (raw ``spec`` features → scores)}: gradient-boosted trees fitted on the other
    families' split problems, label a part's share of right candidates on plus less its problem's mean."""
    from sklearn.ensemble import GradientBoostingRegressor

    out = {}
    for model, _, train in folds(sets):
        X, y = [], []
        for sf in train:
            split = LABEL_SPLIT if LABEL_SPLIT in splits_of(sf.run) else "base"  # as the part models' labels
            for sp, r in zip(sf.run.problems, records[id(sf)]):
                if len(r.get("parts") or []) < 2:
                    continue
                q = np.asarray([sp.correct(split)[p].mean() for p in r["parts"]])
                X.append(np.asarray(r["X"])[:, :len(spec.features)])
                y.append(q - q.mean())
        reg = GradientBoostingRegressor(n_estimators=150, max_depth=3, learning_rate=0.05, subsample=0.8,
                                        random_state=0).fit(np.vstack(X), np.concatenate(y))
        out[model] = lambda raw, reg=reg: np.round(reg.predict(raw), 12)  # raw: ``spec``'s columns (``after``)
    return out


def per_problem(sets: list, decisions: dict[str, tuple[dict, Callable]]) -> dict:
    """{(folder label, split): {decision or ceiling: per-problem pass@1}} with random's and the oracle's."""
    out = {}
    for sf in sets:
        base = problem_scores(sf.run, ["random", "oracle"])
        n = [sp.executions.n_candidates for sp in sf.run.problems]
        for split in splits_of(sf.run):
            correct = [sp.correct(split) for sp in sf.run.problems]
            scores = {"random": base["random"][split], "oracle": base["oracle"][split]}
            for name, (records, pick) in decisions.items():
                recs = records[id(sf)]
                scores[name] = np.asarray([metrics.ranked_pass_at_k(pick(sf, r, k), c, 1)
                                           for r, k, c in zip(recs, n, correct)])
            recs = decisions["size"][0][id(sf)]
            before = [metrics.ranked_pass_at_k(_ranking(r), c, 1) for r, c in zip(recs, correct)]
            scores["learned_examples"] = np.asarray(before)
            for among in ("ideal_part", "ideal_contender"):
                scores[among] = np.asarray([ceiling(r, c, b, among) for r, c, b in zip(recs, correct, before)])
            out[(sf.label, sf.model, split)] = scores
    return out


def summary(table: dict, names: list[str], split: str, resamples: int) -> None:
    """The share of the gap each decision closes on the family means, and folders better / worse than size."""
    rows = []
    for (label, family, s), scores in table.items():
        if s == split:
            idx = resample_indices(len(scores["size"]), resamples, 0)
            rows.append({"set": label, "model": family, "scores": scores, "minus_size": {
                k: paired_difference(scores[k], scores["size"], idx).to_json() for k in names}})
    fams = list(dict.fromkeys(r["model"] for r in rows))
    mean = {k: 100 * family_mean(rows, fams, lambda r, k=k: float(np.mean(r["scores"][k]))) for k in rows[0]["scores"]}
    print(f"\n{split}: random {mean['random']:.2f}, oracle {mean['oracle']:.2f} (means over {len(fams)} families)")
    print("| decision | pass@1 | share of the gap | folders better / worse than size |\n|---|---:|---:|---:|")
    for k in ("learned_examples", *names, "ideal_part", "ideal_contender"):
        g = gap_closed(mean[k], mean["random"], mean["oracle"])
        if k in names:
            c = helped_hurt(rows, "minus_size", k, "better", "worse")
            extra = f"{c['better']} / {len(c['worse'])}"
        else:
            extra = "(reads the verdicts)" if "ideal" in k else "(no step)"
        print(f"| {k} | {mean[k]:.2f} | {g:.3f} | {extra} |")


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--cache-dir", required=True, help="the execution cache (executions.sqlite inside)")
    ap.add_argument("--decisions-dir", help="the step's findings per folder (default: CACHE_DIR/select_loso)")
    ap.add_argument("--edges", choices=EDGE_RULES, default="returned",
                    help="the search's edge inputs and their validity rule (as bench/select_loso.py's; the step ships "
                         "with off)")
    ap.add_argument("--edge-inputs", type=int, default=EDGE_INPUTS, help="edge inputs per problem at most")
    ap.add_argument("--step", type=int, default=STEP, help="inputs the search grows per round")
    ap.add_argument("--unbounded", action="store_true",
                    help="let the search run more items than the execution phase did (the step ships bounded)")
    ap.add_argument("--workers", type=int, default=2, help="sandbox workers")
    ap.add_argument("--resamples", type=int, default=2000, help="paired bootstrap resamples per folder")
    ap.add_argument("--population", action="store_true",
                    help="also run every sample on the separating inputs and score decisions that read how many "
                         "samples agree with each part")
    t0 = time.perf_counter()
    args, sets, rankers = parse_folders(ap, argv)
    records = folder_decisions(sets, rankers, Path(args.cache_dir), args.decisions_dir, args.workers,
                               edges=args.edges, edge_inputs=args.edge_inputs, step=args.step,
                               bounded=not args.unbounded)
    rich = with_outputs(records)
    models = {spec.name: heldout_parts(sets, rich, spec) for spec in (SPEC, EDGE_SPEC, OUT_SPEC)}
    trees = boosted(sets, rich, OUT_SPEC)

    def linear(spec: FeatureSpec) -> Callable:
        return lambda sf, r, k: after(r, k, models[spec.name][sf.model], spec)

    decisions = {"size": (records, lambda sf, r, k: after(r, k, None)),
                 "part model": (rich, linear(SPEC)), "+ edge features": (rich, linear(EDGE_SPEC)),
                 "+ output features": (rich, linear(OUT_SPEC)),
                 "boosted trees": (rich, lambda sf, r, k: after(r, k, trees[sf.model], OUT_SPEC))}
    if args.population:
        population = with_population(sets, records, Path(args.cache_dir), args.workers)
        pop_models = heldout_parts(sets, population, POP_SPEC)
        decisions["part model + population"] = (population, lambda sf, r, k: after(r, k, pop_models[sf.model],
                                                                                    POP_SPEC))
        decisions["population vote"] = (population, lambda sf, r, k: after(r, k, population_vote, POP_SPEC))
    table = per_problem(sets, decisions)
    looked = [r for recs in records.values() for r in recs if "contenders" in r]
    items = sum(r["cost"]["programs"] * r["cost"]["inputs"] for r in looked) / max(len(looked), 1)
    print(f"{len(sets)} folders; search: edges {args.edges} ({args.edge_inputs} at most), {args.step} inputs per round"
          f", {'unbounded' if args.unbounded else 'bounded by the execution phase'}; {len(looked)} problems looked "
          f"at, {items:.0f} programs × inputs each on average; {time.perf_counter() - t0:.0f} s")
    for split in ("base", "plus"):
        summary(table, [k for k in decisions if k != "size"] + ["size"], split, args.resamples)
    return 0


if __name__ == "__main__":
    sys.exit(main())
