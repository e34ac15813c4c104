"""``--rerank`` for ``evalplus.evaluate``: the real console script in a subprocess, offline, on real CodeT samples.

Only three subprocess calls actually run evalplus's evaluation (each waits ~20 s for evalplus's watchdog thread);
they run concurrently. Every other check exits before evalplus evaluates anything.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(os.environ.get("CODERANK_SHARED_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"))
HEPLUS = DATA / "evalplus_humanevalplus_release" / "v0.1.10" / "HumanEvalPlus.jsonl.gz"
CODET = DATA / "microsoft_CodeT"
GEN = CODET / "generated_data" / "HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_"
TASKS = ("HumanEval/0", "HumanEval/2", "HumanEval/4")
N_SOLUTIONS, N_TESTS = 20, 20
BIN = Path(sys.executable).parent
METHODS = "codet,srank,mbr_exec"

pytestmark = pytest.mark.skipif(not (HEPLUS.is_file() and CODET.is_dir()), reason=f"shared data not found at {DATA}")


# ----------------------------------------------------------------------------------------------------------------
# fixtures: a 3-problem HumanEval+ override file, CodeT solutions (evalplus format) and CodeT test samples
# ----------------------------------------------------------------------------------------------------------------


def _jsonl(path: Path):
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    from coderank_evalplus.testgen.extract import truncate

    root = tmp_path_factory.mktemp("evalplus_data")
    with gzip.open(HEPLUS, "rt", encoding="utf-8") as fh:
        recs = {r["task_id"]: r for r in map(json.loads, fh) if r["task_id"] in TASKS}
    (root / "HumanEvalPlus.jsonl").write_text("".join(json.dumps(recs[t]) + "\n" for t in TASKS))
    code_tid = {r["prompt"]: r["task_id"] for r in _jsonl(CODET / "dataset" / "HumanEval_for_code_generation.jsonl")}
    test_tid = {r["prompt"]: r["task_id"]
                for r in _jsonl(CODET / "dataset" / "HumanEval_for_test_case_generation.jsonl")}
    with open(root / "samples.jsonl", "w") as fh:
        for r in _jsonl(Path(str(GEN) + "code_solution.jsonl")):
            if code_tid.get(r["prompt"]) in TASKS:
                for s in r["samples"][:N_SOLUTIONS]:
                    rec = {"task_id": code_tid[r["prompt"]], "solution": r["prompt"] + truncate(s)}
                    fh.write(json.dumps(rec) + "\n")
    with open(root / "tests_codet.jsonl", "w") as fh, open(root / "tests_ours.jsonl", "w") as ours:
        for r in _jsonl(Path(str(GEN) + "test_case.jsonl")):
            if test_tid.get(r["prompt"]) in TASKS:  # CodeT's own format: joined to the problems by prompt
                fh.write(json.dumps({"prompt": r["prompt"], "samples": r["samples"][:N_TESTS]}) + "\n")
                ours.write(json.dumps({"task_id": test_tid[r["prompt"]], "samples": r["samples"][:N_TESTS]}) + "\n")
    return root


def _env(data: Path, cache: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("CODERANK_DATA", "MBPP_OVERRIDE_PATH")}
    env.update(HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", HUMANEVAL_OVERRIDE_PATH=str(data / "HumanEvalPlus.jsonl"),
               XDG_CACHE_HOME=str(cache), PYTHONUNBUFFERED="1", TOKENIZERS_PARALLELISM="false")
    return env


@pytest.fixture(scope="module")
def env(data, tmp_path_factory) -> dict:
    return _env(data, tmp_path_factory.mktemp("xdg_cache"))


@pytest.fixture
def in_process_env(env, monkeypatch):
    """The test environment inside this process; evalplus's cache dir and override path (read from the environment
    when evalplus was imported) too."""
    import evalplus.data.humaneval
    import evalplus.data.utils

    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("CODERANK_DATA", raising=False)
    monkeypatch.setattr(evalplus.data.utils, "CACHE_DIR", str(Path(env["XDG_CACHE_HOME"]) / "evalplus"))
    monkeypatch.setattr(evalplus.data.humaneval, "HUMANEVAL_OVERRIDE_PATH", env["HUMANEVAL_OVERRIDE_PATH"])
    return env


@pytest.fixture(scope="module", autouse=True)
def hook_installed():
    out = subprocess.run([sys.executable, "-c", "import sys; print(any(type(f).__name__ == "
                                                "'CoderankEvalplusFinder' for f in sys.meta_path))"],
                         capture_output=True, text=True)
    if out.stdout.strip() != "True":
        pytest.fail("the start-up hook is not active: coderank_evalplus_hook.pth is missing from site-packages "
                    "(reinstall the package: pip install -e .)")


def _run(args, env, cwd, timeout=120):
    return subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


# ----------------------------------------------------------------------------------------------------------------
# the three real evalplus runs (concurrent): with --rerank and a test file, with --rerank and neither --tests nor
# --model (inputs grown from the examples, examples+mutate), and without --rerank
# ----------------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def runs(data, tmp_path_factory):
    dirs = {name: tmp_path_factory.mktemp(f"{name}_rerank") for name in ("with", "mutate", "without")}
    for d in dirs.values():
        shutil.copy(data / "samples.jsonl", d / "samples.jsonl")
    common = [str(BIN / "evalplus.evaluate"), "--dataset", "humaneval", "--samples", "samples.jsonl", "--parallel", "2"]
    # separate evalplus caches: two processes must not write the same ground-truth pickle at once. The --rerank
    # run also has CODERANK_DATA (the full .gz release): evalplus reads its override file, so must the rerank
    args = {"with": (common + ["--rerank", METHODS, "--tests", str(data / "tests_codet.jsonl")],
                     {"CODERANK_DATA": str(DATA)}),
            "mutate": (common + ["--rerank", "mbr_exec,srank,recommended"], {}),
            "without": (common, {})}
    procs = {name: subprocess.Popen(cmd, env={**_env(data, tmp_path_factory.mktemp(f"cache_{name}")), **extra},
                                    cwd=dirs[name], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name, (cmd, extra) in args.items()}
    out = {}
    for name, p in procs.items():
        stdout, stderr = p.communicate(timeout=300)
        out[name] = (dirs[name], p.returncode, stdout, stderr)
    return out


def test_rerank_run_writes_results_next_to_evalplus(runs):
    d, rc, stdout, stderr = runs["with"]
    assert rc == 0, stderr[-3000:]
    assert (d / "samples_eval_results.json").is_file()  # evalplus's own file, as always
    res = json.loads((d / "samples_rerank_results.json").read_text())
    assert res["dataset"] == "humaneval" and res["n_problems"] == len(TASKS)
    assert list(res["methods"]) == ["random", "codet", "srank", "mbr_exec", "oracle"]
    for m in res["methods"].values():
        assert set(m) == {"base", "plus", "uses_prompt_examples"} and 0.0 <= m["base"]["pass@1"] <= 100.0
        assert m["uses_prompt_examples"] is False  # a model's pool, CodeT-setting methods
    assert res["methods"]["codet"]["base"]["pass@1"] > res["methods"]["random"]["base"]["pass@1"]
    # judged once: the verdicts are those evalplus has just written, our judge ran on nothing
    assert res["timing"]["verdicts_from"] == "samples_eval_results.json" and res["timing"]["judged_samples"] == 0
    # (how long the judge took, on nothing, depends on the load: not asserted)
    assert re.search(r"judge \d+\.\d s \(0 programs judged; verdicts from samples_eval_results\.json\)", stdout)
    assert any(line.startswith("time: ") and "total" in line for line in stdout.splitlines())
    # evalplus's report first, then ours in evalplus's own style: pass@1 as a fraction, base then base + extra
    assert stdout.index("humaneval+ (base + extra tests)") < stdout.index("reranked (coderank_evalplus")
    table = stdout[stdout.index("reranked (coderank_evalplus"):]
    plus_at = table.index("humaneval+ (base + extra tests)")
    for m in ("random", "codet", "srank", "mbr_exec", "oracle"):
        for part, split in ((table[:plus_at], "base"), (table[plus_at:], "plus")):
            want = f"{res['methods'][m][split]['pass@1'] / 100:.3f}"
            assert re.search(rf"(?m)^  {re.escape(m)}\s+pass@1:\t{re.escape(want)}$", part), (m, split)
    assert res["provenance"]["frontend"] == "evalplus" and res["provenance"]["model"] == "samples"
    assert res["provenance"]["tests"] == "tests_codet"


def test_rerank_run_leaves_a_results_folder_for_the_leaderboard(runs):
    from coderank_evalplus.io.results_folder import load_folder
    from coderank_evalplus.report.scores import problem_scores

    d = runs["with"][0]
    res = json.loads((d / "samples_rerank_results.json").read_text())
    run = load_folder(d / "samples_rerank")
    assert [p.problem.task_id for p in run.problems] == res["task_ids"]
    scores = problem_scores(run, ["random", "codet", "oracle"])
    for m in ("random", "codet", "oracle"):
        for split in ("base", "plus"):
            assert round(100 * scores[m][split].mean(), 2) == res["methods"][m][split]["pass@1"]


def test_rerank_matches_coderank_rerank_cli(runs, data, in_process_env, tmp_path):
    d, rc, _, stderr = runs["with"]
    assert rc == 0, stderr[-3000:]
    from coderank_evalplus.cli.console import main

    # same input, our own CLI, our own test-file format
    assert main(["rerank", "--dataset", "humaneval", "--solutions", str(d / "samples.jsonl"), "--tests",
                 str(data / "tests_ours.jsonl"), "--methods", METHODS, "--output", str(tmp_path), "--workers", "2",
                 "--quiet"]) == 0
    cli = json.loads((tmp_path / "rerank_results.json").read_text())
    ours = json.loads((d / "samples_rerank_results.json").read_text())
    assert ours["methods"] == cli["methods"]  # our judge's verdicts give evalplus's numbers
    assert ours["config"] == cli["config"]
    assert cli["timing"]["verdicts_from"] == "judge" and cli["timing"]["judged_samples"] == N_SOLUTIONS * len(TASKS)
    # the CLI takes evalplus's verdicts too when told where they are
    out = tmp_path / "with_eval_results"
    assert main(["rerank", "--dataset", "humaneval", "--solutions", str(d / "samples.jsonl"), "--tests",
                 str(data / "tests_ours.jsonl"), "--methods", METHODS, "--output", str(out), "--workers", "2",
                 "--quiet", "--eval-results", str(d / "samples_eval_results.json")]) == 0
    again = json.loads((out / "rerank_results.json").read_text())
    assert again["methods"] == cli["methods"] and again["timing"]["judged_samples"] == 0


def test_random_baseline_equals_evalplus_pass_at_1(runs):
    d, rc, _, stderr = runs["with"]
    assert rc == 0, stderr[-3000:]
    ev = json.loads((d / "samples_eval_results.json").read_text())["eval"]
    base = sum(sum(r["base_status"] == "pass" for r in rs) / len(rs) for rs in ev.values()) / len(ev)
    plus = sum(sum(r["base_status"] == r["plus_status"] == "pass" for r in rs) / len(rs)
               for rs in ev.values()) / len(ev)
    res = json.loads((d / "samples_rerank_results.json").read_text())["methods"]["random"]
    assert res["base"]["pass@1"] == pytest.approx(100 * base, abs=0.005)  # reported in percent, 2 decimals
    assert res["plus"]["pass@1"] == pytest.approx(100 * plus, abs=0.005)


def test_without_rerank_nothing_of_ours_appears(runs):
    d, rc, stdout, stderr = runs["without"]
    assert rc == 0, stderr[-3000:]
    assert sorted(p.name for p in d.iterdir()) == ["samples.jsonl", "samples_eval_results.json"]
    for text in (stdout, stderr):
        assert "rerank" not in text.lower() and "coderank" not in text.lower()
    # evalplus's verdicts are the same whether or not --rerank ran after them
    strip = lambda p: {t: [(r["solution"], r["base_status"], r["plus_status"]) for r in rs]  # noqa: E731
                       for t, rs in json.loads(p.read_text())["eval"].items()}
    assert strip(d / "samples_eval_results.json") == strip(runs["with"][0] / "samples_eval_results.json")


# ----------------------------------------------------------------------------------------------------------------
# fast checks: help and bad input (both entry points exit before evalplus evaluates anything)
# ----------------------------------------------------------------------------------------------------------------

ENTRY_POINTS = {"console": [str(BIN / "evalplus.evaluate")], "runpy": [sys.executable, "-m", "evalplus.evaluate"]}


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_help_shows_rerank_flags(entry, env, tmp_path):
    out = _run(ENTRY_POINTS[entry] + ["--help"], {**env, "PAGER": "cat"}, tmp_path)
    assert out.returncode in (0, 2)  # Fire exits 2 after --help when stdout is not a terminal (evalplus alone too)
    text = out.stdout + out.stderr
    for flag in ("--rerank", "--tests", "--n_test_samples", "--tests_per_sample", "--samples", "--i_just_wanna_run"):
        assert flag in text
    assert "Traceback" not in text


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
@pytest.mark.slow
def test_unknown_method_lists_available(entry, data, env, tmp_path):
    out = _run(ENTRY_POINTS[entry] + ["humaneval", "--samples", str(data / "samples.jsonl"), "--rerank", "codet,nope",
                                      "--tests", str(data / "tests_codet.jsonl")], env, tmp_path)
    assert out.returncode == 2
    assert "unknown ranking method(s): nope" in out.stderr and "codet" in out.stderr and "mbr_exec" in out.stderr
    assert "Traceback" not in out.stderr
    assert not list(data.glob("*_eval_results.json"))  # failed before evalplus ran


@pytest.mark.slow
def test_model_flags_without_model_are_named(data, env, tmp_path):
    out = _run(ENTRY_POINTS["console"] + ["humaneval", "--samples", str(data / "samples.jsonl"), "--rerank", "codet",
                                          "--temperature", "0.5"], env, tmp_path)
    assert out.returncode == 2
    assert "--temperature" in out.stderr and "--model" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.slow
def test_tests_for_other_tasks_are_named(data, env, tmp_path):
    bad = tmp_path / "other.jsonl"
    bad.write_text(json.dumps({"task_id": "HumanEval/1", "samples": ["f(1) == 1"]}) + "\n"
                   + json.dumps({"task_id": "Mbpp/2", "samples": ["g(1) == 1"]}) + "\n")
    out = _run(ENTRY_POINTS["runpy"] + ["humaneval", "--samples", str(data / "samples.jsonl"), "--rerank", "codet",
                                        "--tests", str(bad)], env, tmp_path)
    assert out.returncode == 2
    assert "HumanEval/1" in out.stderr and "Mbpp/2" in out.stderr


def test_hook_is_lazy(env, tmp_path):
    """At start-up the .pth only defines a finder: nothing of ours or evalplus's is imported until evalplus is."""
    code = ("import sys; print(sorted(m for m in sys.modules if m.startswith(('evalplus', 'coderank_evalplus', 'fire'))"
            "), 'CoderankEvalplusFinder' in [type(f).__name__ for f in sys.meta_path]); import evalplus.evaluate as e; "
            "print(type(e.__spec__.loader).__name__, hasattr(e.evaluate, '__coderank_original__'))")
    out = _run([sys.executable, "-c", code], env, tmp_path)
    assert out.returncode == 0 and "coderank" not in out.stderr, out.stderr
    first, second = out.stdout.strip().splitlines()[-2:]
    assert first == "[] True"
    assert second == "PatchingLoader True"


