"""Likelihood features of solution samples: what the model thinks of a candidate, as extra sample fields.

Fields (names contain ``logprob``; evalplus ignores them, every reader and writer here keeps them):

* ``logprob`` / ``logprob_tokens``: coder likelihood, log p(candidate | problem) summed over the candidate's tokens,
  and their number. Recorded while sampling when the backend reports it; otherwise scored here by a forward pass.
  Base models: the candidate's completion after the problem prompt (a solution that does not start with the
  prompt is scored whole after it). Chat models: the reply ```` ```python\\n<solution>\\n``` ```` after the templated
  solution request.
* ``reviewer_logprob`` / ``reviewer_logprob_tokens``: reviewer likelihood (Coder-Reviewer, Zhang et al. 2023),
  log p(instruction | candidate): the candidate (docstrings and comments removed, so that it cannot copy the
  instruction) is placed *before* the docstring, and the docstring's tokens are scored. Always plain text.

The rankers (``rankers/likelihood.py``) normalise both by their token counts.
"""

from __future__ import annotations

import os
from typing import Iterable, Mapping, Optional, Sequence

from coderank_evalplus.generation.base import Scorer
from coderank_evalplus.testgen.prompt_examples import code_without_docs
from coderank_evalplus.types import Problem

CODER = "coder"
REVIEWER = "reviewer"
FIELDS = {CODER: ("logprob", "logprob_tokens"), REVIEWER: ("reviewer_logprob", "reviewer_logprob_tokens")}
REVIEW_REQUEST = "# Write the docstring for the code above.\n"


def instruction_text(problem: Problem) -> str:
    """The problem's instruction: the text of its prompt's docstring, each line stripped (as DOCE does), else the
    whole prompt."""
    from coderank_evalplus.testgen.prompt_examples import docstring_span

    span = docstring_span(problem.prompt, problem.entry_point)
    text = problem.prompt if span is None else problem.prompt[span[0]:span[1]]
    return "\n".join(line.strip() for line in text.strip().splitlines())


def reviewer_pair(problem: Problem, program: str) -> tuple[str, str]:
    """(context, continuation) of the reviewer likelihood: code first, then the docstring to be scored."""
    context = f'{code_without_docs(program, problem.entry_point).rstrip()}\n\n\n{REVIEW_REQUEST}"""\n'
    return context, f'{instruction_text(problem)}\n"""\n'


def coder_pair(problem: Problem, program: str, generator) -> tuple[str, str]:
    """(context, continuation) of the coder likelihood under ``generator``'s prompting (base or chat)."""
    from coderank_evalplus.testgen.prompts import chat_solution_messages, solution_prompt

    if getattr(generator, "is_chat", False):
        template = getattr(generator, "apply_chat_template", None)
        if template is None:
            raise ValueError("scoring a chat model's samples needs its chat template (a local backend: hf, vllm, "
                             "embedded); an OpenAI-compatible chat server cannot score a given reply")
        return template(chat_solution_messages(problem)), f"```python\n{program.strip(chr(10))}\n```"
    prompt = solution_prompt(problem)
    return prompt, program[len(prompt):] if program.startswith(prompt) else program


def refuse_unscorable(scorer, kinds: Iterable[str]) -> None:
    """Raise ValueError (one line) when ``scorer`` says it cannot give these likelihood features (an
    OpenAI-compatible chat-only server: ``likelihood_refusal``); before any sampling or scoring is spent."""
    check = getattr(scorer, "likelihood_refusal", None)
    kinds = sorted(kinds)
    reason = check(kinds) if check is not None and kinds else None
    if reason:
        fields = ", ".join(f for kind in kinds for f in FIELDS[kind])
        raise ValueError(f"cannot get the likelihood features {fields} (for ll, coder_reviewer, ll+… or "
                         f"`likelihood --features`): {reason}")


def _program(rec: dict, problem: Problem) -> Optional[str]:
    if isinstance(rec.get("solution"), str):
        return rec["solution"]
    if isinstance(rec.get("completion"), str):
        return problem.prompt + rec["completion"]
    return None


def missing(rec: dict, kind: str) -> bool:
    """True when the record lacks a usable value of this feature (sum and token count)."""
    total, count = FIELDS[kind]
    return not (isinstance(rec.get(total), (int, float)) and isinstance(rec.get(count), int) and rec[count] > 0)


