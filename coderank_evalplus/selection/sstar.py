"""Model-assisted selection (S*, Li et al. 2025): ask the model for inputs that tell the two leading programs apart,
run both, show it the outputs and ask which is right.

For each problem and method, ``decide`` takes two candidates A (the pick) and B (its closest rival among the
candidates in contention, ``contenders.contenders_of``: ``leading_pair``) and runs S*'s rounds (``sstar_prompts``: the
published prompts and limits, the source cited there):

1. up to ``ATTEMPTS`` times, ask for inputs that distinguish A and B (temperature 0.7 + 0.01·attempt); run the
   candidates in contention (the pick's pool and the next group: their distinct programs) on them through the
   execution engine (sandbox, cache); stop at the first attempt that gives an input on which A and B differ (S*
   retries a reply it cannot read; we also retry one whose inputs do not separate them);
2. show the model A's and B's code with their outputs on those inputs (at most ``MAX_SHOWN``; what each returned
   or raised, in words, from ``engine.execution.probe``), in both orders, greedily; a side wins when both answers agree;
3. the winner's side — the contenders that return exactly what the winner returns on the distinguishing inputs —
   becomes the top group (``apply_decision``); a tie, disagreeing answers or no distinguishing input leave the
   ranking as it was.

Every reply is logged in a jsonl file keyed by model, prompt and settings (``generation.sampling.draw_logged``,
the sampling loop's): a rerun reads them back and asks nothing twice; a killed run resumes. Cost per problem: at most
``ATTEMPTS`` + ``ORDERS`` model calls; programs × inputs executions (at most the contenders' distinct programs ×
``MAX_INPUTS`` × ``ATTEMPTS``); two probes per shown input. No verdict, hidden input or expected output is read.

As a step after ranking (``ModelSelector``, registered as ``sstar``; ``--select-model`` chooses it), the decisions
of a batch of problems and methods are taken together: each question goes to the model with the others of its round.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from coderank_evalplus.engine.execution.execute import ExecutionStats, ProblemWork, ResultCache, execute
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.metrics import merged_groups, pick_pool
from coderank_evalplus.rankers.registry import register_step
from coderank_evalplus.selection import sstar_prompts as P
from coderank_evalplus.selection.base import SelectEnv, Selection, SelectionCost, StepItem
from coderank_evalplus.selection.contenders import contenders_of
from coderank_evalplus.types import Executions, Group, Problem, Ranking, TestSuite

SIDES = ("A", "B")


@dataclass(frozen=True)
class SStarSettings:
    """S*'s limits (``sstar_prompts``); ``max_tokens`` may be lowered for a small local model."""

    attempts: int = P.ATTEMPTS
    input_temperature: float = P.INPUT_TEMPERATURE
    temperature_step: float = P.TEMPERATURE_STEP
    judge_temperature: float = P.JUDGE_TEMPERATURE
    max_tokens: int = P.MAX_TOKENS
    max_inputs: int = P.MAX_INPUTS
    max_shown: int = P.MAX_SHOWN

    def __post_init__(self) -> None:
        if self.attempts < 1 or self.max_tokens < 1 or self.max_inputs < 1 or self.max_shown < 1:
            raise ValueError("S* settings: attempts, max_tokens, max_inputs and max_shown must be at least 1")


@dataclass
class Pair:
    """One problem's question: candidates ``a`` and ``b`` (indices into ``programs``) and the candidates in
    contention (``contenders``: those that take a side after the distinguishing inputs ran)."""

    problem: Problem
    programs: list[str]
    a: int
    b: int
    contenders: list[int]


@dataclass(frozen=True)
class Shown:
    """One distinguishing input and what A and B did on it, in words."""

    input: str
    a: str
    b: str


