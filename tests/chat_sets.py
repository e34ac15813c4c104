"""Real chat replies for tests: the ``raw`` fields of three open instruct models' HumanEval sets in
``../shared/data/extra_humaneval/samples`` (prose around fenced functions, bare bodies, test prints), 10 per problem."""

from __future__ import annotations

import gzip
import json

from tests.conftest import SHARED_DATA

CHAT_SETS = SHARED_DATA / "extra_humaneval" / "samples"
MODELS = ("llama-3-8b-instruct-q6_humaneval_n10_t0.6", "deepseek-coder-6.7b-instruct-q5_humaneval_n10_t0.6",
          "codellama-7b-instruct-q5_humaneval_n10_t0.6")
# problems where each of the three models wrote fenced replies (CodeLlama's rare ones among them) and bare code
TIDS = [f"HumanEval/{i}" for i in (2, 4, 8, 9, 13, 18, 23, 30, 34, 53)]


def have_chat_sets() -> bool:
    return all((CHAT_SETS / f"{m}.jsonl.gz").is_file() for m in MODELS)


def chat_replies() -> dict[str, list[str]]:
    """The three models' raw replies per problem of TIDS, model after model (10 each)."""
    out: dict[str, list[str]] = {tid: [] for tid in TIDS}
    for model in MODELS:
        with gzip.open(CHAT_SETS / f"{model}.jsonl.gz", "rt", encoding="utf-8") as fh:
            for line in fh:
                rec = json.loads(line)
                if rec["task_id"] in out:
                    out[rec["task_id"]].append(rec["raw"])
    return out