# ----------------------------------------------------------------------------------------------------------------
# in-process: the wrapper's plumbing, and the "from a model" path with a fake backend
# ----------------------------------------------------------------------------------------------------------------


def test_without_rerank_wrapper_passes_the_call_through_unchanged():
    from coderank_evalplus.integrations.evalplus import RerankError, patch_namespace

    calls = []

    def evaluate(dataset: str, samples=None, base_only: bool = False, **model_kwargs):
        calls.append((dataset, samples, base_only, model_kwargs))
        return "orig"

    ns = {"evaluate": evaluate}
    patch_namespace(ns)
    patch_namespace(ns)  # idempotent
    assert ns["evaluate"].__coderank_original__ is evaluate
    assert ns["evaluate"]("humaneval", "s.jsonl", model="m", backend="hf") == "orig"
    assert calls == [("humaneval", "s.jsonl", False, {"model": "m", "backend": "hf"})]
    import inspect

    params = inspect.signature(ns["evaluate"]).parameters
    assert list(params)[:3] == ["dataset", "samples", "base_only"] and list(params)[-1] == "model_kwargs"
    assert {"rerank", "tests", "n_test_samples", "tests_per_sample"} <= set(params)
    with pytest.raises(RerankError, match="--tests only applies with --rerank"):
        ns["evaluate"]("humaneval", "s.jsonl", tests="t.jsonl")


