"""What the start-up hook calls when ``evalplus.evaluate`` is imported: evalplus's module, patched for ``--rerank``.

``coderank_evalplus_hook.pth`` (site-packages) defines a tiny meta-path finder at interpreter start-up and imports
nothing: its ``find_spec`` returns None for every module except ``evalplus.evaluate``, and only then imports this
module and calls ``find_patched_spec``.

``find_patched_spec`` asks the other finders for the real spec and swaps in a loader whose ``get_code`` compiles
evalplus's own source with one statement inserted just before ``if __name__ == "__main__":``. That statement wraps
``evaluate`` (see ``coderank_evalplus.integrations.evalplus``), so the patch is in place both for
``import evalplus.evaluate`` (the ``evalplus.evaluate`` console script) and for ``python -m evalplus.evaluate``
(runpy runs the code object from ``loader.get_code`` as ``__main__``; the guard then calls the patched ``main``).
Without ``--rerank`` the wrapper calls evalplus's ``evaluate`` with the same arguments, so evalplus behaves as if
this package were not installed. Anything unexpected falls back to evalplus's unmodified module.
"""

import sys

TARGET = "evalplus.evaluate"
FINDER_NAME = "CoderankEvalplusFinder"  # the class defined by the .pth line
_PATCH_STMT = "__import__('coderank_evalplus._hook', fromlist=['_']).patch_namespace(globals())"


def find_patched_spec(finder, fullname, path=None, target=None):
    """The spec the next finders give for ``evalplus.evaluate``, with the patching loader (or unchanged)."""
    spec = None
    for other in sys.meta_path:
        if other is finder or type(other).__name__ == FINDER_NAME or not hasattr(other, "find_spec"):
            continue
        spec = other.find_spec(fullname, path, target)
        if spec is not None:
            break
    try:
        return _with_patching_loader(spec, fullname)
    except Exception:  # noqa: BLE001 - never break evalplus
        return spec


def _with_patching_loader(spec, fullname):
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return spec  # not a plain source file (frozen, zipped…): leave evalplus alone
    from importlib.machinery import SourceFileLoader

    if type(spec.loader) is not SourceFileLoader:
        return spec

    class PatchingLoader(SourceFileLoader):
        """evalplus's own source, compiled with the patch statement inserted before the ``__main__`` guard."""

        def get_code(self, name):
            try:
                source = self.get_source(name)
                if source is None:  # no source to patch: evalplus's unmodified code
                    return super().get_code(name)
                return compile(_patched_tree(source), self.path, "exec", dont_inherit=True)
            except Exception:  # noqa: BLE001 - fall back to evalplus's unmodified code
                return super().get_code(name)

    spec.loader = PatchingLoader(fullname, spec.origin)
    return spec


def _is_main_guard(node) -> bool:
    import ast

    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    parts = [node.test.left, *node.test.comparators]
    names = [p.id for p in parts if isinstance(p, ast.Name)]
    consts = [p.value for p in parts if isinstance(p, ast.Constant)]
    return names == ["__name__"] and consts == ["__main__"]


def _patched_tree(source: str):
    import ast

    tree = ast.parse(source)
    stmt = ast.parse(_PATCH_STMT).body[0]
    at = next((i for i, node in enumerate(tree.body) if _is_main_guard(node)), len(tree.body))
    anchor = tree.body[at] if at < len(tree.body) else tree.body[-1]
    located = (ast.stmt, ast.expr, ast.excepthandler, ast.arg, ast.keyword, ast.alias, ast.pattern)  # have lineno
    for node in ast.walk(stmt):
        if isinstance(node, located):
            node.lineno = node.end_lineno = anchor.lineno
            node.col_offset, node.end_col_offset = 0, 0
    tree.body.insert(at, stmt)
    return tree


def patch_namespace(namespace: dict) -> None:
    """Called from inside evalplus/evaluate.py (the inserted statement): wrap ``evaluate`` and ``main``.

    Any failure is reported in one line and leaves evalplus unchanged.
    """
    try:
        from coderank_evalplus.integrations.evalplus import patch_namespace as patch

        patch(namespace)
    except Exception as exc:  # noqa: BLE001
        sys.stderr.write(f"coderank_evalplus: --rerank is unavailable ({type(exc).__name__}: {exc})\n")


def install() -> None:
    """Put the finder in place without the .pth (e.g. in an interpreter started before installation)."""
    if any(type(f).__name__ == FINDER_NAME for f in sys.meta_path):
        return

    class CoderankEvalplusFinder:
        def find_spec(self, name, path=None, target=None):
            return find_patched_spec(self, name, path, target) if name == TARGET else None

    sys.meta_path.insert(0, CoderankEvalplusFinder())
