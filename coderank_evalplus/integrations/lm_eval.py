"""lm-evaluation-harness tasks: sample solutions and tests in one ``lm_eval`` run, rerank, report pass@1.

The YAML files in ``coderank_evalplus/lm_eval_tasks/`` (``humaneval_codet``, ``mbpp_plus_srank``, … and the group
``coderank``) all name the class :class:`CodeRankTask` (through ``lm_eval_tasks/coderank_task.py``, which every
lm-eval 0.4.x resolves). For each problem it issues two ``generate_until`` requests:

* the solution prompt (``prompts.solution_prompt``), repeated ``n_samples`` times (default 100; the task's
  ``repeats`` in lm-eval's printed config says the same);
* CodeT's test-generation prompt (``prompts.test_generation_prompt``, ends with ``assert ``), repeated
  ``n_test_samples`` times (default 100),

with CodeT's sampling settings (temperature 0.8, top-p 0.95, 300 new tokens, CodeT's stop sequences). The test
request's document is a marked copy (so is every request's of a chat-mode run): lm-eval's filters see documents,
not requests. After generation the task's filter list (``_coderank_template_yaml``) applies the ``rerank`` filter
(:mod:`coderank_evalplus.integrations.lm_eval_filter`), which lm-eval hands every document of the task at once; for
these tasks it is judged (``judged_records``, with the settings the task fills in): every problem goes down
``api.evaluate.run_rerank`` in one batch (extraction → the per-problem path, ``selection.path.ProblemPath``:
sandboxed execution, the ranker, its steps after ranking → the evalplus judge), and each solution request keeps its
problem's record, each test request the test record. ``process_results``, one function, turns a record into three
metrics, averaged over problems:

* ``pass@1``: reranked pass@1 (``metrics.ranked_pass_at_k`` at k = 1: a uniform pick from ``metrics.pick_pool``,
  the ranking's first merged group after the steps; else the fallback pool; else every candidate);
* ``pass@1_random``: unbiased pass@1 of a random candidate;
* ``pass@1_oracle``: 1 when any candidate is correct.

lm-eval's own code tasks take the same filter unjudged and keep their ``code_eval`` metric (the ``*_rerank``
variants beside these tasks; docs/harnesses.md).

``*_plus_*`` tasks judge on base + plus tests (evalplus's "plus"); the others on the base tests. The
``*_recommended`` tasks rank with ``recommended`` (the default pick, which uses the prompt's own examples) on the
model's tests pooled with inputs grown from the examples (``examples_mutate: true`` in the YAML's ``coderank:``
block, as ``--tests FILE --tests examples+mutate``); every record says ``uses_prompt_examples``.

Overrides (``--metadata '{"n_samples": 10, ...}'``; the names, checks and defaults of ``api.options``, the
lm-eval column of docs/names.md): ``n_samples``, ``n_test_samples``, ``tests_per_sample`` (asserts kept per test
sample), ``time_limit`` (CPU seconds per generated test), ``workers``, ``rank_seed`` (rankers' tie-breaking
seed: the option ``seed``, which lm-eval's model arguments also put in the metadata), ``data_dir`` (else
``CODERANK_DATA``, else evalplus's cache / download), ``cache_dir`` (execution cache; default ``lm_eval/`` in
``$CODERANK_CACHE`` or ``$XDG_CACHE_HOME/coderank_evalplus``; ``"none"`` disables it), ``results_dir`` (where the
results folders go instead of beside lm-eval's results), ``progress``, ``min_time_limit`` and
``gt_time_limit_factor`` (evalplus's judge limits). A bad value stops the task with a message naming the key.
Sampling: ``--gen_kwargs``.

Results folders (the layout ``coderank-evalplus leaderboard`` reads, with the model, the dataset, the test pool and
the setting recorded): written when lm-eval writes its own results (``--output_path``), beside them, per model and
run: ``<output_path>/<model>/coderank_<task>_<date>/``, the date being lm-eval's own results file's; with
``results_dir``: ``<results_dir>/<model>/coderank_<task>/`` (another run's results there are refused). Without
either, none is written (one log line says so).

With ``--log_samples`` each sample's ``resps`` holds the raw generations and ``filtered_resps`` two JSON strings:
the problem's rerank record (the candidates, i.e. completions cut at the stop sequences, program = prompt +
candidate; which are correct; the ranking's groups with scores; the pick pool (``top_group``), the chosen
candidate — the first of the pick pool; pass@1 is the expectation over a uniform pick in it — and whether it
passed; the metric values) and the test record (the extracted asserts with their counts).

Chat models (``lm_eval … --apply_chat_template``): lm-eval then hands every task ``apply_chat_template=True`` and
``chat_template`` (the model's ``apply_chat_template(messages, add_generation_prompt=True)``) in
``fewshot_context`` and ``construct_requests`` (same signatures in 0.4.9 … 0.4.13); the tasks then prompt as
lm-eval's ``humaneval_instruct`` does (its instruction in the user turn, its ``gen_prefix`` — ``Here is the
completed function:`` and the prompt in an open fence — as the start of the assistant turn), ask for tests with
:func:`~coderank_evalplus.testgen.prompts.chat_test_messages`, drop CodeT's stop sequences (code-like lines in a
reply are no end of it), and read each reply as ``coderank-evalplus rerank --raw-field`` does: a solution is
:func:`coderank_evalplus.io.sanitize.raw_program` (a full program; ``""`` when it defines no entry point), a test
sample :func:`~coderank_evalplus.testgen.replies.parse_chat_tests`. The records then hold the programs as
``candidates`` and say ``"chat": true``. Without the flag nothing of this applies.
"""

