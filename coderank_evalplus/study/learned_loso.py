"""Leave-one-set-out evaluation of the ``learned`` ranker, and the training of its shipped model, from results folders.

A *set* is one model's samples with every test pool it was run with (one results folder per pool). For each set S
the model is trained on every folder whose model is not S's model — never on S, never on another folder of the
same model (``folds`` asserts it) — and S's folders are scored with it. Models are told apart by family
(``model_key``: ``gpt-3.5-turbo`` and ``gpt-3.5-turbo-0125`` are one model, so are two sizes of CodeLlama), which
only ever removes training data. Nothing is executed: features come from the stored matrices, labels from the
stored verdicts. The shipped model is trained only on folders whose samples and tests both come from permissively
licensed sources (``permissive``).
"""

from __future__ import annotations

import glob
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

import numpy as np

from coderank_evalplus import metrics
from coderank_evalplus.io.results_folder import ResultsFolderError, StoredRun, load_folder
from coderank_evalplus.rankers import learned, learned_examples
from coderank_evalplus.rankers.learned import (
    ClusterTable,
    FeatureSpec,
    cluster_quality,
    fit_pairwise,
    model_vector,
    table_ranking,
)
from coderank_evalplus.report.scores import problem_scores, splits_of
from coderank_evalplus.stats import mean_estimate, paired_difference, resample_indices

LABEL_SPLIT = "plus"  # training labels: the stricter verdicts (base where a folder has no plus tests); fixed a priori
# each learned ranker's feature spec and the function that computes its cluster tables from one problem's executions
TABLES = {learned.SPEC.name: (learned.SPEC, learned.cluster_features),
          learned_examples.SPEC.name: (learned_examples.SPEC, learned_examples.cluster_features)}
FAMILIES = ("codegen", "davinci", "codellama", "gpt-3.5", "gpt-4", "deepseek", "incoder", "starcoder", "wizard")
# Source files (by name) whose licence lets a model trained on them ship in the package (../shared/data/SOURCES.md):
# CodeT's CodeGen-16B HumanEval files (MIT; also copied as the package's examples), code-bert-score's
# code-davinci-002 samples (MIT), reflexion's GPT-4 asserts (MIT) and LLMgenCode's CodeLlama pools (MIT).
PERMISSIVE_SOURCES = ("HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_", "codegen16b_humaneval_",
                      "codex-davinci-002_n200_t0.8", "gpt-4_reflexion", "gpt4_humaneval_tests",
                      "codellama-34b-instruct_io100", "codellama-7b-instruct_io100")


def model_key(name: str) -> str:
    """The model family of an entry name (``codellama-34B-instruct`` → ``codellama``); unknown names as they are."""
    low = name.lower()
    return next((f for f in FAMILIES if f in low), low)


@dataclass
class SetFolder:
    """One results folder read for the learned ranker: its features per problem and its stored run."""

    name: str
    tests_label: str
    folder: Path
    run: StoredRun
    tables: list[ClusterTable] = field(default_factory=list)
    sources: tuple[str, ...] = ()

    @property
    def model(self) -> str:
        return model_key(self.name)

    @property
    def label(self) -> str:
        return f"{self.name} × {self.tests_label} ({self.run.dataset})"

    def quality(self, split: str) -> list[np.ndarray]:
        s = split if split in splits_of(self.run) else "base"
        return [cluster_quality(t, sp.correct(s)) for t, sp in zip(self.tables, self.run.problems)]


def permissive(sf: SetFolder) -> bool:
    """Both the samples and the tests of the folder come from a permissively licensed source. A built-in
    ``examples+mutate`` pool counts: it is grown from the benchmark's own prompts (HumanEval MIT, evalplus
    Apache-2.0), no third party's file."""
    return len(sf.sources) == 2 and all(
        any(p in Path(s).name for p in PERMISSIVE_SOURCES) or (k == 1 and _built_in_pool(s))
        for k, s in enumerate(sf.sources))


def _built_in_pool(source: str) -> bool:
    from coderank_evalplus.testgen.mutate import parse_source

    try:
        return parse_source(source) is not None
    except ValueError:
        return False


