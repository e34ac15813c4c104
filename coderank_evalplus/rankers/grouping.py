"""Forming and ordering groups of candidates: the helpers every ranker family shares."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any, TypeVar

import numpy as np

from coderank_evalplus.types import Group, Ranking

K = TypeVar("K", bound=Hashable)


def sort_groups(groups: Iterable[Group]) -> list[Group]:
    """Groups by descending score; equal scores keep the order of their smallest candidate."""
    return sorted((g for g in groups if g.candidates), key=lambda g: (-g.score, min(g.candidates)))


def bucket(keys: Iterable[K], members: Iterable[int]) -> dict[K, list[int]]:
    """Candidates grouped by key, keys in first-seen order."""
    out: dict[K, list[int]] = {}
    for key, c in zip(keys, members):
        out.setdefault(key, []).append(int(c))
    return out


def rank_by_score(scores: np.ndarray, method: str) -> Ranking:
    """Candidates with a finite score, grouped by equal score, highest first."""
    scores = np.asarray(scores, dtype=float)
    ranked = np.flatnonzero(np.isfinite(scores))
    groups = [Group(cands, float(scores[cands[0]])) for cands in bucket((scores[c] for c in ranked), ranked).values()]
    info: dict[str, Any] = {"method": method}
    if len(ranked) < len(scores):
        info["unscored"] = int(len(scores) - len(ranked))
    return Ranking(sort_groups(groups), info)
