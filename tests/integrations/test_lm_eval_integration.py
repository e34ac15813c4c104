"""lm-eval integration: the real lm-eval CLI in subprocesses, offline, end to end.

* a randomly initialised tiny GPT-2 (tokenizer trained on the spot, nothing downloaded) through ``--model hf``;
* CodeT's released CodeGen-16B samples replayed by a registered fake model, and the metrics checked against
  ``coderank-evalplus rerank`` on the same candidates and tests (same numbers, same rankings);
* a model that answers empty strings: pass@1 0 with a warning;
* discovery: the tasks appear in what ``lm-eval ls tasks`` lists (its task manager) with no
  ``--include_path``.

Each lm-eval start indexes lm-eval's ~10k task YAMLs (10-40 s here), so the checks share few subprocess runs.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from functools import lru_cache
from pathlib import Path

import pytest

pytest.importorskip("lm_eval")

from tests.integrations import fake_lm_eval_model  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("CODERANK_DATA") or REPO.parent / "shared" / "data").expanduser().resolve()
CODET = DATA / "microsoft_CodeT"
BIN = Path(sys.executable).parent
TASK_NAMES = [f"{d}_{m}" for d in ("humaneval", "humaneval_plus", "mbpp", "mbpp_plus")
              for m in ("codet", "srank", "mbr_exec", "recommended")]
needs_data = pytest.mark.skipif(not CODET.is_dir(), reason=f"shared data not found at {DATA}")


def _build_tiny_gpt2(out: Path) -> None:
    """A randomly initialised 2-layer GPT-2 with a byte-level BPE tokenizer trained here (no hub access), saved to
    ``out`` (built in this process: the test is about lm-eval's process, not the model's making)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    corpus = ["def f(x):\n    return x + 1\n", "assert f(1) == 2\n", "for i in range(3):\n    print(i)\n"] * 20
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=400, special_tokens=["<|endoftext|>"],
                            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<|endoftext|>", eos_token="<|endoftext|>",
                                   unk_token="<|endoftext|>", pad_token="<|endoftext|>")
    fast.save_pretrained(str(out))
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=len(fast), n_positions=2048, n_embd=32, n_layer=2, n_head=2,
                        bos_token_id=fast.eos_token_id, eos_token_id=fast.eos_token_id)
    GPT2LMHeadModel(config).save_pretrained(str(out))


def _env(tmp: Path) -> dict:
    env = dict(os.environ)
    env.update(HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_ALLOW_CODE_EVAL="0",
               TOKENIZERS_PARALLELISM="false", CODERANK_DATA=str(DATA), XDG_CACHE_HOME=str(tmp / "xdg"),
               HF_HOME=str(tmp / "hf"))
    env.pop("CODERANK_LM_EVAL_HOOK", None)
    return env