from __future__ import annotations

import json
import logging
import math
from collections import defaultdict
from copy import deepcopy
from pathlib import Path
from typing import Any, NoReturn, Optional

from lm_eval.api.instance import Instance
from lm_eval.api.task import ConfigurableTask
from lm_eval.filters import build_filter_ensemble

from coderank_evalplus.integrations import lm_eval_filter  # noqa: F401 - registers the rerank filter
from coderank_evalplus.io.lm_eval_log import read_answers
from coderank_evalplus.io.problems import DataNotFoundError
from coderank_evalplus.testgen.mutate import GROWN_INPUTS as DEFAULT_MUTATE_N

log = logging.getLogger("lm_eval.coderank_evalplus")  # lm-eval formats and levels its own loggers

METRICS = ("pass@1", "pass@1_random", "pass@1_oracle")
FILTER_KEY = "none"
SOLUTION_IDX, TEST_IDX = 0, 1


def metadata_options() -> dict[str, Any]:
    """Our ``--metadata`` keys, each with the option it is (``api.options``: its name on lm-eval's front end, e.g.
    ``rank_seed`` for ``seed``), and ``results_dir`` (None: a key of this front end alone, a folder)."""
    from coderank_evalplus.api.options import OPTIONS

    keys: dict[str, Any] = {o.frontend_name("lm_eval"): o for o in OPTIONS if o.frontend_name("lm_eval").isidentifier()}
    return {**keys, "results_dir": None}


# each key's default: the table's for lm-eval (``Option.default_for("lm_eval")``), never written here
DEFAULTS: dict[str, Any] = {key: None if o is None else o.default_for("lm_eval")
                            for key, o in metadata_options().items()}
_TASK_KEYS = ("dataset", "method", "plus", "examples_mutate")  # the ``coderank:`` block of a task YAML
# --apply_chat_template: lm-eval's own humaneval_instruct task's instruction and assistant prefix (its doc_to_text
# and gen_prefix, with the prompt as is).
CHAT_INSTRUCTION = ("Write a solution to the following problem and make sure that it passes the tests:\n"
                    "```python\n{prompt}\n```\n")
