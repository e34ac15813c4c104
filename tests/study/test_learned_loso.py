from pathlib import Path

import numpy as np
import pytest

from coderank_evalplus.io.results_folder import StoredRun
from coderank_evalplus.rankers.learned import cluster_features
from coderank_evalplus.study import learned_loso
from coderank_evalplus.study.learned_loso import SetFolder, folds, loso_rows, model_key, permissive, train
from tests.rankers.helpers import make_executions
from tests.report.helpers import stored_problem


def _folder(name: str, seed: int, sources=("a.jsonl", "b.jsonl")) -> SetFolder:
    rng = np.random.default_rng(seed)
    problems = []
    for p in range(6):
        outputs = [[int(v)] for v in rng.integers(0, 3, size=8)]
        passes = [[int(o[0] == 0), int(o[0] != 2)] for o in outputs]
        correct = [o[0] == 0 for o in outputs]
        ex = make_executions(passes=passes, outputs=outputs, assert_input=[0, -1], expected=["0", None])
        problems.append(stored_problem(ex, correct, correct, task_id=f"T/{p}"))
    run = StoredRun(Path(name), {"dataset": "humaneval", "config": {"seed": 0}}, problems)
    return SetFolder(name, "pool", Path(name), run, [cluster_features(sp.executions) for sp in problems],
                     tuple(sources))


def test_model_key_groups_sizes_and_versions_of_one_model():
    assert model_key("codellama-34B-instruct") == model_key("codellama-7b-instruct-q5") == "codellama"
    assert model_key("gpt-3.5-turbo") == model_key("gpt-3.5-turbo-0125") != model_key("gpt-4")
    assert model_key("some-new-model") == "some-new-model"


def test_folds_never_train_on_the_scored_model():
    sets = [_folder("codegen-16B", 0), _folder("codellama-34B", 1), _folder("codellama-7b", 2), _folder("gpt-4", 3)]
    got = folds(sets)
    assert [m for m, _, _ in got] == ["codegen", "codellama", "gpt-4"]
    for model, scored, trained in got:
        assert {s.model for s in scored} == {model}
        assert model not in {t.model for t in trained} and len(scored) + len(trained) == len(sets)
    with pytest.raises(AssertionError, match="scored model"):
        train(sets, exclude_model="gpt-4")


def test_loso_rows_report_every_scored_folder_and_its_training_models(monkeypatch):
    sets = [_folder("codegen-16B", 0), _folder("codellama-34B", 1), _folder("gpt-4", 3)]
    seen = []
    real = learned_loso.train

    def spy(train_sets, exclude_model=None, note=None):
        seen.append((exclude_model, [s.model for s in train_sets]))
        return real(train_sets, exclude_model=exclude_model, note=note)

    monkeypatch.setattr(learned_loso, "train", spy)
    rows = loso_rows(sets, ["srank"], n_resamples=50)
    assert len(rows) == 3 * 2  # three folders × base/plus
    assert all(excl not in models for excl, models in seen) and len(seen) == 3
    for r in rows:
        assert r["model"] not in r["trained_on"]
        assert 0 <= r["pass@1"]["learned"]["pass@1"] <= 100
        assert set(r["learned_minus"]) == {"random", "srank"}


def test_only_permissive_sources_train_the_shipped_model():
    ok = _folder("codegen-16B", 0, ("x/HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_code_solution.jsonl",
                                    "y/gpt-4_reflexion.jsonl"))
    unlicensed = _folder("gpt-4", 1, ("x/gpt-4_n10_t0.2.jsonl.gz", "y/gpt-4_reflexion.jsonl"))
    assert permissive(ok) and not permissive(unlicensed)
    built_in = _folder("codegen-16B", 0, (ok.sources[0], "examples+mutate:10"))
    unlicensed_built_in = _folder("gpt-4", 1, ("x/gpt-4_n10_t0.2.jsonl.gz", "examples+mutate"))
    assert permissive(built_in) and not permissive(unlicensed_built_in)
    assert not permissive(_folder("codegen-16B", 0, ("examples+mutate:10", ok.sources[0])))  # a pool is no sample file
    model = learned_loso.train_shipped([ok, unlicensed])
    assert [t["name"] for t in model["training_sets"]] == ["codegen-16B"]
    with pytest.raises(ValueError, match="permissive"):
        learned_loso.train_shipped([unlicensed])
