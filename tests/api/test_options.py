"""One vocabulary (coderank_evalplus/api/options.py): every flag has one name, type, default and meaning on every
subcommand that has it; every nonsense value is refused where it is given, in one line; docs/names.md is the table."""

from __future__ import annotations

import argparse
import inspect

import pytest

from coderank_evalplus.api.options import API_KEYS, LM_EVAL_KEYS, OPTIONS, SUITE_KEYS, RerankOptions, names_page, option
from coderank_evalplus.cli.console import build_parser, main
from tests.conftest import REPO

COMMANDS = ("rerank", "run", "pick", "leaderboard", "budget", "likelihood")
# one value each option refuses, by what it accepts
BAD = {"an integer ≥ 1": "-3", "an integer ≥ 0": "-2", "a number > 0": "-1", "a number ≥ 0": "-0.5",
       "a number in [0, 1]": "1.5", "a number in (0, 1]": "0", "an integer": "ten", "a non-empty text": " ",
       "local or ray": "cloud", "embedded, hf, vllm or openai": "gpt", "sd1 or multi": "sd3",
       "an integer ≥ 1000": "10", "comma-separated integers ≥ 1 (e.g. 1,10,100)": "1,0", "ranked or codet": "unbiased"}


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _flag_actions(p: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {s: a for a in p._actions for s in a.option_strings}


def test_each_flag_has_one_default_and_type_across_subcommands():
    parsers = _subparsers()
    for o in OPTIONS:
        if o.name in ("progress", "solutions", "tests"):  # --quiet; --solutions / --samples; --tests appends
            continue
        for command in o.commands:
            action = _flag_actions(parsers[command]).get(o.flag)
            assert action is not None, f"{command} lacks {o.flag}"
            want = o.default_for(command)
            assert action.default == want or (action.default is None and want is None), (command, o.name)
            assert action.help and len(action.help) > 10, (command, o.flag)
            if action.type is not None:
                assert action.type.__name__ == o.name, (command, o.flag)


def test_every_flag_has_help_and_no_short_flag_is_taken_twice():
    for command, p in _subparsers().items():
        seen: set[str] = set()
        for a in p._actions:
            assert a.help, (command, a.option_strings or a.dest)
            for s in a.option_strings:
                assert s not in seen, (command, s)
                seen.add(s)


@pytest.mark.parametrize("command", COMMANDS)
def test_each_nonsense_value_exits_2_with_one_line(command, capsys):
    required = {"rerank": ["--solutions", "x"], "pick": ["p.py", "c.jsonl"], "budget": ["folder"],
                "likelihood": [], "run": [], "leaderboard": []}[command]
    checked = 0
    for o in OPTIONS:
        if command not in o.commands or o.cli or o.name in ("progress", "solutions"):
            continue
        bad = BAD.get(o.kind.accepts)
        if o.name in ("methods", "compare_to", "method"):
            bad = "nosuch" if o.name != "method" else "codet,srank"
        elif o.name == "tests":
            bad = "examples+mutate:x"
        elif o.name == "task_ids":
            bad = ","
        assert bad is not None, f"no nonsense value for {o.name} ({o.kind.accepts})"
        with pytest.raises(SystemExit) as exit_:
            main([command, *required, o.flag, bad])
        err = capsys.readouterr().err.strip()
        assert exit_.value.code == 2, (command, o.flag)
        assert len(err.splitlines()) == 1 and f"argument {o.flag}" in err, (command, o.flag, err)
        checked += 1
    assert checked >= 3


def test_options_object_checks_what_the_flags_check():
    opts = RerankOptions(time_limit="0.5", workers=2, methods="codet,srank", k="1,10", tests="a.jsonl").check()
    assert (opts.time_limit, opts.methods, opts.k, opts.tests) == (0.5, ["codet", "srank"], [1, 10], ["a.jsonl"])
    for bad in ({"workers": -3}, {"tests_per_sample": -2}, {"time_limit": -1}, {"methods": "codet,nosuch"},
                {"k": [0]}, {"limit": 3, "task_ids": ["a"]}, {"ray_address": "x"},
                {"tests": ["examples+mutate", "examples+mutate:5"]}):
        with pytest.raises(ValueError):
            RerankOptions(**bad).check()


def test_each_default_is_a_value_its_option_accepts():
    for o in OPTIONS:
        for value in {repr(o.default): o.default, **{repr(v): v for v in o.defaults.values()}}.values():
            if value is not None:
                o.kind(value)


def test_the_faces_take_the_names_the_table_gives_them():
    from coderank_evalplus.api.evaluate import rerank
    from coderank_evalplus.api.picking import Picker
    from coderank_evalplus.integrations.evalplus import OPTIONS as EVALPLUS
    from coderank_evalplus.report import suite

    option_names = {o.name for o in OPTIONS}
    suite_keys = (suite._TOP_KEYS | suite._ENTRY_KEYS) & option_names
    assert SUITE_KEYS == suite_keys
    pytest.importorskip("lm_eval")
    from coderank_evalplus.integrations import lm_eval

    assert LM_EVAL_KEYS == set(lm_eval.DEFAULTS) - {"rank_seed", "results_dir"}
    assert option("seed").face_name("lm_eval") == "rank_seed"
    picker_args = set(inspect.signature(Picker.__init__).parameters) | set(
        inspect.signature(Picker.pick).parameters)
    assert API_KEYS - {f for f in RerankOptions.__dataclass_fields__} <= picker_args | {"entry_point"}
    assert "output" in RerankOptions.__dataclass_fields__ and inspect.signature(rerank).parameters
    for o in OPTIONS:
        name = o.face_name("evalplus")
        if name == f"--{o.name}":
            assert o.name in EVALPLUS, o.name


def test_names_page_is_the_table():
    assert (REPO / "docs" / "names.md").read_text(encoding="utf-8") == names_page()
