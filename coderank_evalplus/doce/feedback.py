"""Unit-test feedback for self-debug: the sentence shown to the model about a trial test its candidate fails, made
from the probe of that test (``engine.execution.probe``: what the program returned or raised, in words)."""

from __future__ import annotations

from coderank_evalplus.engine.execution.probe import SHOW_CHARS, Probe, call_of, probe_all, run_probe  # noqa: F401 (re-exported)


def feedback_text(test: str, status: str, probe: tuple[str, ...]) -> str:
    """The sentence shown to the model about one failing trial test.

    ``status``: the engine's verdict on the test (``fail``, ``error``, ``timeout``, or ``import`` when the
    program did not get past its own top level)."""
    shown = test.strip()
    kind = probe[0] if probe else "lost"
    if status == "import" or kind in ("import-error", "import-timeout"):
        if kind == "import-error":
            return f"The code does not run: {probe[1]}."
        if kind == "import-timeout":
            return "The code does not run: its top level does not finish within the time limit."
        return "The code does not run."
    if status == "timeout" or kind == "timeout":
        call = probe[1] if kind == "timeout" and len(probe) > 1 and probe[1] else None
        what = f"`{call}`" if call else "it"
        return f"The test `{shown}` failed: {what} did not finish within the time limit."
    if kind == "returned":
        return f"The test `{shown}` failed: `{probe[1]}` returned `{probe[2]}`."
    if kind == "printed":
        return f"The test `{shown}` failed: the program printed `{probe[2]}` on `{probe[1]}`."
    if kind == "raised":
        where = f"`{probe[1]}` raised" if probe[1] else "it raised"
        return f"The test `{shown}` failed: {where} {probe[2]}."
    return f"The test `{shown}` failed."