def read_folder(folder: str | Path, with_tables: bool = True, ranker: str = "learned") -> SetFolder:
    """One folder; ``with_tables``: with the cluster features of the learned ``ranker`` per problem (other readers
    skip them)."""
    run = load_folder(folder)
    entry = run.summary.get("entry") or {}
    inputs = run.summary.get("inputs") or {}
    # a leaderboard's folders name their entry; a plain `rerank --output <name>--<pool>` folder is named so by hand
    default_name, _, default_label = Path(folder).name.partition("--")
    name = entry.get("name") or default_name
    label = entry.get("tests_label") or default_label.replace("_", " ") or Path(str(inputs.get("tests", ""))).name
    sf = SetFolder(name, label, Path(folder), run,
                   sources=tuple(str(inputs[k]) for k in ("solutions", "tests") if inputs.get(k)))
    if with_tables:
        features = TABLES[ranker][1]
        sf.tables = [features(sp.executions) for sp in run.problems]
    return sf


def read_folders(folders: Iterable[str | Path], with_tables: bool = True, ranker: str = "learned") -> list[SetFolder]:
    """The complete folders (``rerank_results.json`` present) that the paths or glob patterns name, in sorted order,
    read once each; (name, pool, dataset) repeats dropped."""
    out, seen = [], set()
    for f in sorted({p for pat in map(str, folders) for p in (glob.glob(pat) or [pat])}):
        try:
            sf = read_folder(f, with_tables, ranker)
        except ResultsFolderError:
            continue
        key = (sf.name, sf.tests_label, sf.run.dataset)
        if key not in seen:
            seen.add(key)
            out.append(sf)
    return out


def folds(sets: Sequence[SetFolder]) -> list[tuple[str, list[SetFolder], list[SetFolder]]]:
    """(model, its folders to score, folders to train on) for every model; training never sees that model."""
    out = []
    for model in dict.fromkeys(s.model for s in sets):
        scored = [s for s in sets if s.model == model]
        train = [s for s in sets if s.model != model]
        assert all(t.model != model and all(t is not s for s in scored) for t in train), "LOSO leak"
        out.append((model, scored, train))
    return out


def train(sets: Sequence[SetFolder], exclude_model: Optional[str] = None, note: Optional[str] = None,
          spec: FeatureSpec = learned.SPEC) -> dict:
    """A model fitted on ``sets`` (their tables: ``spec``'s features); ``exclude_model``: raise if any of them is of
    that model."""
    if exclude_model is not None and any(s.model == exclude_model for s in sets):
        raise AssertionError(f"training on a set of the scored model {exclude_model!r}")
    tables = [t for s in sets for t in s.tables]
    quality = [q for s in sets for q in s.quality(LABEL_SPLIT)]
    names = [{"name": s.name, "tests": s.tests_label, "dataset": s.run.dataset, "problems": len(s.tables),
              "license": "permissive" if permissive(s) else "not permissive"} for s in sets]
    return fit_pairwise(tables, quality, names, note=note, spec=spec)


def train_shipped(sets: Sequence[SetFolder], spec: FeatureSpec = learned.SPEC) -> dict:
    """The model to ship: trained on the permissively licensed folders of ``sets`` only."""
    chosen = [s for s in sets if permissive(s)]
    if not chosen:
        raise ValueError("no permissively licensed folder among the given ones: nothing may train the shipped model")
    model = train(chosen, note="trained on permissively licensed folders only (study/learned_loso.py)", spec=spec)
    assert all(t["license"] == "permissive" for t in model["training_sets"])
    return model


def learned_scores(sf: SetFolder, model: dict) -> dict[str, np.ndarray]:
    """{split: learned's pass@1 per problem} on one folder with ``model``."""
    vector = model_vector(model)
    out = {}
    for split in splits_of(sf.run):
        out[split] = np.asarray([metrics.ranked_pass_at_k(table_ranking(t, vector), sp.correct(split), 1)
                                 for t, sp in zip(sf.tables, sf.run.problems)])
    return out


def loso_rows(sets: Sequence[SetFolder], baselines: Sequence[str], n_resamples: int = 2000,
              seed: int = 0) -> list[dict]:
    """One row per scored folder × split: pass@1 (with interval) of learned and each baseline, learned − baseline
    paired differences, and which models trained it."""
    rows = []
    for model, scored, train_sets in folds(sets):
        fitted = train(train_sets, exclude_model=model)
        assert model not in {model_key(t["name"]) for t in fitted["training_sets"]}, "LOSO leak"
        for sf in scored:
            ours = learned_scores(sf, fitted)
            theirs = problem_scores(sf.run, ["random", *baselines])
            idx = resample_indices(len(sf.tables), n_resamples, seed)
            for split in splits_of(sf.run):
                row: dict[str, Any] = {"set": sf.label, "model": model, "split": split, "n_problems": len(sf.tables),
                                       "trained_on": sorted({t.model for t in train_sets}),
                                       "pass@1": {"learned": mean_estimate(ours[split], idx).to_json()},
                                       "learned_minus": {}}
                for b in ["random", *baselines]:
                    row["pass@1"][b] = mean_estimate(theirs[b][split], idx).to_json()
                    row["learned_minus"][b] = paired_difference(ours[split], theirs[b][split], idx).to_json()
                if "srank" in baselines:  # how far below srank each method falls (the rule for `recommended`)
                    ref = theirs["srank"][split]
                    row["minus_srank"] = {b: paired_difference(theirs[b][split], ref, idx).to_json()
                                          for b in baselines if b != "srank"}
                    row["minus_srank"]["learned"] = row["learned_minus"]["srank"]
                row["weights"] = fitted["weights"]
                rows.append(row)
    return rows


