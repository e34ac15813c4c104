"""Every page renders: ``--help`` of the CLI and of each subcommand, evalplus.evaluate's with our flags (the
console's ``evaluate``, laid out as the other pages, and ``python -m evalplus.evaluate`` through the start-up hook:
Fire's page, evalplus's own), and lm-eval's listing of
our tasks. A traceback or a failing exit fails the page (argparse %-formats every help string: one ``%`` in the
table's help once ended ``leaderboard --help`` and ``budget --help`` in a TypeError)."""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from coderank_evalplus.cli.console import build_parser, main

BIN = Path(sys.executable).parent


def _subcommands() -> list[str]:
    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(action.choices)


@pytest.mark.parametrize("argv", [[], *([c] for c in _subcommands() if c != "evaluate")],
                         ids=lambda argv: " ".join(argv) or "coderank-evalplus")
def test_each_cli_help_page_renders(argv, capsys):
    with pytest.raises(SystemExit) as done:
        main([*argv, "--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0 and out.startswith("usage: coderank-evalplus")
    assert "Type:" not in out and "``" not in out and "cli.options" not in out  # no Fire, no notes for developers
    if argv:  # every flag of the subcommand is on its page
        action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
        flags = [s for a in action.choices[argv[0]]._actions for s in a.option_strings]
        assert flags and all(f in out for f in flags), [f for f in flags if f not in out]


def _env(tmp: Path) -> dict:
    return dict(os.environ, PAGER="cat", HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", XDG_CACHE_HOME=str(tmp))


def test_evaluate_help_is_a_page_like_the_others_with_every_flag(capsys):
    """``coderank-evalplus evaluate --help``: argparse's layout and exit status 0 like every other page (not Fire's
    "Type: Optional[Optional]" page with status 2), evalplus's own flags and ours, each of ours with its help."""
    pytest.importorskip("evalplus")
    import inspect

    import evalplus.evaluate as ev

    from coderank_evalplus.integrations.evalplus import OPTIONS

    assert main(["evaluate", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: coderank-evalplus evaluate") and "Type:" not in out and "SYNOPSIS" not in out
    original = getattr(ev.evaluate, "__coderank_original__", ev.evaluate)
    own = [n for n, p in inspect.signature(original).parameters.items() if p.kind is not p.VAR_KEYWORD]
    assert own and all(f"--{name}" in out for name in [*own, *OPTIONS])
    assert "ranking method(s), comma-separated" in " ".join(out.split())


# Fire prints its page and exits with status 2 when stdout is not a terminal (evalplus alone does the same)
FIRE_PAGES = {"python -m evalplus.evaluate": [sys.executable, "-m", "evalplus.evaluate", "--help"]}


@pytest.mark.parametrize("page", sorted(FIRE_PAGES))
def test_evalplus_evaluate_help_renders_with_our_flags(page, tmp_path):
    pytest.importorskip("evalplus")
    from coderank_evalplus.integrations.evalplus import OPTIONS

    proc = subprocess.run(FIRE_PAGES[page], capture_output=True, text=True, env=_env(tmp_path), cwd=tmp_path,
                          timeout=300)
    text = proc.stdout + proc.stderr
    assert "Traceback" not in text and proc.returncode in (0, 2), text[-3000:]
    assert "SYNOPSIS" in text and all(f"--{name}" in text for name in OPTIONS), text[-3000:]


@pytest.mark.harness
def test_lm_eval_lists_our_tasks(tmp_path):
    """``lm-eval ls groups`` (``--tasks list`` before lm-eval 0.4.10), as a user runs it: the coderank group is
    there."""
    pytest.importorskip("lm_eval")
    from tests.integrations.test_lm_eval_integration import _lm_eval

    args = ["ls", "groups"] if importlib.util.find_spec("lm_eval._cli") is not None else ["ls", "tasks"]
    proc = _lm_eval(args, tmp_path, timeout=300)  # (fails on a non-zero exit)
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "coderank" in proc.stdout