@dataclass
class SStarDecision:
    """What S* decided for one problem, and its evidence."""

    task_id: str
    a: int
    b: int
    winner: Optional[str] = None  # "A", "B", or None (tie, disagreement, no distinguishing input, no answer)
    why: str = ""  # "agreed" | "tie" | "disagree" | "no distinguishing input" | "no answer"
    answers: list[Optional[int]] = field(default_factory=list)  # the judge's answer per order (A first, B first)
    inputs: list[str] = field(default_factory=list)  # every input the model gave that ran
    shown: list[Shown] = field(default_factory=list)  # the distinguishing inputs shown to the judge
    sides: dict[str, list[int]] = field(default_factory=dict)  # "A"/"B" -> contenders behaving as A / as B
    contenders: int = 0
    attempts: int = 0  # input questions asked
    model_calls: int = 0  # replies drawn in this run (the rest read from the log)

    @property
    def winner_index(self) -> Optional[int]:
        return {"A": self.a, "B": self.b}.get(self.winner or "")

    def reasons(self, names: Optional[Sequence[str]] = None) -> list[str]:
        """The decision and its evidence in sentences: the deciding input, each side's output, the verdict."""
        name = (lambda c: names[c]) if names is not None else (lambda c: f"candidate {c}")
        a, b = name(self.a), name(self.b)
        out = []
        if not self.shown:
            out.append(f"S*: the model's inputs ({len(self.inputs)} in {self.attempts} attempt"
                       f"{'s' if self.attempts != 1 else ''}) do not tell {a} (A) and {b} (B) apart; the ranking "
                       f"stands")
            return out
        first = self.shown[0]
        more = f" (and {len(self.shown) - 1} more input{'s' if len(self.shown) > 2 else ''})" if len(self.shown) > 1 \
            else ""
        out.append(f"S*: on {first.input}{more}: A ({a}) {first.a}, B ({b}) {first.b}")
        shown_answers = ", ".join("none" if v is None else str(v) for v in self.answers)
        if self.winner is None:
            what = {"tie": "judged them equally good", "disagree": "gave answers that disagree across the two orders",
                    "no answer": "gave no readable answer"}.get(self.why, self.why)
            out.append(f"S*: the model {what} (answers {shown_answers}); the ranking stands")
            return out
        side = self.sides.get(self.winner, [])
        out.append(f"S*: the model judged {self.winner} right in both orders (answers {shown_answers}); "
                   f"{self.winner} kept: {len(side)} of {self.contenders} candidates in contention agree with it")
        return out

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "winner": self.winner, "winner_index": self.winner_index, "why": self.why,
                "answers": self.answers, "inputs": self.inputs,
                "shown": [{"input": s.input, "A": s.a, "B": s.b} for s in self.shown],
                "sides": self.sides, "contenders": self.contenders, "attempts": self.attempts,
                "model_calls": self.model_calls, "source": P.SOURCE}


# --------------------------------------------------------------------------------------------------------------
# who is in contention
# --------------------------------------------------------------------------------------------------------------


def leading_pair(ranking: Ranking, ex: Executions) -> Optional[tuple[int, int, list[int]]]:
    """(A, B, contenders) of a ranking, or None when there is no second program to compare.

    A is the pick (the pick pool's first, ``metrics.pick_pool``). B is, first, a candidate of the pool whose
    outputs differ from A's (the ranking tied them), else the next group's first, else a candidate of the pool
    with another program that behaves as A on every input (a look-alike). Contenders: the candidates in contention
    (``contenders.contenders_of``)."""
    contenders = contenders_of(ranking, ex.n_candidates)
    pool, second = contenders.pool, contenders.runner_up
    if not pool:
        return None
    rows = np.asarray(ex.program_of_candidate)
    a = pool[0]
    ra = rows[a]
    behaves = (ex.output_matrix == ex.output_matrix[ra]).all(axis=1) & (ex.output_kind == ex.output_kind[ra]).all(
        axis=1)
    other = [c for c in pool if rows[c] != ra]
    differ = [c for c in other if not behaves[rows[c]]]
    second_other = [c for c in second if rows[c] != ra]
    b = differ[0] if differ else second_other[0] if second_other else other[0] if other else None
    if b is None:
        return None
    return a, b, contenders.candidates


def pair_of(problem: Problem, programs: Sequence[str], ranking: Ranking, ex: Executions) -> Optional[Pair]:
    """The question S* asks about a ranking: the pick and its rival (``leading_pair``), None without a rival."""
    pair = leading_pair(ranking, ex)
    if pair is None:
        return None
    return Pair(problem, list(programs), pair[0], pair[1], pair[2])


# --------------------------------------------------------------------------------------------------------------
# the rounds
# --------------------------------------------------------------------------------------------------------------


