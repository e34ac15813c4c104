"""The supported harness releases: the floors agree with pyproject.toml, and an older evalplus or lm-eval (a
monkeypatched version) gets one line naming the version needed, never a traceback."""

from __future__ import annotations

import sys
import types

import pytest

from coderank_evalplus.integrations import versions
from tests.conftest import REPO


def _fake_versions(monkeypatch, **fake: str) -> None:
    real = versions.metadata.version

    def version(dist: str) -> str:
        return fake[dist] if dist in fake else real(dist)

    monkeypatch.setattr(versions.metadata, "version", version)


def test_parse_version():
    assert versions.parse_version("0.4.9.2") == (0, 4, 9, 2)
    assert versions.parse_version("0.3.1.dev2+g1234") == (0, 3, 1)
    assert versions.parse_version("0.4.10") > versions.parse_version("0.4.9")
    with pytest.raises(ValueError):
        versions.parse_version("dev")


def test_floors_are_those_of_pyproject():
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert f"evalplus{versions.EVALPLUS_RANGE}" in meta["dependencies"]
    for extra in ("lm-eval", "test"):
        assert f"lm-eval{versions.LM_EVAL_RANGE}" in meta["optional-dependencies"][extra]
    assert versions.EVALPLUS_RANGE.startswith(f">={versions.EVALPLUS_MIN},")
    assert versions.LM_EVAL_RANGE.startswith(f">={versions.LM_EVAL_MIN},")


def test_too_old_names_the_version_needed():
    msg = versions.evalplus_too_old("0.2.1")
    assert msg and "evalplus >= 0.3.1" in msg and "evalplus 0.2.1 is installed" in msg
    assert "pip install 'evalplus>=0.3.1,<0.4'" in msg
    msg = versions.lm_eval_too_old("0.4.5")
    assert msg and "lm-eval >= 0.4.9" in msg and "lm-eval 0.4.5 is installed" in msg
    for ok in ("0.3.1", "0.3.2"):
        assert versions.evalplus_too_old(ok) is None
    for ok in ("0.4.9", "0.4.9.2", "0.4.13"):
        assert versions.lm_eval_too_old(ok) is None
    assert versions.too_old("no-such-dist-coderank", "1.0") is None  # not installed: nothing to say


def test_old_evalplus_is_left_alone_and_rerank_gets_the_message(monkeypatch, capsys):
    from coderank_evalplus.integrations.evalplus import patch_namespace

    _fake_versions(monkeypatch, evalplus="0.2.1")
    calls = []

    def evaluate(flags):  # evalplus 0.2.x: argparse flags
        calls.append(flags)

    def main():
        calls.append("main")

    ns = {"evaluate": evaluate, "main": main}
    patch_namespace(ns)
    patch_namespace(ns)  # idempotent
    assert ns["evaluate"] is evaluate
    monkeypatch.setattr(sys, "argv", ["evalplus.evaluate", "--dataset", "humaneval", "--samples", "s.jsonl"])
    ns["main"]()
    assert calls == ["main"]  # without our flags: evalplus's own main, unchanged
    monkeypatch.setattr(sys, "argv", ["evalplus.evaluate", "--samples", "s.jsonl", "--rerank", "codet",
                                      "--tests=t.jsonl"])
    with pytest.raises(SystemExit) as exc:
        ns["main"]()
    assert exc.value.code == 2 and calls == ["main"]
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("error: --rerank, --tests: coderank_evalplus needs evalplus >= "
                                                   "0.3.1") and "0.2.1 is installed" in err


def test_old_evalplus_stops_the_cli_with_the_message(monkeypatch, capsys):
    from coderank_evalplus.cli.console import main

    _fake_versions(monkeypatch, evalplus="0.2.0")
    assert main(["rerank", "--solutions", "nowhere.jsonl", "--tests", "nowhere.jsonl"]) == 2
    assert main(["evaluate", "--dataset", "humaneval", "--samples", "s.jsonl", "--rerank", "codet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("error: coderank_evalplus needs evalplus >= 0.3.1") for line in err)
    assert main(["methods"]) == 0  # needs no evalplus


def test_old_lm_eval_gets_one_line_and_no_tasks(monkeypatch, capsys):
    from coderank_evalplus import _lm_eval_hook as hook

    _fake_versions(monkeypatch, **{"lm-eval": "0.4.5"})

    class TaskManager:
        def __init__(self, verbosity=None, include_path=None, include_defaults=True):
            self.include_path = include_path

    module = types.SimpleNamespace(TaskManager=TaskManager)
    original = TaskManager.__init__
    hook.patch_task_manager(module)
    hook.patch_task_manager(module)
    assert TaskManager.__init__ is original and TaskManager().include_path is None
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "needs lm-eval >= 0.4.9" in err[0] and "lm-eval 0.4.5 is installed" in err[0]


def test_old_lm_eval_task_class_refuses_with_the_message(monkeypatch):
    pytest.importorskip("lm_eval")
    from coderank_evalplus.integrations.lm_eval import CodeRankTask

    _fake_versions(monkeypatch, **{"lm-eval": "0.4.8"})
    with pytest.raises(ValueError, match=r"needs lm-eval >= 0\.4\.9.*lm-eval 0\.4\.8 is installed"):
        CodeRankTask(config={"task": "humaneval_codet", "coderank": {"dataset": "humaneval", "method": "codet"}})


@pytest.mark.parametrize("version, relayed", [("0.4.9", True), ("0.4.11", True), ("0.4.13", False)])
def test_lm_eval_before_0_4_12_hands_the_metadata_to_our_tasks(monkeypatch, version, relayed):
    """lm-eval 0.4.9–0.4.11 merge --metadata into YAML tasks only; a class task reads its manager's through the
    hook while the manager loads tasks (0.4.12+ passes it itself: nothing relayed)."""
    from coderank_evalplus import _lm_eval_hook as hook

    _fake_versions(monkeypatch, **{"lm-eval": version})
    seen = []

    class TaskManager:
        def __init__(self, verbosity=None, include_path=None, include_defaults=True, metadata=None):
            self.metadata = metadata

        def load_task_or_group(self, task_list=None):
            seen.append(hook.manager_metadata())
            return {}

    hook.patch_task_manager(types.SimpleNamespace(TaskManager=TaskManager))
    TaskManager(metadata={"n_samples": 7}).load_task_or_group(["humaneval_codet"])
    assert seen == [{"n_samples": 7} if relayed else {}]
    assert hook.manager_metadata() == {}  # only while loading