def test_rerank_paths_and_method_parsing(tmp_path):
    from coderank_evalplus.integrations.evalplus import parse_methods, rerank_paths

    p = rerank_paths(str(tmp_path / "m_vllm_temp_0.8.jsonl"))
    assert p.results.name == "m_vllm_temp_0.8_rerank_results.json" and p.tests.name == "m_vllm_temp_0.8_tests.jsonl"
    assert p.workdir.name == "m_vllm_temp_0.8_rerank"
    (tmp_path / "folder").mkdir()
    p = rerank_paths(str(tmp_path / "folder") + "/")
    assert p.results == tmp_path / "folder" / "rerank_results.json" and p.workdir.name == "folder_rerank"
    assert parse_methods(("codet", "srank")) == ["codet", "srank"]  # Fire turns a,b into a tuple
    assert parse_methods("codet, mbr_exec") == ["codet", "mbr_exec"]
    assert parse_methods(True) == ["recommended", "codet", "srank", "mbr_exec"]


def _replayed_model_outputs(data):
    """The problems and what a fake model answers: CodeT's test samples (8 per task) keyed by our test prompt, and 5
    solutions per task of the shared samples."""
    from coderank_evalplus.io.problems import load_problems
    from coderank_evalplus.testgen.prompts import test_generation_prompt

    problems = load_problems("humaneval")
    by_task = {r["task_id"]: r["samples"][:8] for r in _jsonl(data / "tests_ours.jsonl")}
    by_prompt = {test_generation_prompt(problems[t]): s for t, s in by_task.items()}
    samples = [r for r in _jsonl(data / "samples.jsonl")]
    return problems, by_prompt, [r for t in TASKS for r in samples if r["task_id"] == t][:: 4]


