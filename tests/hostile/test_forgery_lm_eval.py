"""Forgers through lm-eval tasks (issue 25): a model whose every answer forges its verdict scores 0, even for
the oracle. The replay model of the lm-eval integration tests serves the forgers' bodies as its completions.

One lm-eval run (each start indexes lm-eval's ~10k task YAMLs) serves both checks: the packaged
``humaneval_plus_codet`` (found through the discovery hook) and, through ``--include_path``, tasks of our own on
humaneval-original and mbpp-sanitized (issue 33)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import needs_data
from tests.hostile.forgers import BODIES
from tests.integrations.test_lm_eval_integration import CODET, _lm_eval, _results

PLUS_TASK = "humaneval_plus_codet"
# the original tests' datasets, each with its first problem
ORIGINAL = {"humaneval-original": "HumanEval/0", "mbpp-sanitized": "Mbpp/2"}


def _first(path):
    with open(path, encoding="utf-8") as fh:
        return json.loads(fh.readline())


@pytest.fixture(scope="module")
def forgers_run(tmp_path_factory):
    """The forgers' bodies as every solution of HumanEval/0 and Mbpp/2 (CodeT's own test samples for HumanEval/0,
    asserts of our own for Mbpp/2), run through humaneval_plus_codet and the two original-test tasks."""
    from coderank_evalplus.integrations.lm_eval import tasks_dir
    from coderank_evalplus.io.problems import load_problems

    tmp = tmp_path_factory.mktemp("lm_eval_forgers")
    template = (tasks_dir() / "_coderank_template_yaml").read_text()
    tasks = tmp / "tasks"
    tasks.mkdir()
    # the template's ``class: !function coderank_task.CodeRankTask`` is the module beside the YAMLs
    shutil.copy(tasks_dir() / "coderank_task.py", tasks / "coderank_task.py")
    names = []
    for dataset in ORIGINAL:
        name = dataset.replace("-", "_") + "_codet"
        names.append(name)
        (tasks / f"{name}.yaml").write_text(f"task: {name}\n{template}\ncoderank:\n  dataset: \"{dataset}\"\n"
                                            "  method: codet\n  plus: false\n")
    codet_tests = _first(CODET / "generated_data" / "HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_"
                                                    "test_case.jsonl")["samples"][:len(BODIES)]
    entry = load_problems("mbpp-sanitized", str(CODET.parent))["Mbpp/2"].entry_point
    test_samples = {"HumanEval/0": codet_tests, "Mbpp/2": [f"assert {entry}(1, 2) == 3"] * len(BODIES)}
    # the replay model maps a prompt of these files to its task id, then serves that task's samples in order
    codet = tmp / "codet"
    (codet / "dataset").mkdir(parents=True)
    (codet / "generated_data").mkdir()
    gen = codet / "generated_data" / "HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_"
    for dfile, gfile in (("HumanEval_for_code_generation", "code_solution"),
                         ("HumanEval_for_test_case_generation", "test_case")):
        with open(codet / "dataset" / f"{dfile}.jsonl", "w") as ds, open(f"{gen}{gfile}.jsonl", "w") as g:
            for tid, tests in test_samples.items():
                ds.write(json.dumps({"task_id": tid, "prompt": f"prompt of {tid}"}) + "\n")
                samples = BODIES if gfile == "code_solution" else tests
                g.write(json.dumps({"prompt": f"prompt of {tid}", "samples": samples}) + "\n")
    out = tmp / "out"
    _lm_eval(["run", "--model", "coderank-replay", "--model_args", f"codet_dir={codet}",
              "--tasks", ",".join([PLUS_TASK, *names]), "--include_path", str(tasks), "--limit", "1",
              "--metadata", json.dumps({"n_samples": len(BODIES), "n_test_samples": len(BODIES), "progress": False}),
              "--confirm_run_unsafe_code", "--log_samples", "--output_path", str(out)], tmp)
    return {"tmp": tmp, "results": _results(out)["results"], "original_tasks": names}


@needs_data
def test_lm_eval_task_scores_a_pool_of_forgers_zero(forgers_run):
    metrics = forgers_run["results"][PLUS_TASK]
    assert metrics["pass@1_oracle,none"] == 0.0 and metrics["pass@1,none"] == 0.0
    (folder,) = (forgers_run["tmp"] / "out").glob(f"*/coderank_{PLUS_TASK}_*")
    res = json.loads((folder / "rerank_results.json").read_text())
    assert res["task_ids"] == ["HumanEval/0"] and res["suspicious"] == []


@needs_data
def test_lm_eval_tasks_on_the_original_tests_score_forgers_zero(forgers_run):
    # issue 33: tasks on humaneval-original and mbpp-sanitized (YAMLs of our own through --include_path, the
    # package ships none), every answer a forger's body: 0 for CodeT's pick and for the oracle
    results = forgers_run["results"]
    for name in forgers_run["original_tasks"]:
        assert results[name]["pass@1_oracle,none"] == 0.0 and results[name]["pass@1,none"] == 0.0, name