@lru_cache(maxsize=1)
def _startup_hook_active() -> bool:
    """Whether a fresh interpreter patches lm-eval's task manager on import (the .pth start-up hook)."""
    code = ("import sys; assert 'lm_eval' not in sys.modules; from lm_eval.tasks import TaskManager; "
            "print(bool(getattr(TaskManager.__init__, '__coderank_patched__', False)))")
    env = dict(os.environ)
    env.pop("CODERANK_LM_EVAL_HOOK", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    return out.stdout.strip().endswith("True")


def _cli_args(args: list[str]) -> list[str]:
    """``run …`` / ``ls tasks`` (lm-eval >= 0.4.10) in the form of an lm-eval without subcommands (0.4.9)."""
    if importlib.util.find_spec("lm_eval._cli") is not None:
        return args
    if args[:2] == ["ls", "tasks"]:
        return ["--tasks", "list", *args[2:]]
    return args[1:] if args[:1] == ["run"] else args


def _load_yaml(path: Path, resolve: bool) -> dict:
    """A task YAML as lm-eval reads it (``!function`` resolved or left as its text)."""
    try:
        from lm_eval.tasks._yaml_loader import load_yaml
    except ImportError:  # lm-eval < 0.4.12
        from lm_eval.utils import load_yaml_config

        cfg = load_yaml_config(yaml_path=str(path), mode="full" if resolve else "simple")
        return cfg if resolve else {k: getattr(v, "value", v) for k, v in cfg.items()}  # yaml nodes → their text
    return load_yaml(path, resolve_func=resolve)


def _lm_eval(args: list[str], tmp: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    """Run lm-eval: the installed console script when the start-up hook is active (the way users run it), else
    through the runner, which installs the hook itself (so these checks test the integration either way; the
    start-up hook has its own test). The replay model (``fake_lm_eval_model``) always needs the runner, to register
    it."""
    args = _cli_args(args)
    if fake_lm_eval_model.MODEL in args or not _startup_hook_active():
        cmd = [sys.executable, fake_lm_eval_model.__file__, *args]
    else:
        cmd = [str(BIN / "lm-eval"), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=_env(tmp), cwd=tmp, timeout=timeout)
    assert proc.returncode == 0, f"lm-eval failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    return proc


def _results(out_dir: Path) -> dict:
    files = sorted(out_dir.rglob("results_*.json"))
    assert files, f"no results_*.json under {out_dir}"
    return json.loads(files[-1].read_text())


def _samples(out_dir: Path, task: str) -> list[dict]:
    files = sorted(out_dir.rglob(f"samples_{task}_*.jsonl"))
    assert files, f"no samples for {task} under {out_dir}"
    return [json.loads(line) for line in files[-1].read_text().splitlines() if line.strip()]


# ----------------------------------------------------------------------------------------------------------------
# fast checks: task files, the discovery hook, the test-prompt context
# ----------------------------------------------------------------------------------------------------------------


def test_task_yamls_cover_every_dataset_and_method():
    from coderank_evalplus.integrations.lm_eval import tasks_dir
    from coderank_evalplus.testgen.prompts import CODET_STOP

    folder = tasks_dir()
    assert (REPO / "tasks").resolve() == folder.resolve(), "tasks/ must point at the packaged task folder"
    for name in TASK_NAMES:
        cfg = _load_yaml(folder / f"{name}.yaml", resolve=False)
        assert cfg["task"] == name
        assert cfg["class"].endswith("coderank_task.CodeRankTask")  # the module beside the YAMLs
        assert cfg["unsafe_code"] is True
        gen = cfg["generation_kwargs"]
        assert gen["until"] == CODET_STOP and gen["temperature"] == 0.8 and gen["top_p"] == 0.95
        assert cfg["metadata"]["n_samples"] == 100 and cfg["metadata"]["n_test_samples"] == 100
        assert cfg["coderank"]["method"] == name.split("_", 2 if "_plus_" in name else 1)[-1]
        assert cfg["coderank"]["plus"] is ("_plus_" in name)
        assert cfg["coderank"]["dataset"] == ("mbpp" if name.startswith("mbpp") else "humaneval") + (
            "+" if "_plus_" in name else "")
        # the default pick ranks on the model's tests pooled with inputs grown from the examples
        assert cfg["coderank"].get("examples_mutate", False) is name.endswith("_recommended")
    group = _load_yaml(folder / "coderank.yaml", resolve=False)
    assert group["group"] == "coderank" and sorted(group["task"]) == sorted(TASK_NAMES)


def test_hook_adds_task_folder_to_every_task_manager():
    import types

    from coderank_evalplus import _lm_eval_hook as hook

    class TaskManager:
        def __init__(self, verbosity=None, include_path=None, include_defaults=True, metadata=None):
            self.include_path = include_path

    module = types.SimpleNamespace(TaskManager=TaskManager)
    hook.patch_task_manager(module)
    hook.patch_task_manager(module)  # idempotent
    ours = hook.tasks_dir()
    assert TaskManager().include_path == [ours]
    assert TaskManager(include_path="/x").include_path == [ours, "/x"]  # user paths come later: they win
    assert TaskManager(None, ["/x", "/y"]).include_path == [ours, "/x", "/y"]
    assert TaskManager(include_path=[ours]).include_path == [ours]
    assert TaskManager(include_defaults=False).include_path is None  # "only my paths" is respected
    assert TaskManager(metadata={"a": 1}).include_path == [ours]


@pytest.mark.slow
def test_hook_is_lazy_and_patches_lm_eval_on_import():
    code = textwrap.dedent('''
        import sys
        from coderank_evalplus._lm_eval_hook import install_lm_eval_hook, tasks_dir
        install_lm_eval_hook(); install_lm_eval_hook()
        assert "lm_eval" not in sys.modules
        assert sum(type(f).__name__ == "LmEvalFinder" for f in sys.meta_path) == 1
        import json, email.mime.text  # other imports are untouched
        from lm_eval.tasks import TaskManager
        assert getattr(TaskManager.__init__, "__coderank_patched__", False)
        import inspect
        assert "include_path" in inspect.signature(TaskManager.__init__).parameters
        print("ok")
    ''')
    env = dict(os.environ)
    env.pop("CODERANK_LM_EVAL_HOOK", None)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert proc.stdout.strip() == "ok", proc.stderr[-3000:]
    env["CODERANK_LM_EVAL_HOOK"] = "0"
    code_off = ("import sys; from coderank_evalplus._lm_eval_hook import install_lm_eval_hook; "
                "install_lm_eval_hook(); print(any(type(f).__name__ == 'LmEvalFinder' for f in sys.meta_path))")
    proc = subprocess.run([sys.executable, "-c", code_off], capture_output=True, text=True, env=env, timeout=300)
    assert proc.stdout.strip() == "False"  # the start-up hook honours the switch too


def test_hook_patches_the_task_manager_of_lm_eval_before_0_4_12(tmp_path):
    """Before 0.4.12 ``TaskManager`` is defined in ``lm_eval/tasks/__init__.py`` (no ``manager`` module): a fake
    package of that layout, ahead of the real lm-eval on the path, is patched on import."""
    tasks = tmp_path / "lm_eval" / "tasks"
    tasks.mkdir(parents=True)
    (tmp_path / "lm_eval" / "__init__.py").write_text("")
    (tasks / "__init__.py").write_text(textwrap.dedent('''
        class TaskManager:
            def __init__(self, verbosity="INFO", include_path=None, include_defaults=True, metadata=None):
                self.include_path = include_path
    '''))
    code = textwrap.dedent('''
        import sys
        from coderank_evalplus._lm_eval_hook import install_lm_eval_hook, tasks_dir
        install_lm_eval_hook()
        from lm_eval.tasks import TaskManager
        assert "lm_eval.tasks.manager" not in sys.modules
        print(TaskManager().include_path == [tasks_dir()], TaskManager(include_path="/x").include_path[-1])
    ''')
    env = dict(os.environ)
    env.pop("CODERANK_LM_EVAL_HOOK", None)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(REPO)])
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.stdout.split() == ["True", "/x"], proc.stderr[-3000:]