def _fake_evalplus(tmp_path: Path, records: list[dict], evaluated: list, codegen_calls: list | None = None) -> dict:
    """evalplus.evaluate's namespace with our wrapper patched in (``patch_namespace``) around a faked codegen, which
    writes ``records`` where evalplus writes its samples (each call in ``codegen_calls``), and a faked evaluation,
    which records the samples file it is given in ``evaluated``."""
    from coderank_evalplus.integrations.evalplus import patch_namespace

    def run_codegen(model, dataset, root="evalplus_results", backend="vllm", **kw):
        if codegen_calls is not None:
            codegen_calls.append((model, dataset, backend, kw))
        target = tmp_path / root / dataset / f"{model}_{backend}_temp_{kw.get('temperature')}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(json.dumps(r) + "\n" for r in records))
        return str(target)

    def evaluate(dataset: str, samples=None, base_only: bool = False, parallel=None, i_just_wanna_run=False,
                 test_details=False, min_time_limit: float = 1.0, gt_time_limit_factor: float = 4.0, mini=False,
                 noextreme=False, version="default", **model_kwargs):
        assert not model_kwargs  # codegen already done by the wrapper, exactly as evalplus would do it
        evaluated.append(samples)

    ns = {"evaluate": evaluate, "run_codegen": run_codegen}
    patch_namespace(ns)
    return ns


