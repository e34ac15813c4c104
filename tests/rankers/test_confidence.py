"""The pick's confidence: features read from the ranking and the matrices, a model fitted and scored."""

from __future__ import annotations

import numpy as np
import pytest

from coderank_evalplus.rankers import get_ranker
from coderank_evalplus.rankers.confidence import (
    FEATURES,
    confidence,
    fit_confidence,
    load_model,
    pick_features,
    predict,
    with_tau,
)
from tests.rankers.helpers import make_ctx, make_executions


def _agreeing(n: int = 10):
    """n samples of one program that passes both generated asserts."""
    return make_executions(passes=[[1, 1]] * n, outputs=[[7, 8]] * n, program_ids=[0] * n)


def _split(n: int = 10):
    """Half the samples pass both asserts, the other half neither, and they return different values."""
    return make_executions(passes=[[1, 1]] * (n // 2) + [[0, 0]] * (n - n // 2),
                           outputs=[[7, 8]] * (n // 2) + [[c, c] for c in range(n - n // 2)])


def _features(ex):
    return dict(zip(FEATURES, pick_features(get_ranker("codet")(make_ctx(ex)), ex)))


def test_features_of_an_agreeing_problem():
    f = _features(_agreeing())
    assert f["pick_share"] == 1.0 and f["runner_share"] == 0.0 and f["margin"] == 1.0 and f["top_share"] == 1.0
    assert f["assert_pass"] == 1.0 and f["has_tests"] == 1.0 and f["clusters"] == pytest.approx(0.1)
    assert f["log_n"] == pytest.approx(np.log(10)) and f["unrunnable"] == 0.0


def test_features_of_a_split_problem():
    f = _features(_split())
    assert f["pick_share"] == 0.5 and f["runner_share"] == pytest.approx(0.1) and f["clusters"] == pytest.approx(0.6)
    assert f["assert_pass"] == 1.0


def _training(rate: float, rng: np.random.Generator, n: int = 400):
    """Rows: agreeing problems (pick right with probability ``rate``) and split ones (right half the time)."""
    agree, split = _features(_agreeing()), _features(_split())
    X = np.asarray([list((agree if i % 2 == 0 else split).values()) for i in range(n)])
    y = np.where(np.arange(n) % 2 == 0, rng.random(n) < rate, rng.random(n) < 0.5).astype(float)
    return X, y


def test_agreeing_samples_get_near_their_training_rate():
    rng = np.random.default_rng(0)
    X, y = _training(0.8, rng)
    model = fit_confidence(X, {"base": y, "plus": y * (rng.random(len(y)) < 0.9)}, ["hand-made"])
    ex = _agreeing()
    c = confidence(get_ranker("codet")(make_ctx(ex)), ex, model)
    observed = y[::2].mean()
    assert abs(c["base"] - observed) < 0.03
    assert c["plus"] < c["base"]
    assert predict(model, X[1], "base")[0] == pytest.approx(y[1::2].mean(), abs=0.03)


def test_model_file_digest_and_tau_are_checked():
    rng = np.random.default_rng(1)
    X, y = _training(0.7, rng, 40)
    model = with_tau(fit_confidence(X, {"base": y, "plus": y}, ["hand-made"]), 0.9, "by hand")
    assert load_model(model)["tau"] == 0.9
    bad = dict(model, tau=0.5)
    with pytest.raises(ValueError, match="digest"):
        load_model(bad)
    with pytest.raises(ValueError, match="features"):
        load_model(dict(model, features=["share"]))



def test_shipped_model_loads_and_was_trained_on_permissive_sets_only():
    model = load_model()
    assert 0.0 <= model["tau"] <= 1.0 and model["training_sets"]
    assert all(t["license"] == "permissive" for t in model["training_sets"])


@pytest.mark.parametrize("n", [3, 19, 20, 40])
def test_the_confidence_block_gives_calibration_only_from_the_minimum_of_problems(n):
    """rerank_results.json's confidence block: calibration and selective pass@1 of the run's picks, null under
    ``metrics.MIN_PROBLEMS`` problems (the rule the reports follow), with the n they rest on."""
    from coderank_evalplus.metrics import MIN_PROBLEMS
    from coderank_evalplus.rankers.confidence import confidence_block

    conf = np.linspace(0.05, 0.95, n)
    per_task = {f"T/{i}": {"codet": {"base": float(c), "plus": float(c)}} for i, c in enumerate(conf)}
    passed = {"codet": {"base": list((conf > 0.5).astype(float))}}
    block = confidence_block(per_task, passed)
    cal = block["calibration"]["codet"]
    assert cal["n_problems"] == n and list(cal["calibration"]) == ["base"]
    assert cal["all"]["base"] == round(100.0 * float((conf > 0.5).mean()), 2)  # the picks' pass@1: at every n
    figures = [*cal["calibration"]["base"].values(), *(x["base"] for x in cal["selective"])]
    if n < MIN_PROBLEMS:
        assert figures == [None] * 6
    else:
        assert cal["calibration"]["base"]["auroc"] == 1.0 and None not in figures
    assert len(block["per_problem"]["codet"]["base"]) == n  # the per-problem confidences: always


def test_a_pick_drawn_from_a_tie_has_the_confidence_divided_by_its_parts():
    """A step that told the top group's parts apart and could not order them (``info['tie']``): the model's
    confidence divided by the number of parts inside the pick's pool (docs/confidence.md); parts outside the pool,
    or none, leave it as the model gives it."""
    from coderank_evalplus.types import Group, Ranking

    ex = _agreeing(4)
    plain = Ranking([Group([0, 1, 2, 3], 1.0)])
    model = confidence(plain, ex)
    halves = confidence(Ranking(plain.groups, {"tie": [[0, 1], [2, 3]]}), ex)
    assert halves == {s: pytest.approx(v / 2, abs=1e-4) for s, v in model.items()}
    thirds = confidence(Ranking(plain.groups, {"tie": [[0], [1]]}), ex)  # 2 and 3 in no part: a third part
    assert thirds == {s: pytest.approx(v / 3, abs=1e-4) for s, v in model.items()}
    narrowed = Ranking([Group([0, 1], 2.0), Group([2, 3], 1.0)], {"tie": [[0, 1], [2, 3]]})  # a later step chose
    assert confidence(narrowed, ex) == confidence(Ranking(narrowed.groups), ex)