def _requests(pairs: Sequence[Pair], kind: str, generator, settings: SStarSettings, model: str,
              attempt: int = 0, shown: Optional[Mapping[str, list[Shown]]] = None) -> list:
    from coderank_evalplus.generation.sampling import Request, chat_prompt, request_key

    out = []
    for c in pairs:
        p, a, b = c.problem, c.programs[c.a], c.programs[c.b]
        if kind == "inputs":
            text, stop = P.inputs_base_prompt(p, a, b)
            prompt = chat_prompt(generator, P.inputs_messages(p, a, b), text)
            if generator.is_chat and isinstance(prompt, str):  # templated here: the reply's start written for it
                prompt += P.reply_opener(p)
            temp = round(settings.input_temperature + settings.temperature_step * attempt, 6)
            stop = () if generator.is_chat else stop
            note = {"task_id": p.task_id, "step": f"inputs {attempt}"}
            out.append(Request(request_key(model, prompt, temp, settings.max_tokens, stop), prompt, temp,
                               settings.max_tokens, stop, note=note))
            continue
        rows = [(s.input, s.a, s.b) for s in (shown or {})[p.task_id]]
        for order in range(P.ORDERS):  # order 0: A shown first; order 1: B first
            first, second = (a, b) if order == 0 else (b, a)
            cells = rows if order == 0 else [(i, y, x) for i, x, y in rows]
            text, stop = P.judge_base_prompt(p, first, second, cells)
            prompt = chat_prompt(generator, P.judge_messages(p, first, second, cells), text)
            stop = () if generator.is_chat else stop
            note = {"task_id": p.task_id, "step": f"judge {'AB' if order == 0 else 'BA'}"}
            out.append(Request(request_key(model, prompt, settings.judge_temperature, settings.max_tokens, stop),
                               prompt, settings.judge_temperature, settings.max_tokens, stop, note=note))
    return out


def _separating(ex: Executions, a: int, b: int) -> list[int]:
    """Columns (inputs) on which candidates a and b return or raise differently."""
    rows = np.asarray(ex.program_of_candidate)
    ra, rb = rows[a], rows[b]
    diff = (ex.output_matrix[ra] != ex.output_matrix[rb]) | (ex.output_kind[ra] != ex.output_kind[rb])
    return [int(i) for i in np.flatnonzero(diff)]


def _sides(ex: Executions, c: Pair, cols: Sequence[int]) -> dict[str, list[int]]:
    rows = np.asarray(ex.program_of_candidate)
    cols = list(cols)
    out: dict[str, list[int]] = {}
    for side, ref in zip(SIDES, (c.a, c.b)):
        r = rows[ref]
        out[side] = [int(k) for k in c.contenders
                     if (ex.output_matrix[rows[k], cols] == ex.output_matrix[r, cols]).all()
                     and (ex.output_kind[rows[k], cols] == ex.output_kind[r, cols]).all()]
    return out


def _in_words(probe: tuple[str, ...]) -> str:
    """What a side did on an input, for the judge: engine.execution.probe's words, values unclipped; a passing probe (a
    true value) and a lost run in this prompt's words."""
    from coderank_evalplus.engine.execution.probe import in_words

    if probe and probe[0] == "passed":
        return "returns a true value"
    return in_words(probe, width=None) or "(its run was lost)"


def decide(pairs: Sequence[Pair], generator, log_path: str, model: str,
           settings: SStarSettings = SStarSettings(), cache: Optional[ResultCache] = None, limits: Limits = Limits(),
           workers: Optional[int] = None, executor: Any = None, progress: bool = False,
           stats: Optional[ExecutionStats] = None) -> list[SStarDecision]:
    """Run S* on each pair (batched across problems: each step's questions go to the model together; the same
    question twice is asked once); ``model`` names the model in the reply log's keys. Returns a decision per
    pair, in order."""
    stats = stats if stats is not None else ExecutionStats()
    out = [SStarDecision(c.problem.task_id, c.a, c.b, contenders=len(c.contenders)) for c in pairs]
    found: dict[int, tuple[Executions, list[int]]] = {}
    pending = list(range(len(pairs)))
    for attempt in range(1, settings.attempts + 1):
        if not pending:
            break
        works = _ask_for_inputs(pairs, pending, out, attempt, generator, log_path, model, settings, progress)
        found.update(_run_on_inputs(works, pairs, cache, limits, workers, executor, progress, stats))
        pending = [i for i in pending if i not in found]
    for i in pending:
        out[i].why = "no distinguishing input"
    decided = sorted(found)
    if not decided:
        return out
    _show_outputs(pairs, decided, found, out, settings, limits, workers, executor)
    _ask_which_is_right(pairs, decided, out, generator, log_path, model, settings, progress)
    return out