def test_from_model_generates_tests_once_and_reuses_them(data, in_process_env, tmp_path, monkeypatch, capsys):
    """``--model --backend --rerank``: evalplus's codegen (faked) writes the samples, the same backend (faked)
    writes <samples>_tests.jsonl; a rerun reuses it without loading the model."""
    import coderank_evalplus.generation as generation
    from coderank_evalplus.generation import Sample

    _, by_prompt, samples = _replayed_model_outputs(data)
    made, evaluated, codegen_calls = [], [], []

    class FakeGenerator:
        is_chat = False

        def generate(self, prompts, n, temperature, top_p, max_tokens, stop):
            assert temperature == 0.8 and n == 3
            return [[Sample(t) for t in by_prompt[p][:n]] for p in prompts]

    def fake_make_generator(backend, model, **kw):
        made.append((backend, model, kw))
        return FakeGenerator()

    monkeypatch.setattr(generation, "make_generator", fake_make_generator)
    ns = _fake_evalplus(tmp_path, samples, evaluated, codegen_calls)
    kwargs = dict(model="tiny", backend="hf", n_samples=5, temperature=0.8, rerank="codet", n_test_samples=3,
                  parallel=2, root="out")
    ns["evaluate"]("humaneval", **kwargs)
    stem = tmp_path / "out" / "humaneval" / "tiny_hf_temp_0.8"
    assert evaluated == [f"{stem}.jsonl"]
    assert codegen_calls[0][:3] == ("tiny", "humaneval", "hf")
    assert made == [("hf", "tiny", {"trust_remote_code": False, "dtype": "bfloat16"})]
    tests = _jsonl(Path(f"{stem}_tests.jsonl"))
    assert sorted(r["task_id"] for r in tests) == sorted(TASKS) and all(len(r["samples"]) == 3 for r in tests)
    first = json.loads(Path(f"{stem}_rerank_results.json").read_text())
    assert first["n_problems"] == 3 and list(first["methods"]) == ["random", "codet", "oracle"]

    ns["evaluate"]("humaneval", **kwargs)  # rerun: tests reused, no model loaded for them
    assert len(made) == 1
    assert "Reusing test samples" in capsys.readouterr().out
    assert json.loads(Path(f"{stem}_rerank_results.json").read_text())["methods"] == first["methods"]