def score_records(records: Sequence[dict], problems: Mapping[str, Problem], scorer: Scorer,
                  kinds: Iterable[str] = (CODER, REVIEWER), batch: int = 64, progress: bool = False,
                  on_batch=None) -> int:
    """Fill the missing features of sample records in place (records of unknown tasks are left alone); returns
    how many values were scored. ``on_batch()`` is called after each batch (to save progress)."""
    todo: list[tuple[dict, str, tuple[str, str]]] = []
    for rec in records:
        task_id = rec.get("task_id")
        problem = problems.get(task_id) if isinstance(task_id, str) else None
        program = _program(rec, problem) if problem is not None else None
        if problem is None or program is None:
            continue
        for kind in kinds:
            if missing(rec, kind):
                pair = coder_pair(problem, program, scorer) if kind == CODER else reviewer_pair(problem, program)
                todo.append((rec, kind, pair))
    bar = None
    if progress and todo:
        from coderank_evalplus.io.progress import progress_bar

        bar = progress_bar(total=len(todo), desc="likelihood", unit="sample")
    for start in range(0, len(todo), batch):
        chunk = todo[start:start + batch]
        for (rec, kind, _), (total, count) in zip(chunk, scorer.score([pair for _, _, pair in chunk])):
            rec[FIELDS[kind][0]], rec[FIELDS[kind][1]] = float(total), int(count)
        if on_batch is not None:
            on_batch()
        if bar is not None:
            bar.update(len(chunk))
    if bar is not None:
        bar.close()
    return len(todo)


def add_likelihoods(samples_path: str | os.PathLike, problems: Mapping[str, Problem], scorer: Scorer,
                    kinds: Iterable[str] = (CODER, REVIEWER), output: Optional[str | os.PathLike] = None,
                    progress: bool = False) -> int:
    """Score what a samples file lacks and write it back (or to ``output``); every other field and record is
    kept as it was. The file is replaced atomically after each batch, so an interrupted run keeps what was
    scored. Returns the number of values scored."""
    from coderank_evalplus.io.samples import SampleFileError, read_jsonl
    from coderank_evalplus.storage import atomic_write_jsonl

    kinds = list(kinds)
    refuse_unscorable(scorer, kinds)
    src = os.fspath(samples_path)
    if os.path.isdir(src):
        raise SampleFileError(f"{src}: likelihood features are stored in a .jsonl samples file, not a sample folder")
    records = [rec for _, rec in read_jsonl(src)]
    dest = os.fspath(output or src)

    def save() -> None:
        atomic_write_jsonl(dest, records)

    n = score_records(records, problems, scorer, kinds, progress=progress, on_batch=save)
    if n == 0 and dest != src:
        save()
    return n


def features_for(methods: Sequence[str], samples_path: str | os.PathLike, problems: Mapping[str, Problem],
                 solutions: Mapping[str, Sequence[str]]) -> Optional[dict[str, dict[str, list[float]]]]:
    """The likelihood features that ``methods`` need, read from the samples file (None when they need none).

    Raises ValueError naming the file, the fields and the tasks when some sample lacks a needed value."""
    from coderank_evalplus.io.samples import read_features
    from coderank_evalplus.rankers.likelihood import features_needed

    kinds = features_needed(methods)
    if not kinds:
        return None
    features = read_features(samples_path, problems)
    check_features(kinds, features, solutions, samples_path)
    return features


def check_features(kinds: Iterable[str], features: Mapping[str, Mapping[str, Sequence[float]]],
                   solutions: Mapping[str, Sequence[str]], samples_path: str | os.PathLike) -> None:
    """Raise ValueError naming the samples file, the fields and the tasks when some of ``solutions``' samples lack
    a value of the features ``kinds`` in ``features`` (per task, per field, one value per sample)."""
    import math

    fields = [f for kind in sorted(kinds) for f in FIELDS[kind]]
    lacking = []
    for tid, programs in solutions.items():
        have = features.get(tid, {})
        if any(len(have.get(f, ())) != len(programs) or any(math.isnan(v) for v in have[f]) for f in fields):
            lacking.append(tid)
    if lacking:
        shown = ", ".join(lacking[:3]) + (f" and {len(lacking) - 3} more" if len(lacking) > 3 else "")
        raise ValueError(f"{samples_path}: the requested methods need the fields {', '.join(fields)} on every "
                         f"sample; {len(lacking)} task(s) lack them ({shown}). Score them with `coderank-evalplus "
                         f"likelihood --samples {samples_path} --model MODEL --backend BACKEND`")
