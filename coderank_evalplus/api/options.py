"""One vocabulary: every option of every front end, with one name, type, default, meaning and check.

An ``Option`` is declared once here. The front ends read it from here: the CLI's flags (``--time-limit``, built by
``cli.options``), ``evalplus.evaluate``'s (``--time_limit``, Fire's underscores), the lm-eval tasks' ``--metadata``
keys, suite files' keys and the Python API's keyword arguments; where a harness has a word of its own (evalplus's
``--samples``, ``--parallel``; lm-eval's ``rank_seed``) the option says so in ``frontends``, and ``docs/names.md`` is
this table printed (``names_table``; a test keeps the page equal to it).

Each default is written here once: ``Option.default`` (``Option.defaults`` where a subcommand or a front end has
another), read by every front end (``default``) and by ``RerankOptions``' fields. A check that joins options ("limit
and task_ids: give one of them") is a ``Rule`` in ``RULES``, beside them: every front end calls ``check_rules`` and
shows the options in its own words.

``RerankOptions`` is what a rerank needs, checked: every entry point parses its own arguments into it and hands it
to the one path (``api.evaluate.run_rerank``), as lm-eval's CLI builds an ``EvaluatorConfig`` for
``simple_evaluate``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

from coderank_evalplus.metrics import DEFAULT_PASS_AT_K_RULE, PASS_AT_K_RULES
from coderank_evalplus.rankers.registry import DEFAULT_METHODS, RECOMMENDED
from coderank_evalplus.types import CoderankError


class OptionError(CoderankError):
    """An option's value is not one it accepts; the message names the option and what it accepts."""


# --- kinds of value: each parses a string (CLI, metadata) or a native value (API, TOML, Fire) -----------------
@dataclass(frozen=True)
class Kind:
    """A type of option value: ``accepts`` says what in words; calling it parses and checks one value."""

    accepts: str
    parse: Callable[[Any], Any]

    def __call__(self, value: Any) -> Any:
        return self.parse(value)


def _number(value: Any, cast: type) -> Any:
    if isinstance(value, bool):
        raise ValueError
    if isinstance(value, str):
        value = value.strip()
        return cast(float(value)) if cast is int and "." not in value and "e" not in value.lower() else cast(value)
    if cast is int and isinstance(value, float) and not value.is_integer():
        raise ValueError
    out = cast(value)
    if isinstance(out, float) and not math.isfinite(out):
        raise ValueError
    return out


def _int_at_least(low: int) -> Callable[[Any], int]:
    def parse(value: Any) -> int:
        n = _number(value, int)
        if n < low:
            raise ValueError
        return n
    return parse


def _float_where(ok: Callable[[float], bool]) -> Callable[[Any], float]:
    def parse(value: Any) -> float:
        x = _number(value, float)
        if not ok(x):
            raise ValueError
        return x
    return parse


def _text(value: Any) -> str:
    if not isinstance(value, (str, Path)) or not str(value).strip():
        raise ValueError
    return str(value).strip()


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError


def _names(value: Any) -> list[str]:
    """A comma-separated text, or a list of texts each of which may hold commas: the names, blanks dropped."""
    items = value if isinstance(value, (list, tuple)) else [value]
    out = [n.strip() for item in items for n in str(item).split(",") if n.strip()]
    if not out or any(isinstance(i, bool) for i in items):
        raise ValueError
    return out


def _ks(value: Any) -> list[int]:
    ks = [_int_at_least(1)(k) for k in _names(value)]
    return sorted(set(ks))


def _choice(*allowed: str) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        text = str(value).strip()
        if text not in allowed:
            raise ValueError
        return text
    return parse


def _methods(value: Any) -> list[str]:
    from coderank_evalplus.rankers import validate_methods

    names = list(dict.fromkeys(_names(value)))
    try:
        validate_methods([n for n in names if n not in ("random", "oracle")])
    except ValueError as exc:
        raise _Explained(str(exc)) from None
    return names


def _method(value: Any) -> str:
    names = _methods(value)
    if len(names) != 1:
        raise _Explained(f"one ranking method, got {len(names)}")
    return names[0]


def flat_tests(value: Optional[list]) -> Optional[list[str]]:
    """``tests`` as a front end gathers it (``--tests`` parsed: a list per occurrence) → one list of sources."""
    if value is None:
        return None
    return [s for item in value for s in (item if isinstance(item, list) else [item])]