def test_evaluate_main_same_flags(data, in_process_env, capsys):
    """``coderank-evalplus evaluate`` takes evalplus.evaluate's flags plus ours (error paths only: no evaluation)."""
    from coderank_evalplus.integrations.evalplus import evaluate_main

    assert evaluate_main(["humaneval", "--samples", str(data / "samples.jsonl"), "--rerank", "nope",
                          "--tests", str(data / "tests_codet.jsonl")]) == 2
    assert "unknown ranking method(s): nope" in capsys.readouterr().err
    assert evaluate_main(["humaneval", "--samples", str(data / "samples.jsonl"), "--rerank", "codet",
                          "--n_samples", "3"]) == 2
    assert "--n_samples" in capsys.readouterr().err


def test_offline_without_data_names_evalplus_own_setting(data, in_process_env, monkeypatch, tmp_path, capsys):
    """evalplus.evaluate has no --data-dir: offline with nothing local, the error names its override variable (and
    CODERANK_DATA, which this front end also reads)."""
    import evalplus.data.humaneval
    import evalplus.data.utils
    import wget

    from coderank_evalplus.integrations.evalplus import evaluate_main

    monkeypatch.setattr(evalplus.data.utils, "CACHE_DIR", str(tmp_path / "evalplus"))  # nothing cached either
    monkeypatch.setattr(evalplus.data.humaneval, "HUMANEVAL_OVERRIDE_PATH", None)
    monkeypatch.delenv("HUMANEVAL_OVERRIDE_PATH")

    def offline(url, out=None, bar=None):
        raise OSError("[Errno 111] Connection refused")

    monkeypatch.setattr(wget, "download", offline)
    assert evaluate_main(["humaneval", "--samples", str(data / "samples.jsonl"), "--rerank", "codet",
                          "--tests", str(data / "tests_codet.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "Offline? Set HUMANEVAL_OVERRIDE_PATH" in err and "CODERANK_DATA" in err and "--data-dir" not in err


@pytest.mark.slow
def test_evaluate_limit_takes_the_first_problems(data, in_process_env, capsys, tmp_path):
    """``--limit N`` (issue 52): evalplus evaluates the samples of the dataset's first N problems only, from files of
    their own beside the samples; the full set's results are untouched."""
    import shutil

    from coderank_evalplus.integrations.evalplus import evaluate_main

    shutil.copy(data / "samples.jsonl", tmp_path / "samples.jsonl")
    common = ["humaneval", "--samples", str(tmp_path / "samples.jsonl"), "--rerank", "codet",
              "--tests", str(data / "tests_codet.jsonl")]
    # (the fixture's dataset holds TASKS only) its first 2 problems
    assert evaluate_main(common + ["--limit", "2"]) == 0, capsys.readouterr().err
    res = json.loads((tmp_path / "samples_limit2_rerank_results.json").read_text())
    assert res["n_problems"] == 2 and res["task_ids"] == list(TASKS[:2])
    assert (tmp_path / "samples_limit2_eval_results.json").is_file()
    assert not (tmp_path / "samples_eval_results.json").exists()
    assert evaluate_main(common + ["--limit", "-1"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == "error: --limit: expected an integer ≥ 0, got -1"
    assert evaluate_main(common + ["--temperature", "0.2"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "error: flags not known to evalplus.evaluate: --temperature (model flags apply only with --model and "
        "--backend)"]


def test_leaderboard_names_evalplus_folders_by_model_and_keeps_their_pools_apart(runs, tmp_path, capsys):
    """Two evalplus runs of one model on two test pools: one row each, named after the model, never compared as
    two models (issue 51)."""
    from coderank_evalplus.cli.leaderboard import _entries_from_folders

    entries = _entries_from_folders([str(runs["with"][0] / "samples_rerank"),
                                     str(runs["mutate"][0] / "samples_rerank")])
    assert [(e.name, e.tests_label) for e in entries] == [("samples", "tests_codet"),
                                                          ("samples", "examples+mutate:10")]
    assert entries[0].pool != entries[1].pool


@pytest.mark.slow
def test_from_model_with_likelihood_methods_and_self_debug(data, in_process_env, tmp_path, monkeypatch, capsys):
    """``--model … --rerank filter+ll+mbr_exec,coder_reviewer --self_debug multi``: the (faked) backend scores the
    likelihood fields into evalplus's samples file, debugs every candidate failing a trial test, and the results
    carry every method before and after; one model instance serves tests, scores and rewrites."""
    import coderank_evalplus.generation as generation
    from coderank_evalplus.generation import Sample

    problems, by_prompt, samples = _replayed_model_outputs(data)
    made, rewrites, evaluated = [], [], []

    class FakeGenerator:
        is_chat = False

        def generate(self, prompts, n, temperature, top_p, max_tokens, stop):
            out = []
            for p in prompts:
                if p in by_prompt:
                    out.append([Sample(t) for t in by_prompt[p][:n]])
                    continue
                task = next(t for t in TASKS if p.endswith(problems[t].prompt) and "The code above is wrong" in p)
                rewrites.append(task)  # the "fix": the canonical solution's body
                out.append([Sample(problems[task].canonical_solution)] * n)
            return out

        def score(self, pairs):
            return [(-0.01 * len(x), 1 + len(x) // 4) for _, x in pairs]

    def fake_make_generator(backend, model, **kw):
        made.append((backend, model))
        return FakeGenerator()

    monkeypatch.setattr(generation, "make_generator", fake_make_generator)
    ns = _fake_evalplus(tmp_path, samples, evaluated)
    methods = "filter+ll+mbr_exec,coder_reviewer,codet"
    ns["evaluate"]("humaneval", model="tiny", backend="hf", n_samples=5, temperature=0.8, rerank=methods,
                   n_test_samples=3, parallel=2, root="out", self_debug="multi")
    stem = tmp_path / "out" / "humaneval" / "tiny_hf_temp_0.8"
    assert made == [("hf", "tiny")]
    recs = _jsonl(Path(f"{stem}.jsonl"))
    assert all({"logprob", "logprob_tokens", "reviewer_logprob", "reviewer_logprob_tokens"} <= set(r) for r in recs)
    res = json.loads(Path(f"{stem}_rerank_results.json").read_text())
    names = ["random", "filter+ll+mbr_exec", "coder_reviewer", "codet", "oracle"]
    assert list(res["methods"]) == names and list(res["self_debug"]["multi"]["methods"]) == names
    sd = res["self_debug"]["multi"]
    assert sd["mode"] == "multi" and sd["candidates_debugged"] == len(rewrites) > 0
    assert sd["methods"]["oracle"]["base"]["pass@1"] == 100.0  # every failing candidate got a right "fix"
    assert sd["methods"]["random"]["base"]["pass@1"] > res["methods"]["random"]["base"]["pass@1"]
    log = _jsonl(Path(f"{stem}_rerank") / "self_debug_multi.jsonl")
    assert len(log) == len(rewrites) and all(r["feedback"] for r in log)
    assert "after self-debug (multi" in capsys.readouterr().out

    with pytest.raises(Exception, match="--self_debug needs the model"):
        ns["evaluate"]("humaneval", samples=f"{stem}.jsonl", rerank="codet", tests=str(data / "tests_ours.jsonl"),
                       self_debug="sd1")
    # given samples without the fields: refused before evalplus evaluates anything
    calls = len(evaluated)
    with pytest.raises(Exception, match="logprob, logprob_tokens.*coderank-evalplus likelihood"):
        ns["evaluate"]("humaneval", samples=str(data / "samples.jsonl"), rerank="ll+mbr_exec",
                       tests=str(data / "tests_ours.jsonl"))
    assert len(evaluated) == calls


def test_rerank_without_tests_or_model_uses_examples_mutate(runs, data, env, in_process_env, tmp_path):
    """Neither ``--tests`` nor ``--model``: the inputs grown from the examples (examples+mutate, said in one line);
    evalplus's verdicts reused; every method that reads the tests is marked as using the prompt's examples."""
    d, rc, stdout, stderr = runs["mutate"]
    assert rc == 0, stderr[-3000:]
    res = json.loads((d / "samples_rerank_results.json").read_text())
    assert res["config"]["mutate"] == 10 and res["generated_inputs"]["grown"] == 10 * len(TASKS)
    assert res["timing"]["verdicts_from"].endswith("eval_results.json")
    assert stderr.count("no test pool given: ranking on examples+mutate") == 1
    assert re.search(r"(?m)^  mbr_exec †\s+pass@1:", stdout) and re.search(r"(?m)^  recommended †\s+pass@1:", stdout)
    assert "no test samples" not in stderr
    assert {m: v["uses_prompt_examples"] for m, v in res["methods"].items()} == {
        "random": False, "mbr_exec": True, "srank": True, "recommended": True, "oracle": False}
    # the default pick (its selection step included) is the CLI's on the same samples and pool
    assert res["config"]["aliases"] == {"recommended": "learned_examples+select"} and "select_s" in res["timing"]
    from coderank_evalplus.cli.console import main

    assert main(["rerank", "--dataset", "humaneval", "--solutions", str(d / "samples.jsonl"), "--methods",
                 "mbr_exec,srank,recommended", "--output", str(tmp_path / "cli"), "--workers", "2", "--quiet",
                 "--eval-results", str(next(d.glob("*eval_results.json")))]) == 0
    cli = json.loads((tmp_path / "cli" / "rerank_results.json").read_text())
    assert cli["methods"] == res["methods"]
    shutil.copy(data / "samples.jsonl", tmp_path / "samples.jsonl")
    bad = _run([str(BIN / "evalplus.evaluate"), "--dataset", "humaneval", "--samples", "samples.jsonl", "--rerank",
                "srank", "--tests", "examples+mutate:x"], env, tmp_path)
    assert bad.returncode != 0 and "examples+mutate:N" in bad.stderr


@pytest.mark.harness
def test_given_samples_are_named_by_model_with_and_without_limit(data, in_process_env, tmp_path, caplog):
    """``--rerank --samples F [--limit N] --model NAME``: NAME names the samples (recorded as given, in the
    summary beside the samples and in the results folder the leaderboard reads); nothing is generated. Without
    ``--model`` the samples' file names them, and one line says so."""
    from coderank_evalplus.integrations.evalplus import patch_namespace

    evaluated = []

    def run_codegen(**kw):
        raise AssertionError(f"codegen ran: {kw}")

    def evaluate(dataset: str, samples=None, base_only: bool = False, parallel=None, i_just_wanna_run=False,
                 test_details=False, min_time_limit: float = 1.0, gt_time_limit_factor: float = 4.0, mini=False,
                 noextreme=False, version="default", **model_kwargs):
        assert not model_kwargs  # the name is ours, not a model for evalplus's codegen
        evaluated.append(samples)

    ns = {"evaluate": evaluate, "run_codegen": run_codegen}
    patch_namespace(ns)
    for sub, extra in (("limit", {"limit": 2}), ("all", {})):
        folder = tmp_path / sub
        folder.mkdir()
        shutil.copy(data / "samples.jsonl", folder / "samples.jsonl")
        ns["evaluate"]("humaneval", samples=str(folder / "samples.jsonl"), rerank="codet", model="alpha-7b",
                       tests=str(data / "tests_codet.jsonl"), parallel=2, **extra)
        stem = folder / ("samples_limit2" if extra else "samples")
        for summary in (Path(f"{stem}_rerank_results.json"), Path(f"{stem}_rerank") / "rerank_results.json"):
            prov = json.loads(summary.read_text())["provenance"]
            assert (prov["model"], prov["model_named_by"]) == ("alpha-7b", "given"), summary
        assert "the model's name:" not in caplog.text
    assert evaluated == [str(tmp_path / "limit" / "samples_limit2.jsonl"), str(tmp_path / "all" / "samples.jsonl")]
    ns["evaluate"]("humaneval", samples=str(tmp_path / "all" / "samples.jsonl"), rerank="codet", parallel=2,
                   tests=str(data / "tests_codet.jsonl"), i_just_wanna_run=True)
    prov = json.loads((tmp_path / "all" / "samples_rerank_results.json").read_text())["provenance"]
    assert (prov["model"], prov["model_named_by"]) == ("samples", "file name")
    assert "the model's name: samples (from the samples' file name; give --model NAME to name it)" in caplog.text


def test_the_pass_at_k_rule_reaches_the_rerank_options():
    """``evalplus.evaluate --rerank … --pass_at_k_rule codet``: the option of that name, into the one path."""
    from coderank_evalplus.integrations.evalplus import DEFAULTS, OPTIONS, rerank_options

    params = {"dataset": "humaneval", "min_time_limit": 1.0, "gt_time_limit_factor": 4.0}
    assert "pass_at_k_rule" in OPTIONS
    assert rerank_options(params, {**DEFAULTS, "pass_at_k_rule": "codet"}, ["codet"]).pass_at_k_rule == "codet"
    assert rerank_options(params, dict(DEFAULTS), ["codet"]).pass_at_k_rule == "ranked"