CHAT_GEN_PREFIX = "Here is the completed function:\n```python\n{prompt}\n"
_CHAT_DOC_KEY = "__coderank_chat__"  # marks the doc copies of a chat-mode run (fewshot_context's, the requests')
_TEST_DOC_KEY = "__coderank_tests__"  # marks the test request's doc copy (the rerank filter sees docs, not requests)
_CHAT_ATTR = "coderank_chat"  # set on the requests of a chat-mode run (kept by lm-eval's request cache)


class Record(dict):
    """A per-problem rerank record; ``str()`` is JSON, so ``--log_samples`` files hold it as a JSON string
    (lm-eval writes every filtered response through ``str``)."""

    def __str__(self) -> str:
        return json.dumps(self, ensure_ascii=False)


def process_results(doc: dict, results: list) -> dict[str, float]:
    """Metrics of one problem from its rerank record (the solution request's filtered response)."""
    record = results[SOLUTION_IDX] if results else None
    if not isinstance(record, dict):  # filters bypassed (e.g. a custom filter_list): nothing was scored
        return {m: 0.0 for m in METRICS}
    return {m: float(record[m]) for m in METRICS}


class CodeRankTask(ConfigurableTask):
    """A HumanEval(+)/MBPP(+) task that samples solutions and tests, then reranks with one method."""

    VERSION = 1

    def __init__(self, data_dir=None, cache_dir=None, download_mode=None, config: Optional[dict] = None) -> None:
        from coderank_evalplus.integrations.versions import lm_eval_too_old

        too_old = lm_eval_too_old()
        if too_old:  # reached only with an explicit --include_path: the start-up hook leaves such an lm-eval alone
            raise ValueError(too_old)
        config = dict(config or {})
        config.pop("class", None)
        spec = dict(config.pop("coderank", None) or {})
        unknown = set(spec) - set(_TASK_KEYS)
        if unknown or "dataset" not in spec or "method" not in spec:
            raise ValueError(f"task {config.get('task')!r}: the 'coderank:' block needs dataset and method "
                             f"(and optionally plus); got {sorted(spec)}")
        from coderank_evalplus.io.problems import canonical_dataset
        from coderank_evalplus.pipeline import all_methods

        self.dataset_name = canonical_dataset(str(spec["dataset"]))
        self.method = str(spec["method"])
        all_methods([self.method])  # fail at load time on an unknown method
        self.plus = bool(spec.get("plus", False))
        # the model's tests pooled with inputs grown from the prompt's examples (the *_recommended tasks)
        self.mutate = DEFAULT_MUTATE_N if spec.get("examples_mutate", False) else None
        from coderank_evalplus._lm_eval_hook import manager_metadata

        meta = {**dict(config.get("metadata") or {}), **manager_metadata()}  # lm-eval < 0.4.12: --metadata
        meta["coderank"] = {"dataset": self.dataset_name, "method": self.method, "plus": self.plus,
                            "examples_mutate": self.mutate is not None}
        config["metadata"] = meta
        if "n_solutions" in meta:
            raise ValueError(f"task {config.get('task')!r}: metadata n_solutions is now n_samples (the name of "
                             f"`coderank-evalplus run --n-samples` and evalplus's --n_samples)")
        self._options = checked_metadata(meta, str(config.get("task")))
        config["repeats"] = self._options["n_samples"]  # what lm-eval prints as the task's samples per problem
        install_results_writer()
        # Metrics are computed here, not by lm-eval's registry (its code_eval needs the hub): a process_results
        # callable makes ConfigurableTask skip the metric lookup.
        config["process_results"] = process_results
        config["metric_list"] = [{"metric": m, "aggregation": "mean", "higher_is_better": True} for m in METRICS]
        config.setdefault("test_split", "test")
        config.setdefault("output_type", "generate_until")
        config["unsafe_code"] = True
        config["filter_list"] = judged_filter_list(config.get("filter_list"), {
            "task": str(config.get("task")), "dataset": self.dataset_name, "method": self.method, "plus": self.plus,
            "examples_mutate": self.mutate is not None, "model": model_name(meta), "options": dict(self._options)})
        self._problems: dict = {}
        super().__init__(data_dir=data_dir, cache_dir=cache_dir, download_mode=download_mode, config=config)

    # ------------------------------------------------------------------ options
    def option(self, key: str) -> Any:
        """A metadata option's value, checked when the task was made (``checked_metadata``)."""
        return self._options[key]

    # ------------------------------------------------------------------ data
    def download(self, dataset_kwargs: Optional[dict] = None, **kwargs) -> None:
        """Problems through ``load_problems`` (local files via ``data_dir`` / ``CODERANK_DATA``, else evalplus)."""
        import datasets

        from coderank_evalplus.io.problems import load_problems
        from coderank_evalplus.testgen.prompts import solution_prompt, test_generation_prompt

        try:
            self._problems = load_problems(self.dataset_name, self.option("data_dir"))
        except DataNotFoundError as exc:
            data_missing(str(self.config.task), exc)
        docs = [{"task_id": p.task_id, "prompt": solution_prompt(p), "test_prompt": test_generation_prompt(p),
                 "entry_point": p.entry_point, "canonical_solution": p.canonical_solution}
                for p in self._problems.values()]
        self.dataset = datasets.DatasetDict({"test": datasets.Dataset.from_list(docs)})

    def doc_to_text(self, doc, doc_to_text=None):
        if doc.get(_CHAT_DOC_KEY):
            return CHAT_INSTRUCTION.format(prompt=doc["prompt"])
        return doc["prompt"]

    def fewshot_context(self, doc, num_fewshot, system_instruction=None, apply_chat_template=False,
                        fewshot_as_multiturn=False, chat_template=None, gen_prefix=None, **kwargs):
        """lm-eval's context; with ``--apply_chat_template`` built from humaneval_instruct's instruction and
        assistant prefix (a marked copy of the doc tells ``doc_to_text``)."""
        if apply_chat_template:
            doc = {**doc, _CHAT_DOC_KEY: True}
            gen_prefix = CHAT_GEN_PREFIX.format(prompt=doc["prompt"])
        return super().fewshot_context(doc, num_fewshot, system_instruction=system_instruction,
                                       apply_chat_template=apply_chat_template,
                                       fewshot_as_multiturn=fewshot_as_multiturn, chat_template=chat_template,
                                       gen_prefix=gen_prefix, **kwargs)

    def doc_to_target(self, doc, doc_to_target=None):
        return doc["canonical_solution"]

    # ------------------------------------------------------------------ requests
    def construct_requests(self, doc: dict, ctx, **kwargs) -> list[Instance]:
        chat = bool(kwargs.pop("apply_chat_template", False))
        chat_template = kwargs.pop("chat_template", None)
        task, doc_id, _ = kwargs.pop("metadata", (self.config.task, None, 1))
        n_sol, n_tests = self.option("n_samples"), self.option("n_test_samples")
        gen = self.config.generation_kwargs or {}
        if chat:
            gen = chat_generation_kwargs(gen)
            test_ctx = self._chat_test_context(doc, chat_template) if n_tests > 0 else None
        else:
            test_ctx = test_context(ctx, doc) if n_tests > 0 else None
        # the filter sees documents, not requests: each request's copy says which it is (and a chat-mode run)
        marks = {_CHAT_DOC_KEY: True} if chat else {}
        reqs = [Instance(request_type="generate_until", doc={**doc, **marks}, arguments=(ctx, deepcopy(gen)),
                         idx=SOLUTION_IDX, metadata=(task, doc_id, n_sol), **kwargs)]
        if n_tests > 0:
            reqs.append(Instance(request_type="generate_until", doc={**doc, **marks, _TEST_DOC_KEY: True},
                                 arguments=(test_ctx, deepcopy(gen)), idx=TEST_IDX,
                                 metadata=(task, doc_id, n_tests), **kwargs))
        if chat:
            for r in reqs:
                setattr(r, _CHAT_ATTR, True)
        return reqs

    def _chat_test_context(self, doc: dict, chat_template):
        """The test request of a chat-mode run: the package's chat test prompt through the model's template."""
        from coderank_evalplus.testgen.prompts import chat_test_messages

        messages = chat_test_messages(self._problems[doc["task_id"]], self.option("tests_per_sample"))
        if chat_template is None:  # (lm-eval renders a model without a template as plain text, too)
            return "\n\n".join(m["content"] for m in messages)
        return chat_template(messages)

    # ------------------------------------------------------------------ scoring (the rerank filter's records)
    def override_metric(self, metric_name: str) -> None:
        """``--predict_only`` (the metric ``bypass``): the responses are kept as generated, nothing runs."""
        super().override_metric(metric_name)
        if metric_name == "bypass":
            self._filters = [build_filter_ensemble(FILTER_KEY, [])]

    def process_results(self, doc, results):
        if "bypass" in self._metric_fn_list:
            return {"bypass": None}
        return process_results(doc, results)


