"""Ranker registry: ``@register_ranker("name")`` adds a ranker; ``get_ranker(name)`` finds one.

A ranker is a function ``rank(ctx: RankContext) -> Ranking``. It sees only plain data (the execution
matrices of one problem) and returns groups of candidate indices, best first. Candidates it does not
put in any group are unranked. Names of the form ``filter+<name>`` apply DOCE trial-test filtering first;
``<feature>+<name>`` combines a likelihood feature ranker (registered with ``log_score=True``: its scores are
log-probabilities) with any other ranker, as DOCE does: score = other ranker's score × exp(feature)
(``rankers/compose.py``). Names compose: ``filter+ll+mbr_exec`` = filter, then ``ll+mbr_exec``.

The steps after ranking are registered here too (``STEPS``, ``register_step``): a method name may end with one
(``codet+select``), so every front end validates method names against one registry. A method may also be an alias of
such a name (``register_alias``: ``recommended`` is ``learned_examples+select``): it is listed, validated and run
as its target, and reported under its own name.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, TypeVar

import numpy as np

from coderank_evalplus.rankers.context import RankContext, RankFn  # noqa: F401 (re-exported)
from coderank_evalplus.types import Executions, Problem, Ranking

RECOMMENDED = "recommended"  # the default pick's name (``rankers/recommended.py`` says what it stands for)
# What a run reports when no method is named (rerank, run, evalplus's bare --rerank): the default pick (it uses the
# prompt's examples) beside the published rankers in CodeT's setting.
DEFAULT_METHODS = (RECOMMENDED, "codet", "srank", "mbr_exec")

_REGISTRY: dict[str, RankFn] = {}
_DESCRIPTIONS: dict[str, str] = {}
_ALIASES: dict[str, str] = {}  # method name → the method it stands for (a ranker, perhaps followed by a step)
# Modules that hold rankers; imported on first lookup so that `import coderank_evalplus` stays cheap.
_RANKER_MODULES = ("baselines", "pass_count", "codet", "codet_iter", "srank", "mbr", "filtering", "likelihood", "b4",
                   "overlap", "learned", "learned_examples", "recommended")


@dataclass(frozen=True)
class StepInfo:
    """A step after ranking: what it does, the module of ``selection/`` that implements it (imported on first use,
    as the rankers' modules are), and how a run asks for it: ``suffix``, a method name ending in ``+<name>``
    (``recommended+select``); else an option chooses it for every method (S*: ``select_model``)."""

    description: str
    module: str
    suffix: bool


# Steps after ranking (``selection/``): each reorders a method's ranking by running the leading programs again, which
# only the per-problem path can do (it holds the engine; ``selection.path``). The one registry of steps: every front end
# validates and lists their names from here, and each implementation registers under its name (``register_step``).
STEPS = {
    "select": StepInfo("model-free selection: the leading programs split on inputs grown for them, the part most "
                       "candidates agree with kept (selection/differential.py)", "differential", suffix=True),
    "sstar": StepInfo("S*, model-assisted selection: the model asked for inputs that tell the pick and its rival "
                      "apart, then which of them is right (selection/sstar.py); chosen by --select-model",
                      "sstar", suffix=False),
}
SELECTION_STEPS = {name: s.description for name, s in STEPS.items() if s.suffix}  # the names a method may end with
_STEP_CLASSES: dict[str, type] = {}
_LOG_SCORE: set[str] = set()  # rankers whose scores are log-probabilities (features for <feature>+<ranker>)
_USES_EXAMPLES: set[str] = set()  # rankers that read the prompt's examples (trial tests) themselves
_IGNORES_TESTS: set[str] = set()  # rankers that never read the generated tests (baselines, likelihoods, hidden inputs)


def register_ranker(name: str, description: str = "", log_score: bool = False, uses_examples: bool = False,
                    reads_tests: bool = True) -> Callable[[RankFn], RankFn]:
    """Decorator that registers a ranker under ``name``; ``log_score``: its scores are log-probabilities, so it
    can be combined as ``name+<other ranker>``; ``uses_examples``: it reads the prompt's examples (trial tests);
    ``reads_tests``: False for a ranker that never looks at the generated tests (see ``uses_prompt_examples``)."""

    def wrap(fn: RankFn) -> RankFn:
        if name in _REGISTRY and _REGISTRY[name] is not fn:
            raise ValueError(f"ranker {name!r} is registered twice")
        _REGISTRY[name] = fn
        if log_score:
            _LOG_SCORE.add(name)
        if uses_examples:
            _USES_EXAMPLES.add(name)
        if not reads_tests:
            _IGNORES_TESTS.add(name)
        _DESCRIPTIONS[name] = description or ((fn.__doc__ or "").strip().splitlines() or [""])[0]
        return fn

    return wrap


def register_alias(name: str, target: str, description: str) -> None:
    """Register method ``name`` as another name of ``target`` (a ranker's name, perhaps ``<ranker>+<step>``)."""
    if name in _REGISTRY or (name in _ALIASES and _ALIASES[name] != target):
        raise ValueError(f"method {name!r} is registered twice")
    _ALIASES[name] = target
    _DESCRIPTIONS[name] = description


def alias_of(name: str) -> "str | None":
    """The method an alias stands for (``recommended`` → ``learned_examples+select``); None for any other name."""
    _load_all()
    return _ALIASES.get(name)


_LOADED: list[bool] = []


def _load_all() -> None:
    if _LOADED:  # the lookup runs once per ranking (budget curves rank ~10^5 subsets): import once
        return
    _LOADED.append(True)
    for module in _RANKER_MODULES:
        try:
            importlib.import_module(f"coderank_evalplus.rankers.{module}")
        except ModuleNotFoundError as exc:  # a ranker module not written yet must not break the others
            if exc.name != f"coderank_evalplus.rankers.{module}":
                raise


def list_rankers() -> list[str]:
    """Names of all registered rankers (without the ``filter+`` variants)."""
    _load_all()
    return sorted(_REGISTRY)


def list_aliases() -> dict[str, str]:
    """Every alias and the method it stands for."""
    _load_all()
    return dict(sorted(_ALIASES.items()))


def describe_ranker(name: str) -> str:
    _load_all()
    return _DESCRIPTIONS.get(name, "")


def split_selection(name: str) -> tuple[str, "str | None"]:
    """``("codet", "select")`` for ``codet+select``; ``(name, None)`` for a name without a step; an alias as what it
    stands for (``recommended``: ``("learned_examples", "select")``)."""
    _load_all()
    name = _ALIASES.get(name, name)
    base, _, step = name.rpartition("+")
    if not base or step not in SELECTION_STEPS:
        return name, None
    if base in _ALIASES:  # recommended+select: an alias that ends with that step already, or a ranker's alias
        inner, own = split_selection(base)
        if own in (None, step):
            return inner, step
    return base, step


_T = TypeVar("_T", bound=type)


def register_step(name: str) -> Callable[[_T], _T]:
    """Class decorator: the class implements the step ``name`` of ``STEPS`` (``selection.base.Step``); the class
    gets ``name``."""
    if name not in STEPS:
        raise ValueError(f"step {name!r}: declare it in rankers.registry.STEPS first")

    def wrap(cls: _T) -> _T:
        if name in _STEP_CLASSES and _STEP_CLASSES[name] is not cls:
            raise ValueError(f"step {name!r} is registered twice")
        cls.name = name  # type: ignore[attr-defined]  # the protocol's attribute, set by the registry
        _STEP_CLASSES[name] = cls
        return cls

    return wrap


def get_step(name: str) -> type:
    """The class implementing step ``name`` (its module imported on first use)."""
    if name not in STEPS:
        raise KeyError(f"unknown step after ranking {name!r} (known: {', '.join(STEPS)})")
    importlib.import_module(f"coderank_evalplus.selection.{STEPS[name].module}")
    return _STEP_CLASSES[name]


def is_log_score(name: str) -> bool:
    """True for rankers whose scores are log-probabilities (likelihood features)."""
    _load_all()
    return name in _LOG_SCORE


def uses_prompt_examples(name: str, tests_from_examples: bool = False) -> bool:
    """Whether method ``name`` ranks with the prompt's own examples: it filters on them (``filter+…``) or reads
    them as trial tests itself (``learned_examples``, ``recommended``), or — ``tests_from_examples``: the run's
    test pool was grown from them (``examples+mutate``) — it reads the generated tests at all. CodeT's published
    setting removes the examples from the prompt: methods with False are comparable with its numbers."""
    _load_all()
    name, step = split_selection(name)
    if step is not None or name.startswith("filter+"):  # a selection grows its inputs from the examples
        return True
    parts = [name] if name in _REGISTRY else name.split("+")
    if any(p in _USES_EXAMPLES for p in parts):
        return True
    return tests_from_examples and any(p not in _IGNORES_TESTS for p in parts)


def get_ranker(name: str) -> RankFn:
    """The ranker registered as ``name``; ``filter+X`` wraps ranker X with trial-test filtering; ``F+X``
    (F a log-score ranker) combines F with ranker X."""
    _load_all()
    base, step = split_selection(name)
    if step is not None:
        raise KeyError(f"{name!r}: the selection step +{step} runs the leading programs again, which a run does "
                       f"(rerank, run, pick: selection.path), not a ranker over stored matrices; rank "
                       f"with {base!r} here")
    name = base  # an alias of a ranker: that ranker
    if name.startswith("filter+"):
        inner = get_ranker(name[len("filter+"):])
        from coderank_evalplus.rankers.filtering import with_trial_filter

        return with_trial_filter(inner)
    if "+" in name and name not in _REGISTRY:
        feature, rest = name.split("+", 1)
        if feature not in _REGISTRY or rest == "":
            raise KeyError(f"unknown ranking method {name!r}")
        if feature not in _LOG_SCORE:
            raise KeyError(f"{name!r}: only a likelihood feature ranker ({', '.join(sorted(_LOG_SCORE))}) can be "
                           f"combined as <feature>+<method>, not {feature!r}")
        from coderank_evalplus.rankers.compose import combine

        return combine(feature, get_ranker(feature), rest, get_ranker(rest))
    if name not in _REGISTRY:
        raise KeyError(f"unknown ranking method {name!r}; available: {', '.join(list_rankers())} "
                       f"(each also as filter+<name>, and after a likelihood feature as "
                       f"{'|'.join(sorted(_LOG_SCORE)) or 'll'}+<name>)")
    return _REGISTRY[name]


def rank_problem(ranker: "str | RankFn", problem: Problem, executions: Executions, seed: int,
                 features: Optional[Mapping[str, Any]] = None, options: Optional[Mapping[str, Any]] = None,
                 benchmark_outputs: Optional[tuple[np.ndarray, np.ndarray]] = None) -> Ranking:
    """One problem ranked by ``ranker`` (a name, or a ranker already looked up): the context built once for every
    caller, a live run (``selection.path.ProblemPath.rank``) and a stored run's replay (``report.scores.rank``)
    alike, so that a replay ranks as the run did. ``features``: per-candidate values (likelihoods) handed to the
    ranker as float arrays beside the ranker ``options``."""
    fn = get_ranker(ranker) if isinstance(ranker, str) else ranker
    feats = {k: np.asarray(v, dtype=float) for k, v in (features or {}).items()}
    return fn(RankContext(problem, executions, seed=seed, options={**feats, **(options or {})},
                          benchmark_outputs=benchmark_outputs))


def validate_methods(names: list[str]) -> list[str]:
    """Check every method name; raise ValueError listing the available ones if any is unknown."""
    bad, why = [], []
    for n in names:
        try:
            get_ranker(split_selection(n)[0])
        except KeyError as exc:
            bad.append(n)
            if "only a likelihood feature" in str(exc.args[0]):
                why.append(str(exc.args[0]))
    if bad:
        raise ValueError(f"unknown ranking method(s): {', '.join(bad)}. {'. '.join(why) + '. ' if why else ''}"
                         f"Available: {', '.join(sorted([*list_rankers(), *_ALIASES]))} (each also as "
                         f"filter+<name>, and after a likelihood feature as {'|'.join(sorted(_LOG_SCORE))}+<name>; "
                         f"each followed by a selection step as <name>+{'|'.join(SELECTION_STEPS)})")
    return names