def _ask_for_inputs(pairs: Sequence[Pair], pending: Sequence[int], out: list[SStarDecision], attempt: int,
                    generator, log_path: str, model: str, settings: SStarSettings,
                    progress: bool) -> list[tuple[int, ProblemWork]]:
    """One attempt's question for inputs that tell A and B apart, for each pending contenders; returns what to run:
    the contenders on every input the model gave so far (a contenders whose replies gave none has nothing to run)."""
    from coderank_evalplus.generation.sampling import draw_logged

    reqs = _requests([pairs[i] for i in pending], "inputs", generator, settings, model, attempt)
    replies, drawn = draw_logged(generator, reqs, log_path, progress, desc=f"S* inputs {attempt}")
    works = []
    for i, r in zip(pending, reqs):
        c, d = pairs[i], out[i]
        d.attempts = attempt
        d.model_calls += r.key in drawn
        reply = (P.reply_opener(c.problem) if isinstance(r.prompt, str) else "") + replies[r.key]
        d.inputs.extend(x for x in P.parse_inputs(reply, c.problem, settings.max_inputs)
                        if x not in d.inputs)
        if d.inputs:
            progs = [c.programs[k] for k in c.contenders]
            works.append((i, ProblemWork(c.problem, progs, TestSuite(inputs=list(d.inputs)))))
    return works


def _run_on_inputs(works: Sequence[tuple[int, ProblemWork]], pairs: Sequence[Pair],
                   cache: Optional[ResultCache], limits: Limits, workers: Optional[int], executor: Any,
                   progress: bool, stats: ExecutionStats) -> dict[int, tuple[Executions, list[int]]]:
    """Run the contenders on the model's inputs through the execution engine; returns, for each pair with an
    input on which A and B differ, its executions and those inputs (columns)."""
    found: dict[int, tuple[Executions, list[int]]] = {}
    for batch in _one_contenders_per_task(works):
        ran = execute([w for _, w in batch], cache, limits, workers, progress, stats, executor=executor)
        for i, w in batch:
            ex = _widen(ran[w.problem.task_id], pairs[i])
            cols = _separating(ex, pairs[i].a, pairs[i].b)
            if cols:
                found[i] = (ex, cols)
    return found


def _one_contenders_per_task(works: Sequence[tuple[int, ProblemWork]]) -> list[list[tuple[int, ProblemWork]]]:
    """The works in batches of distinct task ids: execute() answers per task id, so pairs of one problem
    (several methods) go in separate batches."""
    batches: list[list[tuple[int, ProblemWork]]] = []
    for i, w in works:
        batch = next((bt for bt in batches if all(v.problem.task_id != w.problem.task_id for _, v in bt)), None)
        if batch is None:
            batches.append(batch := [])
        batch.append((i, w))
    return batches


def _show_outputs(pairs: Sequence[Pair], decided: Sequence[int], found: Mapping[int, tuple[Executions, list[int]]],
                  out: list[SStarDecision], settings: SStarSettings, limits: Limits, workers: Optional[int],
                  executor: Any) -> None:
    """What A and B do on the distinguishing inputs, in words (one sandboxed probe each), as the model is shown
    it, and the contenders that side with each."""
    from coderank_evalplus.engine.execution.probe import Probe, probe_all, probe_of

    asks: list[tuple[int, int, str, Probe]] = []
    time_limit = max(limits.cpu, 1.0)
    for i in decided:
        c = pairs[i]
        ex, cols = found[i]
        for col in cols[: settings.max_shown]:
            call = ex.suite.inputs[col]
            for side, k in zip(SIDES, (c.a, c.b)):
                asks.append((i, col, side, probe_of(c.problem, c.programs[k], f"assert {call}", time_limit)))
    probed = probe_all([q[3] for q in asks], workers, executor=executor)
    words = {(i, col, side): _in_words(pr) for (i, col, side, _), pr in zip(asks, probed)}
    for i in decided:
        ex, cols = found[i]
        out[i].shown = [Shown(ex.suite.inputs[col], words[(i, col, "A")], words[(i, col, "B")])
                        for col in cols[: settings.max_shown]]
        out[i].sides = _sides(ex, pairs[i], cols)


