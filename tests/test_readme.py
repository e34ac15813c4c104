"""README's two set-up commands stay true: CI runs the test command verbatim."""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, re.S)


def test_ci_runs_the_readme_test_command_verbatim():
    blocks = _bash_blocks((REPO / "README.md").read_text())
    test_command = blocks[1].strip()
    assert "pytest" in test_command
    assert test_command in (REPO / ".ci" / "run").read_text().splitlines()


def test_main_command_comes_first():
    first = _bash_blocks((REPO / "README.md").read_text())[0]
    assert "coderank-evalplus" in first and "pip install" in first
