"""lm-eval's ``rerank`` filter: choose among a document's sampled programs, and let the task's own metric judge.

lm-eval decides what is scored among a document's responses with the filters of a task's ``filter_list``
(``take_first``, ``majority_vote``, …). This filter is one more, registered in lm-eval's filter registry under
``rerank`` (``register_filter``) whenever this module is imported: by the start-up hook as lm-eval loads its task
manager, and by ``coderank_evalplus.integrations.lm_eval``. Put it after the task's own prediction-building step::

    filter_list:
      - name: recommended
        filter:
          - function: custom
            filter_fn: !function utils.build_predictions    # the task's: prompt + completion
          - function: rerank                                  # keeps the pick (k: 1)

``apply(resps, docs)`` gets every document of the task at once; each document's programs go down the one
per-problem path (``selection.path.ProblemPath``: the prompt's examples as trial tests, inputs grown from them,
sandboxed execution, the ranker, its steps after ranking), as ``pick`` does, and nothing is judged here: the task's
metric (``code_eval``'s pass@k) scores what the filter keeps, the responses themselves, unchanged. ``k`` keeps the
top k in rank order (``metrics.pick_order`` under ``pass_at_k_rule``), scored with the metric's pass@k at that k; at
k = 1 the kept program is ``metrics.pick_pool``'s first, the pick every front end reports.

Arguments (the names of the options table, ``api.options``, checked as there): ``method`` (default
``recommended``), ``k`` (1), ``pass_at_k_rule`` (``ranked``; ``codet``: one per group in turn), ``tests``
(``examples+mutate``, the default pick's tests; ``examples``: the prompt's examples alone), ``time_limit``,
``workers``, ``seed``, ``cache_dir`` (an execution cache folder, kept), ``progress``; and where a document's problem
comes from: ``dataset`` (``humaneval``, ``mbpp+``, a problem file, …: the problem of the document's ``task_id``;
MBPP's numeric ids read as ``Mbpp/<id>``) with ``data_dir``, else the document's own ``prompt`` and
``entry_point`` fields (a task of your own).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence

from lm_eval.api.filter import Filter
from lm_eval.api.registry import register_filter

FILTER_NAME = "rerank"
# the filter's arguments that are options of the table (``api.options``), checked with their kinds there
_OPTION_ARGS = ("method", "pass_at_k_rule", "time_limit", "workers", "seed", "cache_dir", "progress", "data_dir")
_TESTS = ("examples+mutate", "examples")
# the coderank tasks' judged records (``integrations.lm_eval.judged_records``, set where those tasks are defined, so
# that this module, which the start-up hook imports, imports none of them)
JUDGED_RECORDS: Optional[Callable[[dict, list, list], list]] = None


@register_filter(FILTER_NAME)
class RerankFilter(Filter):
    """Keeps, of each document's responses, the pick (or the top ``k`` in rank order) of ``method``."""

    def __init__(self, method: Optional[str] = None, k: int = 1, pass_at_k_rule: Optional[str] = None,
                 tests: str = "examples+mutate", dataset: Optional[str] = None, data_dir: Optional[str] = None,
                 time_limit: Optional[float] = None, workers: Optional[int] = None, seed: Optional[int] = None,
                 cache_dir: Optional[str] = None, progress: Optional[bool] = None, judged: Optional[dict] = None,
                 **unknown: Any) -> None:
        from coderank_evalplus.api.options import POSITIVE_INT, check_value, default, option
        from coderank_evalplus.metrics import check_rule
        from coderank_evalplus.pipeline import all_methods

        if unknown:
            raise ValueError(f"filter {FILTER_NAME}: unknown argument(s) {', '.join(sorted(unknown))}; it takes k, "
                             f"tests, dataset, {', '.join(_OPTION_ARGS)}")
        # the package's own tasks (``integrations.lm_eval.CodeRankTask``, which fills this in): the model's test
        # samples too, and each problem judged here, its record kept (pass@1, random, oracle: ``process_results``)
        self.judged = judged
        given = {"method": method, "pass_at_k_rule": pass_at_k_rule, "time_limit": time_limit, "workers": workers,
                 "seed": seed, "cache_dir": cache_dir, "progress": progress, "data_dir": data_dir}
        values: dict[str, Any] = {}
        for name in _OPTION_ARGS:
            value = given[name]
            values[name] = (default(name) if name != "progress" else False) if value is None else check_value(
                name, option(name).kind, value, f"filter {FILTER_NAME}: {name}")
        self.method = str(values["method"])
        all_methods([self.method])
        self.rule = check_rule(str(values["pass_at_k_rule"]))
        self.k = int(check_value("k", POSITIVE_INT, k, f"filter {FILTER_NAME}: k"))
        if tests not in _TESTS:
            raise ValueError(f"filter {FILTER_NAME}: tests {tests!r}: choose {' or '.join(_TESTS)}")
        self.tests = tests
        self.dataset, self.values = dataset, values
        self._problems: Optional[dict] = None

    # ------------------------------------------------------------------ lm-eval's Filter
    def apply(self, resps: Iterable, docs: Sequence[dict]) -> list:
        """Each document's kept responses, in the documents' order (the package's own tasks: each request's
        record)."""
        if self.judged is not None:
            if JUDGED_RECORDS is None:
                raise ValueError(f"filter {FILTER_NAME}: judged records are the coderank tasks' "
                                 f"(coderank_evalplus.integrations.lm_eval), which are not loaded")
            return JUDGED_RECORDS(self.judged, list(resps), list(docs))
        from coderank_evalplus.engine.execution.execute import ProblemWork
        from coderank_evalplus.io.candidates import as_program
        from coderank_evalplus.testgen.io_tests import suite_for

        answers = [response_texts(r) for r in resps]
        problems = [self.problem_of(doc, i) for i, doc in enumerate(docs)]
        works = [ProblemWork(p, [as_program(a, p) for a in ans], suite_for(p, [], None))
                 for p, ans in zip(problems, answers) if ans]
        outcomes = self.path_outcomes(works)
        kept: list[list[str]] = []
        for p, ans in zip(problems, answers):
            if not ans:
                kept.append([])
                continue
            order = kept_order(outcomes[p.task_id].rankings[self.method], len(ans), self.k, self.rule)
            kept.append([ans[i] for i in order])
        return kept

    # ------------------------------------------------------------------ the parts
    def problem_of(self, doc: dict, index: int):
        """The document's problem: ``dataset``'s of its task id, else one made from its prompt and entry point."""
        from coderank_evalplus.io.problems import problem_from_prompt

        tid = doc.get("task_id")
        if self.dataset:
            problems = self.benchmark()
            key = _task_id(tid, self.dataset)
            if key not in problems:
                raise ValueError(f"filter {FILTER_NAME}: document {index} (task_id {tid!r}) is no problem of "
                                 f"{self.dataset}")
            return problems[key]
        if "prompt" not in doc:
            raise ValueError(f"filter {FILTER_NAME}: document {index} has no 'prompt' field; give the filter a "
                             f"dataset (e.g. dataset: humaneval) whose problems its task_id names")
        return problem_from_prompt(doc["prompt"], doc.get("entry_point"), None if tid is None else str(tid))

    def benchmark(self) -> dict:
        if self._problems is None:
            from coderank_evalplus.io.problems import load_problems

            self._problems = load_problems(str(self.dataset), self.values["data_dir"])
        return self._problems

    def path_outcomes(self, works: list) -> dict:
        """The per-problem path over every work at once (its worker pool and execution cache)."""
        from coderank_evalplus.api.evaluate import stage_config
        from coderank_evalplus.api.options import RerankOptions
        from coderank_evalplus.engine.execution.execute import ResultCache
        from coderank_evalplus.selection.path import ProblemPath
        from coderank_evalplus.testgen.mutate import TestSources

        if not works:
            return {}
        v = self.values
        options = RerankOptions(methods=[self.method], time_limit=v["time_limit"], seed=v["seed"],
                                workers=v["workers"], progress=bool(v["progress"])).check()
        cfg = stage_config(options, TestSources.parse([self.tests]) if self.tests == "examples+mutate" else None)
        cache = ResultCache(Path(v["cache_dir"]).expanduser() / "executions.sqlite") if v["cache_dir"] else None
        try:
            return ProblemPath(cfg, [self.method], cache).run(works)
        finally:
            if cache is not None:
                cache.close()


