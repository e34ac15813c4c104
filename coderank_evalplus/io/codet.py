"""CodeT's files: ``{"prompt", "samples"}`` records (solutions or raw test samples) that carry no task id — the
prompt names the task, matched against CodeT's problem files and the problems' own prompts."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Optional

from coderank_evalplus.io.jsonl import SampleFileError, read_jsonl, str_list
from coderank_evalplus.io.problems import data_dir_from_env
from coderank_evalplus.testgen.extract import truncate
from coderank_evalplus.types import Problem


def is_codet_record(rec: dict) -> bool:
    """A CodeT record: a prompt and its samples, no task id."""
    return "prompt" in rec and "task_id" not in rec


def codet_prompt_index(problems: Mapping[str, Problem], data_dir: Optional[str] = None) -> dict[str, str]:
    """Map every known prompt string to its task id: CodeT's problem files (which carry the task ids), the
    problems' own prompts and their CodeT-style test-generation prompts."""
    index: dict[str, str] = {}
    root = None
    try:
        root = data_dir_from_env(data_dir)
    except FileNotFoundError:
        root = None
    if root is not None:
        folder = root / "microsoft_CodeT" / "dataset"
        if not folder.is_dir():
            folder = root
        for f in sorted(folder.glob("*_for_*_generation.jsonl")):
            for _, rec in read_jsonl(f):
                if isinstance(rec.get("prompt"), str) and isinstance(rec.get("task_id"), str):
                    tid = rec["task_id"].replace("MbppEval/", "Mbpp/")
                    index.setdefault(rec["prompt"], tid)
    for tid, prob in problems.items():
        index.setdefault(prob.prompt, tid)
        if prob.test_prompt_body:
            index.setdefault(codet_test_prompt(prob), tid)
    return index


def codet_test_prompt(problem: Problem) -> str:
    """CodeT's test-generation prompt: examples removed, body ``pass``, then the check comment and ``assert ``."""
    return f"{problem.test_prompt_body}    pass\n\n# check the correctness of {problem.entry_point}\nassert "


def task_for_prompt(prompt: str, index: Mapping[str, str], problems: Mapping[str, Problem],
                     path: Path, lineno: int, unmatched: list[str]) -> Optional[str]:
    tid = index.get(prompt)
    if tid is None or tid not in problems:
        unmatched.append(f"{path}:{lineno} (prompt starting {prompt.strip()[:60]!r})")
        return None
    return tid


def solution_programs(rec: dict, prompt: str, path: Path, lineno: int) -> list[str]:
    """A CodeT solution record's programs: each sample cut at CodeT's stop sequences, appended to the prompt."""
    return [prompt + truncate(s) for s in str_list(rec, "samples", path, lineno)]


def load_codecontests(path: str | Path) -> dict[str, Problem]:
    """CodeT's CodeContests problems (``CodeContests_zeroshot_for_test_case_generation.jsonl``: 165 records of
    ``task_id, prompt, entry_point, canonical_solution``) as CodeT poses them: a function ``solution(stdin: str) ->
    str`` whose docstring is the statement. The record's prompt -- CodeT's test-generation prompt, ending in
    ``assert `` -- names the task in CodeT's sample files; the problem's prompt is the part before ``    pass``.
    There are no tests to judge with (CodeT's release has none): the samples' tests are what it offers."""
    path = Path(path)
    out: dict[str, Problem] = {}
    for lineno, rec in read_jsonl(path):
        for name in ("task_id", "prompt", "entry_point"):
            if not isinstance(rec.get(name), str):
                raise SampleFileError(f"{path}:{lineno}: field {name!r}: expected a string")
        prompt = rec["prompt"]
        head = prompt.split("    pass\n", 1)[0] if "    pass\n" in prompt else prompt
        out[rec["task_id"]] = Problem(task_id=rec["task_id"], dataset="codecontests", prompt=head,
                                      entry_point=rec["entry_point"], test_prompt_body=head,
                                      canonical_solution=rec.get("canonical_solution") or "")
    return out
