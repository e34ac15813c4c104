"""One vocabulary (coderank_evalplus/api/options.py): every flag has one name, type, default and meaning on every
subcommand that has it; every nonsense value is refused where it is given, in one line; docs/names.md is the table."""

from __future__ import annotations

import argparse
import inspect
import json
import re

import pytest

from coderank_evalplus.api.options import (
    API_KEYS,
    LM_EVAL_KEYS,
    OPTIONS,
    RULES,
    SUITE_KEYS,
    OptionError,
    RerankOptions,
    names_page,
    option,
)
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


def test_the_frontends_take_the_names_the_table_gives_them():
    from coderank_evalplus.api import suite
    from coderank_evalplus.api.evaluate import rerank
    from coderank_evalplus.api.picking import Picker
    from coderank_evalplus.integrations.evalplus import OPTIONS as EVALPLUS

    option_names = {o.name for o in OPTIONS}
    suite_keys = (suite._TOP_KEYS | suite._ENTRY_KEYS) & option_names
    assert SUITE_KEYS == suite_keys
    pytest.importorskip("lm_eval")
    from coderank_evalplus.integrations import lm_eval

    assert LM_EVAL_KEYS == set(lm_eval.DEFAULTS) - {"rank_seed", "results_dir"}
    assert option("seed").frontend_name("lm_eval") == "rank_seed"
    picker_args = set(inspect.signature(Picker.__init__).parameters) | set(
        inspect.signature(Picker.pick).parameters)
    assert API_KEYS - {f for f in RerankOptions.__dataclass_fields__} <= picker_args | {"entry_point"}
    assert "output" in RerankOptions.__dataclass_fields__ and inspect.signature(rerank).parameters
    for o in OPTIONS:
        name = o.frontend_name("evalplus")
        if name == f"--{o.name}":
            assert o.name in EVALPLUS, o.name


def test_names_page_is_the_table():
    assert (REPO / "docs" / "names.md").read_text(encoding="utf-8") == names_page()


# one combination each rule refuses (api.options.RULES), by the rule's first option
BREAKS = {"limit": {"limit": 2, "task_ids": "HumanEval/0"}, "ray_address": {"ray_address": "127.0.0.1:1"},
          "select_backend": {"select_backend": "hf"},
          "select_base_url": {"select_model": "m", "select_backend": "hf", "select_base_url": "http://x/v1"},
          "debug_rounds": {"debug_rounds": 2}, "tau": {"tau": 0.5}}


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.names[0])
def test_each_rule_is_refused_on_every_frontend_in_its_words(rule, tmp_path):
    from coderank_evalplus.cli.options import check_combinations
    from coderank_evalplus.integrations.evalplus import OPTIONS as EVALPLUS
    from coderank_evalplus.integrations.evalplus import RerankError, make_evaluate

    given = BREAKS[rule.names[0]]
    required = {"rerank": ["--solutions", "x"], "pick": ["p.py", "c.jsonl"], "budget": ["folder"]}
    frontends = 0
    for command in COMMANDS:  # the CLI: every subcommand that has the options
        if not all(command in option(n).commands for n in given):
            continue
        argv = [command, *required.get(command, [])]
        for name, value in given.items():
            argv += [option(name).flag, str(value)]
        with pytest.raises(OptionError) as refused:
            check_combinations(build_parser().parse_args(argv))
        assert str(refused.value) == rule.says.format(**{n: option(n).flag for n in rule.names}), command
        frontends += 1
    if all(n in RerankOptions.__dataclass_fields__ for n in given):  # the Python API
        with pytest.raises(OptionError, match=re.escape(rule.says.format(**{n: n for n in rule.names}))):
            RerankOptions(**{k: [v] if k == "task_ids" else v for k, v in given.items()}).check()
        frontends += 1
    if all(n in EVALPLUS for n in given):  # evalplus.evaluate
        evaluate = make_evaluate(lambda dataset, samples=None, **kw: None, {})
        with pytest.raises(RerankError) as refused:
            evaluate("humaneval", "s.jsonl", rerank="codet", **given)
        assert str(refused.value) == rule.says.format(**{n: f"--{n}" for n in rule.names})
        frontends += 1
    if all(n in SUITE_KEYS for n in given):  # a suite file
        from coderank_evalplus.api.suite import SuiteError, load_suite

        (tmp_path / "s.jsonl").write_text("")
        (tmp_path / "suite.toml").write_text('[[entry]]\nname = "m"\nsolutions = "s.jsonl"\n'
                                             + "".join(f"{k} = {json.dumps([v] if k == 'task_ids' else v)}\n"
                                                       for k, v in given.items()))
        with pytest.raises(SuiteError, match=re.escape(rule.says.format(**{n: n for n in rule.names}))):
            load_suite(tmp_path / "suite.toml")
        frontends += 1
    assert frontends >= 2


def test_run_takes_the_ray_address_for_its_vllm_engines():
    """run --dp N joins the Ray cluster at --ray-address with vLLM's engines: not refused after parsing; the
    executor, still local, gets no address."""
    from coderank_evalplus.cli.options import check_combinations, rerank_options

    args = build_parser().parse_args(["run", "--backend", "vllm", "--dp", "2", "--ray-address", "127.0.0.1:1"])
    check_combinations(args)
    assert rerank_options(args, "run").ray_address is None and args.ray_address == "127.0.0.1:1"
    args = build_parser().parse_args(["run", "--dp", "2", "--ray-address", "h:1", "--executor", "ray"])
    assert rerank_options(args, "run").ray_address == "h:1"
    with pytest.raises(OptionError, match="--ray-address: needs --executor ray"):
        check_combinations(build_parser().parse_args(["run", "--ray-address", "h:1"]))
