"""The model-free selection (``<method>+select``): split the leading programs by what they return on inputs grown
for them, keep the part most candidates agree with.

For a problem in doubt (``contenders.contenders_to_split``), the contenders' distinct programs run on inputs grown for
them (``search.search``: mutation from the prompt's examples, then a round grown from the inputs where they disagree);
the problems of a batch search together, one execution per round for all of them (``select_all``), and after its
first round a search runs no more test items than executing the problem's candidates on its tests did
(``execution_items``; a round grows fewer inputs where the rest would pass that bound): the step costs about what
the execution phase cost, whatever the pool.
On the valid inputs, the contenders fall into parts of equal outputs (a part never spans two groups of the
ranking: the pool already told those apart). The new order: the parts by the number of candidates in them (samples
counted), most first, a tie kept as one group, a part of the pick's pool before a part of the next group of the
same size; then the pool's candidates that did not run (beyond ``contenders.MAX_PROGRAMS``); then the rest of the
ranking as it was. No verdict, hidden input or expected output is read. The evidence: the first separating input on
which the new top part and the runner-up differ, what each did there in words ("returns False", "prints 6",
"raises ValueError: …": ``in_words_of``, one probe per side for the whole batch, true on every call shape), and the
rule ("A kept: 7 of 9 candidates agree").
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping, Optional, Sequence

import numpy as np

from coderank_evalplus.engine.execution.execute import ProblemWork
from coderank_evalplus.metrics import TIE, merged_groups, pick_pool
from coderank_evalplus.rankers.registry import register_step
from coderank_evalplus.selection.base import SelectEnv, Selection, SelectionEvidence, Side, StepItem
from coderank_evalplus.selection.contenders import CLOSE_CONFIDENCE, Contenders, contenders_to_split
from coderank_evalplus.selection.parts import order, part_features, part_model, part_scores
from coderank_evalplus.selection.search import EDGE_INPUTS, EDGES, MAX_ROUNDS, STEP, Search, search_many
from coderank_evalplus.types import RAISED, RETURNED, Executions, Group, Ranking

NAME = "select"
SHIPPED = "shipped"  # select_all's part model: the one shipped with the package (parts.part_model)


def parts_of(contenders: Contenders, found: Search, programs: list[str]) -> list[list[int]]:
    """The contenders split by (ranking group, outputs on the valid grown inputs), ordered by size (most
    candidates first; a tie: the earlier group first, then the first candidate): the order a tie of scores
    keeps (``parts.order``)."""
    assert found.ex is not None
    cols = np.flatnonzero(found.valid)
    row_of = {p: i for i, p in enumerate(found.ex.programs)}
    kinds, outs = np.asarray(found.ex.output_kind), np.asarray(found.ex.output_matrix)
    by_key: dict[tuple, list[int]] = defaultdict(list)
    for g, members in enumerate(contenders.groups):
        for c in members:
            r = row_of[programs[c]]
            by_key[(g, kinds[r, cols].tobytes(), outs[r, cols].tobytes())].append(c)
    return sorted(by_key.values(), key=lambda m: (-len(m), _group_of(contenders, m[0]), m[0]))


def _group_of(contenders: Contenders, c: int) -> int:
    return next(g for g, members in enumerate(contenders.groups) if c in members)


def reordered(ranking: Ranking, contenders: Contenders, parts: list[list[int]], n_candidates: int,
              scores: Optional[Sequence[float]] = None) -> Ranking:
    """The ranking with the contenders replaced by ``parts`` (best first; ``scores``: theirs, default their
    sizes: parts scored as the top one stay one group, recorded as a tie: ``info['tie']``, ``metrics.pool_parts``);
    candidates the ranking left out of its groups (outside a fallback pool) stay out."""
    inside = {c for m in contenders.groups for c in m}
    score = list(scores) if scores is not None else [float(len(p)) for p in parts]
    tied = [sorted(p) for p, s in zip(parts, score) if s == score[0]]
    lead = [c for p in tied for c in p]
    rest_parts = [p for p, s in zip(parts, score) if s != score[0]]
    unrun = [c for c in pick_pool(ranking, n_candidates) if c not in inside]
    order = [m for m in [lead] + rest_parts + [unrun] if m]
    order += [list(g.candidates) for g in merged_groups(ranking)[len(contenders.groups):]]
    # scores only order the groups here (each a distinct number, highest first); nothing downstream reads them
    new = [Group(sorted(m), float(len(order) - i)) for i, m in enumerate(order)]
    info = {k: v for k, v in ranking.info.items() if k != TIE}
    if len(tied) > 1:  # the lead's parts differ on an input grown here: the pick is drawn from a tie of them
        info[TIE] = tied
    return Ranking(new, {**info, "selection": NAME})


def deciding(found: Search, programs: list[str], a: list[int], b: list[int]) -> Optional[int]:
    """The first valid input on which part ``a`` and part ``b`` return different things (its column)."""
    assert found.ex is not None
    ra, rb = (found.ex.programs.index(programs[x[0]]) for x in (a, b))
    kinds, outs = np.asarray(found.ex.output_kind), np.asarray(found.ex.output_matrix)
    for i in np.flatnonzero(found.valid):
        if kinds[ra, i] != kinds[rb, i] or outs[ra, i] != outs[rb, i]:
            return int(i)
    return None


def _digest_words(ex: Executions, row: int, col: int) -> str:
    """An output without its value (the engine keeps digests): "returns value #1a2b3c", "raises …", "times out"."""
    kind, digest = int(ex.output_kind[row, col]), int(ex.output_matrix[row, col]) & 0xFFFFFF
    if kind == RETURNED:
        return f"returns value #{digest:06x}"
    return f"raises exception #{digest:06x}" if kind == RAISED else "times out"


def evidence_of(found: Search, programs: list[str], parts: list[list[int]], n_contenders: int,
                rule: Optional[str] = None) -> list[SelectionEvidence]:
    """The deciding input between the new top part (A) and the runner-up (B), each side's output (its digest, until
    ``in_words_of`` says it in words), the rule (given, or the size rule's words)."""
    if len(parts) < 2:
        return []
    a, b = parts[0], parts[1]
    col = deciding(found, programs, a, b)
    if col is None:
        return []
    assert found.ex is not None
    call = found.ex.suite.inputs[col]
    rows = [found.ex.programs.index(programs[x[0]]) for x in (a, b)]
    words = [_digest_words(found.ex, r, col) for r in rows]
    if rule is None and len(a) == len(b):
        rule = f"a tie: A and B both hold {len(a)} of {n_contenders} candidates, kept together"
    elif rule is None:
        rule = f"A kept: {len(a)} of {n_contenders} candidates agree (B: {len(b)})"
    return [SelectionEvidence(call, (Side("A", tuple(a), words[0]), Side("B", tuple(b), words[1])), rule)]


def in_words_of(items: Sequence[StepItem], sels: Sequence[Selection], env: SelectEnv) -> None:
    """Each side of every evidence of a batch said in words: what the side's first candidate does on the deciding
    input, one probe each, all at once in the sandbox (``engine.execution.probe.probe_of``: built for the problem's call
    shape). Values are clipped, unless clipping would make two sides read alike; a side whose probe is lost keeps
    its digest and says so."""
    from coderank_evalplus.engine.execution.probe import in_words, probe_all, probe_of

    asks = [probe_of(it.work.problem, it.work.programs[side.candidates[0]], f"assert {ev.input}", env.limits.cpu)
            for it, sel in zip(items, sels) for ev in sel.evidence for side in ev.sides]
    if not asks:
        return
    try:
        found = iter(probe_all(asks, env.workers, env.executor))
    except Exception:  # noqa: BLE001 - words are an explanation; the selection stands without them
        found = iter([("lost",)] * len(asks))
    for sel in sels:
        for e, ev in enumerate(sel.evidence):
            probes = [next(found) for _ in ev.sides]
            said = [in_words(p) for p in probes]
            if len(set(said)) < len(said) and len(set(probes)) == len(probes):
                said = [in_words(p, width=None) for p in probes]  # alike once clipped: said whole
            sides = tuple(replace(side, output=words or f"{side.output} (a digest: the run that says it in words "
                                                        f"was lost)") for side, words in zip(ev.sides, said))
            sel.evidence[e] = replace(ev, sides=sides)


@register_step(NAME)
class ModelFreeStep:
    """``<method>+select``: each item's ranking reordered as the module's doc says (``select_one``); unchanged when the
    problem is not in doubt, has no example to grow from, or nothing separates its contenders."""

    name = NAME
    phase = "select"  # the timing block's select_s

    def __init__(self, model: "dict | str | None" = SHIPPED, words: bool = True) -> None:
        """``model``: the part model (``select_all``'s); ``words``: say the evidence's outputs in words (a probe
        per side; a replay of a stored run reads the rankings alone and leaves them as digests)."""
        self.model, self.words = model, words

    def run(self, items: Sequence[StepItem], env: SelectEnv) -> list[Selection]:
        sels = select_all([(it.work, it.executions, it.ranking) for it in items], env, model=self.model)
        if self.words:
            in_words_of(items, sels, env)
        return sels

    def report(self, done: Mapping[tuple[str, str], Selection]) -> tuple[dict[str, Any], dict[str, Any]]:
        """Its cost over the run (timing: every method; ``selection``: per method)."""
        methods = list(dict.fromkeys(m for _, m in done))
        return totals(done.values()), {"selection": {m: totals(s for (_, k), s in done.items() if k == m)
                                                     for m in methods}}


def totals(sels: Iterable[Selection]) -> dict[str, Any]:
    """The step's cost over problems: problems in doubt, problems whose pick changed, distinct programs run, inputs
    grown, rounds, test items executed, seconds."""
    sels = list(sels)
    cost = {k: sum(getattr(s.cost, k) for s in sels) for k in ("programs", "inputs", "rounds", "executed_items")}
    return {"select_problems": sum(bool(s.reason) for s in sels), "select_changed": sum(s.changed for s in sels),
            **{f"select_{k}": v for k, v in cost.items()},
            "select_run_s": round(sum(s.cost.seconds for s in sels), 2)}


def select_one(work: ProblemWork, ex: Executions, ranking: Ranking, env: SelectEnv, close: float = CLOSE_CONFIDENCE,
           step: int = STEP, max_rounds: int = MAX_ROUNDS, bounded: bool = True) -> Selection:
    """The step on one problem and method, with its bounds named (``close`` 0: only a pool of several programs is
    in doubt, as bench/split_top.py's prototype): a batch of one."""
    return select_all([(work, ex, ranking)], env, close, step, max_rounds, bounded)[0]


def execution_items(ex: Executions) -> int:
    """Test items the execution phase ran for a problem: its distinct programs × its tests (inputs, asserts and
    the prompt's examples), cached or not."""
    tests = sum(m.shape[1] if m.ndim == 2 else 0 for m in (ex.output_matrix, ex.pass_matrix, ex.trial_matrix))
    return int(ex.output_matrix.shape[0]) * tests


@dataclass
class Decision:
    """One problem's search and what it split: the contenders, the search, the parts (``parts_of``'s order; empty
    where nothing separated) and the text that ran for each candidate (``Contenders.runs_as``)."""

    contenders: Contenders
    found: Search
    parts: list[list[int]]
    programs: list[str]


def decide_all(items: Sequence[tuple[ProblemWork, Executions, Ranking]], env: SelectEnv,
               close: float = CLOSE_CONFIDENCE, step: int = STEP, max_rounds: int = MAX_ROUNDS,
               bounded: bool = True, edges: str = EDGES, edge_inputs: int = EDGE_INPUTS
               ) -> list[Optional[Decision]]:
    """Each item's contenders and search (None where its leading programs are not in doubt), the problems in doubt
    searched together (``search.search_many``: one execution per round for all of them). ``bounded``: after its
    first round each search runs no more items than the execution of the problem's candidates on its tests did
    (``execution_items``); False: only the rounds bound it. ``edges``: the search's edge rule
    (``search.EDGE_RULES``) and at most ``edge_inputs`` edge inputs."""
    to_split = [contenders_to_split(ranking, ex, list(work.programs), close) for work, ex, ranking in items]
    asked = {k: c for k, c in enumerate(to_split) if c is not None}
    budgets = [execution_items(items[k][1]) if bounded else None for k in asked]
    found = dict(zip(asked, search_many([(items[k][0].problem, c.programs) for k, c in asked.items()], env, step,
                                        max_rounds, budgets, edges, edge_inputs)))
    out: list[Optional[Decision]] = []
    for k, (work, _, _) in enumerate(items):
        if k not in asked:
            out.append(None)
            continue
        contenders, searched = asked[k], found[k]
        programs = [contenders.runs_as.get(c, text) for c, text in enumerate(work.programs)]
        split = searched.ex is not None and bool(searched.separating.any())
        out.append(Decision(contenders, searched, parts_of(contenders, searched, programs) if split else [], programs))
    return out


def select_all(items: Sequence[tuple[ProblemWork, Executions, Ranking]], env: SelectEnv,
               close: float = CLOSE_CONFIDENCE, step: int = STEP, max_rounds: int = MAX_ROUNDS,
               bounded: bool = True, model: "dict | str | None" = SHIPPED) -> list[Selection]:
    """The step on each (problem's work, its executions, a ranking of it), in order: ``decide_all``, then the
    parts ordered by ``parts.order`` on ``model``'s scores (a part model; ``SHIPPED``: the shipped one if any;
    None: the parts' sizes)."""
    t0 = time.monotonic()
    decisions = decide_all(items, env, close, step, max_rounds, bounded)
    model = part_model() if model == SHIPPED else model
    assert not isinstance(model, str)
    out = [Selection(NAME, ranking) if d is None else decided(ex, ranking, d, model)
           for (work, ex, ranking), d in zip(items, decisions)]
    asked = [k for k, d in enumerate(decisions) if d is not None]
    rest = (time.monotonic() - t0 - sum(s.cost.seconds for s in out)) / max(len(asked), 1)
    for k in asked:
        out[k].cost.seconds += max(rest, 0.0)
    return out


def decided(ex: Executions, ranking: Ranking, d: Decision, model: Optional[dict]) -> Selection:
    """One problem's selection from its decision: the parts ordered by their scores (``model``'s, else their
    sizes), the new order, whether the pick changed, the evidence."""
    out = Selection(NAME, ranking, reason=d.contenders.reason, cost=d.found.cost)
    if d.parts:
        features = part_features(d.contenders, d.found, d.parts, d.programs, ex)
        parts, scores = order(d.parts, part_scores(features, model))
        new = reordered(ranking, d.contenders, parts, ex.n_candidates, scores)
        out.changed = pick_pool(new, ex.n_candidates) != pick_pool(ranking, ex.n_candidates)
        out.ranking = new
        n = sum(len(p) for p in parts)
        rule = None if model is None or len(parts) < 2 else (
            f"a tie: the part model scores A and B alike ({len(parts[0])} and {len(parts[1])} of {n} candidates), "
            f"kept together" if scores[0] == scores[1] else
            f"A kept: the part model ranks it above B ({len(parts[0])} and {len(parts[1])} of {n} candidates)")
        out.evidence = evidence_of(d.found, d.programs, parts, n, rule)
    return out