def _ask_which_is_right(pairs: Sequence[Pair], decided: Sequence[int], out: list[SStarDecision], generator,
                        log_path: str, model: str, settings: SStarSettings, progress: bool) -> None:
    """Show the model A's and B's code and outputs in both orders and take S*'s decision from its answers
    (``verdict``)."""
    from coderank_evalplus.generation.sampling import draw_logged

    reqs = []
    for i in decided:
        reqs += _requests([pairs[i]], "judge", generator, settings, model, shown={pairs[i].problem.task_id:
                                                                                     out[i].shown})
    replies, drawn = draw_logged(generator, reqs, log_path, progress, desc="S* judge")
    base = not generator.is_chat
    for j, i in enumerate(decided):
        d = out[i]
        pair = reqs[P.ORDERS * j: P.ORDERS * (j + 1)]
        d.answers = [P.parse_verdict(replies[r.key], base) for r in pair]
        d.model_calls += sum(r.key in drawn for r in pair)
        d.winner, d.why = verdict(d.answers)


def verdict(answers: Sequence[Optional[int]]) -> tuple[Optional[str], str]:
    """S*'s rule for one pair asked in both orders (A first, then B first): 0 then 1 → A; 1 then 0 → B; 2 and 2 →
    tie; a missing answer or anything else → no decision."""
    if len(answers) < 2 or any(v is None for v in answers):
        return None, "no answer"
    first, second = answers[0], answers[1]
    if (first, second) == (0, 1):
        return "A", "agreed"
    if (first, second) == (1, 0):
        return "B", "agreed"
    if (first, second) == (2, 2):
        return None, "tie"
    return None, "disagree"


def _widen(ex: Executions, c: Pair) -> Executions:
    """The contenders' executions re-indexed by candidate: row lookup through the full candidate list."""
    poc = np.zeros(len(c.programs), dtype=np.int64)
    for j, k in enumerate(c.contenders):
        poc[k] = ex.program_of_candidate[j]
    return Executions(ex.task_id, poc, ex.pass_matrix, ex.assert_counts, ex.output_matrix, ex.output_kind,
                      ex.trial_matrix, ex.compiled, ex.suite, ex.programs)


def apply_decision(ranking: Ranking, decision: SStarDecision) -> Ranking:
    """The ranking with the winner's side first (its own group, scored above the old top), every other group as
    it was less those candidates; unchanged without a winner. The decision goes in ``info['sstar']``."""
    if decision.winner is None:
        return Ranking(list(ranking.groups), {**ranking.info, "sstar": decision.to_json()})
    side = set(decision.sides.get(decision.winner, [])) | {decision.a if decision.winner == "A" else decision.b}
    groups = merged_groups(ranking)
    top = max((g.score for g in groups), default=0.0)
    top = top if np.isfinite(top) else 0.0
    new = [Group(sorted(int(c) for c in side), float(top) + 1.0)]
    for g in ranking.groups:
        rest = [c for c in g.candidates if c not in side]
        if rest:
            new.append(Group(rest, g.score))
    return Ranking(new, {**ranking.info, "sstar": decision.to_json()})


# --------------------------------------------------------------------------------------------------------------
# the step after ranking
# --------------------------------------------------------------------------------------------------------------

NAME = "sstar"
LOG_FILE = "select_sstar.jsonl"  # the reply log's name in a results folder (or cache folder)


@dataclass
class SStarSelection(Selection):
    """S*'s answer for one problem and method: a ``Selection`` with the model's decision and its evidence."""

    decision: Optional[SStarDecision] = None

    def reasons(self, names: Optional[Sequence[str]] = None) -> list[str]:
        return self.decision.reasons(names) if self.decision is not None else []

    def to_json(self) -> dict:
        return {**super().to_json(), "decision": self.decision.to_json() if self.decision is not None else None}


