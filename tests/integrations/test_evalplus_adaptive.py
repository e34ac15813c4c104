"""``evalplus.evaluate --rerank … --adaptive --model M``: solutions drawn in rounds by a fake backend (in-process).

evalplus's codegen is never called; its evaluation is a fake that records which samples file it was given (what it
would judge). The fake model answers test prompts with CodeT's test samples and solution prompts with canned
completions, counting what it was asked for.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tests.integrations.test_evalplus_integration as base
from tests.integrations.test_evalplus_integration import TASKS, _jsonl, _replayed_model_outputs

# that module's fixtures (the 3-problem data, the offline environment, the start-up hook's check), used here too
data, env, in_process_env, hook_installed = base.data, base.env, base.in_process_env, base.hook_installed

WRONG = "    return None\n"


class FakeModel:
    """Canned answers: the test prompt's CodeT test samples; for a solution prompt, task 0 always the canonical
    body (its candidates all agree), the others canonical and wrong bodies in turn."""

    def __init__(self, problems, by_prompt) -> None:
        from coderank_evalplus.testgen.prompts import solution_prompt

        self.by_prompt = by_prompt
        self.task_of = {solution_prompt(problems[t]): t for t in TASKS}
        self.problems = problems
        self.drawn = {t: 0 for t in TASKS}  # solutions asked for, per task
        self.test_prompts = 0

    def fake(self):
        from coderank_evalplus.generation import Sample

        owner = self

        class FakeGenerator:
            is_chat = False

            def generate(self, prompts, n, temperature, top_p, max_tokens, stop):
                out = []
                for p in prompts:
                    if p in owner.by_prompt:
                        owner.test_prompts += 1
                        out.append([Sample(t) for t in owner.by_prompt[p][:n]])
                        continue
                    task = owner.task_of[p]
                    body = owner.problems[task].canonical_solution
                    first = owner.drawn[task]
                    owner.drawn[task] += n
                    out.append([Sample(body if task == TASKS[0] or (first + i) % 2 == 0 else WRONG)
                                for i in range(n)])
                return out

        return FakeGenerator()


@pytest.fixture
def wrapped(data, in_process_env, monkeypatch):
    """The patched evaluate with a fake model, a fake evaluation and a codegen that must not run."""
    import coderank_evalplus.generation as generation
    from coderank_evalplus.integrations.evalplus import patch_namespace

    problems, by_prompt, _ = _replayed_model_outputs(data)
    model = FakeModel(problems, by_prompt)
    evaluated: list[tuple[str, bool, list[dict]]] = []

    def run_codegen(**kw):
        raise AssertionError("evalplus's codegen ran with --adaptive")

    def evaluate(dataset: str, samples=None, base_only: bool = False, parallel=None, i_just_wanna_run=False,
                 test_details=False, min_time_limit: float = 1.0, gt_time_limit_factor: float = 4.0, mini=False,
                 noextreme=False, version="default", **model_kwargs):
        assert not model_kwargs
        evaluated.append((samples, i_just_wanna_run, _jsonl(Path(samples))))  # what evalplus would judge

    monkeypatch.setattr(generation, "make_generator", lambda backend, name, **kw: model.fake())
    ns = {"evaluate": evaluate, "run_codegen": run_codegen}
    patch_namespace(ns)
    return ns["evaluate"], model, evaluated


def _adaptive(stem: Path) -> dict:
    return {r["task_id"]: r for r in _jsonl(Path(f"{stem}_rerank") / "adaptive.jsonl")}


def _per_task(records: list[dict]) -> dict:
    return {t: sum(1 for r in records if r["task_id"] == t) for t in TASKS}


KW = dict(model="org/tiny", backend="hf", n_samples=5, temperature=0.8, rerank="codet", n_test_samples=8,
          parallel=2, adaptive=True)


def test_tau_zero_stops_after_the_first_round_and_tau_one_draws_every_round(wrapped, tmp_path, capsys):
    evaluate, model, evaluated = wrapped
    evaluate("humaneval", **KW, tau=0, root=str(tmp_path / "t0"))
    stem = tmp_path / "t0" / "humaneval" / "org--tiny_hf_temp_0.8"  # evalplus's own naming
    path, _, judged = evaluated[-1]
    assert path == f"{stem}.jsonl" and _per_task(judged) == {t: 1 for t in TASKS}
    rows = _adaptive(stem)
    assert {t: (r["samples"], r["stopped"]) for t, r in rows.items()} == {t: (1, True) for t in TASKS}
    assert model.drawn == {t: 1 for t in TASKS}
    tests = _jsonl(Path(f"{stem}_tests.jsonl"))  # drawn once per problem, before the first round
    assert sorted(r["task_id"] for r in tests) == sorted(TASKS) and all(len(r["samples"]) == 8 for r in tests)
    res = json.loads(Path(f"{stem}_rerank_results.json").read_text())
    assert res["adaptive"]["mean_samples"] == 1.0 and res["adaptive"]["tau"] == 0.0
    assert res["adaptive"]["method"] == "codet" and res["n_problems"] == len(TASKS)
    assert "1.00 samples per problem" in capsys.readouterr().out

    model.drawn = {t: 0 for t in TASKS}
    evaluate("humaneval", **KW, tau=1, root=str(tmp_path / "t1"))
    stem = tmp_path / "t1" / "humaneval" / "org--tiny_hf_temp_0.8"
    _, forced, judged = evaluated[-1]
    assert _per_task(judged) == {t: 5 for t in TASKS} and model.drawn == {t: 5 for t in TASKS}
    assert {t: (r["samples"], r["stopped"]) for t, r in _adaptive(stem).items()} == {t: (5, False) for t in TASKS}
    assert forced  # new samples: evalplus must not reuse an *_eval_results.json of earlier ones
    assert "5.00 samples per problem" in capsys.readouterr().out

    evaluate("humaneval", **KW, tau=1, root=str(tmp_path / "t1"))  # a rerun: every problem settled, nothing drawn
    assert model.drawn == {t: 5 for t in TASKS}
    _, forced, judged = evaluated[-1]
    assert _per_task(judged) == {t: 5 for t in TASKS} and not forced
    assert "Reusing test samples" in capsys.readouterr().out


@pytest.fixture
def agreement_model(monkeypatch):
    """The default confidence model replaced by a hand-made one that trusts agreement (the pick's share of the
    samples), τ = 0.8 recorded: what the rule does with a recorded τ, whatever the shipped weights say."""
    from coderank_evalplus.rankers import confidence
    from tests.rankers.helpers import agreement_model

    model = agreement_model(0.8, rows=400)
    monkeypatch.setattr(confidence, "_DEFAULT", [model])
    return model


def test_default_tau_stops_where_the_confidence_reaches_the_recorded_tau(wrapped, tmp_path, agreement_model):
    """The recorded τ: a problem stops at the first round whose confidence reaches it; agreeing right candidates
    (task 0, passing the generated tests) settle well before 10 samples."""
    from coderank_evalplus.generation.sampling import adaptive_rounds
    from coderank_evalplus.pipeline import adaptive_tau

    evaluate, model, evaluated = wrapped
    evaluate("humaneval", **{**KW, "n_samples": 10, "rerank": "recommended,codet"}, root=str(tmp_path))
    stem = tmp_path / "humaneval" / "org--tiny_hf_temp_0.8"
    tau, rows = adaptive_tau(), _adaptive(stem)
    assert tau == agreement_model["tau"] == 0.8
    assert _per_task(evaluated[-1][2]) == {t: r["samples"] for t, r in rows.items()}  # what evalplus judges
    assert model.drawn == {t: r["samples"] for t, r in rows.items()}  # nothing drawn beyond the stop
    for r in rows.values():
        assert r["samples"] in adaptive_rounds(10)
        assert r["stopped"] == (r["confidence"] >= round(tau, 4) and r["samples"] < 10)
    assert rows[TASKS[0]]["stopped"] and rows[TASKS[0]]["samples"] < 10
    res = json.loads(Path(f"{stem}_rerank_results.json").read_text())
    assert res["adaptive"]["method"] == "recommended" and res["adaptive"]["tau"] == tau


def test_given_tests_feed_the_stopper_and_none_are_generated(data, wrapped, tmp_path):
    from coderank_evalplus.api.evaluate import stage_config
    from coderank_evalplus.api.options import RerankOptions
    from coderank_evalplus.engine.execution.execute import ResultCache
    from coderank_evalplus.io.samples import read_test_samples
    from coderank_evalplus.pipeline import adaptive_stopper

    evaluate, model, evaluated = wrapped
    evaluate("humaneval", **KW, tau=0, tests=str(data / "tests_ours.jsonl"), root=str(tmp_path))
    stem = tmp_path / "humaneval" / "org--tiny_hf_temp_0.8"
    assert model.test_prompts == 0 and not Path(f"{stem}_tests.jsonl").exists()
    problems, _, _ = _replayed_model_outputs(data)
    given = read_test_samples(data / "tests_ours.jsonl", problems)
    judged = {r["task_id"]: r["solution"] for r in evaluated[-1][2]}
    cache = ResultCache(tmp_path / "check.sqlite")
    try:  # the confidence each problem stopped at is the one on the given tests
        stop = adaptive_stopper("codet", stage_config(RerankOptions(methods=["codet"], workers=1, progress=False)),
                                cache, 0.0)
        for t, r in _adaptive(stem).items():
            assert r["confidence"] == round(stop(problems[t], [judged[t]], given[t], {})[1], 4)
    finally:
        cache.close()


def test_codegen_target_is_evalplus_run_codegen_path(tmp_path, monkeypatch):
    import evalplus.codegen as cg

    from coderank_evalplus.integrations.evalplus_adaptive import codegen_target

    written = []
    monkeypatch.setattr(cg, "make_model", lambda **kw: object())
    monkeypatch.setattr(cg, "codegen", lambda target_path, **kw: written.append(target_path))
    for flags in (dict(model="./org/Model-7B", backend="hf", temperature=0.8, root=str(tmp_path)),
                  dict(model="m", backend="openai", root=str(tmp_path)), dict(model="m", temperature=1)):
        monkeypatch.chdir(tmp_path)
        assert cg.run_codegen(dataset="mbpp", **flags) == codegen_target("mbpp", flags) == written[-1]


def test_adaptive_usage_errors(data, wrapped, tmp_path, capsys):
    from coderank_evalplus.integrations.evalplus import RerankError, evaluate_main

    evaluate, model, evaluated = wrapped
    given = ["humaneval", "--samples", str(data / "samples.jsonl"), "--rerank", "codet",
             "--tests", str(data / "tests_ours.jsonl")]
    assert evaluate_main(given + ["--adaptive"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--adaptive draws the solutions in rounds from the model: give --model" in err[0]
    assert "given samples (--samples) are not drawn in rounds" in err[0]
    assert "coderank-evalplus budget <samples>_rerank --adaptive" in err[0]
    assert evaluate_main(given + ["--tau", "0.5"]) == 2
    assert capsys.readouterr().err.strip() == "error: --tau applies with --adaptive"
    for bad in (1.5, -0.1, "x"):
        with pytest.raises(RerankError, match=r"--tau: expected a number in \[0, 1\]"):
            evaluate("humaneval", **KW, tau=bad, root=str(tmp_path))
    with pytest.raises(RerankError, match="--adaptive only applies with --rerank"):
        evaluate("humaneval", model="m", backend="hf", adaptive=True)
    with pytest.raises(RerankError, match="--greedy draws one sample"):
        evaluate("humaneval", **KW, greedy=True, root=str(tmp_path))
    with pytest.raises(RerankError, match="--backend vllm, hf or openai, not 'anthropic'"):
        evaluate("humaneval", **{**KW, "backend": "anthropic"}, root=str(tmp_path))
    # a samples file of evalplus's own codegen at that path is not overwritten
    target = tmp_path / "humaneval" / "org--tiny_hf_temp_0.8.jsonl"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps({"task_id": TASKS[0], "solution": "x = 1\n"}) + "\n")
    with pytest.raises(RerankError, match="holds samples not drawn by --adaptive"):
        evaluate("humaneval", **KW, root=str(tmp_path))
    assert not evaluated and all(n == 0 for n in model.drawn.values())
