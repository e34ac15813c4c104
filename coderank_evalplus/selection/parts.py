"""Which part of the split contenders the selection step keeps: each part's features, and the rule that orders
them (``order``).

The step splits the contenders into parts of equal outputs on the inputs it grew (``differential.parts_of``). The
rule it shipped with keeps the part with the most candidates (samples counted), so copies of one wrong program can
outvote a right one. The features here are what the step and the ranking already know about a part, all
scale-free within a problem (``PART_FEATURES``, each named in ``FEATURE_DOC``): its samples, its distinct programs,
how many copies each has, whether it comes from the pick's pool or the group after it, how often it returns a
value on the valid grown inputs, how much of the contenders return what it returns where the contenders disagree, and
the share of the prompt's examples it passes. A model over them (``part_model.json``: a pairwise logistic ranker of
parts, as ``rankers.learned`` ranks clusters; trained leave one family out, and the shipped weights on permissively
licensed folders only, ``study/select_parts.py``) gives each part a score; without a model the score is its share
of the samples, the rule the step shipped with.

On an edge input (``testgen.edges``: empty, zero, negative, large) most samples are often wrong, so size and
agreement mislead there. ``EDGE_FEATURES`` say what a part does on those inputs (returns, raises alone, returns None
alone) for a part model over ``EDGE_SPEC``, and ``edge_first`` is a fixed rule on them; both are measured by the
leave-one-family-out study, neither is the step's default.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from coderank_evalplus.engine.sandbox.canonical import digest_value
from coderank_evalplus.rankers.learned import FeatureSpec, design, load_model, model_vector
from coderank_evalplus.selection.contenders import Contenders
from coderank_evalplus.selection.search import Search
from coderank_evalplus.types import PASS, RETURNED, Executions

MODEL_FILE = Path(__file__).with_name("part_model.json")
PART_FEATURES = ("share", "programs", "copies", "in_pool", "returned", "agreement", "trial_pass")
LOG_FEATURES = ("share", "programs", "copies")  # multiplicative: enter as log(x + LOG_EPS), as learned's do
FEATURE_DOC = {
    "share": "the part's candidates (samples) / the contenders'",
    "programs": "the part's distinct programs / the contenders'",
    "copies": "samples per distinct program in the part / in the contenders (copies of one text count once here)",
    "in_pool": "1 when the part comes from the pick's pool, 0 from the group ranked after it",
    "returned": "share of the valid grown inputs on which the part returns a value (not an exception or timeout)",
    "agreement": "mean over the separating inputs of the contenders' samples that return what the part returns there",
    "trial_pass": "share of the prompt's examples the part passes (1 with none)",
}
SPEC = FeatureSpec("select_parts", PART_FEATURES, LOG_FEATURES, FEATURE_DOC, MODEL_FILE)
# What a part does on the edge inputs (``testgen.edges``), where the majority of samples is often wrong: the
# features a part model may weigh instead of trusting the larger part there (``edge_features``).
EDGE_FEATURES = ("edge_returned", "edge_agreement", "lone_failure", "lone_none")
EDGE_DOC = {
    "edge_returned": "share of the valid edge inputs on which the part returns a value (1 with none)",
    "edge_agreement": "mean over the separating edge inputs of the contenders' samples that return what the part "
                      "returns there (1 with none)",
    "lone_failure": "share of the valid inputs on which the part raises or times out while most of the contenders' "
                    "samples return",
    "lone_none": "share of the valid inputs on which the part returns None while most of the contenders' samples "
                 "return something else",
}
EDGE_SPEC = FeatureSpec("select_parts_edges", PART_FEATURES + EDGE_FEATURES, LOG_FEATURES,
                        {**FEATURE_DOC, **EDGE_DOC}, MODEL_FILE.with_name("part_model_edges.json"))


def part_features(contenders: Contenders, found: Search, parts: Sequence[Sequence[int]], programs: Sequence[str],
                  ex: Executions) -> np.ndarray:
    """The raw features (``PART_FEATURES``) of each part: ``programs`` the text that ran for each candidate,
    ``ex`` the problem's executions (the prompt's examples)."""
    assert found.ex is not None
    row_of = {p: i for i, p in enumerate(found.ex.programs)}
    kinds, outs = np.asarray(found.ex.output_kind), np.asarray(found.ex.output_matrix)
    valid = np.flatnonzero(found.valid)
    separating = np.flatnonzero(found.separating)
    everyone = [c for p in parts for c in p]
    n, n_programs = len(everyone), len({programs[c] for c in everyone})
    rows = np.asarray([row_of[programs[c]] for c in everyone])
    has_trials = ex.trial_matrix.ndim == 2 and ex.trial_matrix.shape[1] > 0
    out = []
    for part in parts:
        r = row_of[programs[part[0]]]
        distinct = len({programs[c] for c in part})
        returned = float((kinds[r, valid] == RETURNED).mean()) if valid.size else 1.0
        same = [((kinds[rows, i] == kinds[r, i]) & (outs[rows, i] == outs[r, i])).mean() for i in separating]
        trial = ex.trial_matrix[int(ex.program_of_candidate[part[0]])] if has_trials else None
        out.append([len(part) / n, distinct / n_programs, (len(part) / distinct) / (n / n_programs),
                    float(part[0] in contenders.pool), returned, float(np.mean(same)) if same else 1.0,
                    float((trial == PASS).mean()) if trial is not None else 1.0])
    return np.asarray(out, dtype=float).reshape(len(parts), len(PART_FEATURES))


def edge_features(found: Search, parts: Sequence[Sequence[int]], programs: Sequence[str]) -> np.ndarray:
    """The raw features of each part on the edge inputs (``EDGE_FEATURES``; ``found.edge`` marks them)."""
    assert found.ex is not None
    row_of = {p: i for i, p in enumerate(found.ex.programs)}
    kinds, outs = np.asarray(found.ex.output_kind), np.asarray(found.ex.output_matrix)
    edge = found.edge if found.edge.size == kinds.shape[1] else np.zeros(kinds.shape[1], dtype=bool)
    valid, edges = np.flatnonzero(found.valid), np.flatnonzero(found.valid & edge)
    separating = np.flatnonzero(found.separating & edge)
    rows = np.asarray([row_of[programs[c]] for p in parts for c in p])  # one row per sample
    returned = kinds[rows] == RETURNED
    none = returned & (outs[rows] == _NONE)
    most_return = returned[:, valid].mean(axis=0) > 0.5
    most_value = (returned & ~none)[:, valid].mean(axis=0) > 0.5
    out = []
    for part in parts:
        r = row_of[programs[part[0]]]
        ok = kinds[r] == RETURNED
        same = [((kinds[rows, i] == kinds[r, i]) & (outs[rows, i] == outs[r, i])).mean() for i in separating]
        out.append([float(ok[edges].mean()) if edges.size else 1.0, float(np.mean(same)) if same else 1.0,
                    float((~ok[valid] & most_return).mean()) if valid.size else 0.0,
                    float((ok[valid] & (outs[r, valid] == _NONE) & most_value).mean()) if valid.size else 0.0])
    return np.asarray(out, dtype=float).reshape(len(parts), len(EDGE_FEATURES))


def edge_first(raw: np.ndarray) -> np.ndarray:
    """Scores of a fixed rule that does not trust the majority on an edge: a part that returns on more of the valid
    edge inputs comes first, the larger part among equals (``raw``: ``EDGE_SPEC``'s columns)."""
    return first_then_size(raw[:, EDGE_SPEC.features.index("edge_returned")], raw[:, PART_FEATURES.index("share")])


def first_then_size(first: np.ndarray, share: np.ndarray) -> np.ndarray:
    """Scores that order parts by ``first``, the larger part (``share``) among equals: a fixed rule's, with no
    weight to fit. Equal pairs score alike, so they stay a tie."""
    keys = [(round(float(e), 9), round(float(s), 12)) for e, s in zip(first, share)]
    ranked = sorted(set(keys))
    return np.asarray([float(ranked.index(k)) for k in keys])


_NONE = digest_value(None)
_SHIPPED: list[dict] = []


def part_model(source: "str | Path | dict | None" = None) -> Optional[dict]:
    """The part model: ``source`` (a path or dict), else the shipped file when there is one (None: none shipped)."""
    if source is not None:
        return load_model(source, SPEC)
    if not _SHIPPED and MODEL_FILE.exists():
        _SHIPPED.append(load_model(None, SPEC))
    return _SHIPPED[0] if _SHIPPED else None


def part_scores(raw: np.ndarray, model: Optional[dict], spec: FeatureSpec = SPEC) -> np.ndarray:
    """Each part's score: the model's over ``spec``'s features (rounded to 12 digits so that equal scores tie),
    else its share."""
    if model is None:
        return raw[:, PART_FEATURES.index("share")]
    return np.round(design(raw, spec) @ model_vector(model), 12)


def order(parts: Sequence[Sequence[int]], scores: np.ndarray) -> tuple[list[list[int]], list[float]]:
    """The parts best first (a tie keeps the given order) and their scores in that order."""
    idx = sorted(range(len(parts)), key=lambda i: -scores[i])
    return [list(parts[i]) for i in idx], [float(scores[i]) for i in idx]
