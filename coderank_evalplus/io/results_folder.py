"""A results folder holds everything a report needs, so any table or figure can be recomputed from it alone.

Layout ``coderank-results`` version 1 (written by ``rerank``, ``run``, ``evalplus.evaluate --rerank`` and the
lm-eval tasks; read by ``leaderboard``):

- ``rerank_results.json``: the metrics table, the run's configuration, ``"layout": {"name": "coderank-results",
  "version": 1}``.
- ``problems.jsonl``: one record per problem, in the run's order: ``task_id``, ``dataset`` (evalplus family;
  for a problem file of one's own, the file as ``--dataset`` named it, with ``prompt_family``), ``entry_point``,
  ``prompt``, ``trial_tests``, ``n_candidates``, the generated test suite (``asserts``, ``counts``, ``inputs``,
  ``assert_input``, ``expected``, ``comparisons``, ``sample_asserts`` — the asserts each raw test sample
  contributed, or null), and which optional arrays exist (``has_canonical``, ``has_hidden``).
- ``matrices.npz``: for problem number ``i`` of ``problems.jsonl``, arrays named ``<i>.<name>``:
  ``program_of_candidate`` (candidate → row of the unique-program matrices), ``pass_matrix`` (program × assert
  outcome code, :mod:`coderank_evalplus.types`), ``output_matrix`` / ``output_kind`` (program × input: 63-bit
  digest of the returned value or raised exception type, and which), ``trial_matrix`` (program × trial test),
  ``compiled`` (program), ``verdict_base`` / ``verdict_plus`` (candidate: 1 pass, 0 fail, -1 not judged), and
  where present ``canonical_pass`` / ``canonical_output`` / ``canonical_kind`` (the reference solution on the same
  suite), ``hidden_output`` / ``hidden_kind`` (outputs on the benchmark's base inputs, for ``mbr_exec_hidden``) and
  ``feature.<name>`` (candidate: likelihood features such as ``logprob``, nan where unknown; listed in the problem's
  ``features``), and ``ranking.<method>`` for each method whose ranking a step after ranking reordered
  (``recommended``, ``<method>+select``, S*): per candidate its group in that final ranking (0 the top, -1 none;
  listed in the problem's ``rankings``), with ``fallback.<method>`` (bool per candidate) where the ranking kept
  a fallback pool instead of groups. A report cannot rank those methods again from the matrices (the step ran
  programs on inputs of its own): it reads them here. ``programs``: the distinct programs' texts, one per row of
  the matrices (UTF-8, NUL between them; ``load_programs``), so that a step can run again on sub-samples.
  With the ``examples+mutate`` test source a record also has ``generated_inputs``: the seed, the seed inputs, the
  grown inputs (all of them, as call expressions), each one's share of runnable candidates that returned on it and
  whether the validity rule kept it (kept ones are in ``inputs``).
- ``verdicts.jsonl``, ``rankings.jsonl``: readable copies of the verdicts and the top groups per method.
"""

from __future__ import annotations

import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional

import numpy as np

from coderank_evalplus.engine.shapes import shape_of
from coderank_evalplus.io.problems import is_problem_file
from coderank_evalplus.storage import atomic_open as _atomic
from coderank_evalplus.storage import atomic_write_text  # noqa: F401 - the one atomic writer, re-exported
from coderank_evalplus.types import (  # noqa: F401 (LAYOUT re-exported)
    FUNCTION,
    LAYOUT,
    CoderankError,
    Executions,
    Group,
    Problem,
    Ranking,
    RerankResult,
    TestSuite,
)

PROBLEMS_FILE = "problems.jsonl"
MATRICES_FILE = "matrices.npz"
RESULTS_FILE = "rerank_results.json"
_SUITE_FIELDS = ("asserts", "counts", "inputs", "assert_input", "expected", "comparisons", "sample_asserts")
OWN_SUFFIX = " (own)"  # a test pool's label when the model wrote it itself


def pool_of(tests_label: str) -> str:
    """The test pool a run is grouped by (its provenance's ``pool``; a suite row that names none): its label
    without a trailing " (own)", so a model's own pool is the same pool when another model is ranked with it and
    rows that share a pool are compared as models."""
    label = tests_label.strip()
    return label[: -len(OWN_SUFFIX)].rstrip() if label.endswith(OWN_SUFFIX) else label