def _tests(value: Any) -> list[str]:
    """Test sources: files and at most one ``examples+mutate[:N]`` (on ``run`` also ``model``)."""
    from coderank_evalplus.testgen.mutate import parse_source

    names = _names(value)
    specs = 0
    for n in names:
        try:
            specs += parse_source(n) is not None
        except ValueError as exc:
            raise _Explained(str(exc)) from None
    if specs > 1:
        raise _Explained("examples+mutate given twice")
    if names.count("model") > 1:
        raise _Explained("model given twice")
    return names


class _Explained(ValueError):
    """A check whose own message says more than the kind's ``accepts``."""


POSITIVE_INT = Kind("an integer ≥ 1", _int_at_least(1))
COUNT = Kind("an integer ≥ 0", _int_at_least(0))
POSITIVE = Kind("a number > 0", _float_where(lambda x: x > 0))
NON_NEGATIVE = Kind("a number ≥ 0", _float_where(lambda x: x >= 0))
PROBABILITY = Kind("a number in [0, 1]", _float_where(lambda x: 0 <= x <= 1))
TOP_P = Kind("a number in (0, 1]", _float_where(lambda x: 0 < x <= 1))
INT = Kind("an integer", lambda v: _number(v, int))
TEXT = Kind("a non-empty text", _text)
FLAG = Kind("true or false", _flag)
NAMES = Kind("comma-separated names", _names)
KS = Kind("comma-separated integers ≥ 1 (e.g. 1,10,100)", _ks)
METHODS = Kind("comma-separated ranking methods (`coderank-evalplus methods` lists them)", _methods)
METHOD = Kind("a ranking method (`coderank-evalplus methods` lists them)", _method)
TESTS = Kind("comma-separated test sources: files of test samples or asserts, examples+mutate[:N]", _tests)
EXECUTOR = Kind("local or ray", _choice("local", "ray"))


def check_value(name: str, kind: Kind, value: Any, shown: Optional[str] = None) -> Any:
    """``kind(value)``, or OptionError naming the option (as ``shown``, e.g. its flag) and what it accepts."""
    try:
        return kind(value)
    except _Explained as exc:
        raise OptionError(f"{shown or name}: {exc}") from None
    except (ValueError, TypeError, OverflowError):
        raise OptionError(f"{shown or name}: expected {kind.accepts}, got {value!r}") from None


# --- the options -------------------------------------------------------------------------------------------------
FRONTENDS = ("cli", "evalplus", "lm_eval", "suite", "api")
SWITCH = "switch"  # a CLI flag without a value (store_true)
BOTH = "both"  # --x / --no-x


@dataclass(frozen=True)
class Option:
    """One option. ``name``: its Python name (API keyword, suite and metadata key); its CLI flag is ``--`` + the
    name with hyphens. ``commands``: the CLI subcommands that have it; ``defaults``: a subcommand or a front end
    (``FRONTENDS``: "evalplus", "lm_eval"…) whose default differs, and why is in ``help``; ``frontends``: the option's
    name on a front end where it is not its own name, "" where the front end has no such option (the table says what
    decides it there instead)."""

    name: str
    kind: Kind
    default: Any
    help: str
    commands: tuple[str, ...] = ()
    frontends: Mapping[str, str] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)
    cli: str = ""  # SWITCH, BOTH, or "" (takes a value)
    metavar: Optional[str] = None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def default_for(self, where: str) -> Any:
        """The default on a CLI subcommand or a front end (``FRONTENDS``)."""
        return self.defaults.get(where, self.default)

    def frontend_name(self, frontend: str) -> str:
        """The option's name on ``frontend``; "" when the front end has no such option."""
        if frontend in self.frontends:
            return self.frontends[frontend]
        if frontend == "cli":
            return self.flag if self.commands else ""
        keys = {"evalplus": (), "suite": SUITE_KEYS, "lm_eval": LM_EVAL_KEYS, "api": API_KEYS}[frontend]
        return self.name if self.name in keys else ""


# the options a suite file takes (api/suite.py reads these keys), lm-eval's --metadata takes
# (integrations/lm_eval.py), and the Python API's keywords (api.rerank, api.pick / Picker)
SUITE_KEYS = frozenset({"dataset", "data_dir", "solutions", "tests", "limit", "task_ids", "raw_field",
                        "drop_extra_problems", "methods", "tests_per_sample", "time_limit", "seed", "base_only",
                        "strict", "tests_label", "compare_to", "resamples", "draws", "pass_at_k_rule"})
