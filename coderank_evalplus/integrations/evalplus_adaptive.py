"""``evalplus.evaluate --rerank … --adaptive --model M``: solutions drawn in rounds instead of by evalplus's codegen.

evalplus's ``run_codegen`` draws ``--n_samples`` solutions per problem up front. With ``--adaptive`` our generator
for the same ``--model``/``--backend`` (``evalplus.LazyModel``) draws each problem's test samples, then its
solutions in rounds, and stops the problem once the pick's confidence reaches τ (``generation.generate_samples``
with ``pipeline.adaptive_stopper``, as ``coderank-evalplus run --adaptive``). The solutions go to the very file
``run_codegen`` would have written (``codegen_target``), in evalplus's ``{"task_id", "solution"}`` format, so that
evalplus's evaluation judges exactly them and the rerank reads its verdicts (judged once).

Files: ``<samples>_rerank/adaptive_generation/`` (the sampling loop's own files; a killed or repeated run resumes
from them, skipping the problems already settled), ``<samples>_rerank/adaptive.jsonl`` (one ``{"task_id",
"samples", "confidence", "stopped"}`` line per problem), generated test samples at ``<samples>_tests.jsonl`` as
without ``--adaptive``. The stopper's executions share the rerank's cache (``<samples>_rerank/executions.sqlite``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

from coderank_evalplus.generation.base import Generator
from coderank_evalplus.types import CoderankError, Problem

__all__ = ["AdaptiveError", "check_adaptive", "codegen_target", "adaptive_codegen"]

SCRATCH = "adaptive_generation"  # the sampling loop's folder inside <samples>_rerank/
MAX_TOKENS = 300  # per sample, solutions and tests (as `run`; evalplus.model_tests draws its test samples with it)
BACKENDS = ("vllm", "hf", "openai")  # those our generator serves with evalplus's model flags (generator_kwargs)


class AdaptiveError(CoderankError):
    """Bad ``--adaptive`` usage; the evalplus wrapper reports it as a ``RerankError`` (one line, exit status 2)."""


def check_adaptive(model_kwargs: dict, ours: dict) -> None:
    """``--adaptive`` with what it needs, checked before anything runs (its value and ``--tau``'s, and ``--tau``
    without it, are checked as every option is: ``api.options``, before this)."""
    if not ours.get("adaptive"):
        return
    if "model" not in model_kwargs:
        raise AdaptiveError("--adaptive draws the solutions in rounds from the model: give --model and --backend; "
                            "given samples (--samples) are not drawn in rounds (to simulate the rule on them "
                            "offline, rerank them, then `coderank-evalplus budget <samples>_rerank --adaptive`)")
    backend = model_kwargs.get("backend", "vllm")
    if backend not in BACKENDS:
        raise AdaptiveError(f"--adaptive draws solutions with --backend {', '.join(BACKENDS[:-1])} or "
                            f"{BACKENDS[-1]}, not {backend!r}")
    refused = [("greedy", bool(model_kwargs.get("greedy")),
                "--greedy draws one sample, --adaptive draws solutions in rounds up to --n_samples"),
               ("evalperf_type", model_kwargs.get("evalperf_type") is not None,
                "EvalPerf's prompts are those of evalplus's codegen"),
               ("jsonl_fmt", model_kwargs.get("jsonl_fmt") is False, "--adaptive writes evalplus's .jsonl samples"),
               ("resume", model_kwargs.get("resume") is False,
                f"--adaptive resumes from <samples>_rerank/{SCRATCH}/ (delete that folder to start over)")]
    for flag, given, why in refused:
        if given:
            raise AdaptiveError(f"--{flag} {model_kwargs[flag]} does not combine with --adaptive: {why}")


def codegen_target(dataset: str, model_kwargs: Mapping[str, Any]) -> str:
    """The samples file evalplus 0.3.1's ``run_codegen`` writes for these model flags:
    ``ROOT/DATASET/<model, / as -->_<backend>_temp_<temperature>.jsonl`` (the values as given, as evalplus does)."""
    model = str(model_kwargs["model"]).strip("./").replace("/", "--")
    identifier = f"{model}_{model_kwargs.get('backend', 'vllm')}_temp_{model_kwargs.get('temperature', 0.0)}"
    return os.path.join(str(model_kwargs.get("root", "evalplus_results")), dataset, identifier + ".jsonl")


def in_id_range(problems: Mapping[str, Problem], id_range: Optional[Sequence[int]]) -> list[Problem]:
    """The problems evalplus's codegen draws for ``--id_range [LOW, HIGH]`` (the task id's number), in order."""
    if id_range is None:
        return list(problems.values())
    if not isinstance(id_range, (list, tuple)) or len(id_range) != 2 or not id_range[0] < id_range[1]:
        raise AdaptiveError(f"--id_range {id_range!r}: expected [LOW, HIGH] with LOW < HIGH")
    low, high = id_range
    return [p for t, p in problems.items() if low <= int(t.split("/")[1]) < high]


def adaptive_codegen(target: str, paths: Any, problems: Mapping[str, Problem], model_kwargs: dict, ours: dict, cfg,
                     generator: Callable[[], Generator], given_tests: Optional[Mapping[str, list[str]]]
                     ) -> tuple[bool, dict]:
    """Draw the solutions in rounds into ``target``, evalplus's samples path (``codegen_target``; ``paths``: its
    ``evalplus.rerank_paths``); returns (whether its solutions changed, the summary for ``*_rerank_results.json``).
    ``generator`` makes (or returns) the model's generator; ``given_tests``: the raw test samples of ``--tests``
    (None: the model writes them, or the saved ``<samples>_tests.jsonl`` is reused when it covers every problem)."""
    from coderank_evalplus.engine.execution.execute import ResultCache
    from coderank_evalplus.generation import generate_samples
    from coderank_evalplus.generation.sampling import ADAPTIVE_FILE, SAMPLES_FILE
    from coderank_evalplus.io.jsonl import read_jsonl
    from coderank_evalplus.io.samples import read_test_samples
    from coderank_evalplus.pipeline import adaptive_method, adaptive_stopper, adaptive_tau
    from coderank_evalplus.storage import atomic_copy, atomic_write_bytes, ensure_writable_dir

    scratch = paths.workdir / SCRATCH
    selected = in_id_range(problems, model_kwargs.get("id_range"))
    before = _solutions(target)
    if before is not None and before != _solutions(scratch / SAMPLES_FILE):
        raise AdaptiveError(f"{target} holds samples not drawn by --adaptive (evalplus's codegen would resume from "
                            f"them): move it away, or give another --root, to draw adaptively")
    tests = given_tests
    if tests is None and saved_tests_cover(paths.tests, [p.task_id for p in selected]):
        tests = read_test_samples(paths.tests, problems)
    n_samples = int(model_kwargs.get("n_samples", 1))
    n_tests = 0 if tests is not None else (ours.get("n_test_samples") or n_samples)
    method, tau = adaptive_method(cfg.methods), adaptive_tau(ours.get("tau"))
    print(f"Adaptive budget: up to {n_samples} solution(s) per problem, in rounds, stopping once {method}'s pick has "
          f"confidence >= {tau:g}; {n_tests} test sample(s) per problem"
          f"{' (given)' if tests is not None else ''} → {scratch}")
    cache = ResultCache(ensure_writable_dir(paths.workdir) / "executions.sqlite")
    try:
        stop = adaptive_stopper(method, cfg, cache, tau)
        if tests is not None:
            stop = _with_tests(stop, tests)
        spath, tpath = generate_samples(selected, generator(), n_samples, n_tests,
                                        temperature=float(model_kwargs.get("temperature", 0.0)), top_p=0.95,
                                        max_tokens=MAX_TOKENS, out_dir=str(scratch), stopper=stop)
    finally:
        cache.close()
    if n_tests:
        atomic_copy(tpath, paths.tests)
    record = paths.workdir / ADAPTIVE_FILE
    atomic_copy(scratch / ADAPTIVE_FILE, record)
    after = _solutions(spath)
    changed = after != before
    if changed:
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        atomic_write_bytes(target, Path(spath).read_bytes())
    wanted = {p.task_id for p in selected}
    rows = [rec for _, rec in read_jsonl(record) if rec.get("task_id") in wanted]
    used = [int(r["samples"]) for r in rows]
    summary = {"method": method, "tau": tau, "cap": n_samples, "problems": len(rows),
               "mean_samples": round(sum(used) / len(used), 4) if used else None,
               "stopped": sum(1 for r in rows if r.get("stopped")), "file": str(record)}
    if used:
        print(f"Adaptive budget: {summary['mean_samples']:.2f} samples per problem on average (cap {n_samples}; "
              f"{summary['stopped']} of {len(rows)} problems stopped before it) → {record}; samples → {target}")
    return changed, summary


def saved_tests_cover(path: Path, task_ids: Sequence[str]) -> bool:
    """Whether the saved test samples at ``path`` (``<samples>_tests.jsonl``) cover every task: then they are reused
    (said on stdout) instead of generated again."""
    from coderank_evalplus.io.jsonl import read_jsonl

    if not path.is_file() or not set(task_ids) <= {rec.get("task_id") for _, rec in read_jsonl(path)}:
        return False
    print(f"Reusing test samples from {path}")
    return True


def _with_tests(stop, tests: Mapping[str, list[str]]):
    """The stopper, fed the given test samples instead of the (absent) generated ones."""

    def with_tests(problem: Problem, solutions: list[str], _raw: list[str],
                   features: dict[str, list[float]]) -> tuple[bool, float]:
        return stop(problem, solutions, list(tests.get(problem.task_id, [])), features)

    return with_tests


def _solutions(path: str | os.PathLike) -> Optional[list[tuple[Any, Any]]]:
    """A samples file's (task_id, solution) pairs in order (other fields, e.g. likelihoods scored later, aside);
    None when there is no such file."""
    from coderank_evalplus.io.jsonl import read_jsonl

    if not os.path.isfile(path):
        return None
    return [(rec.get("task_id"), rec.get("solution")) for _, rec in read_jsonl(path)]