class ResultsFolderError(CoderankError):
    """A results folder is missing, incomplete or of an unknown layout; the message names it."""


@dataclass
class StoredProblem:
    """One problem of a results folder: what its rankers and metrics need, without re-executing anything."""

    problem: Problem
    executions: Executions
    verdict_base: np.ndarray  # int8 per candidate: 1 pass, 0 fail, -1 not judged
    verdict_plus: np.ndarray
    canonical: Optional[Executions] = None
    hidden: Optional[tuple[np.ndarray, np.ndarray]] = None
    features: dict[str, np.ndarray] = field(default_factory=dict)  # likelihood features, one value per candidate
    rankings: dict[str, Ranking] = field(default_factory=dict)  # final rankings of the methods a step reordered

    def correct(self, split: str) -> np.ndarray:
        """Bool per candidate: judged correct on ``split`` ("base" or "plus")."""
        return (self.verdict_base if split == "base" else self.verdict_plus) == 1


@dataclass
class StoredRun:
    """A results folder read back: its summary JSON and its problems in order."""

    path: Path
    summary: dict
    problems: list[StoredProblem] = field(default_factory=list)

    @property
    def dataset(self) -> str:
        return str(self.summary.get("dataset", ""))

    @property
    def has_plus(self) -> bool:
        """The run was judged on plus tests: some problem has plus inputs (its table's plus is not None) and plus
        verdicts are stored. A problem without plus inputs has plus verdicts equal to base (evalplus's
        definition), so verdicts alone do not say it."""
        methods = self.summary.get("methods") or {}
        if methods and all((row or {}).get("plus") is None for row in methods.values()):
            return False
        return any((p.verdict_plus >= 0).any() for p in self.problems)

    @property
    def tests_from_examples(self) -> bool:
        """The run's test pool holds inputs grown from the prompt's examples (``examples+mutate``)."""
        return (self.summary.get("config") or {}).get("mutate") is not None

    @property
    def seed(self) -> int:
        return int((self.summary.get("config") or {}).get("seed", 0))


def _verdict_arrays(n: int, verdicts: dict) -> tuple[np.ndarray, np.ndarray]:
    base = np.full(n, -1, dtype=np.int8)
    plus = np.full(n, -1, dtype=np.int8)
    for c, v in verdicts.items():
        base[c] = int(bool(v.base))
        if v.plus is not None:
            plus[c] = int(bool(v.plus))
    return base, plus


def _problem_record(problem: Problem, n_candidates: int, suite: TestSuite, has_canonical: bool,
                    has_hidden: bool, dataset: str) -> dict:
    """One problem's line of ``problems.jsonl``. ``dataset``: the run's; a problem file of one's own is named as
    such (not "humaneval" or "livecodebench", the prompt family its problems are read in, kept as
    ``prompt_family`` for ``load_folder``)."""
    label = dataset if is_problem_file(dataset) else problem.dataset
    rec: dict[str, Any] = {"task_id": problem.task_id, "dataset": label,
                           "entry_point": problem.entry_point, "prompt": problem.prompt,
                           "trial_tests": list(problem.trial_tests), "n_candidates": n_candidates}
    if label != problem.dataset:
        rec["prompt_family"] = problem.dataset
    rec.update(shape_of(problem).record_fields(problem))  # (a function's record is as it was before shapes)
    for name in _SUITE_FIELDS:
        rec[name] = getattr(suite, name)
    rec.update(has_canonical=has_canonical, has_hidden=has_hidden)
    return rec