def judged_filter_list(filter_list: Optional[list], settings: dict) -> list:
    """The task's ``filter_list`` with ``settings`` given to each ``rerank`` step that asks to be judged (``judged:``,
    the template's); a task without a filter list gets that one step, on every response (lm-eval's default filter
    would keep only the first of the repeats)."""
    rerank = lm_eval_filter.FILTER_NAME
    out: list[dict[str, Any]] = deepcopy(filter_list) if filter_list is not None else [
        {"name": FILTER_KEY, "filter": [{"function": rerank, "judged": None}]}]
    for ensemble in out:
        for step in ensemble.get("filter") or []:
            if step.get("function") == rerank and "judged" in step:
                step["judged"] = settings
    return out


def judged_records(settings: dict, resps: list, docs: list) -> list:
    """The rerank filter on a coderank task's requests (``settings``: ``judged_filter_list``'s): every problem of
    the task reranked and judged at once (``run_rerank``: parallel execution), each solution request's filtered
    response its problem's record, each test request's the test record."""
    from coderank_evalplus.api.evaluate import run_rerank
    from coderank_evalplus.api.options import RerankOptions
    from coderank_evalplus.io.problems import load_problems

    opts, method, plus = settings["options"], settings["method"], bool(settings["plus"])
    mutate = DEFAULT_MUTATE_N if settings["examples_mutate"] else None
    all_problems = load_problems(settings["dataset"], opts["data_dir"])
    by_tid: dict[str, dict[int, tuple[int, dict]]] = defaultdict(dict)
    for i, doc in enumerate(docs):
        by_tid[doc["task_id"]][TEST_IDX if doc.get(_TEST_DOC_KEY) else SOLUTION_IDX] = (i, doc)
    completions: dict[str, list[str]] = {}
    programs: dict[str, list[str]] = {}
    raw_tests: dict[str, list[str]] = {}
    chat = False
    for tid, reqs in by_tid.items():
        i, doc = reqs[SOLUTION_IDX]
        chat_doc = bool(doc.get(_CHAT_DOC_KEY))
        chat = chat or chat_doc
        texts = lm_eval_filter.response_texts
        tests = texts(resps[reqs[TEST_IDX][0]]) if TEST_IDX in reqs else []
        completions[tid], programs[tid], raw_tests[tid] = read_answers(all_problems[tid], doc["prompt"],
                                                                       texts(resps[i]), tests, chat_doc)
    label = " + examples+mutate" if mutate is not None else ""
    options = RerankOptions(
        tests=["model"] + (["examples+mutate"] if mutate is not None else []), dataset=settings["dataset"],
        methods=[method], k=[1], tests_per_sample=opts["tests_per_sample"], time_limit=opts["time_limit"],
        workers=opts["workers"], base_only=not plus, seed=opts["rank_seed"], min_time_limit=opts["min_time_limit"],
        gt_time_limit_factor=opts["gt_time_limit_factor"], progress=opts["progress"], model=settings["model"],
        tests_label="model's own tests" + label)
    problems = {tid: all_problems[tid] for tid in programs}
    cache = _open_cache(opts["cache_dir"])
    try:
        result = run_rerank(options, problems=problems, solutions=programs, test_samples=raw_tests, cache=cache,
                            frontend="lm-eval", write=False).result
    finally:
        if cache is not None:
            cache.close()
    name = settings["task"]
    _keep_results_folder(result, name, opts["results_dir"])
    out: list = [None] * len(docs)
    empty_solutions, no_tests = [], []
    for tid, reqs in by_tid.items():
        sol_rec, test_rec = problem_record(tid, completions[tid], raw_tests[tid], result.outcomes[tid], method, plus,
                                           mutate is not None, chat)
        out[reqs[SOLUTION_IDX][0]] = sol_rec
        if TEST_IDX in reqs:
            out[reqs[TEST_IDX][0]] = test_rec
        if sol_rec["n_empty"] == sol_rec["n_candidates"]:
            empty_solutions.append(tid)
        if test_rec["n_tests"] == 0:
            no_tests.append(tid)
    if empty_solutions:
        log.warning("%s: the model returned only empty solutions for %d of %d problem(s) (%s); their pass@1 is 0"
                    + (" (chat replies: none defines the entry point)" if chat else ""),
                    name, len(empty_solutions), len(by_tid), _some(empty_solutions))
    if no_tests:
        log.warning("%s: no valid assert could be extracted from the test samples of %d of %d problem(s) (%s); "
                    "%s ranks them without generated tests", name, len(no_tests), len(by_tid), _some(no_tests), method)
    return out