LM_EVAL_KEYS = frozenset({"n_samples", "n_test_samples", "tests_per_sample", "time_limit", "workers", "data_dir",
                          "cache_dir", "progress", "min_time_limit", "gt_time_limit_factor"})
PICK_KEYWORDS = frozenset({"entry_point", "tests", "method", "seed", "time_limit", "workers"})
API_KEYS = frozenset({"solutions", "tests", "dataset", "data_dir", "limit", "task_ids", "raw_field",
                      "drop_extra_problems", "eval_results", "methods", "k", "pass_at_k_rule", "tests_per_sample",
                      "time_limit", "seed", "base_only", "strict", "min_time_limit", "gt_time_limit_factor",
                      "workers", "executor", "ray_address", "cache_dir", "progress", "output", "overwrite", "model",
                      "tests_label", "select_model", "select_backend", "select_base_url", "select_max_tokens"}
                     | PICK_KEYWORDS)
RERANK = ("rerank", "run")
# the leaderboard takes these from its suite file, and the table's default where the file has none
SUITE_DECIDES = {"leaderboard": None}
BOARD = ("rerank", "run", "leaderboard")
MODEL = ("run", "likelihood")
NO_HARNESS = {"evalplus": "", "lm_eval": ""}
RESULTS_ROOT = "coderank_results"  # the folder under which a rerank or a run without --output writes its own
RUN_LIMIT = 4  # problems `run` takes without --limit / --task-ids (the embedded model: its own four)