def write_folder(result: RerankResult, problems: dict[str, Problem], out: Path) -> None:
    """Write ``problems.jsonl`` and ``matrices.npz`` for every outcome that carries its executions."""
    arrays: dict[str, np.ndarray] = {}
    lines = []
    for i, (tid, o) in enumerate(o for o in result.outcomes.items() if o[1].executions is not None):
        ex = o.executions
        assert ex is not None  # outcomes without executions are skipped above
        base, plus = _verdict_arrays(o.n_candidates, o.verdicts)
        if ex.programs:
            arrays[f"{i}.programs"] = np.frombuffer("\0".join(ex.programs).encode("utf-8", "surrogatepass"),
                                                    dtype=np.uint8)
        arrays.update({f"{i}.program_of_candidate": ex.program_of_candidate, f"{i}.pass_matrix": ex.pass_matrix,
                       f"{i}.output_matrix": ex.output_matrix, f"{i}.output_kind": ex.output_kind,
                       f"{i}.trial_matrix": ex.trial_matrix, f"{i}.compiled": ex.compiled,
                       f"{i}.verdict_base": base, f"{i}.verdict_plus": plus})
        if o.canonical is not None:
            arrays.update({f"{i}.canonical_pass": o.canonical.pass_matrix[0],
                           f"{i}.canonical_output": o.canonical.output_matrix[0],
                           f"{i}.canonical_kind": o.canonical.output_kind[0]})
        if o.hidden is not None:
            arrays.update({f"{i}.hidden_output": o.hidden[0], f"{i}.hidden_kind": o.hidden[1]})
        rec = _problem_record(problems[tid], o.n_candidates, o.suite, o.canonical is not None, o.hidden is not None,
                              result.dataset)
        if o.generated is not None:
            rec["generated_inputs"] = o.generated
        if o.features:
            arrays.update({f"{i}.feature.{name}": np.asarray(v, dtype=float) for name, v in o.features.items()})
            rec["features"] = sorted(o.features)
        stepped = [m for m in o.steps if m in o.rankings]
        if stepped:
            for m in stepped:
                arrays.update({f"{i}.{k}.{m}": v for k, v in ranking_arrays(o.rankings[m], o.n_candidates).items()})
            rec["rankings"] = stepped
        lines.append(json.dumps(rec))
    with _atomic(out / MATRICES_FILE, "wb") as fh:
        np.savez_compressed(fh, **arrays)  # type: ignore[arg-type]  # numpy's stub takes **arrays for allow_pickle
    atomic_write_text(out / PROBLEMS_FILE, "".join(line + "\n" for line in lines))


def ranking_arrays(ranking: Ranking, n_candidates: int) -> dict[str, np.ndarray]:
    """A ranking as arrays over the candidates: ``ranking`` (its merged group, 0 the top, -1 none) and, where it
    kept a fallback pool instead of groups, ``fallback`` (member or not)."""
    from coderank_evalplus.metrics import merged_groups

    group = np.full(n_candidates, -1, dtype=np.int32)
    for g, members in enumerate(merged_groups(ranking)):
        group[np.asarray(members.candidates, dtype=np.int64)] = g
    out = {"ranking": group}
    pool = ranking.info.get("fallback_pool")
    if pool and (group < 0).all():
        member = np.zeros(n_candidates, dtype=bool)
        member[np.asarray(pool, dtype=np.int64)] = True
        out["fallback"] = member
    return out


def ranking_from_arrays(group: np.ndarray, fallback: Optional[np.ndarray] = None, **info: Any) -> Ranking:
    """The ranking ``ranking_arrays`` wrote (group scores: distinct numbers, highest first)."""
    n_groups = int(group.max()) + 1 if group.size else 0
    groups = [Group([int(c) for c in np.flatnonzero(group == g)], float(n_groups - g)) for g in range(n_groups)]
    if fallback is not None and fallback.any():
        info["fallback_pool"] = [int(c) for c in np.flatnonzero(fallback)]
    return Ranking(groups, info)


def _suite(rec: dict) -> TestSuite:
    fields: dict[str, Any] = {name: rec.get(name) if name == "sample_asserts" else list(rec.get(name) or [])
                              for name in _SUITE_FIELDS}
    return TestSuite(**fields)


def _executions(task_id: str, arr, i: int, suite: TestSuite) -> Executions:
    return Executions(task_id=task_id, program_of_candidate=arr[f"{i}.program_of_candidate"],
                      pass_matrix=arr[f"{i}.pass_matrix"], assert_counts=np.asarray(suite.counts, dtype=np.int64),
                      output_matrix=arr[f"{i}.output_matrix"], output_kind=arr[f"{i}.output_kind"],
                      trial_matrix=arr[f"{i}.trial_matrix"], compiled=arr[f"{i}.compiled"], suite=suite)