def model_name(meta: dict) -> Optional[str]:
    """The model's name for the results, as lm-eval names it for its own (``GeneralConfigTracker``: ``peft=``,
    ``delta=``, ``pretrained=``, ``model=``, ``path=`` or ``engine=`` of ``--model_args``, which lm-eval puts in the
    tasks' metadata; ``--metadata '{"model": …}'`` too); None when they name none (the results then say so,
    ``api.evaluate.run_model``)."""
    try:
        from lm_eval.loggers.evaluation_tracker import GeneralConfigTracker

        name_of = GeneralConfigTracker._get_model_name  # private in lm-eval: may move between releases
    except (ImportError, AttributeError):  # an lm-eval that keeps it elsewhere: unnamed, said in one line
        return None
    name = name_of(dict(meta or {}))
    return str(name) if name else None


def problem_record(tid: str, completions: list[str], raw_tests: list[str], outcome, method: str, plus: bool,
                   examples_mutate: bool, chat: bool = False) -> tuple[dict, dict]:
    """One problem's records: the solutions' (candidates, verdicts, ranking, pick, metrics) and the tests'."""
    from coderank_evalplus import metrics
    from coderank_evalplus.pipeline import correct_array
    from coderank_evalplus.rankers import uses_prompt_examples

    n = outcome.n_candidates
    correct = correct_array(outcome, "plus" if plus else "base")
    ranking = outcome.rankings[method]
    pool = metrics.pick_pool(ranking, n)
    chosen = pool[0] if pool else None
    suite = outcome.suite
    sol_rec = Record({
        "task_id": tid,
        "method": method,
        "uses_prompt_examples": uses_prompt_examples(method, examples_mutate),
        "tests": "model" + (" + examples+mutate" if examples_mutate else ""),
        "split": "plus" if plus else "base",  # plus: base + plus tests (evalplus's "plus")
        "n_candidates": n,
        "n_empty": sum(1 for c in completions if not c.strip()),
        "candidates": completions,
        "correct": [int(x) for x in correct],
        "groups": [{"candidates": [int(c) for c in g.candidates], "score": _finite(g.score)}
                   for g in ranking.groups],
        "top_group": pool or None,
        "chosen": chosen,
        "chosen_passed": bool(correct[chosen]) if chosen is not None else None,
        "pass@1": metrics.problem_pass_at_k(method, correct, ranking) if n else 0.0,
        "pass@1_random": metrics.problem_pass_at_k("random", correct, None),
        "pass@1_oracle": metrics.problem_pass_at_k("oracle", correct, None),
        "confidence": (outcome.confidence.get(method) or {}).get("plus" if plus else "base"),
    })
    test_rec = Record({
        "task_id": tid,
        "n_samples": len(raw_tests),
        "n_tests": len(suite),
        "tests": [{"assert": f"assert {a}", "count": int(c)} for a, c in zip(suite.asserts, suite.counts)],
    })
    if chat:  # (only then: the records of a run without the flag stay as they were)
        sol_rec["chat"] = test_rec["chat"] = True
    return sol_rec, test_rec


