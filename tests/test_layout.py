"""The package's layout: no import circle, no import up a layer, few modules at the top, every folder says what it
holds, reports that never run anything."""

import subprocess
import sys

from tests.conftest import REPO

PACKAGE = REPO / "coderank_evalplus"


def test_no_import_cycle():
    r = subprocess.run([sys.executable, str(REPO / "tools" / "import_cycles.py"), str(PACKAGE)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert " 0 cycles, 0 imports up a layer" in r.stdout


def test_cycle_finder_finds_a_cycle(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.b import x\n")
    (pkg / "b.py").write_text("def f():\n    from pkg import a\n")
    (pkg / "c.py").write_text("import pkg.a\n")
    r = subprocess.run([sys.executable, str(REPO / "tools" / "import_cycles.py"), str(pkg)],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert "cycle: pkg.a <-> pkg.b" in r.stdout


def test_layer_finder_finds_an_import_up_a_layer_and_a_folder_on_no_layer():
    sys.path.insert(0, str(REPO / "tools"))
    try:
        from import_cycles import unplaced, upward
    finally:
        sys.path.remove(str(REPO / "tools"))
    tables = {"": [("types",), ("api",), ("cli",)], "engine": [("sandbox",), ("judging",)]}
    graph = {"p.types": set(), "p.api.a": {"p.cli.options", "p.types"}, "p.cli.options": {"p.api.a"},
             "p.engine.sandbox.x": {"p.engine.judging.y"}, "p.engine.judging.y": {"p.engine.sandbox.x"},
             "p.report.z": set()}
    assert upward(graph, tables, "p") == ["p.api.a -> p.cli.options", "p.engine.sandbox.x -> p.engine.judging.y"]
    assert unplaced(graph, tables, "p") == ["p.engine", "p.report"]


def test_reports_never_run_anything():
    """report/ reads results folders and renders them: it imports nothing that executes a program, ranks anew
    through the one path, calls a model or runs a rerank (the suite runner is ``api/suite.py``)."""
    import ast

    runners = ("engine", "selection", "pipeline", "api", "generation", "doce", "integrations", "cli")
    bad = []
    for path in sorted((PACKAGE / "report").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [f"{node.module}.{a.name}" for a in node.names] if isinstance(node, ast.ImportFrom) else []
            bad += [f"{path.name}: {n}" for n in names for r in runners
                    if n == f"coderank_evalplus.{r}" or n.startswith(f"coderank_evalplus.{r}.")]
    assert not bad, bad


def test_at_most_eight_modules_at_the_top():
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 8, top


def test_every_subpackage_has_a_docstring():
    import ast

    for init in PACKAGE.glob("*/__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text()))
        assert doc and len(doc) > 80, init


def test_the_flat_layout_aliases_are_gone():
    """0.2.0 removed the module paths of the flat layout before it (CHANGELOG.md)."""
    code = "import coderank_evalplus.judge\n"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 1 and "No module named 'coderank_evalplus.judge'" in r.stderr


def test_the_version_is_one_number_everywhere():
    import re

    import coderank_evalplus

    pyproject = (REPO / "pyproject.toml").read_text()
    assert re.search(r'(?m)^version = "([^"]+)"', pyproject).group(1) == coderank_evalplus.__version__
    assert f"## {coderank_evalplus.__version__}" in (REPO / "CHANGELOG.md").read_text()
    r = subprocess.run([sys.executable, "-m", "coderank_evalplus.cli", "--version"], capture_output=True, text=True,
                       cwd=REPO)
    assert r.returncode == 0 and r.stdout.strip() == f"coderank-evalplus {coderank_evalplus.__version__}"


def test_nothing_in_the_library_imports_the_studies():
    """study/ trains and judges models from stored folders; the library only reads the weights it writes."""
    import ast

    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "study" in path.relative_to(PACKAGE).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n == "coderank_evalplus.study" or n.startswith("coderank_evalplus.study.") for n in names):
                bad.append(str(path.relative_to(PACKAGE)))
    assert not bad, bad


def _shape_branches(source: str) -> list[str]:
    """Comparisons that act on a problem's call shape: a shape's name (``FUNCTION``, ``METHOD``, ``STDIN``,
    ``SHAPES`` or its string) against something, or anything called ``shape`` against a string (a numpy array's
    ``.shape`` is compared with a tuple)."""
    import ast

    names = {"FUNCTION", "METHOD", "STDIN", "SHAPES"}
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        parts = [n for side in (node.left, *node.comparators) for n in ast.walk(side)]
        named = {n.id for n in parts if isinstance(n, ast.Name)} | {n.attr for n in parts
                                                                    if isinstance(n, ast.Attribute)}
        texts = {n.value for n in parts if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        if named & names or ("shape" in named | texts and texts & {"function", "method", "stdin"}):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_only_the_shapes_module_branches_on_a_call_shape():
    """Everything shape-specific is the shape object's (``engine/shapes.py``); other modules ask ``shape_of``."""
    home = PACKAGE / "engine" / "shapes.py"
    bad = [f"{path.relative_to(PACKAGE)}:{hit}" for path in sorted(PACKAGE.rglob("*.py")) if path != home
           for hit in _shape_branches(path.read_text())]
    assert not bad, bad
    assert _shape_branches("if problem.shape == METHOD:\n    pass\n")
    assert _shape_branches("ok = data['shape'] != 'stdin'\n")
    assert not _shape_branches("ok = total.shape != (3,)\n")
