"""Forgers through an lm-eval task (issue 25): a model whose every answer forges its verdict scores 0, even for
the oracle. The replay model of the lm-eval integration tests serves the forgers' bodies as its completions."""

from __future__ import annotations

import json
import shutil

from tests.conftest import needs_data
from tests.hostile.forgers import BODIES
from tests.integrations.test_lm_eval_integration import CODET, _lm_eval, _results


def _first(path):
    with open(path, encoding="utf-8") as fh:
        return json.loads(fh.readline())


@needs_data
def test_lm_eval_task_scores_a_pool_of_forgers_zero(tmp_path):
    codet = tmp_path / "codet"
    (codet / "dataset").mkdir(parents=True)
    (codet / "generated_data").mkdir()
    gen = codet / "generated_data" / "HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_"
    for dfile, gfile, samples in (("HumanEval_for_code_generation", "code_solution", BODIES),
                                  ("HumanEval_for_test_case_generation", "test_case", None)):
        rec = _first(CODET / "dataset" / f"{dfile}.jsonl")
        (codet / "dataset" / f"{dfile}.jsonl").write_text(json.dumps(rec) + "\n")
        if samples is None:
            samples = _first(f"{CODET / 'generated_data' / 'HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_'}"
                             f"{gfile}.jsonl")["samples"][:len(BODIES)]
        with open(f"{gen}{gfile}.jsonl", "w") as fh:
            fh.write(json.dumps({"prompt": rec["prompt"], "samples": samples}) + "\n")
    out = tmp_path / "out"
    _lm_eval(["run", "--model", "coderank-replay", "--model_args", f"codet_dir={codet}",
              "--tasks", "humaneval_plus_codet", "--limit", "1",
              "--metadata", json.dumps({"n_solutions": len(BODIES), "n_test_samples": len(BODIES), "progress": False}),
              "--confirm_run_unsafe_code", "--log_samples", "--output_path", str(out)], tmp_path)
    metrics = _results(out)["results"]["humaneval_plus_codet"]
    assert metrics["pass@1_oracle,none"] == 0.0 and metrics["pass@1,none"] == 0.0
    folder = tmp_path / "coderank_results" / "lm_eval" / "humaneval_plus_codet"
    res = json.loads((folder / "rerank_results.json").read_text())
    assert res["suspicious"] == []


@needs_data
def test_lm_eval_tasks_on_the_original_tests_score_forgers_zero(tmp_path):
    # issue 33: tasks on humaneval-original and mbpp-sanitized (YAMLs of our own through --include_path, the
    # package ships none), every answer a forger's body: 0 for CodeT's pick and for the oracle
    from coderank_evalplus.integrations.lm_eval import tasks_dir
    from coderank_evalplus.io.problems import load_problems

    template = (tasks_dir() / "_coderank_template_yaml").read_text()
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    # the template's ``class: !function coderank_task.CodeRankTask`` is the module beside the YAMLs
    shutil.copy(tasks_dir() / "coderank_task.py", tasks / "coderank_task.py")
    codet = tmp_path / "codet"
    (codet / "dataset").mkdir(parents=True)
    (codet / "generated_data").mkdir()
    gen = codet / "generated_data" / "HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_"
    names = []
    files = {"code_solution": [], "test_case": []}
    datasets = {"humaneval-original": "HumanEval/0", "mbpp-sanitized": "Mbpp/2"}
    for dataset, tid in datasets.items():
        name = dataset.replace("-", "_") + "_codet"
        names.append(name)
        (tasks / f"{name}.yaml").write_text(f"task: {name}\n{template}\ncoderank:\n  dataset: \"{dataset}\"\n"
                                            "  method: codet\n  plus: false\n")
        files["code_solution"].append((tid, BODIES))
        entry = load_problems(dataset, str(CODET.parent))[tid].entry_point
        files["test_case"].append((tid, [f"assert {entry}(1, 2) == 3"] * len(BODIES)))
    # the replay model maps a prompt of these files to its task id, then serves that task's samples in order
    for dfile, gfile in (("HumanEval_for_code_generation", "code_solution"),
                         ("HumanEval_for_test_case_generation", "test_case")):
        with open(codet / "dataset" / f"{dfile}.jsonl", "w") as ds, open(f"{gen}{gfile}.jsonl", "w") as g:
            for tid, samples in files[gfile]:
                ds.write(json.dumps({"task_id": tid, "prompt": f"prompt of {tid}"}) + "\n")
                g.write(json.dumps({"prompt": f"prompt of {tid}", "samples": samples}) + "\n")
    out = tmp_path / "out"
    _lm_eval(["run", "--model", "coderank-replay", "--model_args", f"codet_dir={codet}",
              "--tasks", ",".join(names), "--include_path", str(tasks), "--limit", "1",
              "--metadata", json.dumps({"n_solutions": len(BODIES), "n_test_samples": len(BODIES), "progress": False}),
              "--confirm_run_unsafe_code", "--log_samples", "--output_path", str(out)], tmp_path)
    results = _results(out)["results"]
    for name in names:
        assert results[name]["pass@1_oracle,none"] == 0.0 and results[name]["pass@1,none"] == 0.0, name