# --- issue 40: the default pick (learned_examples) against the trial-test compositions ------------------------------
COMPOSITIONS = ("filter+srank", "filter+overlap_agreement", "filter+mbr_exec")  # the best fixed ones (docs/results.md)


def heldout_models(sets: Sequence[SetFolder], spec: FeatureSpec) -> dict[str, dict]:
    """{model family: a model of ``spec`` trained on every other family's folders} — what scores that family."""
    out = {}
    for model, _, train_sets in folds(sets):
        out[model] = train(train_sets, exclude_model=model, spec=spec)
        assert model not in {model_key(t["name"]) for t in out[model]["training_sets"]}, "LOSO leak"
    return out


def gap_closed(ours: float, random: float, oracle: float) -> Optional[float]:
    """Share of the random → oracle gap a pick closes (None when there is no gap)."""
    return (ours - random) / (oracle - random) if oracle - random > 1e-9 else None


def recommended_rows(sets: Sequence[SetFolder], models: dict[str, dict], others: Sequence[str] = ("srank", "learned"),
                     compositions: Sequence[str] = COMPOSITIONS, name: str = "learned_examples",
                     n_resamples: int = 2000, seed: int = 0) -> list[dict]:
    """One row per folder × split: pass@1 (with interval) of the held-out ``name`` (each folder scored by the model
    of ``models`` that never saw its family), of random, the oracle, each composition and ``others``; ``name`` −
    each composition and − the folder's best composition (paired, 95 % interval); the share of the random → oracle
    gap each pick closes."""
    rows = []
    for sf in sets:
        ours = learned_scores(sf, models[sf.model])
        theirs = problem_scores(sf.run, ["random", "oracle", *compositions, *others])
        idx = resample_indices(len(sf.tables), n_resamples, seed)
        for split in splits_of(sf.run):
            scores = {name: ours[split], **{m: v[split] for m, v in theirs.items()}}
            # the ceiling of any ranker of these clusters: the best cluster of each problem (labels used)
            scores["best_cluster"] = np.asarray([float(q.max()) if len(q) else float(sp.correct(split).mean())
                                                 for q, sp in zip(sf.quality(split), sf.run.problems)])
            est = {m: mean_estimate(v, idx).to_json() for m, v in scores.items()}
            best = max(compositions, key=lambda m: est[m]["pass@1"])
            samples = int(np.median([p.executions.n_candidates for p in sf.run.problems]))
            trained_on = sorted({model_key(t["name"]) for t in models[sf.model]["training_sets"]})
            row: dict[str, Any] = {
                "set": sf.label, "model": sf.model, "dataset": sf.run.dataset, "split": split,
                "n_problems": len(sf.tables), "samples": samples, "tests_from_examples": sf.run.tests_from_examples,
                "trained_on": trained_on, "pass@1": est, "best_composition": best,
                "minus": {m: paired_difference(scores[name], scores[m], idx).to_json()
                          for m in [*compositions, *others, "random"]},
                "gap_closed": {m: gap_closed(est[m]["pass@1"], est["random"]["pass@1"], est["oracle"]["pass@1"])
                               for m in [name, *compositions, *others]}}
            row["minus_best"] = row["minus"][best]
            rows.append(row)
    return rows


def family_means(rows: Sequence[dict], methods: Sequence[str], split: str) -> dict[str, float]:
    """Mean pass@1 per method over model families (a family's folders averaged first) on ``split``."""
    sub = [r for r in rows if r["split"] == split]
    fams = list(dict.fromkeys(r["model"] for r in sub))
    return {m: float(np.mean([np.mean([r["pass@1"][m]["pass@1"] for r in sub if r["model"] == f]) for f in fams]))
            for m in methods}
