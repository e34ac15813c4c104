"""One small real leaderboard (bundled CodeGen-16B samples, two test pools, first problems), shared by the tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, SHARED_DATA

LIMIT = 2
METHODS = ["codet", "srank", "mbr_exec"]


def leaderboard_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "coderank_evalplus.cli", "leaderboard", *args]


def run_cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=1200)


@pytest.fixture(scope="session")
def real_leaderboard(tmp_path_factory):
    """A suite file with relative paths (copies of the bundled example files beside it), run once."""
    import shutil

    from coderank_evalplus import examples

    root = tmp_path_factory.mktemp("lb")
    data = root / "data"
    data.mkdir()
    for f in (examples.SOLUTIONS, examples.OWN_TESTS, examples.GPT4_TESTS):
        shutil.copy(f, data / f.name)
    suite = root / "suite.toml"
    suite.write_text(
        f'methods = {METHODS!r}\nlimit = {LIMIT}\ndata_dir = "{SHARED_DATA}"\n'
        f'[[entry]]\nname = "codegen-16B"\ndataset = "humaneval"\nsolutions = "data/{examples.SOLUTIONS.name}"\n'
        f'tests = "data/{examples.OWN_TESTS.name}"\ntests_label = "own tests"\n'
        f'[[entry]]\nname = "codegen-16B"\ndataset = "humaneval"\nsolutions = "data/{examples.SOLUTIONS.name}"\n'
        f'tests = "data/{examples.GPT4_TESTS.name}"\ntests_label = "gpt-4 tests"\n'.replace("'", '"'))
    out = root / "report"
    proc = run_cli(leaderboard_cmd(str(suite), "--output", str(out), "--quiet", "--draws", "20"), cwd=root)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {"root": root, "suite": suite, "out": out, "stdout": proc.stdout, "stderr": proc.stderr}


@pytest.fixture(scope="session")
def models_leaderboard(real_leaderboard):
    """The same samples under a second model name, in both pools (one of them labelled "(own)"): two pools of two
    identical models each. Reuses the first fixture's execution cache, so nothing is executed again; no budget
    curves (the first fixture's report has them, and the model comparisons do not read them)."""
    from coderank_evalplus import examples

    root = real_leaderboard["root"]
    suite = root / "models_suite.toml"
    text = f'methods = {METHODS!r}\nlimit = {LIMIT}\ndata_dir = "{SHARED_DATA}"\n'
    for name in ("codegen-16B", "codegen-16B-copy"):
        for tests, label in ((examples.OWN_TESTS, "codegen-16B tests" + (" (own)" if name == "codegen-16B" else "")),
                             (examples.GPT4_TESTS, "gpt-4 tests")):
            text += (f'[[entry]]\nname = "{name}"\ndataset = "humaneval"\n'
                     f'solutions = "data/{examples.SOLUTIONS.name}"\n'
                     f'tests = "data/{tests.name}"\ntests_label = "{label}"\n')
    suite.write_text(text.replace("'", '"'))
    out = root / "models_report"
    proc = run_cli(leaderboard_cmd(str(suite), "--output", str(out), "--quiet", "--draws", "20", "--no-curves",
                                   "--cache-dir", str(real_leaderboard["out"] / "cache")), cwd=root)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {"root": root, "out": out, "stdout": proc.stdout, "stderr": proc.stderr}


@pytest.fixture(scope="session")
def same_named_runs(tmp_path_factory):
    """A new user's trial: two models' samples of HumanEval's first 3 problems, each in a folder of its own under
    the same file name (samples_limit3.jsonl, as ``evalplus.evaluate --limit 3`` names them): 2 of 4 samples right
    per problem, and 1 of 4. Each reranked without a model name into ``<folder>/samples_limit3_rerank`` (the
    terminal output kept), then one leaderboard over both folders."""
    import contextlib
    import gzip
    import io
    import json

    from coderank_evalplus.cli.console import main

    root = tmp_path_factory.mktemp("same_named")
    release = SHARED_DATA / "evalplus_humanevalplus_release" / "v0.1.10" / "HumanEvalPlus.jsonl.gz"
    with gzip.open(release, "rt", encoding="utf-8") as fh:
        problems = [json.loads(line) for _, line in zip(range(3), fh)]
    out: dict = {"root": root, "terminal": {}}
    for name, right in (("a", 2), ("b", 1)):
        folder = root / name
        folder.mkdir()
        with open(folder / "samples_limit3.jsonl", "w", encoding="utf-8") as fh:
            for p in problems:
                for i in range(4):
                    body = p["canonical_solution"] if i < right else f"    return {i!r}\n"
                    fh.write(json.dumps({"task_id": p["task_id"], "solution": p["prompt"] + body}) + "\n")
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            assert main(["rerank", "--solutions", str(folder / "samples_limit3.jsonl"), "--methods", "codet",
                         "--output", str(folder / "samples_limit3_rerank"), "--quiet"]) == 0, stderr.getvalue()
        out["terminal"][name] = (stdout.getvalue(), stderr.getvalue())
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        folders = [str(root / name / "samples_limit3_rerank") for name in ("a", "b")]
        assert main(["leaderboard", *folders, "--output", str(root / "board"), "--no-curves", "--quiet"]) == 0, \
            stderr.getvalue()
    out["board"] = root / "board"
    out["board_terminal"] = stdout.getvalue()
    return out
