"""Test set-up: offline hub, the shared data folder, a private cache directory."""

from __future__ import annotations

import os
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
