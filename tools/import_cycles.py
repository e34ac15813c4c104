"""Print the package's import graph cycles and its imports that run up a layer (every import counts: module level,
inside functions, under TYPE_CHECKING).

An edge runs from a module to each module of the package it names: ``import a.b`` and ``from a import b`` (b a
submodule) name ``a.b``; ``from a.b import name`` names ``a.b``. Importing ``a.b`` also runs ``a/__init__.py``, but
that is not counted as an edge: a package's ``__init__`` re-exporting its own submodules is not a circle.

The layers (``LAYERS``, drawn in docs/contributing.md): a module may import its own layer and the layers below it,
never one above; inside ``engine/`` the packages have layers of their own (judging → execution → sandbox). A
package without a table of layers (another package, a test's) is checked for cycles only.

Usage: ``python tools/import_cycles.py [PACKAGE_DIR]`` — prints one cycle, or one import up a layer, a line and exits
1 when there is any.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

# Layers, lowest first, by the first name below the package ("" is the package's own __init__: the lazy API it
# re-exports, imported by the console for its version); a scope below the package has layers of its own.
LAYERS: dict[str, dict[str, list[tuple[str, ...]]]] = {
    "coderank_evalplus": {
        "": [
            ("types", "storage", "metrics", "stats", "examples"),  # core types, files, pass@k and statistics; data
            ("engine", "rankers", "io", "testgen", "generation"),  # the parts
            ("selection",),  # the per-problem path and the steps after ranking
            ("pipeline",),  # a benchmark's rerank stage
            ("api",),  # the one entry point and the Python API
            ("integrations", "report", "doce", "study", "_hook", "_lm_eval_hook", "lm_eval_tasks"),  # front ends
            ("cli", ""),  # the console script
        ],
        "engine": [("sandbox", "lcb", "shapes"), ("execution",), ("judging",)],
    },
}


def module_name(path: Path, root: Path) -> str:
    """Dotted name of a source file under ``root`` (the folder holding the package)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules(package_dir: Path) -> dict[str, Path]:
    """Every module of the package, by dotted name."""
    root = package_dir.parent
    return {module_name(p, root): p for p in sorted(package_dir.rglob("*.py"))}


def _resolve(name: str, current: str, is_package: bool, level: int) -> str:
    if level == 0:
        return name
    base = current.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def imports_of(path: Path, current: str, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``path`` imports, anywhere in its body."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    found.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(node.module or "", current, is_package, node.level)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in modules:
                    found.add(sub)
                elif base in modules:
                    found.add(base)
    found.discard(current)
    return found


def import_graph(package_dir: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports."""
    modules = package_modules(package_dir)
    return {name: imports_of(path, name, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def _layer(module: str, scope: str, layers: list[tuple[str, ...]]) -> int | None:
    """The layer of ``module`` in ``scope`` (a dotted prefix), None when it is not below the scope or on no layer."""
    if module != scope and not module.startswith(scope + "."):
        return None
    rest = module[len(scope) + 1:].split(".")[0] if module != scope else ""
    return next((i for i, names in enumerate(layers) if rest in names), None)


def upward(graph: dict[str, set[str]], tables: dict[str, list[tuple[str, ...]]], package: str) -> list[str]:
    """Every import that runs up a layer, as ``a -> b`` (a's layer below b's), sorted."""
    found = []
    for scope_name, layers in tables.items():
        scope = package if not scope_name else f"{package}.{scope_name}"
        for a in sorted(graph):
            fa = _layer(a, scope, layers)
            for b in sorted(graph[a]):
                fb = _layer(b, scope, layers)
                if fa is not None and fb is not None and fa < fb:
                    found.append(f"{a} -> {b}")
    return sorted(found)


def unplaced(graph: dict[str, set[str]], tables: dict[str, list[tuple[str, ...]]], package: str) -> list[str]:
    """Folders and top-level modules of a scope that are on no layer (a new one must be placed)."""
    out = set()
    for scope_name, layers in tables.items():
        scope = package if not scope_name else f"{package}.{scope_name}"
        for m in graph:
            if (m == scope or m.startswith(scope + ".")) and _layer(m, scope, layers) is None and m != scope:
                out.add(scope + "." + m[len(scope) + 1:].split(".")[0])
    return sorted(out)


def main(argv: list[str]) -> int:
    package_dir = Path(argv[0]) if argv else Path(__file__).resolve().parents[1] / "coderank_evalplus"
    graph = import_graph(package_dir)
    found = cycles(graph)
    edges = sum(len(v) for v in graph.values())
    tables = LAYERS.get(package_dir.name, {})
    up = upward(graph, tables, package_dir.name)
    lost = unplaced(graph, tables, package_dir.name)
    print(f"{len(graph)} modules, {edges} import edges, {len(found)} cycles"
          + (f", {len(up)} imports up a layer" if tables else ""))
    for component in found:
        print("cycle: " + " <-> ".join(component))
    for edge in up:
        print("up a layer: " + edge)
    for name in lost:
        print(f"on no layer: {name} (place it in tools/import_cycles.py's LAYERS and docs/contributing.md)")
    return 1 if found or up or lost else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
