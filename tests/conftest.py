"""Test set-up: offline hub, the shared data folder, a private cache directory, the markers of slow tests."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# Absolute, so that subprocesses started in other folders (lm-eval, evalplus) find it too.
SHARED_DATA = Path(os.environ.get("CODERANK_DATA") or REPO.parent / "shared" / "data").expanduser().resolve()
CODET_GEN = SHARED_DATA / "microsoft_CodeT" / "generated_data"
CODET_SOLUTIONS = CODET_GEN / "HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_code_solution.jsonl"
CODET_TESTS = CODET_GEN / "HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_test_case.jsonl"

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# llama.cpp (the embedded model) on one thread, in this process and the CLIs it starts: on a machine shared with
# other work its threads wait for each other at every layer, several times slower than one thread alone
os.environ.setdefault("CODERANK_LLAMA_THREADS", "1")
if SHARED_DATA.is_dir():
    os.environ["CODERANK_DATA"] = str(SHARED_DATA)

needs_data = pytest.mark.skipif(not SHARED_DATA.is_dir(), reason=f"shared data folder {SHARED_DATA} not present")

LOOKALIKE_DIR = REPO / "tests" / "data" / "lookalike"  # "is n below 100?" as a function, a method, a stdin program
LOOKALIKE_DOES = {"look/function": "returns", "look/method": "returns", "look/stdin": "prints"}  # said of each


def lookalike_data() -> tuple[dict[str, dict], dict[str, list[str]]]:
    """The look-alike problem in each shape (own-format records, by task id) and its candidates: 0-6 right, 7-9
    look-alikes (False on 9), 10 wrong (fails the first example)."""
    records = {r["task_id"]: r for r in map(json.loads, (LOOKALIKE_DIR / "problems.jsonl").read_text().splitlines())}
    pools: dict[str, list[str]] = {}
    for r in map(json.loads, (LOOKALIKE_DIR / "samples.jsonl").read_text().splitlines()):
        pools.setdefault(r["task_id"], []).append(r["solution"])
    return records, pools


@pytest.fixture(scope="session", autouse=True)
def _private_cache(tmp_path_factory):
    """Ground-truth pickles and other caches go to a per-session folder, never the user's."""
    os.environ["CODERANK_CACHE"] = str(tmp_path_factory.mktemp("coderank_cache"))
    yield


@pytest.fixture(scope="session")
def humaneval_problems():
    from coderank_evalplus.io.problems import load_problems

    return load_problems("humaneval", str(SHARED_DATA))


@pytest.fixture(scope="session")
def codet_samples(humaneval_problems):
    from coderank_evalplus.io.samples import read_solutions, read_test_samples

    sols = read_solutions(CODET_SOLUTIONS, humaneval_problems, str(SHARED_DATA))
    tests = read_test_samples(CODET_TESTS, humaneval_problems, str(SHARED_DATA))
    return sols, tests


# The fast selection (`python -m pytest -q -m "not slow"`, docs/contributing.md) leaves out every test marked `slow`.
# Most slow tests are slow because of a fixture that starts something: every test that uses one of these fixtures,
# directly or through another fixture, gets its marker here, so that a new test on the same fixture is marked
# without anyone remembering to. A fixture is named by its module and function, so that a test module that imports
# it (tests/hostile/test_forgery_ray.py imports the Ray cluster) is covered too. A test that is slow on its own
# carries the marker itself (`@pytest.mark.slow`, or `pytestmark` for a whole module).
SLOW_FIXTURES = {
    "tests.engine.execution.test_ray_executor.cluster": "ray",  # a two-node Ray cluster on 127.0.0.1
    "tests.generation.test_generation.llama_server": "model",  # llama_cpp.server on the embedded model
    "tests.integrations.test_evalplus_integration.runs": "harness",  # three evalplus.evaluate runs
    "tests.integrations.test_lm_eval_integration.replay_run": "harness",  # lm_eval on replayed samples
    "tests.integrations.test_lm_eval_chat.chat_run": "harness",  # lm_eval with the chat template
    "tests.integrations.test_lm_eval_filter.filter_run": "harness",  # lm_eval's code_eval on reranked picks
    "tests.hostile.test_forgery_lm_eval.forgers_run": "harness",  # lm_eval on a pool of forgers
    "tests.report.conftest.real_leaderboard": "slow",  # the leaderboard CLI on a small real suite
    "tests.report.conftest.same_named_runs": "slow",  # two reranks and a leaderboard over them
    "tests.test_pipeline_lcb.lcb_run": "slow",  # LiveCodeBench samples judged as lcb_runner judges them
    "tests.test_storage_faults.reference": "slow",  # a rerank CLI run the faulty runs are compared with
    "tests.hostile.test_hostile.hostile_run": "slow",  # every hostile program, run once in the sandbox
    "tests.hostile.test_hostile_stdin.hostile_stdin_run": "slow",  # the same as stdin programs
    "tests.hostile.test_forgery_entry_points.rerank_runs": "slow",  # rerank CLI runs on forgers
    "tests.hostile.test_forgery_entry_points.original_runs": "slow",  # the same on the original tests
}
# Markers that say what a slow test uses; each implies `slow`. `style` (ruff, mypy) does not: both take a second
# with mypy's cache warm, and a lint finding is what most often fails CI.
SLOW_KINDS = ("model", "ray", "browser", "harness")


def _fixtures_used(item: pytest.Item) -> set[str]:
    """The module.function of every fixture the test uses (the one in effect where a name is overridden)."""
    defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    out = set()
    for name in getattr(item, "fixturenames", ()):
        if defs.get(name):
            func = defs[name][-1].func
            out.add(f"{getattr(func, '__module__', '')}.{getattr(func, '__name__', name)}")
    return out


def _check_slow_fixtures() -> None:
    """A renamed or removed fixture would silently stop marking its tests: refuse, once its module is loaded."""
    for key in SLOW_FIXTURES:
        module, name = key.rsplit(".", 1)
        if module in sys.modules and not hasattr(sys.modules[module], name):
            raise pytest.UsageError(f"tests/conftest.py SLOW_FIXTURES: {module} has no fixture {name!r}")


@pytest.hookimpl(tryfirst=True)  # before pytest's own -m selection reads the markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    _check_slow_fixtures()
    for item in items:
        for key in _fixtures_used(item) & SLOW_FIXTURES.keys():
            item.add_marker(SLOW_FIXTURES[key])
        if item.get_closest_marker("slow") is None and any(item.get_closest_marker(k) for k in SLOW_KINDS):
            item.add_marker("slow")