def _keep_results_folder(result, name: str, where: Optional[str]) -> None:
    """The task's results folder: written now under ``where`` (the metadata's ``results_dir``) when it names one,
    else when lm-eval writes its own results (``--output_path``), beside them (``install_results_writer``)."""
    if isinstance(where, str) and where.lower() in ("none", "off", "false", "0"):
        return
    if where:
        folder = Path(where).expanduser() / _sanitized(result.extra["provenance"]["model"]) / f"coderank_{name}"
        _write_folder(result, folder, name)
        return
    PENDING.append((name, result))


def _open_cache(where: Optional[str]):
    """The execution cache (the metadata's ``cache_dir``, else ``lm_eval/`` in the user cache; "none": none)."""
    from coderank_evalplus.engine.execution.execute import ResultCache
    from coderank_evalplus.engine.judging.judge import user_cache_dir

    if isinstance(where, str) and where.lower() in ("none", "off", "false", "0"):
        return None
    folder = Path(where).expanduser() if where else user_cache_dir() / "lm_eval"
    try:
        return ResultCache(folder / "executions.sqlite")
    except Exception as exc:  # noqa: BLE001 - a read-only home must not stop the evaluation
        log.warning("execution cache at %s unavailable (%s); running without it", folder, exc)
        return None


lm_eval_filter.JUDGED_RECORDS = judged_records  # what the rerank filter does for these tasks (``judged:``)


