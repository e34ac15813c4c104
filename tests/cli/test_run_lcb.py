"""``coderank-evalplus run`` on LiveCodeBench-schema problems with a stand-in model, base and chat: LiveCodeBench's
own prompts (its base prompt with ``###`` as the solutions' stop, its chat prompt), CodeT's CodeContests prompt and
a chat prompt for input/output pairs as the tests, judged on the problems' public and private tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coderank_evalplus.generation.base import Sample

DATA = Path(__file__).parents[1] / "data" / "lcb"
RIGHT = {"abc900_a": "n = int(input())\nprint(sum(map(int, input().split())))\n",
         "lc-two-sum": ("class Solution:\n    def twoSum(self, nums, target):\n        seen = {}\n"
                        "        for i, x in enumerate(nums):\n            if target - x in seen:\n"
                        "                return [seen[target - x], i]\n            seen[x] = i\n")}
WRONG = {"abc900_a": "n = int(input())\nprint(n)\n",
         "lc-two-sum": "class Solution:\n    def twoSum(self, nums, target):\n        return [0, 1]\n"}
PAIRS = {"abc900_a": '[{"input": "2\\n1 2\\n", "output": "3"}]',
         "lc-two-sum": '[{"input": "[1, 4, 5]\\n9", "output": "[1, 2]"}]'}


class StandIn:
    """Answers like a model: the right and a wrong program, and one test (CodeT's form, or a chat reply's pairs)."""

    def __init__(self, chat: bool) -> None:
        self.is_chat = chat
        self.stops: dict[str, list] = {}

    def generate(self, prompts, n, temperature, top_p, max_tokens, stop):
        out = []
        for p in prompts:
            text = p if isinstance(p, str) else p[-1]["content"]
            tid = "abc900_a" if "Given N and N integers" in text else "lc-two-sum"
            if text.endswith("assert ") or "with the exact expected results" in text:
                self.stops["test"] = list(stop)
                sample = (f"```json\n{PAIRS[tid]}\n```" if self.is_chat else
                          'solution("2\\n1 2\\n") == "3"' if tid == "abc900_a" else
                          "Solution().twoSum([1, 4, 5], 9) == [1, 2]")
                out.append([Sample(sample)] * n)
            else:
                self.stops["solution"] = list(stop)
                progs = [RIGHT[tid], WRONG[tid]]
                out.append([Sample(f"Here it is:\n```python\n{c}```\n" if self.is_chat else c) for c in progs][:n])
        return out


@pytest.mark.parametrize("chat", [False, True], ids=["base", "chat"])
def test_run_on_livecodebench_problems(tmp_path, monkeypatch, chat):
    from coderank_evalplus.cli import run as run_mod
    from coderank_evalplus.cli.console import main
    from coderank_evalplus.engine.execution.workers import CANDIDATE_LOG_ENV

    lines = [ln for ln in (DATA / "problems.jsonl").read_text().splitlines()
             if json.loads(ln)["question_id"] in RIGHT]
    path = tmp_path / "lcb.jsonl"
    path.write_text("\n".join(lines) + "\n")
    model = StandIn(chat)
    monkeypatch.setattr(run_mod, "make_model", lambda *a, **k: model)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(CANDIDATE_LOG_ENV, str(tmp_path / "before.log"))
    rc = main(["run", "--dataset", str(path), "--model", "stand-in", "--limit", "0", "--n-samples", "2",
               "--n-test-samples", "1", "--methods", "recommended,codet", "--workers", "1", "--quiet"])
    assert rc == 0
    folder = tmp_path / "coderank_results" / "stand-in-lcb.jsonl"
    verdicts = {(r["task_id"], r["sample"]): r["base"] for r in map(json.loads, (folder / "verdicts.jsonl")
                                                                    .read_text().splitlines())}
    assert verdicts == {("lc-two-sum", 0): True, ("lc-two-sum", 1): False, ("abc900_a", 0): True,
                        ("abc900_a", 1): False}
    res = json.loads((folder / "rerank_results.json").read_text())
    assert res["methods"]["codet"]["base"]["pass@1"] == 100.0  # the generated test tells them apart
    assert res["methods"]["random"]["base"]["pass@1"] == 50.0
    if not chat:
        assert model.stops == {"solution": ["###"], "test": ["\nclass", "\ndef", "\n#", "\nif", "\nprint"]}