def test_task_class_module_beside_the_yamls_is_the_task_class():
    """lm-eval < 0.4.12 resolves ``!function coderank_task.CodeRankTask`` as the file coderank_task.py beside the
    YAML (``spec_from_file_location``); it must give the very class of the package."""
    import importlib.util

    from coderank_evalplus.integrations.lm_eval import CodeRankTask, tasks_dir

    spec = importlib.util.spec_from_file_location("coderank_task", tasks_dir() / "coderank_task.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.CodeRankTask is CodeRankTask


@pytest.mark.slow
def test_startup_hook_installs_the_lm_eval_finder():
    """The installed .pth start-up hook must call install_lm_eval_hook() (plain ``lm-eval`` finds our tasks)."""
    assert _startup_hook_active(), ("a fresh interpreter does not patch lm-eval's TaskManager: the .pth start-up "
                                    "hook does not route lm_eval.tasks.manager to _lm_eval_hook")


def test_test_context_replaces_the_solution_prompt():
    from coderank_evalplus.integrations.lm_eval import test_context

    doc = {"prompt": "def f():\n", "test_prompt": "def f():\n    pass\n\n# check the correctness of f\nassert "}
    assert test_context("def f():\n", doc) == doc["test_prompt"]
    chat = "<|user|>Complete:\ndef f():\n<|assistant|>"
    assert test_context(chat, doc) == "<|user|>Complete:\n" + doc["test_prompt"] + "<|assistant|>"
    assert test_context(["not", "a", "string"], doc) == doc["test_prompt"]


@needs_data
def test_task_issues_solution_and_test_requests():
    from coderank_evalplus.integrations.lm_eval import CodeRankTask, tasks_dir

    cfg = _load_yaml(tasks_dir() / "mbpp_plus_srank.yaml", resolve=True)
    assert cfg["class"] is CodeRankTask
    task = CodeRankTask(config=cfg)
    assert task.UNSAFE_CODE  # lm-eval refuses to run it without --confirm_run_unsafe_code
    assert (task.dataset_name, task.method, task.plus) == ("mbpp+", "srank", True)
    docs = task.test_docs()
    assert len(docs) == 378 and docs[0]["task_id"] == "Mbpp/2"
    doc = docs[0]
    reqs = task.construct_requests(doc, task.doc_to_text(doc), metadata=("mbpp_plus_srank", 0, 1))
    assert [(r.idx, r.repeats, r.request_type) for r in reqs] == [(0, 100, "generate_until"),
                                                                  (1, 100, "generate_until")]
    assert reqs[0].args[0] == doc["prompt"] and reqs[1].args[0].endswith("assert ")
    assert reqs[0].args[1]["temperature"] == 0.8 and reqs[0].args[1]["max_gen_toks"] == 300
    cfg["metadata"] = {**cfg["metadata"], "n_samples": "7", "n_test_samples": 0}
    reqs = CodeRankTask(config=cfg).construct_requests(doc, doc["prompt"], metadata=("t", 0, 1))
    assert [(r.idx, r.repeats) for r in reqs] == [(0, 7)]  # no test samples: no test request


def test_task_without_data_offline_stops_with_one_line_naming_lm_evals_setting(monkeypatch, tmp_path):
    """No local data and no network: one line (no traceback through lm-eval's task loading) that names lm-eval's
    way to local files, ``--metadata '{"data_dir": …}'``, not the CLI's --data-dir."""
    import evalplus.data.humaneval as he
    import evalplus.data.utils as eu
    import wget

    from coderank_evalplus.integrations.lm_eval import CodeRankTask, tasks_dir

    monkeypatch.setattr(eu, "CACHE_DIR", str(tmp_path / "evalplus_cache"))
    monkeypatch.setattr(he, "HUMANEVAL_OVERRIDE_PATH", None)
    monkeypatch.delenv("HUMANEVAL_OVERRIDE_PATH", raising=False)
    monkeypatch.delenv("CODERANK_DATA", raising=False)

    def offline(url, out=None, bar=None):
        raise OSError("[Errno 111] Connection refused")

    monkeypatch.setattr(wget, "download", offline)
    with pytest.raises(SystemExit) as info:
        CodeRankTask(config=_load_yaml(tasks_dir() / "humaneval_srank.yaml", resolve=True))
    message = str(info.value.code)
    assert info.value.__cause__ is None and info.value.__suppress_context__
    assert message.startswith("error: task humaneval_srank: could not load HumanEval+") and "\n" not in message
    assert """--metadata '{"data_dir": """ in message and "--data-dir" not in message


# ----------------------------------------------------------------------------------------------------------------
# end to end
# ----------------------------------------------------------------------------------------------------------------


# What ``lm-eval ls tasks`` lists, from the task manager it makes (no include path), without its table (which
# reads every one of lm-eval's ~10k task YAMLs again for its output type): each name with its YAML's folder.
# The discovery hook is installed first only where the .pth start-up hook does not (see _lm_eval).
LIST_TASKS = textwrap.dedent('''
    import json, os, sys
    if sys.argv[1] == "install":
        from coderank_evalplus._lm_eval_hook import install_lm_eval_hook
        install_lm_eval_hook()
    from lm_eval.tasks import TaskManager
    tm = TaskManager()
    # an index entry: an object with .yaml_path (lm-eval >= 0.4.12) or a dict with "yaml_path" (-1: a Python task)
    paths = {n: e.get("yaml_path") if isinstance(e, dict) else e.yaml_path for n, e in tm.task_index.items()}
    from coderank_evalplus._lm_eval_hook import tasks_dir  # this interpreter's copy (installed, or the checkout)
    print(json.dumps({"groups": tm.all_groups, "subtasks": tm.all_subtasks, "ours": str(tasks_dir()),
                      "folders": {n: os.path.dirname(str(p)) for n, p in paths.items() if p not in (None, -1)}}))
''')


@pytest.mark.slow
def test_tasks_listed_without_include_path(tmp_path):
    from coderank_evalplus.integrations.lm_eval import tasks_dir

    proc = subprocess.run([sys.executable, "-c", LIST_TASKS, "hooked" if _startup_hook_active() else "install"],
                          capture_output=True, text=True, env=_env(tmp_path), cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    listed = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "coderank" in listed["groups"]
    assert set(TASK_NAMES) <= set(listed["subtasks"]), sorted(set(TASK_NAMES) - set(listed["subtasks"]))
    assert "humaneval" in listed["subtasks"]  # lm-eval's own tasks are listed beside ours
    for name in [*TASK_NAMES, "coderank"]:
        assert Path(listed["folders"][name]).resolve() == Path(listed["ours"]).resolve(), name
    # lm-eval found the subprocess's copy of this package (the checkout, or the wheel tools/compat_matrix.py
    # installs), and that copy has every task file of this one
    files = {p.name for p in tasks_dir().iterdir() if p.suffix in (".yaml", ".py")}
    assert files and files == {p.name for p in Path(listed["ours"]).iterdir() if p.suffix in (".yaml", ".py")}


@needs_data
@pytest.mark.skipif(not all(importlib.util.find_spec(m) for m in ("torch", "transformers", "accelerate", "tokenizers")),
                    reason="lm-eval's hf model needs torch, transformers, accelerate (pip install 'lm-eval[hf]')")
@pytest.mark.model
@pytest.mark.harness
def test_hf_tiny_model_end_to_end(tmp_path):
    model = tmp_path / "tiny-gpt2"
    _build_tiny_gpt2(model)
    out = tmp_path / "out"
    _lm_eval(["run", "--model", "hf", "--model_args", f"pretrained={model},dtype=float32", "--device", "cpu",
              "--batch_size", "4", "--tasks", "humaneval_plus_codet", "--limit", "2",
              "--gen_kwargs", "max_gen_toks=16",
              "--metadata", json.dumps({"n_samples": 2, "n_test_samples": 2, "progress": False}),
              "--confirm_run_unsafe_code", "--log_samples", "--output_path", str(out)], tmp_path)
    res = _results(out)
    metrics = res["results"]["humaneval_plus_codet"]
    for m in ("pass@1", "pass@1_random", "pass@1_oracle"):
        assert 0.0 <= metrics[f"{m},none"] <= 1.0
    assert metrics["pass@1_random,none"] <= metrics["pass@1_oracle,none"]
    assert res["n-samples"]["humaneval_plus_codet"]["effective"] == 2
    assert res["configs"]["humaneval_plus_codet"]["generation_kwargs"]["max_gen_toks"] == 16
    samples = _samples(out, "humaneval_plus_codet")
    assert [s["doc"]["task_id"] for s in samples] == ["HumanEval/0", "HumanEval/1"]
    for s in samples:
        assert [len(r) for r in s["resps"]] == [2, 2]  # N solutions, M test samples
        assert s["arguments"]["gen_args_1"]["arg_0"].endswith("assert ")
        record = json.loads(s["filtered_resps"][0])
        assert record["n_candidates"] == 2 and record["split"] == "plus"


def coderank_folder(out: Path, task: str) -> Path:
    """The task's results folder, written beside lm-eval's own results: ``<output_path>/<model>/coderank_<task>_*``."""
    (folder,) = out.glob(f"*/coderank_{task}_*")
    return folder


@pytest.fixture(scope="module")
def replay_run(tmp_path_factory):
    """One lm-eval run replaying CodeT's samples on the first 3 HumanEval problems (N = M = 20) for four tasks,
    and a fifth task whose model answers are all empty; plus coderank-evalplus rerank on the same inputs."""
    from coderank_evalplus.testgen.extract import truncate

    tmp = tmp_path_factory.mktemp("lm_eval_replay")
    n, limit = 20, 3
    out = tmp / "out"
    proc = _lm_eval(["run", "--model", "coderank-replay",
                     "--model_args", f"codet_dir={CODET},empty_tasks=mbpp_codet",
                     "--tasks", "humaneval_codet,humaneval_srank,humaneval_mbr_exec,humaneval_plus_codet,mbpp_codet,"
                                "humaneval_recommended",
                     "--limit", str(limit), "--metadata", json.dumps({"n_samples": n, "n_test_samples": n,
                                                                      "progress": False}),
                     "--confirm_run_unsafe_code", "--log_samples", "--output_path", str(out)], tmp)
    # the same candidates and tests, through the CLI
    replay = fake_lm_eval_model.codet_samples(str(CODET))
    tids = [f"HumanEval/{i}" for i in range(limit)]
    with open(tmp / "solutions.jsonl", "w") as fh:
        for tid in tids:
            for s in replay["solution"][tid][:n]:
                fh.write(json.dumps({"task_id": tid, "completion": truncate(s)}) + "\n")
    with open(tmp / "tests.jsonl", "w") as fh:
        for tid in tids:
            fh.write(json.dumps({"task_id": tid, "samples": replay["test"][tid][:n]}) + "\n")
    from coderank_evalplus.cli.console import main  # (in this process: the lm-eval side is the subprocess here)

    assert main(["rerank", "--dataset", "humaneval", "--data-dir", str(DATA),
                 "--solutions", str(tmp / "solutions.jsonl"), "--tests", str(tmp / "tests.jsonl"),
                 "--methods", "codet,srank,mbr_exec", "--output", str(tmp / "cli"), "--quiet"]) == 0
    assert main(["rerank", "--dataset", "humaneval", "--data-dir", str(DATA),
                 "--solutions", str(tmp / "solutions.jsonl"), "--tests", str(tmp / "tests.jsonl"),
                 "--tests", "examples+mutate", "--methods", "recommended", "--output", str(tmp / "cli_recommended"),
                 "--cache-dir", str(tmp / "cli" / "cache"), "--quiet"]) == 0
    rankings = {}
    for line in (tmp / "cli" / "rankings.jsonl").read_text().splitlines():
        r = json.loads(line)
        rankings[(r["task_id"], r["method"])] = r
    return {"out": out, "log": proc.stdout + proc.stderr, "n": n, "tids": tids, "tmp": tmp,
            "cli": json.loads((tmp / "cli" / "rerank_results.json").read_text()), "rankings": rankings,
            "cli_recommended": json.loads((tmp / "cli_recommended" / "rerank_results.json").read_text())}


@needs_data
@pytest.mark.parametrize("task,method,split", [("humaneval_codet", "codet", "base"),
                                               ("humaneval_srank", "srank", "base"),
                                               ("humaneval_mbr_exec", "mbr_exec", "base"),
                                               ("humaneval_plus_codet", "codet", "plus")])
def test_replayed_samples_match_the_cli(replay_run, task, method, split):
    metrics = _results(replay_run["out"])["results"][task]
    cli = replay_run["cli"]["methods"]
    assert round(100 * metrics["pass@1,none"], 2) == cli[method][split]["pass@1"]
    assert round(100 * metrics["pass@1_random,none"], 2) == cli["random"][split]["pass@1"]
    assert round(100 * metrics["pass@1_oracle,none"], 2) == cli["oracle"][split]["pass@1"]
    samples = _samples(replay_run["out"], task)
    assert [s["doc"]["task_id"] for s in samples] == replay_run["tids"]
    for s in samples:
        n = replay_run["n"]
        assert [len(r) for r in s["resps"]] == [n, n]
        record, tests = (json.loads(x) for x in s["filtered_resps"])
        assert record["task_id"] == s["doc"]["task_id"] and record["method"] == method
        assert record["n_candidates"] == n and len(record["candidates"]) == n and len(record["correct"]) == n
        assert record["pass@1"] == pytest.approx(s["pass@1"])
        cli_groups = replay_run["rankings"][(record["task_id"], method)]["top_groups"]
        assert [g["candidates"] for g in record["groups"][:10]] == [g["candidates"] for g in cli_groups]
        if record["chosen"] is not None:
            assert record["chosen"] in record["top_group"]
            assert record["chosen_passed"] == bool(record["correct"][record["chosen"]])
        assert tests["n_samples"] == n and tests["n_tests"] == len(tests["tests"])
        assert all(t["assert"].startswith("assert ") and t["count"] >= 1 for t in tests["tests"])
    assert any(json.loads(s["filtered_resps"][1])["n_tests"] > 0 for s in samples)
    # reranking actually matters on these problems: the CodeT-style ranking beats a random pick
    if method == "codet":
        assert metrics["pass@1,none"] > metrics["pass@1_random,none"]


@needs_data
def test_recommended_task_pools_the_examples_and_says_so(replay_run):
    """``humaneval_recommended``: the default pick on the model's tests + examples+mutate, as the CLI's
    ``--tests FILE --tests examples+mutate --methods recommended``; each logged record says it uses the examples."""
    metrics = _results(replay_run["out"])["results"]["humaneval_recommended"]
    cli = replay_run["cli_recommended"]["methods"]
    assert round(100 * metrics["pass@1,none"], 2) == cli["recommended"]["base"]["pass@1"]
    assert cli["recommended"]["uses_prompt_examples"] is True
    for s in _samples(replay_run["out"], "humaneval_recommended"):
        record = json.loads(s["filtered_resps"][0])
        assert record["method"] == "recommended" and record["uses_prompt_examples"] is True
        assert record["tests"] == "model + examples+mutate"
    for s in _samples(replay_run["out"], "humaneval_codet"):
        assert json.loads(s["filtered_resps"][0])["uses_prompt_examples"] is False


@needs_data
def test_rerank_reads_the_lm_eval_log(replay_run):
    """lm-eval's own --log_samples file is a valid input of ``coderank-evalplus rerank`` (solutions and tests from
    the same file): the readers give exactly the candidates and test samples the CLI had from jsonl, and the
    reranked pass@1 is the lm-eval run's."""
    from coderank_evalplus.io.problems import load_problems
    from coderank_evalplus.io.samples import SampleFileError, read_solutions, read_test_samples

    problems = load_problems("humaneval", str(DATA))
    tmp, out = replay_run["tmp"], replay_run["out"]
    log = sorted(out.rglob("samples_humaneval_codet_*.jsonl"))[-1]
    sols = read_solutions(log, problems)
    assert sols == read_solutions(tmp / "solutions.jsonl", problems)
    assert list(sols) == replay_run["tids"] and all(len(v) == replay_run["n"] for v in sols.values())
    assert read_test_samples(log, problems) == read_test_samples(tmp / "tests.jsonl", problems)
    # (lm-eval 0.4.13 writes them into a folder per model, 0.4.9 straight into --output_path)
    with pytest.raises(SampleFileError, match=r"lm-eval samples of several tasks: humaneval_codet( \(.*/\))?, "
                                              r"humaneval_mbr_exec"):
        read_solutions(out, problems)  # five tasks' files: the user must name one
    from coderank_evalplus.cli.console import main

    assert main(["rerank", "--dataset", "humaneval", "--data-dir", str(DATA), "--solutions", str(log),
                 "--tests", str(log), "--methods", "codet", "--output", str(tmp / "cli_from_log"),
                 "--cache-dir", str(tmp / "cli" / "cache"), "--quiet"]) == 0
    got = json.loads((tmp / "cli_from_log" / "rerank_results.json").read_text())["methods"]
    metrics = _results(out)["results"]["humaneval_codet"]
    assert got["codet"]["base"]["pass@1"] == round(100 * metrics["pass@1,none"], 2)
    assert got["random"]["base"]["pass@1"] == round(100 * metrics["pass@1_random,none"], 2)


@needs_data
def test_empty_answers_score_zero_with_a_warning(replay_run):
    metrics = _results(replay_run["out"])["results"]["mbpp_codet"]
    assert metrics["pass@1,none"] == 0.0 and metrics["pass@1_oracle,none"] == 0.0
    assert "returned only empty solutions for 3 of 3 problem(s)" in replay_run["log"]
    for s in _samples(replay_run["out"], "mbpp_codet"):
        record = json.loads(s["filtered_resps"][0])
        assert record["n_empty"] == record["n_candidates"] == replay_run["n"]


@needs_data
def test_task_writes_a_results_folder_the_leaderboard_reads(replay_run):
    from coderank_evalplus.io.results_folder import load_folder
    from coderank_evalplus.report.scores import problem_scores

    run = load_folder(coderank_folder(replay_run["out"], "humaneval_plus_codet"))
    assert [p.problem.task_id for p in run.problems] == replay_run["tids"]
    assert all(p.executions.n_candidates == replay_run["n"] for p in run.problems)
    scores = problem_scores(run, ["random", "codet", "oracle"])
    metrics = _results(replay_run["out"])["results"]["humaneval_plus_codet"]
    for method, key in (("codet", "pass@1,none"), ("random", "pass@1_random,none"), ("oracle", "pass@1_oracle,none")):
        assert round(100 * scores[method]["plus"].mean(), 2) == round(100 * metrics[key], 2)


@needs_data
@pytest.mark.harness
def test_two_models_get_folders_of_their_own_that_the_leaderboard_names(tmp_path):
    """The same task run for two models writes two folders under --output_path, one per model; the leaderboard
    names the rows after the models, on one pool (issue 51: the task's folder was keyed by task, so the next
    model's run replaced the first)."""
    from coderank_evalplus.cli.leaderboard import _entries_from_folders

    out = tmp_path / "out"
    for model, key in (("model-a", "pretrained"), ("model-b", "path")):  # (lm-eval names a model by either)
        proc = _lm_eval(["run", "--model", "coderank-replay", "--model_args", f"codet_dir={CODET},{key}={model}",
                         "--tasks", "humaneval_plus_codet", "--limit", "1",
                         "--metadata", json.dumps({"n_samples": 3, "n_test_samples": 3, "progress": False}),
                         "--confirm_run_unsafe_code", "--output_path", str(out)], tmp_path)
        assert proc.returncode == 0, proc.stderr[-3000:]
    folders = sorted(out.glob("*/coderank_humaneval_plus_codet_*"))
    assert [f.parent.name for f in folders] == ["model-a", "model-b"]
    entries = _entries_from_folders([str(f) for f in folders])
    assert [e.name for e in entries] == ["model-a", "model-b"]
    assert entries[0].pool == entries[1].pool == "model's own tests"
    prov = json.loads((folders[0] / "rerank_results.json").read_text())["provenance"]
    assert prov["frontend"] == "lm-eval" and prov["dataset"]["name"] == "humaneval+"
    for folder, model in zip(folders, ("model-a", "model-b")):
        prov = json.loads((folder / "rerank_results.json").read_text())["provenance"]
        assert (prov["model"], prov["model_named_by"]) == (model, "given")


@needs_data
def test_a_run_whose_model_args_name_no_model_says_so(replay_run):
    """lm-eval's model arguments name no model (``codet_dir=…`` only): the results say "unnamed", named by
    nothing, and one line says how to name it."""
    prov = json.loads((coderank_folder(replay_run["out"], "humaneval_codet") / "rerank_results.json").read_text())[
        "provenance"]
    assert (prov["model"], prov["model_named_by"]) == ("unnamed", "none")
    assert "the model's name: unnamed (no samples file names it; give pretrained=NAME or model=NAME in " \
           "--model_args" in replay_run["log"]