OPTIONS: tuple[Option, ...] = (
    # --- what to rerank
    Option("dataset", TEXT, "humaneval",
           "humaneval | humaneval+ | mbpp | mbpp+ | humaneval-original | mbpp-sanitized (humaneval and mbpp are "
           "HumanEval+ / MBPP+, judged on base and plus tests), PATH.jsonl: your own problems or LiveCodeBench's "
           "records (LCB's filters after ?), livecodebench[:release_vN]; pick: a problem file, with --task-id",
           RERANK + ("likelihood", "pick"), {"evalplus": "--dataset (humaneval | mbpp)", "lm_eval": "(the task)"},
           defaults={"pick": None}),
    Option("task_id", TEXT, None, "the problem of --dataset to pick for (LiveCodeBench: its question_id; its public "
           "tests are the trial tests)", ("pick",), NO_HARNESS),
    Option("data_dir", TEXT, None, "folder with local dataset files (default: $CODERANK_DATA, then evalplus's cache "
           "or download)", RERANK + ("likelihood",), {"evalplus": "(HUMANEVAL_OVERRIDE_PATH / MBPP_OVERRIDE_PATH)"}),
    Option("solutions", TEXT, None, "the samples: evalplus jsonl ({task_id, solution|completion}), a folder of "
           "them, CodeT {prompt, samples} jsonl, bigcode or lm-eval --log_samples output", ("rerank", "likelihood"),
           {"cli": "--solutions (or --samples)", "evalplus": "--samples (its own)", "lm_eval": "(the model's)"}),
    Option("tests", TESTS, None,
           "test sources, comma-separated or repeated: files of test samples ({task_id, samples|asserts} or CodeT "
           "jsonl; pick also takes a .py of asserts), examples+mutate[:N] (no model: N inputs per problem grown "
           "from the prompt's examples), on run also model (the model writes them); default: examples+mutate, on "
           "run model; a file adds to the prompt's examples and replaces the grown inputs: FILE,examples+mutate "
           "gives both", RERANK + ("pick",), {"evalplus": "--tests", "lm_eval": "(the model's)"},
           defaults={"run": ["model"]}),
    Option("limit", COUNT, None, "the dataset's first N problems, whatever the input files' order (0: all; "
           f"default: all, except on the run command: {RUN_LIMIT} problems, the dataset's first, or with the "
           "embedded model on HumanEval four it solves now and then; on leaderboard it applies to every entry)",
           BOARD, {"evalplus": "--limit", "lm_eval": "(lm-eval's --limit)"}),
    Option("task_ids", NAMES, None, "comma-separated task ids to take instead of --limit (e.g. "
           "HumanEval/2,HumanEval/23)", BOARD, {"evalplus": "--task_ids", "lm_eval": ""}),
    Option("raw_field", TEXT, None, "the samples' field holding a chat model's raw reply (e.g. raw): read as "
           "evalplus.sanitize would", ("rerank", "pick"), {"evalplus": "--raw_field", "lm_eval": ""},
           metavar="FIELD"),
    Option("drop_extra_problems", FLAG, False, "drop the input files' records of problems the dataset lacks, with "
           "one warning that counts them (default: such records are an error)", ("rerank",), NO_HARNESS,
           cli=SWITCH),
    Option("eval_results", TEXT, None, "evalplus's *_eval_results.json for these samples: its verdicts are used "
           "instead of judging (checked against the samples)", ("rerank",),
           {"evalplus": "(its own, always)", "lm_eval": "", "suite": ""}),
    # --- how to rank and judge
    Option("methods", METHODS, DEFAULT_METHODS,
           "comma-separated ranking methods (`coderank-evalplus methods` lists them); random and oracle are always "
           "reported; recommended, the default pick (learned_examples, then the model-free selection step: inputs "
           "grown for the leading programs), uses the prompt's examples; <method>+select adds that step after any "
           "ranker (leaderboard: a suite file's own list, else this one)", BOARD + ("budget",),
           {"evalplus": "--rerank", "lm_eval": "(the task: humaneval_srank …)"}, defaults=SUITE_DECIDES),
    Option("k", KS, (1, 10, 100), "the k's of pass@k, each reported only when every problem has at least k "
           "candidates (evalplus's rule)", RERANK, {"evalplus": "--k", "lm_eval": "(pass@1)"}),
    Option("pass_at_k_rule", Kind(" or ".join(PASS_AT_K_RULES), _choice(*PASS_AT_K_RULES)), DEFAULT_PASS_AT_K_RULE,
           "how pass@k's k picks follow a ranking: ranked, k picks in rank order without replacement (the top "
           "group first, drawn at random inside, then the next: pass@n is the oracle); codet, CodeT's published "
           "rule (one pick per top group, with replacement inside a group), to reproduce CodeT's and SRank's "
           "pass@2 and pass@10. pass@1 is the same under both (docs/usage.md works an example)", RERANK,
           {"evalplus": "--pass_at_k_rule", "lm_eval": "(pass@1: the same under both)"}),
    Option("tests_per_sample", COUNT, 5, "asserts kept per test sample (CodeT: 5; 0: all)", RERANK,
           {"evalplus": "--tests_per_sample"}),
    Option("time_limit", POSITIVE, 0.1, "CPU seconds per generated test (CodeT: 0.1)", RERANK + ("pick",),
           {"evalplus": "--time_limit"}),
    Option("seed", INT, 0, "seed of the rankers' ties, the grown inputs, the bootstrap and sub-sampling "
           "(leaderboard: a suite file's own, else 0)", BOARD + ("budget", "pick"),
           {"evalplus": "--seed", "lm_eval": "rank_seed"}, defaults=SUITE_DECIDES),
    Option("base_only", FLAG, False, "judge on base tests only (no plus split)", BOARD,
           {"evalplus": "--base_only (its own)", "lm_eval": "(the task: humaneval_* or humaneval_plus_*)"},
           cli=SWITCH),
    Option("strict", FLAG, False, "judge: a sample that passed only through its own == (listed as suspicious) "
           "fails", BOARD, {"evalplus": "--strict"}, cli=SWITCH),
    Option("min_time_limit", POSITIVE, 1.0, "judge: the least seconds per benchmark test (evalplus's)", RERANK,
           {"evalplus": "--min_time_limit (its own)"}),
    Option("gt_time_limit_factor", POSITIVE, 4.0, "judge: seconds per benchmark test as a multiple of the "
           "reference solution's (evalplus's)", RERANK, {"evalplus": "--gt_time_limit_factor (its own)"}),
    # --- where it runs
    Option("workers", POSITIVE_INT, None, "parallel workers (default: all cores; with --executor ray: per node)",
           BOARD + ("budget", "pick"), {"evalplus": "--parallel (its own)"}),
    Option("executor", EXECUTOR, "local", "where programs run: this machine's worker pool, or a Ray cluster "
           "(pip install '.[ray]')", BOARD, NO_HARNESS),
    Option("ray_address", TEXT, None, "--executor ray: the cluster's address (default: join the one `ray start` "
           "began here, or start a local one)", BOARD, NO_HARNESS),
    Option("cache_dir", TEXT, None, "execution cache folder (default: <output>/cache; budget: none, where a "
           "method's step after ranking runs again on each sub-sample)", BOARD + ("budget",),
           {"evalplus": "(beside --samples)"}),
    Option("progress", FLAG, True, "progress bars (where stderr is not a terminal, a plain line every 30 s; the "
           "CLI's --quiet: none)", BOARD + ("budget", "likelihood"),
           {"cli": "--quiet", "evalplus": ""}),
    # --- where the results go, and who made them
    Option("output", TEXT, None, f"results folder (default: a folder of its own under ./{RESULTS_ROOT} named "
           "after the run — rerank: <model>--<dataset>--<tests>, a suffix keeping another run's; run: "
           "<model>-<dataset>, resumed by the same run; leaderboard: coderank_leaderboard; likelihood: the samples "
           "file itself); a folder holding another run is refused unless --overwrite, one holding files this tool did "
           "not write always", BOARD + ("likelihood",),
           {"evalplus": "(beside --samples)", "lm_eval": "(under lm-eval's --output_path)"},
           defaults={"leaderboard": "coderank_leaderboard"}),
    Option("overwrite", FLAG, False, "replace the results of another run in --output", RERANK, NO_HARNESS, cli=SWITCH),
    Option("model", TEXT, None, "the model: on rerank the name the results and the leaderboard give the samples "
           "(default: the samples' file name); on run and likelihood the one to sample or score: a hub id or local "
           "path (hf, vllm), a served model (openai) or embedded (SmolLM2-135M)", RERANK + ("likelihood",),
           {"evalplus": "--model (its own)", "lm_eval": "(lm-eval's --model_args)"},
           defaults={"run": "embedded", "likelihood": "embedded"}),
    Option("tests_label", TEXT, None, "the test pool's name in the results and the leaderboard (default: from "
           "--tests)", ("rerank",), {"evalplus": "--tests_label", "lm_eval": "(the model's own tests)"}),
    # --- models (run, likelihood; evalplus.evaluate's own flags when it generates)
    Option("backend", Kind("embedded, hf, vllm or openai", _choice("embedded", "hf", "vllm", "openai")),
           "embedded", "how the model is reached", MODEL, {"evalplus": "--backend (its own)", "lm_eval": ""}),
    Option("base_url", TEXT, None, "openai backend: the server's URL (e.g. http://127.0.0.1:8000/v1); the key comes "
           "from OPENAI_API_KEY", MODEL, {"evalplus": "--base_url (its own)", "lm_eval": ""}),
    Option("chat", FLAG, None, "--chat: chat prompts (the reply's code block is read); --no-chat: base prompts; "
           "default: the tokenizer's chat template (hf, vllm, embedded), or what the server accepts (openai)",
           MODEL, {"evalplus": "--force_base_prompt (its own)", "lm_eval": "--apply_chat_template (its own)"},
           cli=BOTH),
    Option("concurrency", POSITIVE_INT, None, "openai backend: requests in flight at once (default: 8)", MODEL,
           {"evalplus": "", "lm_eval": ""}),
    Option("retries", COUNT, None, "openai backend: retries of a request on 429, 5xx, time-outs and refused "
           "connections, with back-off honouring Retry-After (default: 5)", MODEL, {"evalplus": "", "lm_eval": ""}),
    Option("tp", POSITIVE_INT, 1, "vllm: tensor parallel size (GPUs per engine)", ("run",),
           {"evalplus": "--tp (its own)", "lm_eval": ""}),
    Option("dp", POSITIVE_INT, 1, "vllm: data parallel size (engines of --tp GPUs each, as Ray actors)", ("run",),
           {"evalplus": "", "lm_eval": ""}),
    Option("n_samples", POSITIVE_INT, 5, "solutions sampled per problem (the papers: 100; lm-eval: 100, CodeT's)",
           ("run",), {"evalplus": "--n_samples (its own)", "lm_eval": "n_samples"}, defaults={"lm_eval": 100}),
    Option("n_test_samples", COUNT, 5, "test samples per problem, with --tests model (the papers: 100; "
           "evalplus.evaluate: its --n_samples; lm-eval: 100)", ("run",),
           {"evalplus": "--n_test_samples"}, defaults={"evalplus": None, "lm_eval": 100}),
    Option("temperature", NON_NEGATIVE, 0.8, "sampling temperature (CodeT's 0.8; 0: greedy)", ("run",),
           {"evalplus": "--temperature (its own)", "lm_eval": "(--gen_kwargs)"}),
    Option("top_p", TOP_P, 0.95, "nucleus sampling: the top tokens whose probabilities add up to this (CodeT's)",
           ("run",), {"evalplus": "", "lm_eval": "(--gen_kwargs)"}),
    Option("max_tokens", POSITIVE_INT, None, "new tokens per sample (default: 300; 128 for embedded)", ("run",),
           {"evalplus": "", "lm_eval": "(--gen_kwargs max_gen_toks)"}),
    Option("self_debug", Kind("sd1 or multi", _choice("sd1", "multi")), None,
           "after reranking, debug with trial-test feedback: sd1 = each method's top candidate, multi = every "
           "candidate failing a trial test, then rerank; reports before and after", ("run",),
           {"evalplus": "--self_debug", "lm_eval": ""}),
    Option("debug_rounds", POSITIVE_INT, None, "self-debug rounds per candidate (default: 3 for sd1, 1 for multi)",
           ("run",), {"evalplus": "--debug_rounds", "lm_eval": ""}),
    Option("debug_temperature", NON_NEGATIVE, 0.0, "self-debug sampling temperature (0: greedy)", ("run",),
           {"evalplus": "", "lm_eval": ""}),
    Option("select_model", TEXT, None, "S* after ranking (model-assisted selection, docs/methods.md): this model is "
           "asked for inputs that tell the pick and its closest rival apart, both run on them, and it judges their "
           "outputs; a hub id or local path (hf, vllm), a served model (openai) or embedded; on run, same: the "
           "run's own model", ("rerank", "run", "pick"), NO_HARNESS),
    Option("select_backend", Kind("embedded, hf, vllm or openai", _choice("embedded", "hf", "vllm", "openai")), None,
           "--select-model's backend (default: on run --backend; else openai with --select-base-url, else "
           "embedded)", ("rerank", "run", "pick"), NO_HARNESS),
    Option("select_base_url", TEXT, None, "--select-backend openai: the server's URL (the key comes from "
           "OPENAI_API_KEY)", ("rerank", "run", "pick"), NO_HARNESS),
    Option("select_max_tokens", POSITIVE_INT, 1000, "new tokens per S* reply (S*'s: 1000)",
           ("rerank", "run", "pick"), NO_HARNESS),
    Option("adaptive", FLAG, False, "adaptive budget: draw solutions in rounds (1, 2, … 10, 15, 20, …) and stop a "
           "problem once the pick's confidence reaches --tau or --n-samples is reached (budget: report it)",
           ("run", "budget"), {"evalplus": "--adaptive", "lm_eval": ""}, cli=SWITCH),
    Option("tau", PROBABILITY, None, "--adaptive: the confidence to stop at (default: the confidence model's "
           "recorded τ)", ("run", "budget"), {"evalplus": "--tau", "lm_eval": ""}),
    # --- leaderboards and budgets
    Option("compare_to", METHODS, ("random", "codet"), "paired comparisons against these methods (a suite file's "
           "own, else these)", ("leaderboard",), NO_HARNESS, defaults=SUITE_DECIDES),
    Option("resamples", Kind("an integer ≥ 1000", _int_at_least(1000)), 2000, "bootstrap resamples of the "
           "intervals (at least 1000 for a 95 % interval; leaderboard: a suite file's own, else 2000)",
           ("leaderboard", "budget"), NO_HARNESS, defaults=SUITE_DECIDES),
    Option("draws", POSITIVE_INT, 20, "seeded draws per budget-curve point (leaderboard: a suite file's own, else "
           "20)", ("leaderboard", "budget"), NO_HARNESS, defaults=SUITE_DECIDES),
    Option("confidence_model", TEXT, None, "a confidence model JSON (default: the one shipped, "
           "rankers/confidence_model.json)", ("budget",), NO_HARNESS),
    Option("json", TEXT, None, "write the result as JSON to PATH (- : print it)", ("pick", "budget"), NO_HARNESS,
           metavar="PATH|-"),
    # --- pick
    Option("entry_point", TEXT, None, "the function asked for (default: the prompt's last def)", ("pick",),
           NO_HARNESS),
    Option("method", METHOD, RECOMMENDED, "the ranker of the pick (`coderank-evalplus methods` lists them; "
           "recommended includes the model-free selection step, whose deciding input the reasons show; "
           "<ranker>+select adds it to another ranker)", ("pick",), NO_HARNESS),
)
_BY_NAME = {o.name: o for o in OPTIONS}