def kept_order(ranking, n_candidates: int, k: int, rule: str) -> list[int]:
    """The ``k`` candidates kept, in rank order: under ``ranked``, the groups of ``metrics.pick_order`` used up in
    turn (each group in index order: its first is ``pick_pool``'s first, the pick); under ``codet``, one from each
    group in turn, from the top."""
    from coderank_evalplus.metrics import pick_order

    tiers = [sorted(t) for t in pick_order(ranking, n_candidates)]
    if rule == "ranked":
        return [c for t in tiers for c in t][:k]
    out: list[int] = []
    while len(out) < min(k, n_candidates):
        for t in tiers:
            rest = [c for c in t if c not in out]
            if rest and len(out) < k:
                out.append(rest[0])
    return out


def _task_id(tid: Any, dataset: str) -> str:
    """A document's task id as the package's problems name it (MBPP's numeric ids: ``Mbpp/<id>``)."""
    if isinstance(tid, int) or (isinstance(tid, str) and tid.isdigit()):
        from coderank_evalplus.io.problems import family

        try:
            return f"Mbpp/{int(tid)}" if family(dataset) == "mbpp" else str(tid)
        except ValueError:  # a problem file, not a named dataset
            return str(tid)
    return str(tid)


def response_texts(resps: Any) -> list[str]:
    """A document's responses as texts (one string, a list, or none; a response that is not text: empty)."""
    if resps is None:
        return []
    if isinstance(resps, str):
        return [resps]
    return [r if isinstance(r, str) else "" for r in resps]
