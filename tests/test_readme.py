"""README's two set-up commands stay true: CI runs the test command verbatim."""

import re
from pathlib import Path

import pytest

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


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (but - and _), spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    out, fence = set(), False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fence = not fence
        elif not fence and line.startswith("#"):
            out.add(_slug(line.lstrip("#")))
    return out


def test_every_relative_link_in_readme_and_docs_resolves():
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+://", target) or target.startswith("mailto:"):
                continue
            file_part, _, anchor = target.partition("#")
            dest = (page.parent / file_part).resolve() if file_part else page
            if not dest.exists():
                broken.append(f"{page.name}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert not broken, broken
    assert len(pages) > 5


def test_readme_fits_on_two_screens():
    assert len((REPO / "README.md").read_bytes()) <= 15_000


def _from_python_blocks() -> list[str]:
    text = (REPO / "README.md").read_text()
    section = text[text.index("## From Python"):]
    section = section[: section.index("\n## ", 1)]
    return re.findall(r"```python\n(.*?)```", section, re.S)


@pytest.mark.slow
def test_the_from_python_examples_run_as_written(tmp_path):
    """Each Python block of README's "From Python" runs as written from any folder (here an empty temporary one: the
    bundled samples are reached through the package)."""
    import os
    import subprocess
    import sys

    blocks = _from_python_blocks()
    assert blocks and all("import coderank_evalplus" in b for b in blocks)
    for block in blocks:
        r = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                           env=dict(os.environ, PYTHONPATH=str(REPO)))
        assert r.returncode == 0, r.stderr[-3000:]
        lines = r.stdout.splitlines()
        assert lines[0].startswith("1 [1, 2] ") and any(re.search(r"\bexamples? of the prompt", ln) for ln in lines)
    assert (tmp_path / "runs" / "example" / "rerank_results.json").is_file()