def option(name: str) -> Option:
    return _BY_NAME[name]


def default(name: str, where: str = "api") -> Any:
    """The option's default on a CLI subcommand or a front end (``FRONTENDS``): what every front end reads instead of
    writing the value again."""
    return _BY_NAME[name].default_for(where)


def command_options(command: str) -> list[Option]:
    """The options a CLI subcommand has, in the table's order."""
    return [o for o in OPTIONS if command in o.commands]


# --- the checks that join options ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Rule:
    """A combination of options that is refused: ``refused(value)`` (``value(name)``: the option's value, its
    default where the front end has no such option) says whether; ``says`` is the one-line reason, the options in braces
    (each front end shows them in its own words: ``--task-ids``, ``--task_ids``, ``task_ids``)."""

    names: tuple[str, ...]
    refused: Callable[[Callable[[str], Any]], bool]
    says: str


RULES: tuple[Rule, ...] = (
    Rule(("limit", "task_ids"), lambda v: v("task_ids") is not None and bool(v("limit")),
         "{limit} and {task_ids}: give one of them"),
    # run --dp N (vLLM's engines as Ray actors) joins the cluster at --ray-address too
    Rule(("ray_address", "executor", "dp"), lambda v: bool(v("ray_address")) and v("executor") != "ray"
         and v("dp") == 1, "{ray_address}: needs {executor} ray (or, on run, {dp} > 1)"),
    Rule(("select_backend", "select_base_url", "select_model"),
         lambda v: bool(v("select_backend") or v("select_base_url")) and not v("select_model"),
         "{select_backend} and {select_base_url}: need {select_model}"),
    Rule(("select_base_url", "select_backend"),
         lambda v: bool(v("select_base_url")) and v("select_backend") not in (None, "openai"),
         "{select_base_url}: needs {select_backend} openai"),
    Rule(("debug_rounds", "self_debug"), lambda v: v("debug_rounds") is not None and not v("self_debug"),
         "{debug_rounds} applies with {self_debug} sd1|multi"),
    Rule(("tau", "adaptive"), lambda v: v("tau") is not None and not v("adaptive"), "{tau} applies with {adaptive}"),
)


