"""Forgers through ``coderank-evalplus run`` (issue 25): a stand-in model whose answers are the forgers' bodies and
one always-equal object; the forgers are judged wrong, the always-equal object passes and is listed."""

from __future__ import annotations

import json

import pytest

from coderank_evalplus.generation.base import Sample
from tests.conftest import SHARED_DATA, needs_data
from tests.hostile.forgers import ALWAYS_EQUAL_BODY, BODIES


class ForgingModel:
    is_chat = False

    def generate(self, prompts, n, temperature, top_p, max_tokens, stop):
        out = []
        for p in prompts:
            if p.rstrip().endswith("assert"):  # a test-generation prompt
                out.append([Sample("has_close_elements([1.0, 2.0, 3.0], 0.5) == False\n")] * n)
            else:
                out.append([Sample(b) for b in ([ALWAYS_EQUAL_BODY] + BODIES)[:n]])
        return out


@needs_data
@pytest.mark.slow
def test_run_judges_forgers_wrong(tmp_path, monkeypatch):
    from coderank_evalplus.cli import run as run_mod
    from coderank_evalplus.cli.console import main

    monkeypatch.setattr(run_mod, "make_model", lambda *a, **k: ForgingModel())
    out = tmp_path / "out"
    rc = main(["run", "--data-dir", str(SHARED_DATA), "--limit", "1", "--n-samples", str(1 + len(BODIES)),
               "--n-test-samples", "1", "--methods", "codet", "--workers", "2", "--output", str(out), "--quiet",
               "--cache-dir", str(tmp_path / "cache")])
    assert rc == 0
    verdicts = {r["sample"]: (r["base"], r["plus"]) for r in map(json.loads, (out / "verdicts.jsonl").read_text()
                                                                 .splitlines())}
    assert verdicts == {0: (True, True), **{k: (False, False) for k in range(1, 1 + len(BODIES))}}
    res = json.loads((out / "rerank_results.json").read_text())
    assert [(s["task_id"], s["sample"]) for s in res["suspicious"]] == [("HumanEval/0", 0)]
