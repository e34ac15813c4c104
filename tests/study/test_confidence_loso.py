"""Leave one set out for the confidence model on hand-made folders (ranked by learned_examples: they hold no programs
for the step): scored folders never train their model, and
the large folders get pass@1 at a mean of 10 samples with and without a cap."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from coderank_evalplus.io.results_folder import StoredRun
from coderank_evalplus.study.confidence_loso import CAPS, cached_table, loso
from coderank_evalplus.study.learned_loso import SetFolder
from tests.rankers.helpers import make_executions
from tests.report.helpers import stored_problem


def _folder(name: str, n: int, seed: int) -> SetFolder:
    """Problems of n candidates; the correct ones agree and pass assert 0, the others scatter."""
    rng = np.random.default_rng(seed)
    problems = []
    for p in range(8):
        correct = [bool(rng.random() < 0.2 + 0.1 * p) for _ in range(n)]
        outputs = [[1] if ok else [int(rng.integers(2, 6))] for ok in correct]
        passes = [[ok, (not ok) and o[0] == 2] for ok, o in zip(correct, outputs)]
        ex = make_executions(passes=passes, outputs=outputs, assert_input=[-1, -1])
        problems.append(stored_problem(ex, correct, correct, task_id=f"T/{p}"))
    run = StoredRun(Path(name), {"dataset": "humaneval", "config": {"seed": 0}}, problems)
    return SetFolder(name, "pool", Path(name), run, [], ("a.jsonl", "b.jsonl"))


def test_each_family_is_scored_by_a_model_of_the_others_and_large_sets_get_their_budget_figures():
    sets = [_folder("codegen-16B", 20, 0), _folder("gpt-4", 10, 1), _folder("deepseek-coder", 10, 2)]
    tables = {id(s): cached_table(s, "learned_examples", draws=3, workers=1) for s in sets}
    rows = loso(sets, tables, n_resamples=20)
    assert [r["model"] for r in rows] == ["codegen", "gpt-4", "deepseek"]
    for r in rows:
        assert r["model"] not in r["trained_on"] and len(r["trained_on"]) == 2
    big, small = rows[0]["derived"], rows[1]["derived"]
    assert big["cap"] == 20 and small["cap"] == 10
    assert small["adaptive_at_10"] is None and small["adaptive_at_10_by_cap"] == {}
    assert big["fixed_at_10"] == next(f["base"] for f in rows[0]["fixed"] if f["n"] == 10)
    assert set(big["adaptive_at_10_by_cap"]) == {c for c in CAPS if 10 < c < 20}
    assert big["adaptive_at_10"] is not None and 0 <= big["adaptive_at_10"] <= 100


@pytest.mark.slow
def test_the_cap_for_a_large_folder_is_chosen_on_training_folders_only():
    """A held-out cap comes from the other families' large folders; with none among them there is no cap to pick, and
    the shipped model records the cap chosen on its own (permissive) folders."""
    from coderank_evalplus.study import confidence_loso as cl

    sets = [_folder("codegen-16B", 20, 0), _folder("code-davinci-002", 20, 3), _folder("gpt-4", 10, 1)]
    tables = {id(s): cached_table(s, "learned_examples", draws=3, workers=1) for s in sets}
    rows = {r["model"]: r["derived"] for r in loso(sets, tables, n_resamples=20)}
    for fam in ("codegen", "davinci"):
        d = rows[fam]
        assert d["heldout_cap"] in (None, *[c for c in CAPS if c < 20])
        other = [s for s in sets if s.model != fam]
        model = cl.train(other, tables)
        assert d["heldout_cap"] == cl.choose_cap([tables[id(s)] for s in other], model)
        assert d["gain_at_10_heldout_cap"] == cl.gain_at_budget(tables[id(sets[0 if fam == "codegen" else 1])],
                                                                model, d["heldout_cap"])
    assert "heldout_cap" not in rows["gpt-4"]
    assert cl.choose_cap([tables[id(sets[2])]], cl.train(sets[:2], tables)) is None  # no large training folder
    for s in sets[:2]:  # as if CodeT's files (MIT): the shipped model may train on them
        s.sources = ("HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_x.jsonl", "examples+mutate")
    shipped = cl.train_shipped(sets, tables)
    assert [t["name"] for t in shipped["training_sets"]] == ["codegen-16B", "code-davinci-002"]
    assert shipped["suggested_cap"] == cl.choose_cap([tables[id(s)] for s in sets[:2]], shipped)
    assert shipped["digest"] == cl.model_digest(shipped)