def check_rules(values: Mapping[str, Any], shown: Callable[[Option], str] = lambda o: o.name) -> None:
    """OptionError for the first ``RULES`` entry that ``values`` (option name → value; an option absent: its
    default) break, naming the options as ``shown`` writes them (the CLI: ``Option.flag``)."""
    def value(name: str) -> Any:
        return values[name] if name in values else _BY_NAME[name].default

    for rule in RULES:
        if rule.refused(value):
            raise OptionError(rule.says.format(**{n: shown(_BY_NAME[n]) for n in rule.names}))


# --- the options of one rerank -----------------------------------------------------------------------------------
@dataclass
class RerankOptions:
    """Everything one rerank needs, checked (``check``). Field names are the ``OPTIONS`` names; each default is read
    from the table (``default``), never written here."""

    solutions: Optional[str] = default("solutions")
    tests: Optional[list[str]] = default("tests")  # None: examples+mutate (said in one line)
    dataset: str = default("dataset")
    data_dir: Optional[str] = default("data_dir")
    limit: Optional[int] = default("limit")
    task_ids: Optional[list[str]] = default("task_ids")
    raw_field: Optional[str] = default("raw_field")
    drop_extra_problems: bool = default("drop_extra_problems")
    eval_results: Optional[str] = default("eval_results")
    methods: Sequence[str] = default("methods")
    k: Sequence[int] = default("k")
    pass_at_k_rule: str = default("pass_at_k_rule")
    tests_per_sample: int = default("tests_per_sample")
    time_limit: float = default("time_limit")
    seed: int = default("seed")
    base_only: bool = default("base_only")
    strict: bool = default("strict")
    min_time_limit: float = default("min_time_limit")
    gt_time_limit_factor: float = default("gt_time_limit_factor")
    workers: Optional[int] = default("workers")
    executor: str = default("executor")
    ray_address: Optional[str] = default("ray_address")
    cache_dir: Optional[str] = default("cache_dir")
    progress: bool = default("progress")
    output: Optional[str] = default("output")
    overwrite: bool = default("overwrite")
    model: Optional[str] = default("model")
    tests_label: Optional[str] = default("tests_label")
    select_model: Optional[str] = default("select_model")
    select_backend: Optional[str] = default("select_backend")
    select_base_url: Optional[str] = default("select_base_url")
    select_max_tokens: int = default("select_max_tokens")

    def check(self) -> "RerankOptions":
        """Each value checked by its option's kind (OptionError naming the option), and the combinations."""
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None or f.name in ("methods", "k") and value == option(f.name).default:
                continue
            setattr(self, f.name, check_value(f.name, option(f.name).kind, value))
        self.methods = list(self.methods)
        self.k = list(self.k)
        check_rules({f.name: getattr(self, f.name) for f in fields(self)})
        if self.eval_results is not None and not Path(self.eval_results).is_file():
            from coderank_evalplus.types import InputNotFound

            raise InputNotFound(f"eval_results {self.eval_results}: no such file")
        return self

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], where: str = "") -> "RerankOptions":
        """Options from a mapping of option names (a suite entry, lm-eval's metadata, keyword arguments): unknown
        names and bad values raise OptionError naming ``where``."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise OptionError(f"{where + ': ' if where else ''}unknown option(s) {', '.join(unknown)}")
        try:
            return cls(**dict(values)).check()
        except OptionError as exc:
            raise OptionError(f"{where}: {exc}" if where else str(exc)) from None


def names_table() -> str:
    """The names across front ends, as the Markdown table docs/names.md holds."""
    head = ("| option | accepts | default | CLI | evalplus.evaluate | lm-eval --metadata | suite file | Python "
            "API | meaning |\n|---|---|---|---|---|---|---|---|---|\n")
    rows = []
    for o in OPTIONS:
        default = ",".join(map(str, o.default)) if isinstance(o.default, (list, tuple)) else o.default
        if o.defaults:
            default = ("–" if o.default is None else str(default)) + "; " + "; ".join(
                f"{c}: {'–' if v is None else ','.join(v) if isinstance(v, list) else v}"
                for c, v in o.defaults.items())
        cells = [f"`{o.name}`", o.kind.accepts, "–" if default is None else f"`{default}`"]
        for frontend in FRONTENDS:
            name = o.frontend_name(frontend)
            if frontend == "cli" and name and o.commands:
                name = f"{name} ({', '.join(o.commands)})"
            cells.append(name or "–")
        cells.append(o.help)
        rows.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    return head + "\n".join(rows) + "\n"


NAMES_PAGE_HEAD = """# Names across front ends