@register_step(NAME)
@dataclass
class ModelSelector:
    """S* as a step after ranking: the model (a ``Generator``), its name in the reply log's keys, the log, the
    limits. ``run`` decides a batch of problems and methods together (each round's questions asked at once)."""

    generator: Any
    model: str
    log_path: str
    settings: SStarSettings = field(default_factory=SStarSettings)
    name = NAME
    phase = "select_model"  # the timing block's select_model_s

    def run(self, items: Sequence[StepItem], env: SelectEnv) -> list[Selection]:
        """For each item with a rival to its pick (``pair_of``): S* between the pick and the rival, the ranking
        replaced by ``apply_decision``'s; an item without one is left as it was."""
        out: list[Selection] = [Selection(NAME, it.ranking) for it in items]
        pairs, where = [], []
        for j, it in enumerate(items):
            ex = it.executions
            programs = [ex.programs[int(r)] for r in ex.program_of_candidate]
            pair = pair_of(it.work.problem, programs, it.ranking, ex)
            if pair is not None:
                pairs.append(pair)
                where.append(j)
        if not pairs:
            return out
        decisions = decide(pairs, self.generator, self.log_path, self.model, self.settings, env.cache, env.limits,
                           env.workers, env.executor, env.progress)
        for j, pair, d in zip(where, pairs, decisions):
            before, n = items[j].ranking, items[j].executions.n_candidates
            ranking = apply_decision(before, d)
            cost = SelectionCost(programs=len({pair.programs[k] for k in pair.contenders}), inputs=len(d.inputs),
                                 rounds=d.attempts, model_calls=d.model_calls)
            out[j] = SStarSelection(NAME, ranking, pick_pool(ranking, n) != pick_pool(before, n),
                                    reason="a rival to the pick", cost=cost, decision=d)
        return out

    def report(self, done: Mapping[tuple[str, str], Selection]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The model calls (timing) and every decision with its evidence (``sstar``)."""
        decided = {key: s.decision for key, s in done.items() if isinstance(s, SStarSelection) and s.decision}
        calls = sum(d.model_calls for d in decided.values())
        return {"select_model_calls": calls}, {"sstar": {
            "model": self.model, "decisions": {f"{t}|{m}": d.to_json() for (t, m), d in decided.items()},
            "model_calls": calls}}


def make_selector(model: str, backend: Optional[str] = None, base_url: Optional[str] = None,
                  log_dir: "str | os.PathLike" = ".", max_tokens: int = P.MAX_TOKENS, generator: Any = None,
                  **kw: Any) -> ModelSelector:
    """The selector for ``--select-model`` (``select_model``): ``backend`` as run's (default: openai with a
    ``base_url``, else embedded), the generator made by ``generation.make_generator`` as ``run`` makes its own
    (``generator``: one already made, e.g. run's, reused). Replies are logged in ``log_dir/select_sstar.jsonl``."""
    if generator is None:
        from coderank_evalplus.generation import make_generator

        backend = backend or ("openai" if base_url else "embedded")
        if base_url:
            if backend != "openai":
                raise ValueError(f"select_base_url applies to select_backend openai, not {backend}")
            kw["base_url"] = base_url
        generator = make_generator(backend, None if model == "embedded" else model, **kw)
    label = f"{backend or 'model'}:{model}"
    return ModelSelector(generator, label, os.path.join(os.fspath(log_dir), LOG_FILE),
                         SStarSettings(max_tokens=max_tokens))


def selector_from_options(options: Any, log_dir: "str | os.PathLike", generator: Any = None,
                          backend: Optional[str] = None) -> Optional[ModelSelector]:
    """The selector ``select_model`` / ``select_backend`` / ``select_base_url`` / ``select_max_tokens`` describe
    (``api.options``), or None without ``select_model``. ``generator`` / ``backend``: the run's own model, reused
    for ``select_model="same"`` (its backend is then the default)."""
    name = getattr(options, "select_model", None)
    if not name:
        return None
    max_tokens = getattr(options, "select_max_tokens", P.MAX_TOKENS)
    if name == "same":
        if generator is None:
            raise ValueError("select_model same: only run has a model of its own; name the model")
        return make_selector(getattr(options, "model", None) or "same", backend, log_dir=log_dir,
                             max_tokens=max_tokens, generator=generator)
    return make_selector(name, getattr(options, "select_backend", None) or backend, options.select_base_url,
                         log_dir=log_dir, max_tokens=max_tokens)
