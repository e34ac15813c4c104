"""Leave one family out: the default pick with the selection step (``recommended``) against the pick without it
(``learned_examples``), and the rule that orders the step's parts (``selection.parts``), on results folders.

Two passes. ``decisions`` (executes, through the execution cache): for one folder, every problem ranked by
``learned_examples`` weights trained without the folder's family (``learned_loso.heldout_models``), then the step's
contenders and search on every problem at once (``selection.differential.decide_all``, as a run does it); what it found
is kept as JSON (``Decision`` records: the ranking, the contenders, the parts and their features). ``rows`` (reads
only): per folder and split, pass@1 of the pick before the step, after it with the parts ordered by size (the rule
the step shipped with), and after it with the parts ordered by a part model trained on the other families' folders
(``train_parts``: pairwise logistic on the parts of the problems the step split, labels the parts' share of
correct candidates on plus tests, as ``learned``'s); paired 95 % intervals of the differences, the share of the
random → oracle gap each closes. No constant is fitted on the folders it is scored on.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Optional, Sequence

import numpy as np

from coderank_evalplus import metrics
from coderank_evalplus.engine.execution.execute import ProblemWork
from coderank_evalplus.io.results_folder import ranking_arrays, ranking_from_arrays
from coderank_evalplus.rankers.learned import (
    ClusterTable,
    FeatureSpec,
    design,
    fit_pairwise,
    model_vector,
    table_ranking,
)
from coderank_evalplus.report.curves import folder_hash
from coderank_evalplus.report.scores import problem_scores, splits_of
from coderank_evalplus.selection import SelectEnv
from coderank_evalplus.selection.contenders import Contenders
from coderank_evalplus.selection.differential import Decision, decide_all, reordered
from coderank_evalplus.selection.parts import (
    EDGE_SPEC,
    SPEC,
    edge_features,
    edge_first,
    order,
    part_features,
    part_scores,
)
from coderank_evalplus.selection.search import EDGE_INPUTS, EDGES, STEP
from coderank_evalplus.stats import mean_estimate, paired_difference, resample_indices
from coderank_evalplus.study.learned_loso import LABEL_SPLIT, SetFolder, folds, gap_closed, permissive
from coderank_evalplus.types import Ranking

if TYPE_CHECKING:
    from coderank_evalplus.engine.execution.execute import ResultCache
    from coderank_evalplus.engine.execution.executors import WarmExecutor
    from coderank_evalplus.engine.sandbox import Limits

CACHE_VERSION = 7  # bump when a change here (or in the step) changes what ``decisions`` records
# the pick without the step; with it, parts by size; by the part model; by the part model with edge features; by
# the fixed rule that puts the parts that return on the edge inputs first (``parts.edge_first``)
RULES = ("before", "size", "model", "model_edges", "edge_first")
STEPPED = RULES[1:]
CEILINGS = ("ideal_part", "ideal_contender")  # verdicts read: what a decision alone could reach (``ceiling``)


def decisions(sf: SetFolder, ranker: dict, env: SelectEnv, texts: Mapping[str, Sequence[str]],
              cache_dir: Optional[Path] = None, edges: str = EDGES, edge_inputs: int = EDGE_INPUTS,
              step: int = STEP, bounded: bool = True) -> list[dict]:
    """One record per problem of ``sf`` (its ``tables``: ``learned_examples``'s): ``before`` (the held-out
    ranking, ``ranking_arrays``' lists), and where the step looked (its search under the edge rule ``edges``, with
    at most ``edge_inputs`` edge inputs, ``step`` inputs grown per round, ``bounded`` by the execution phase's
    items as the step ships or not: ``differential.decide_all``'s arguments):
    ``contenders`` (its groups), ``reason``, ``cost``, ``parts`` (empty where nothing separated), their raw
    features ``X`` (``EDGE_SPEC``'s columns: ``SPEC``'s first) and ``outputs`` (``part_outputs``). Kept under
    ``cache_dir`` keyed by the folder's content, the ranker's digest, the search's arguments and this module's
    version."""
    path = None
    if cache_dir is not None:
        h = folder_hash(sf.folder)
        key = [ranker.get("digest"), CACHE_VERSION, list(EDGE_SPEC.features), edges]
        key += [edge_inputs] if edge_inputs != EDGE_INPUTS else []
        key += [step, bounded] if (step, bounded) != (STEP, True) else []
        h.update(json.dumps(key).encode())
        path = Path(cache_dir) / f"decisions-{h.hexdigest()[:20]}.json"
        if path.exists():
            return json.loads(path.read_text())
    vector = model_vector(ranker)
    env.seed = sf.run.seed
    rankings = [table_ranking(t, vector, "learned_examples") for t in sf.tables]
    items = [(ProblemWork(sp.problem, list(texts[sp.problem.task_id])), sp.executions, r)
             for sp, r in zip(sf.run.problems, rankings)]
    out = []
    found = decide_all(items, env, step=step, bounded=bounded, edges=edges, edge_inputs=edge_inputs)
    for sp, ranking, d in zip(sf.run.problems, rankings, found):
        rec: dict[str, Any] = {"task_id": sp.problem.task_id, "before": _ranking_json(ranking, sp)}
        if d is not None:
            rec.update(contenders=d.contenders.groups, reason=d.contenders.reason,
                       cost=d.found.cost.to_json(), parts=d.parts,
                       X=np.hstack([part_features(d.contenders, d.found, d.parts, d.programs, sp.executions),
                                    edge_features(d.found, d.parts, d.programs)]).tolist() if d.parts else [])
            if d.parts:
                rec["outputs"] = part_outputs(d)
        out.append(rec)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(out))
        tmp.replace(path)
    return out


def part_outputs(d: Decision) -> dict[str, list]:
    """What each part of a decision returned on the search's inputs, for features tried after the fact
    (``bench/part_learners.py``): the inputs (``calls``) and their masks (``valid``, ``separating``, ``edge``), and
    per part (one row: a part's candidates agree on every input) the output kinds and digests (as text: JSON has no
    64-bit integers) and the text that ran for it (``programs``)."""
    f = d.found
    assert f.ex is not None
    row_of = {p: i for i, p in enumerate(f.ex.programs)}
    texts = [d.programs[p[0]] for p in d.parts]
    rows = [row_of[t] for t in texts]
    return {"calls": list(f.calls), "programs": texts,
            "valid": f.valid.tolist(), "separating": f.separating.tolist(),
            "edge": f.edge.tolist() if f.edge.size else [False] * len(f.calls),
            "kinds": np.asarray(f.ex.output_kind)[rows].tolist(),
            "outs": [[str(v) for v in row] for row in np.asarray(f.ex.output_matrix)[rows]]}


def heldout_folders(patterns: Sequence[str]) -> tuple[list[SetFolder], dict[str, dict]]:
    """The complete results folders that ``patterns`` name and each family's ``learned_examples`` weights trained on
    the other families' (``learned_loso.heldout_models``); a ValueError, naming the patterns, when they hold fewer
    than two model families (leaving one out needs two)."""
    from coderank_evalplus.rankers import learned_examples
    from coderank_evalplus.study.learned_loso import heldout_models, read_folders

    sets = read_folders(patterns, ranker="learned_examples")
    families = {sf.model for sf in sets}
    if len(families) < 2:
        raise ValueError(f"{len(sets)} complete results folders (rerank_results.json inside) of {len(families)} "
                         f"model families among {' '.join(patterns)}: leaving one family out needs two or more")
    return sets, heldout_models(sets, learned_examples.SPEC)


def parse_folders(ap: "argparse.ArgumentParser", argv: Optional[Sequence[str]] = None
                  ) -> tuple["argparse.Namespace", list[SetFolder], dict[str, dict]]:
    """A study script's arguments (``folders`` among them: paths or glob patterns) and ``heldout_folders``' answer;
    too few families stop the script with ``ap.error`` (exit status 2)."""
    args = ap.parse_args(argv)
    try:
        sets, rankers = heldout_folders(args.folders)
    except ValueError as e:
        ap.error(str(e))
    return args, sets, rankers


def run_limits(sf: SetFolder) -> "Limits":
    """The time limits a folder's run had (its config's ``time_limit`` per test; ``Limits``' where none is kept)."""
    from coderank_evalplus.engine.sandbox import Limits

    return Limits(cpu=float((sf.run.summary.get("config") or {}).get("time_limit", Limits.cpu)))


@contextlib.contextmanager
def sandboxes(cache_dir: Path, workers: int) -> Iterator[tuple["ResultCache", "WarmExecutor"]]:
    """The execution cache in ``cache_dir`` and one warm pool of ``workers`` sandboxes, kept for every folder a study
    runs (the pool starts with the first job), both closed at the end."""
    from coderank_evalplus.engine.execution.execute import ResultCache
    from coderank_evalplus.engine.execution.executors import WarmExecutor

    cache = ResultCache(Path(cache_dir) / "executions.sqlite")
    executor = WarmExecutor(workers)
    try:
        yield cache, executor
    finally:
        executor.__exit__(None, None, None)
        cache.close()


def folder_decisions(sets: Sequence[SetFolder], rankers: dict[str, dict], cache_dir: Path,
                     decisions_dir: Optional[Path] = None, workers: int = 2, **search: Any) -> dict[int, list[dict]]:
    """``decisions`` of every folder (keyed by ``id`` of the folder), through the execution cache in ``cache_dir``
    and one warm pool of sandboxes (``sandboxes``); ``search``: ``decisions``' search arguments. Each folder's time
    goes to stderr."""
    import sys
    import time

    from coderank_evalplus.selection.stored import recorded_texts

    kept = Path(decisions_dir or Path(cache_dir) / "select_loso")
    out: dict[int, list[dict]] = {}
    with sandboxes(cache_dir, workers) as (cache, executor):
        for sf in sets:
            t0 = time.perf_counter()
            env = SelectEnv(cache, run_limits(sf), workers, executor)
            out[id(sf)] = decisions(sf, rankers[sf.model], env, recorded_texts(sf.run), kept, **search)
            print(f"{sf.label}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return out


def _ranking_json(ranking: Ranking, sp) -> dict:
    return {k: v.tolist() for k, v in ranking_arrays(ranking, sp.executions.n_candidates).items()}


def _ranking(rec: dict) -> Ranking:
    b = rec["before"]
    return ranking_from_arrays(np.asarray(b["ranking"]), np.asarray(b["fallback"]) if "fallback" in b else None)


def _X(rec: dict, spec: FeatureSpec) -> np.ndarray:
    """A record's part features as ``spec`` reads them (its first columns)."""
    return np.asarray(rec["X"], dtype=float)[:, :len(spec.features)]


def after(rec: dict, n_candidates: int, model: "Optional[dict] | Callable[[np.ndarray], np.ndarray]",
          spec: FeatureSpec = SPEC) -> Ranking:
    """The ranking after the step, its parts ordered by ``model`` over ``spec``'s features: a part model, a
    function of the raw features that scores the parts (``parts.edge_first`` over ``EDGE_SPEC``'s), or None (by
    size)."""
    ranking = _ranking(rec)
    if not rec.get("parts"):
        return ranking
    scores = model(_X(rec, spec)) if callable(model) else part_scores(_X(rec, spec), model, spec)
    parts, ordered = order(rec["parts"], scores)
    return reordered(ranking, Contenders([list(g) for g in rec["contenders"]]), parts, n_candidates, ordered)


def ceiling(rec: dict, correct: np.ndarray, before: float, among: str) -> float:
    """pass@1 of an ideal decision on one problem, reading its verdicts (``correct``): ``ideal_part`` keeps the step's
    part with the largest share of right candidates (``before`` where nothing split), ``ideal_contender`` a right
    contender whenever one is (``before`` where the step did not look). Bounds, never picks: they say whether a
    better decision alone could close the gap, or only other inputs."""
    if among == "ideal_part":
        parts = rec.get("parts") or []
        return max(float(correct[p].mean()) for p in parts) if parts else before
    groups = rec.get("contenders")
    return float(any(correct[c] for g in groups for c in g)) if groups else before


def part_tables(sf: SetFolder, records: Sequence[dict], split: str = LABEL_SPLIT, spec: FeatureSpec = SPEC
                ) -> tuple[list[ClusterTable], list[np.ndarray]]:
    """The parts of every problem the step split (two parts or more), as tables of ``SPEC``'s design, and each
    part's share of correct candidates on ``split`` (base where the folder has no plus)."""
    s = split if split in splits_of(sf.run) else "base"
    tables, quality = [], []
    for sp, rec in zip(sf.run.problems, records):
        if len(rec.get("parts") or []) < 2:
            continue
        tables.append(ClusterTable(rec["parts"], design(_X(rec, spec), spec)))
        correct = sp.correct(s)
        quality.append(np.asarray([float(correct[p].mean()) for p in rec["parts"]]))
    return tables, quality


def train_parts(sets: Sequence[SetFolder], records: dict[int, list[dict]], exclude_model: Optional[str] = None,
                note: Optional[str] = None, spec: FeatureSpec = SPEC) -> dict:
    """A part model over ``spec``'s features fitted on the parts of ``sets`` (``records`` keyed by ``id`` of the
    folder)."""
    if exclude_model is not None and any(s.model == exclude_model for s in sets):
        raise AssertionError(f"training on a set of the scored model {exclude_model!r}")
    tables, quality = [], []
    for s in sets:
        t, q = part_tables(s, records[id(s)], spec=spec)
        tables += t
        quality += q
    names = [{"name": s.name, "tests": s.tests_label, "dataset": s.run.dataset, "problems": len(s.run.problems),
              "license": "permissive" if permissive(s) else "not permissive"} for s in sets]
    return fit_pairwise(tables, quality, names, note=note, spec=spec)


def heldout_parts(sets: Sequence[SetFolder], records: dict[int, list[dict]], spec: FeatureSpec = SPEC
                  ) -> dict[str, Optional[dict]]:
    """{model family: a part model (``spec``'s features) trained on every other family's folders}; None where those
    split no problem (nothing to learn from: the family's parts are then ordered by size)."""
    out: dict[str, Optional[dict]] = {}
    for model, _, train in folds(sets):
        try:
            out[model] = train_parts(train, records, exclude_model=model, spec=spec)
        except ValueError:
            out[model] = None
    return out


def train_shipped_parts(sets: Sequence[SetFolder], records: dict[int, list[dict]]) -> dict:
    """The part model to ship: trained on the permissively licensed folders only."""
    chosen = [s for s in sets if permissive(s)]
    if not chosen:
        raise ValueError("no permissively licensed folder among the given ones: nothing may train the shipped model")
    return train_parts(chosen, records, note="trained on permissively licensed folders only (study/select_loso.py)")


def rows(sets: Sequence[SetFolder], records: dict[int, list[dict]], part_models: dict[str, Optional[dict]],
         n_resamples: int = 2000, seed: int = 0, edge_models: Optional[dict[str, Optional[dict]]] = None,
         today: Optional[dict[int, list[dict]]] = None) -> list[dict]:
    """One row per folder × split: pass@1 (with interval) of random, the oracle and each of ``RULES`` (the part
    models, without and with edge features (``edge_models``; none given: the size rule): the ones that never saw
    the folder's family), the ceilings (``CEILINGS``), the differences to ``before`` and of each model to the size
    rule (paired), the share of the random → oracle gap each closes, and the step's cost. ``today``: the records of
    the step as it ships (another edge rule's search), whose size rule (``today``) each rule is also compared
    with (``minus_today``)."""
    out = []
    for sf in sets:
        recs = records[id(sf)]
        rankings = _rule_rankings(sf, recs, part_models, edge_models or {}, None if today is None else today[id(sf)])
        idx = resample_indices(len(recs), n_resamples, seed)
        base = problem_scores(sf.run, ["random", "oracle"])
        for split in splits_of(sf.run):
            out.append(_split_row(sf, recs, rankings, _split_scores(sf, recs, rankings, base, split), split, idx))
    return out


def _rule_rankings(sf: SetFolder, recs: list[dict], part_models: dict[str, Optional[dict]],
                   edge_models: dict[str, Optional[dict]], today: Optional[list[dict]]) -> dict[str, list]:
    """Each problem's ranking before the step and after it under every rule (``today``: the step as it ships)."""
    n = [sp.executions.n_candidates for sp in sf.run.problems]
    rankings = {"before": [_ranking(r) for r in recs], "size": [after(r, k, None) for r, k in zip(recs, n)],
                "model": [after(r, k, part_models[sf.model]) for r, k in zip(recs, n)],
                "model_edges": [after(r, k, edge_models.get(sf.model), EDGE_SPEC) for r, k in zip(recs, n)],
                "edge_first": [after(r, k, edge_first, EDGE_SPEC) for r, k in zip(recs, n)]}
    if today is not None:
        rankings["today"] = [after(r, k, None) for r, k in zip(today, n)]
    return rankings


def _split_scores(sf: SetFolder, recs: list[dict], rankings: dict[str, list], base: dict, split: str
                  ) -> dict[str, np.ndarray]:
    """Per problem, on ``split``: each rule's pick's pass@1, random's and the oracle's (``base``:
    ``problem_scores``'), and the ceilings'."""
    picks = [m for m in (*RULES, "today") if m in rankings]
    scores = {m: np.asarray([metrics.ranked_pass_at_k(rk, sp.correct(split), 1)
                             for rk, sp in zip(rankings[m], sf.run.problems)]) for m in picks}
    scores.update(random=base["random"][split], oracle=base["oracle"][split])
    for c in CEILINGS:
        scores[c] = np.asarray([ceiling(r, sp.correct(split), b, c)
                                for r, sp, b in zip(recs, sf.run.problems, scores["before"])])
    return scores


def _split_row(sf: SetFolder, recs: list[dict], rankings: dict[str, list], scores: dict[str, np.ndarray], split: str,
               idx: np.ndarray) -> dict:
    """``rows``' row of one folder × split, from its per-problem ``scores`` (``_split_scores``)."""
    picks = [m for m in (*RULES, "today") if m in rankings]
    n = [sp.executions.n_candidates for sp in sf.run.problems]
    asked = [r for r in recs if "contenders" in r]
    est = {m: mean_estimate(v, idx).to_json() for m, v in scores.items()}

    def minus(a: str, b: str) -> dict:
        return paired_difference(scores[a], scores[b], idx).to_json()

    return {"set": sf.label, "model": sf.model, "dataset": sf.run.dataset, "split": split,
            "n_problems": len(recs), "pass@1": est,
            "minus_before": {m: minus(m, "before") for m in STEPPED},
            "model_minus_size": minus("model", "size"),
            "model_edges_minus_size": minus("model_edges", "size"),
            "minus_today": {m: minus(m, "today") for m in STEPPED if "today" in scores},
            "gap_closed": {m: gap_closed(est[m]["pass@1"], est["random"]["pass@1"], est["oracle"]["pass@1"])
                           for m in (*picks, *CEILINGS)},
            "undecided": len(asked), "split_problems": sum(len(r.get("parts") or []) >= 2 for r in asked),
            "changed": {m: sum(metrics.pick_pool(a, k) != metrics.pick_pool(b, k) for a, b, k in
                               zip(rankings[m], rankings["before"], n)) for m in STEPPED},
            "cost": {k: sum(r["cost"][k] for r in asked) for k in ("programs", "inputs", "executed_items", "seconds")}}


def family_summary(rows_: Sequence[dict], split: str) -> dict[str, Any]:
    """Means over model families (a family's folders averaged first) of every pick's pass@1, the gap each closes
    on those means, and the folders each rule helps or hurts beyond its interval."""
    sub = [r for r in rows_ if r["split"] == split]
    fams = list(dict.fromkeys(r["model"] for r in sub))
    means = {m: family_mean(sub, fams, lambda r, m=m: r["pass@1"][m]["pass@1"])
             for m in ("random", *RULES, *CEILINGS, "today", "oracle") if m in sub[0]["pass@1"]}
    rules = [m for m in means if m not in ("random", "oracle")]
    out: dict[str, Any] = {"split": split, "families": len(fams), "folders": len(sub), "means": means,
                           "gap_closed": {m: gap_closed(means[m], means["random"], means["oracle"]) for m in rules},
                           "per_family": {f: {m: float(np.mean([r["pass@1"][m]["pass@1"] - r["pass@1"]["before"]
                                                                ["pass@1"] for r in sub if r["model"] == f]))
                                              for m in rules if m != "before"}
                                          for f in fams}}
    for m in STEPPED:
        out[m] = helped_hurt(sub, "minus_before", m, "helped", "hurt")
        if sub[0].get("minus_today"):
            out[m].update(helped_hurt(sub, "minus_today", m, "better_than_today", "below_today"))
    for m in ("model", "model_edges"):
        out[f"{m}_vs_size"] = helped_hurt(sub, f"{m}_minus_size", None, "better", "worse")
    return out


def family_mean(sub: Sequence[dict], fams: Sequence[str], value: Any) -> float:
    """The mean over families of each family's mean ``value`` over its folders."""
    return float(np.mean([np.mean([value(r) for r in sub if r["model"] == f]) for f in fams]))


def helped_hurt(sub: Sequence[dict], field: str, rule: Optional[str], better: str, worse: str) -> dict[str, Any]:
    """How many folders a paired difference (``row[field][rule]``, or ``row[field]``) puts above 0 beyond its
    interval (``better``), and which ones it puts below (``worse``)."""
    d = [r[field] if rule is None else r[field][rule] for r in sub]
    ci = [x["ci95"] or (0.0, 0.0) for x in d]  # a folder too small for an interval is neither
    return {better: sum(lo > 0 for lo, _ in ci), worse: [r["set"] for r, (_, hi) in zip(sub, ci) if hi < 0]}