Every option of every front end, from one table in the code (`coderank_evalplus/api/options.py`): the same option has
one name, type, default, meaning and check wherever it appears. A front end with a word of its own for it (evalplus's
`--samples`, lm-eval's `rank_seed`) maps that word here and nowhere else; "–" means the front end has no such option,
and a name in parentheses says what decides it on that front end instead. The CLI's flags are the option's name with
hyphens; evalplus.evaluate's, lm-eval's `--metadata` keys, suite files' keys and the Python API's keywords are the
name itself. A bad value is refused where it is given: the CLI exits with status 2 and one line naming the flag and
what it accepts; the library raises `OptionError` (a `CoderankError`, a `ValueError`). The default column gives
the option's default, then, after a `;`, the default of a subcommand or a front end that has its own (`lm_eval: 100`;
"–": none, the help says what decides); every front end reads them from the table (a test compares them front end by
front end).

Regenerate with `python -m coderank_evalplus.api.options > docs/names.md` (a test keeps this page equal to the code).

"""


def rules_list() -> str:
    """The checks that join options (``RULES``), one line each, as every front end refuses them."""
    head = ("\n## Checks that join options\n\nEach is one rule beside the table (`RULES`), checked by every front end "
            "that has the options; a front end that lacks one counts it at its default.\n\n")
    return head + "".join(f"- {r.says.format(**{n: f'`{n}`' for n in r.names})}\n" for r in RULES)


def names_page() -> str:
    """docs/names.md: the head, the table and the checks that join options."""
    return NAMES_PAGE_HEAD + names_table() + rules_list()


if __name__ == "__main__":
    print(names_page(), end="")