# results of this process's tasks, waiting for lm-eval to write its own (then written beside them)
PENDING: list[tuple[str, Any]] = []
_WRITER_MARK = "__coderank_results_writer__"


def data_missing(task: str, exc: DataNotFoundError) -> NoReturn:
    """Stop lm-eval with one line that names its own way to local data (``--metadata``'s ``data_dir``): a
    traceback through lm-eval's task loading would bury it. SystemExit, as a command line that cannot go on."""
    raise SystemExit(f"error: task {task}: {exc.worded_for('lm_eval')}") from None


def checked_metadata(meta: dict, task: str) -> dict[str, Any]:
    """Our metadata options (``DEFAULTS``' keys) with their defaults, each value checked as the option it is
    everywhere (``api.options``: ``rank_seed`` is ``seed``); a bad one raises ValueError naming the key."""
    from coderank_evalplus.api.options import TEXT, check_value

    out: dict[str, Any] = {}
    for key, o in metadata_options().items():
        value = meta.get(key)
        if value is None or value == "":
            out[key] = DEFAULTS[key]
            continue
        out[key] = check_value(key, TEXT if o is None else o.kind, value, f"task {task}: metadata {key}")
    return out


def install_results_writer() -> None:
    """Wrap lm-eval's ``EvaluationTracker.save_results_aggregated`` (once) so that, after it writes lm-eval's
    results, the tasks' pending results folders go beside them: ``<output_path>/<model>/coderank_<task>_<date>``."""
    import functools

    try:
        from lm_eval.loggers.evaluation_tracker import EvaluationTracker
    except ImportError:  # an lm-eval without it: the folders need results_dir
        return
    original = EvaluationTracker.save_results_aggregated
    if getattr(original, _WRITER_MARK, False):
        return

    @functools.wraps(original)
    def save_results_aggregated(self, *args, **kwargs):
        out = original(self, *args, **kwargs)
        if getattr(self, "output_path", None) and PENDING:
            path = Path(self.output_path)
            root = path.parent if path.suffix == ".json" else path / str(
                self.general_config_tracker.model_name_sanitized)
            date = getattr(self, "date_id", "") or "run"
            while PENDING:
                name, result = PENDING.pop(0)
                _write_folder(result, root / f"coderank_{name}_{date}", name)
        return out

    setattr(save_results_aggregated, _WRITER_MARK, True)
    EvaluationTracker.save_results_aggregated = save_results_aggregated


