"""The linter and the type check pass (their settings: pyproject.toml's [tool.ruff] and [tool.mypy]).

Both come with the ``test`` extra; where one is not installed its test is skipped, saying so. mypy keeps its cache in
``.mypy_cache`` (git-ignored) or ``$MYPY_CACHE_DIR``: a cold run takes seconds, a warm one well under a second.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from tests.conftest import REPO

LINTED = ["coderank_evalplus", "tests", "bench", "tools"]


def _run(tool: str, *args: str) -> subprocess.CompletedProcess:
    if importlib.util.find_spec(tool) is None:
        pytest.skip(f"{tool} is not installed (pip install -e '.[test]' brings it)")
    return subprocess.run([sys.executable, "-m", tool, *args], cwd=REPO, capture_output=True, text=True, timeout=600)


@pytest.mark.style
def test_ruff_check_passes():
    r = _run("ruff", "check", "--no-fix", *LINTED)
    assert r.returncode == 0, f"ruff check {' '.join(LINTED)} (fix with --fix where it can):\n{r.stdout}{r.stderr}"


@pytest.mark.style
def test_mypy_passes():
    r = _run("mypy")  # the files and settings: [tool.mypy]
    assert r.returncode == 0, f"mypy:\n{r.stdout}{r.stderr}"
    assert "Success: no issues found" in r.stdout


def test_mypy_checks_every_module_of_the_package():
    """No part of the package is exempt: the whole package is mypy's file list and no override ignores errors."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    cfg = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mypy"]
    assert cfg["files"] == ["coderank_evalplus"]
    assert not [o["module"] for o in cfg.get("overrides", []) if o.get("ignore_errors")]


def test_every_type_ignore_names_its_code_and_says_why():
    """``# type: ignore[code]  # reason`` — never a bare ignore, never one without its reason on the line."""
    import re

    ok = re.compile(r"#\s*type:\s*ignore\[[-a-z0-9_, ]+\]\s+#\s*\S")
    bad = [f"{p.relative_to(REPO)}:{i}" for p in sorted((REPO / "coderank_evalplus").rglob("*.py"))
           for i, line in enumerate(p.read_text().splitlines(), 1)
           if re.search(r"#\s*type:\s*ignore", line) and not ok.search(line)]
    assert not bad, f"type: ignore without its code and reason: {bad}"
