"""Inputs that tell the contenders apart: grown from the prompt's examples, kept where the contenders disagree.

Round 1 grows ``STEP`` inputs from the examples' arguments by evalplus's type-aware mutation
(``testgen.mutate.mutate_inputs``, a seed of its own, so other inputs than the pool's); the contenders run on them
(the sandboxed engine, through the execution cache), the most sampled one first: an input it times out on is left
out and the others do not run on it (a timeout at the run's tight limit says the input is beyond what the limit
affords, not which program is right; and grown inputs that every contender times out on cost a round more than
the rest of it). With ``edges`` on, round 1 also holds up to ``EDGE_INPUTS`` inputs at the edges of the examples'
argument types (``testgen.edges``: empty and singleton collections, zero, negatives, large values, duplicates,
orders; as many as the budget below leaves room for beside the grown ones), which mutation rarely reaches and
evalplus's plus tests probe. An input is valid when more than ``VALID_SHARE`` of the contenders returned on it
(``testgen.mutate``'s rule; under the ``returned`` edge rule, an edge input is valid when any contender returned on
it: on an edge the majority often raises, and an input every contender raises on says nothing); it separates when
the contenders' outputs on it differ. The search goes on while nothing separates, up to ``MAX_ROUNDS`` rounds, each
grown from the examples and the valid inputs so far (an input most contenders raise or time out on lies outside
what the problem asks, and its mutations mostly do too: growing from it spent most of the search's time on
timeouts); once inputs separate, one more round of ``STEP`` inputs is grown from the separating inputs alone (the
differential step: mutations of an input where the programs differ are where they differ most often) and the search
ends. Cost: at most contenders × (``STEP`` × (``MAX_ROUNDS`` + 1) + ``EDGE_INPUTS``) test items, fewer when the
cache has them.

Many searches run together (``search_many``), as the execution phase runs many problems: each round, every search
still going grows its inputs and all of them run in one ``engine.execution.execute`` call (one pass over the
workers, which stay up for every round, and the cache consulted once), so a batch costs at most ``MAX_ROUNDS`` + 1
round trips whatever its number of problems. Searches of one problem share their work: each program runs once a
round, on the inputs of every search that holds it (the first round's depend on the examples and the seed alone; a
stored run's sub-samples grow many alike), so a (program, input) pair runs at most once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Optional, Sequence

import numpy as np

from coderank_evalplus.engine.execution.execute import ExecutionStats, ProblemWork, execute
from coderank_evalplus.engine.execution.executors import LocalExecutor, WarmExecutor
from coderank_evalplus.selection.base import SelectEnv, SelectionCost
from coderank_evalplus.testgen.edges import EDGE_INPUTS, edge_inputs
from coderank_evalplus.testgen.mutate import VALID_SHARE, call_text, mutate_inputs, seeds_of
from coderank_evalplus.types import RETURNED, TIMED_OUT, Executions, Problem, TestSuite

STEP = 10  # inputs grown per round (as bench/split_top.py's prototype)
MAX_ROUNDS = 4  # rounds while nothing separates (the prototype's 50 inputs at most = 4 rounds + the focus round)
# Inputs grown, by what they were grown from, kept across batches: growth is a function of its key alone, and a
# stored run's curves, round tables and comparisons at N ask for the same growth in batch after batch.
_GROWN: dict[tuple, list[tuple[Optional[str], list]]] = {}
_GROWN_MAX = 20_000  # entries kept (oldest dropped first): a few tens of MB at most
# Edge inputs in round 1 and the validity rule for them: "off" (none), "share" (valid as any grown input),
# "returned" (valid when any contender returned on it).
EDGE_RULES = ("off", "share", "returned")
EDGES = "off"


@dataclass
class Search:
    """What the search found: ``ex`` the contenders' executions on every input grown (``calls``), ``valid`` and
    ``separating`` column masks, and what it cost."""

    calls: list[str] = field(default_factory=list)
    ex: Executions | None = None
    valid: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    separating: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    cost: SelectionCost = field(default_factory=SelectionCost)
    edge: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))  # per input: an edge input


def column_masks(ex: Executions, edge: Optional[np.ndarray] = None) -> tuple[np.ndarray, np.ndarray]:
    """Per input: valid (more than VALID_SHARE of the programs returned; on an input of ``edge``, any of them) and
    separating (valid, and the programs' outputs differ: another value, or a value beside an exception)."""
    kinds = np.asarray(ex.output_kind)
    if kinds.size == 0:
        return np.zeros(kinds.shape[1] if kinds.ndim == 2 else 0, dtype=bool), np.zeros(0, dtype=bool)
    returned = kinds == RETURNED
    valid = returned.mean(axis=0) > VALID_SHARE
    if edge is not None:
        valid |= edge & returned.any(axis=0)
    out = np.asarray(ex.output_matrix)
    differs = ((out != out[0]) | (kinds != kinds[0])).any(axis=0)
    return valid, valid & differs


def _grow(problem: Problem, pool: list[list], n: int, salt: str, seen: set[str],
          memo: Optional[dict] = None) -> list[tuple[str, list]]:
    """``n`` new inputs (call text, arguments) grown from ``pool``, none of them in ``seen`` (which they join).
    ``memo``: mutations already grown and their call texts, by what they were grown from (searches of one problem
    grow the same first round, and a stored run's sub-samples the same later rounds: each is grown once)."""
    key = (problem.callee, problem.shape, salt, n + len(seen), repr(pool))
    grown = memo.get(key) if memo is not None else None
    if grown is None:
        grown = [(call_text(problem.callee, a), a) for a in mutate_inputs(pool, n + len(seen), problem.callee, salt,
                                                                          problem.shape)]
        if memo is not None:
            memo[key] = grown
            while len(memo) > _GROWN_MAX:
                del memo[next(iter(memo))]
    out = []
    for call, a in grown:
        if call is not None and call not in seen:
            seen.add(call)
            out.append((call, a))
            if len(out) >= n:
                break
    return out


@dataclass
class _State:
    """One search under way: its problem and programs, what it grew so far, and whether it is done."""

    problem: Problem
    programs: list[str]
    found: Search = field(default_factory=Search)
    seeds: list[list] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    args_of: dict[str, list] = field(default_factory=dict)
    outputs: list[np.ndarray] = field(default_factory=list)  # per round: (output_kind, output_matrix) column blocks
    kinds: list[np.ndarray] = field(default_factory=list)
    new: list[str] = field(default_factory=list)  # this round's inputs
    focused: bool = False
    done: bool = False
    budget: Optional[int] = None  # items (programs × inputs) the search may run in all, its first round aside
    edges: str = EDGES  # one of EDGE_RULES
    edge_inputs: int = EDGE_INPUTS  # edge inputs at most
    edge_calls: set[str] = field(default_factory=set)

    def next_round(self, rnd: int, step: int, max_rounds: int, seed: int, memo: Optional[dict] = None) -> None:
        """Grow this round's inputs (``new``: ``step``; after the first round, fewer where the budget has room for
        fewer), or finish: after the focused round, after ``max_rounds`` rounds with nothing separating, when the
        budget has no room for one more input, or when nothing new grows."""
        self.new = []
        if self.budget is not None and rnd > 0:
            step = min(step, (self.budget - len(self.programs) * len(self.found.calls)) // len(self.programs))
        if self.done or self.focused or step < 1:
            self.done = True
            return
        separating = [c for c, s in zip(self.found.calls, self.found.separating) if s]
        if separating:
            pool, self.focused = [self.args_of[c] for c in separating], True
        elif rnd == max_rounds:
            self.done = True
            return
        else:
            pool = self.seeds + [self.args_of[c] for c, ok in zip(self.found.calls, self.found.valid) if ok]
        grown = _grow(self.problem, pool, step, f"select:{seed}:{self.problem.task_id}:{rnd}", self.seen, memo)
        if rnd == 0 and self.edges != "off":
            room = self.edge_inputs if self.budget is None else min(self.edge_inputs,
                                                                    self.budget // len(self.programs) - step)
            for a in edge_inputs(self.seeds, room, self.problem.callee, self.problem.shape):
                call = call_text(self.problem.callee, a)
                if call is not None and call not in self.seen:
                    self.seen.add(call)
                    self.edge_calls.add(call)
                    grown.append((call, a))
        if not grown:
            self.done = True
            return
        for call, a in grown:
            self.args_of[call] = a
            self.found.calls.append(call)
        self.new = [c for c, _ in grown]
        self.found.cost.rounds += 1

    def drop(self, calls: set[str]) -> None:
        """Leave this round's ``calls`` out of the search (they stay seen: never grown again)."""
        if calls:
            self.new = [c for c in self.new if c not in calls]
            self.found.calls = [c for c in self.found.calls if c not in calls]

    def take(self, ran: "Ran") -> None:
        """This round's outputs of its programs (``_run_round``'s, by (task id, program)) joined to the found
        ones."""
        tid, n = self.problem.task_id, len(self.programs)
        kinds = np.asarray([[ran[(tid, p)][0][c][0] for c in self.new] for p in self.programs], dtype=np.uint8)
        outs = np.asarray([[ran[(tid, p)][0][c][1] for c in self.new] for p in self.programs], dtype=np.int64)
        self.kinds.append(kinds.reshape(n, len(self.new)))
        self.outputs.append(outs.reshape(n, len(self.new)))
        kinds, outs = np.hstack(self.kinds), np.hstack(self.outputs)
        self.found.ex = Executions(task_id=tid, program_of_candidate=np.arange(n, dtype=np.int64),
                                   pass_matrix=np.zeros((n, 0), dtype=np.uint8),
                                   assert_counts=np.zeros(0, dtype=np.int64), output_matrix=outs, output_kind=kinds,
                                   trial_matrix=np.zeros((n, 0), dtype=np.uint8),
                                   compiled=np.asarray([ran[(tid, p)][1] for p in self.programs], dtype=bool),
                                   suite=TestSuite(inputs=list(self.found.calls)), programs=list(self.programs))
        self.found.edge = np.asarray([c in self.edge_calls for c in self.found.calls], dtype=bool)
        self.found.valid, self.found.separating = column_masks(
            self.found.ex, self.found.edge if self.edges == "returned" else None)


# a round's outputs: (task id, program) → ({input: (output kind, output digest)}, whether the program compiled)
Ran = dict[tuple[str, str], tuple[dict[str, tuple[int, int]], bool]]


def search_many(queries: Sequence[tuple[Problem, list[str]]], env: SelectEnv, step: int = STEP,
                max_rounds: int = MAX_ROUNDS, budgets: Optional[Sequence[Optional[int]]] = None,
                edges: str = EDGES, edge_inputs: int = EDGE_INPUTS) -> list[Search]:
    """``search`` for each (problem, distinct program texts), round by round for all of them together (see the
    module's doc); one ``Search`` per query, in order. ``budgets``: per query, the items (programs × inputs) its
    search may run in all, its first round aside (None: no bound but the rounds'); ``edges``: one of
    ``EDGE_RULES``, with at most ``edge_inputs`` edge inputs. Each search's cost counts its
    own programs, inputs and rounds; the items executed and the seconds of a round are shared out over its searches
    by their size (programs × inputs)."""
    t0 = time.monotonic()
    states = []
    if edges not in EDGE_RULES:
        raise ValueError(f"edge rule {edges!r}: one of {', '.join(EDGE_RULES)}")
    seeded: dict[int, tuple[list[list], set[str]]] = {}  # a problem's seeds and their calls (sub-samples share them)
    for k, (problem, programs) in enumerate(queries):
        if id(problem) not in seeded:
            seeds = seeds_of(problem)
            seeded[id(problem)] = seeds, {c for c in (call_text(problem.callee, s) for s in seeds) if c is not None}
        seeds, calls = seeded[id(problem)]
        st = _State(problem, list(programs), seeds=seeds, budget=budgets[k] if budgets else None, edges=edges,
                    edge_inputs=edge_inputs)
        st.done = not st.seeds or len(st.programs) < 2
        st.seen = set(calls)
        states.append(st)
    begun = [not st.done for st in states]
    pool = _one_pool(env)
    try:
        _rounds(states, replace(env, executor=pool or env.executor), step, max_rounds)
    finally:
        if pool is not None:
            pool.__exit__(None, None, None)
    rest = (time.monotonic() - t0 - sum(st.found.cost.seconds for st in states)) / max(len(states), 1)
    for st, started in zip(states, begun):
        if started:
            st.found.cost.programs = len(st.programs)
            st.found.cost.inputs = len(st.found.calls)
        st.found.cost.seconds += max(rest, 0.0)
    return [st.found for st in states]


def _one_pool(env: SelectEnv) -> Optional[WarmExecutor]:
    """This machine's workers kept for every round of a batch (started on the first round that runs), where the
    run's executor would start a pool per call; None where it keeps its own (a cluster)."""
    if env.executor is None:
        return WarmExecutor(env.workers)
    if isinstance(env.executor, LocalExecutor):
        return WarmExecutor(env.executor.workers)
    return None


def _rounds(states: Sequence[_State], env: SelectEnv, step: int, max_rounds: int) -> None:
    """The rounds of every search under way, each one execution for all of them."""
    memo = _GROWN  # inputs grown, by what they were grown from (``_grow``)
    for rnd in range(max_rounds + 1):
        live = [st for st in states if not st.done]
        for st in live:
            st.next_round(rnd, step, max_rounds, env.seed, memo)
        live = [st for st in live if st.new]
        if not live:
            break
        # the most sampled program first: an input it times out on is left out (the others do not run on it)
        r0 = time.monotonic()
        ran, stats = _run_round(live, env, first_only=True)
        for st in live:
            outputs = ran[(st.problem.task_id, st.programs[0])][0]
            st.drop({c for c in st.new if outputs[c][0] == TIMED_OUT})
        live = [st for st in live if st.new]
        if live:
            ran, more = _run_round(live, env)
            stats.executed_pairs += more.executed_pairs
        sizes = [len(st.programs) * len(st.new) for st in live]
        seconds = time.monotonic() - r0
        for st, items, size in zip(live, shares(stats.executed_pairs, sizes), sizes):
            st.take(ran)
            st.found.cost.executed_items += items
            st.found.cost.seconds += seconds * size / max(sum(sizes), 1)


def _run_round(live: Sequence[_State], env: SelectEnv, first_only: bool = False) -> tuple[Ran, ExecutionStats]:
    """This round's inputs of every search under way, in one ``execute`` call (``first_only``: each search's most
    sampled program alone). A program runs once on the union of the inputs of every search of its problem that holds
    it (searches of one problem share programs and inputs: the first round's, or a stored run's sub-samples'), so a
    (program, input) pair runs at most once in a round, and a program is one job of the workers."""
    need: dict[tuple[str, str], dict[str, None]] = {}
    problem_of: dict[str, Problem] = {}
    for st in live:
        problem_of[st.problem.task_id] = st.problem
        for p in st.programs[:1] if first_only else st.programs:
            need.setdefault((st.problem.task_id, p), {}).update(dict.fromkeys(st.new))
    works = [ProblemWork(replace(problem_of[tid], task_id=f"{tid}#{k}"), [p], TestSuite(inputs=list(calls)))
             for k, ((tid, p), calls) in enumerate(need.items())]
    stats = ExecutionStats()
    done = execute(works, env.cache, env.limits, env.workers, progress=False, stats=stats, executor=env.executor)
    ran: Ran = {}
    for w, key in zip(works, need):
        ex = done[w.problem.task_id]
        ran[key] = ({c: (int(k), int(o)) for c, k, o in zip(ex.suite.inputs, ex.output_kind[0], ex.output_matrix[0])},
                    bool(ex.compiled[0]))
    return ran, stats


def shares(total: int, sizes: Sequence[int]) -> list[int]:
    """``total`` split over ``sizes`` in proportion, in whole numbers that add up to it (largest remainders)."""
    weight = sum(sizes)
    if not weight:
        return [0] * len(sizes)
    exact = [total * s / weight for s in sizes]
    out = [int(x) for x in exact]
    for i in sorted(range(len(sizes)), key=lambda i: out[i] - exact[i])[:total - sum(out)]:
        out[i] += 1
    return out


def search(problem: Problem, programs: list[str], env: SelectEnv, step: int = STEP,
           max_rounds: int = MAX_ROUNDS, budget: Optional[int] = None, edges: str = EDGES) -> Search:
    """Grow inputs for ``programs`` (distinct texts) and run them (see the module's doc): a batch of one."""
    return search_many([(problem, programs)], env, step, max_rounds, [budget], edges)[0]