def _write_folder(result, folder: Path, name: str) -> None:
    """One task's results folder; another run's results there are refused (logged, the evaluation goes on)."""
    from coderank_evalplus.api.evaluate import folder_fingerprint
    from coderank_evalplus.pipeline import write_results

    mine = (result.extra.get("provenance") or {}).get("inputs_fingerprint")
    held = folder_fingerprint(folder)
    if held is not None and held != mine:
        log.warning("%s: %s holds another run's results; not replaced (give another results_dir)", name, folder)
        return
    result.extra["entry"] = {"name": (result.extra.get("provenance") or {}).get("model", name),
                             "tests_label": (result.extra.get("provenance") or {}).get("tests", "model's own tests")}
    try:
        write_results(result, folder)
        log.info("%s: results folder (for coderank-evalplus leaderboard) written to %s", name, folder)
    except OSError as exc:  # a read-only folder must not lose the evaluation
        log.warning("%s: could not write the results folder %s (%s)", name, folder, exc)


def _sanitized(model: str) -> str:
    """A model name as a folder name, as lm-eval names its own results folders."""
    try:
        from lm_eval.utils import sanitize_model_name
    except ImportError:  # an lm-eval that keeps it elsewhere: its rule
        import re

        return re.sub(r"[\"<>:/|\\?*\[\]]+", "__", model)
    return sanitize_model_name(model)


def test_context(ctx, doc: dict):
    """The test-generation context: ``ctx`` (built by lm-eval from the solution prompt, possibly inside a chat
    template or after a system instruction) with the solution prompt replaced by the test-generation prompt."""
    prompt, test_prompt = doc["prompt"], doc["test_prompt"]
    if isinstance(ctx, str):
        at = ctx.rfind(prompt)
        if at >= 0:
            return ctx[:at] + test_prompt + ctx[at + len(prompt):]
    return test_prompt


test_context.__test__ = False  # type: ignore[attr-defined]  # not a pytest test; mypy rejects function attributes


def chat_generation_kwargs(gen: dict) -> dict:
    """The generation settings of a chat-mode request: the task's, less CodeT's stop sequences (a reply is read whole,
    as ``rerank --raw-field`` reads it; ``\\ndef`` or ``\\n#`` would cut it inside its code block); other
    ``until`` strings a user gave stay."""
    out = dict(gen)
    until = out.get("until")
    if until is not None:
        from coderank_evalplus.testgen.prompts import CODET_STOP

        stops = [until] if isinstance(until, str) else list(until)
        out["until"] = [s for s in stops if s not in CODET_STOP]
    return out


def _finite(x) -> Optional[float]:
    x = float(x)
    return x if math.isfinite(x) else None


def _some(tids: list[str], k: int = 5) -> str:
    return ", ".join(tids[:k]) + (" …" if len(tids) > k else "")


def tasks_dir() -> Path:
    """The folder of this package's lm-eval task YAMLs (what the start-up hook adds to lm-eval's include path)."""
    from coderank_evalplus._lm_eval_hook import tasks_dir as folder

    return Path(folder())