def _canonical(task_id: str, arr, i: int, suite: TestSuite) -> Executions:
    pm = arr[f"{i}.canonical_pass"][None, :]
    return Executions(task_id=task_id, program_of_candidate=np.zeros(1, dtype=np.int64), pass_matrix=pm,
                      assert_counts=np.asarray(suite.counts, dtype=np.int64),
                      output_matrix=arr[f"{i}.canonical_output"][None, :],
                      output_kind=arr[f"{i}.canonical_kind"][None, :],
                      trial_matrix=np.zeros((1, 0), dtype=np.uint8), compiled=np.ones(1, dtype=bool), suite=suite)


def load_programs(folder: str | os.PathLike) -> dict[str, list[str]]:
    """Each problem's candidates as program texts (in sample order), by task id, for the problems whose programs
    the folder stores (``programs``; a folder written before it did stores none)."""
    folder = Path(folder)
    lines = (folder / PROBLEMS_FILE).read_text(encoding="utf-8").splitlines()
    out = {}
    with np.load(folder / MATRICES_FILE, allow_pickle=False) as arr:
        names = set(arr.files)
        for i, line in enumerate(lines):
            if f"{i}.programs" in names:
                rows = arr[f"{i}.programs"].tobytes().decode("utf-8", "surrogatepass").split("\0")
                out[json.loads(line)["task_id"]] = [rows[r] for r in arr[f"{i}.program_of_candidate"]]
    return out


def read_summary(folder: Path) -> dict:
    """``rerank_results.json`` of a results folder, checked to be of a layout this version reads."""
    path = Path(folder) / RESULTS_FILE
    if not path.is_file():
        raise ResultsFolderError(f"{folder}: not a results folder (no {RESULTS_FILE})")
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ResultsFolderError(f"{path}: unreadable ({exc})") from None
    layout = summary.get("layout") or {}
    if layout.get("name") != LAYOUT["name"] or not (Path(folder) / MATRICES_FILE).is_file():
        raise ResultsFolderError(f"{folder}: written by an older version, without the stored matrices; run the same "
                                 f"`coderank-evalplus rerank` command again to add them (the execution cache means "
                                 f"nothing is executed twice)")
    if int(layout.get("version", 0)) > LAYOUT["version"]:
        raise ResultsFolderError(f"{folder}: results layout version {layout.get('version')} is newer than this "
                                 f"package reads ({LAYOUT['version']}); upgrade coderank_evalplus")
    return summary


def load_folder(folder: str | os.PathLike, task_ids: Optional[Iterable[str]] = None) -> StoredRun:
    """Read a results folder back (only ``task_ids`` when given), with nothing executed or judged again."""
    folder = Path(folder)
    summary = read_summary(folder)
    wanted = None if task_ids is None else set(task_ids)
    run = StoredRun(folder, summary)
    try:
        lines = (folder / PROBLEMS_FILE).read_text(encoding="utf-8").splitlines()
        with np.load(folder / MATRICES_FILE, allow_pickle=False) as arr:
            names = set(arr.files)
            for i, line in enumerate(lines):
                rec = json.loads(line)
                tid = rec["task_id"]
                if wanted is not None and tid not in wanted:
                    continue
                suite = _suite(rec)
                family = rec.get("prompt_family") or rec.get("dataset", "humaneval")
                problem = Problem(task_id=tid, dataset=family, prompt=rec.get("prompt", ""),
                                  entry_point=rec["entry_point"], trial_tests=tuple(rec.get("trial_tests") or ()),
                                  shape=rec.get("shape", FUNCTION), class_name=rec.get("class_name", ""))
                ex = _executions(tid, arr, i, suite)
                canonical = _canonical(tid, arr, i, suite) if rec.get("has_canonical") else None
                hidden = (arr[f"{i}.hidden_output"], arr[f"{i}.hidden_kind"]) if rec.get("has_hidden") else None
                features = {name: arr[f"{i}.feature.{name}"] for name in rec.get("features") or ()}
                rankings = {m: ranking_from_arrays(arr[f"{i}.ranking.{m}"], arr[f"{i}.fallback.{m}"]
                                                   if f"{i}.fallback.{m}" in names else None, method=m)
                            for m in rec.get("rankings") or ()}
                run.problems.append(StoredProblem(problem, ex, arr[f"{i}.verdict_base"], arr[f"{i}.verdict_plus"],
                                                  canonical, hidden, features, rankings))
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise ResultsFolderError(f"{folder}: damaged results folder ({type(exc).__name__}: {exc}); run the "
                                 f"command that wrote it again") from None
    return run
