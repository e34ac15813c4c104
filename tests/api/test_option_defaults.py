"""Defaults written once (coderank_evalplus/api/options.py) and used as written on every front end: the CLI's
subcommands, evalplus.evaluate, lm-eval's metadata and task files, suite files and the Python API all take the
table's value; docs/names.md names the defaults the code uses; a run and a rerank without --output write under the
folder the page names."""

from __future__ import annotations

import inspect
import json
import re
from typing import Any

import pytest

from coderank_evalplus.api.options import OPTIONS, RerankOptions, command_options, option
from coderank_evalplus.cli.console import build_parser, main
from tests.conftest import REPO

# what each subcommand needs besides its options to parse
REQUIRED = {"rerank": ["--solutions", "s.jsonl"], "run": [], "pick": ["p.py", "c.jsonl"], "likelihood": [],
            "leaderboard": [], "budget": ["folder"]}


def _cli() -> list[tuple[str, str, Any, str]]:
    """(option, subcommand, the value the subcommand uses when the flag is not given, where it was read)."""
    from coderank_evalplus.cli.run import run_sources

    out = []
    for command, argv in REQUIRED.items():
        args = build_parser().parse_args([command, *argv])
        for o in command_options(command):
            if o.name == "solutions":  # required on rerank, given above
                continue
            value = run_sources(args) if (command, o.name) == ("run", "tests") else getattr(args, o.name)
            out.append((o.name, command, value, f"coderank-evalplus {command}"))
    return out


def _evalplus() -> list[tuple[str, str, Any, str]]:
    """evalplus.evaluate's flags of ours (the widened signature Fire reads) and the judge limits it owns, whose
    defaults the table repeats."""
    pytest.importorskip("evalplus")
    import evalplus.evaluate as ev

    from coderank_evalplus.integrations.evalplus import OPTIONS as OURS
    from coderank_evalplus.integrations.evalplus import widened_signature

    original = getattr(ev.evaluate, "__coderank_original__", ev.evaluate)
    params = widened_signature(original).parameters
    out = [(name, "evalplus", params[name].default, "evalplus.evaluate --help") for name in OURS if name != "rerank"]
    own = inspect.signature(original).parameters
    out += [(name, "evalplus", own[name].default, "evalplus's own evaluate()")
            for name in ("min_time_limit", "gt_time_limit_factor", "base_only")]
    return out


def _lm_eval() -> list[tuple[str, str, Any, str]]:
    """lm-eval's metadata defaults (``rank_seed`` is ``seed``), and what the task files set: the metadata lm-eval
    prints and the sampling settings of ``generation_kwargs``."""
    pytest.importorskip("lm_eval")
    import yaml

    from coderank_evalplus.integrations import lm_eval

    named = {o.frontend_name("lm_eval"): o.name for o in OPTIONS}  # its key there → the option (rank_seed: seed)
    assert set(lm_eval.DEFAULTS) - set(named) == {"results_dir"}  # (a key of lm-eval's front end alone)
    out = [(named[key], "lm_eval", value, "lm-eval --metadata") for key, value in lm_eval.DEFAULTS.items()
           if key in named]

    class Loader(yaml.SafeLoader):
        """Reads ``!function`` as its text."""

    Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))
    template = yaml.load((lm_eval.tasks_dir() / "_coderank_template_yaml").read_text(), Loader=Loader)
    out += [(key, "lm_eval", template["metadata"][key], "task template metadata")
            for key in ("n_samples", "n_test_samples")]
    out += [(key, "lm_eval", template["generation_kwargs"][key], "task template generation_kwargs")
            for key in ("temperature", "top_p")]
    return out


def _suite(tmp_path) -> list[tuple[str, str, Any, str]]:
    """A suite file that gives nothing but its entry: what its entry and the suite take."""
    from coderank_evalplus.api.options import SUITE_KEYS
    from coderank_evalplus.api.suite import load_suite

    (tmp_path / "s.jsonl").write_text("")
    (tmp_path / "suite.toml").write_text('[[entry]]\nname = "m"\nsolutions = "s.jsonl"\n')
    suite = load_suite(tmp_path / "suite.toml")
    entry = suite.entries[0]
    values = {"dataset": entry.dataset, "time_limit": entry.time_limit, "tests_per_sample": entry.tests_per_sample,
              "limit": entry.limit, "task_ids": entry.task_ids, "raw_field": entry.raw_field,
              "drop_extra_problems": entry.drop_extra_problems, "methods": suite.methods,
              "compare_to": suite.compare_to, "resamples": suite.n_resamples, "seed": suite.seed, "draws": suite.draws,
              "base_only": suite.base_only, "strict": suite.strict}
    assert set(values) <= SUITE_KEYS
    return [(key, "suite", value, "a suite file") for key, value in values.items()]


def _api() -> list[tuple[str, str, Any, str]]:
    """RerankOptions (what ``rerank(**options)`` fills in), ``rerank``, ``pick`` and ``Picker`` keywords, the
    leaderboard's config."""
    from coderank_evalplus.api.evaluate import rerank
    from coderank_evalplus.api.picking import Picker, pick
    from coderank_evalplus.report.board import LeaderboardConfig

    out = [(name, "api", f.default, "RerankOptions") for name, f in RerankOptions.__dataclass_fields__.items()]
    for where, fn in (("rerank", rerank), ("Picker", Picker.__init__), ("pick", pick)):
        out += [(name, "api", p.default, where) for name, p in inspect.signature(fn).parameters.items()
                if name in {o.name for o in OPTIONS} and p.default is not inspect.Parameter.empty]
    config = LeaderboardConfig()
    out += [(name, "api", getattr(config, attr), "LeaderboardConfig")
            for name, attr in (("methods", "methods"), ("compare_to", "compare_to"), ("resamples", "n_resamples"),
                               ("seed", "seed"), ("draws", "draws"))]
    return out


@pytest.fixture()
def frontends(tmp_path) -> list[tuple[str, str, Any, str]]:
    return _cli() + _evalplus() + _lm_eval() + _suite(tmp_path) + _api()


def _same(a: Any, b: Any) -> bool:
    """Equal as option values: a list and a tuple of the same items, 1 and 1.0."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return list(a) == list(b)
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a is b
    return a == b


def test_every_frontend_uses_the_tables_default(frontends):
    wrong = [f"{source}: {name} = {value!r}, the table says {option(name).default_for(where)!r}"
             for name, where, value, source in frontends if not _same(value, option(name).default_for(where))]
    assert not wrong, "\n".join(wrong)
    seen = {(where, source.split(" ")[0]) for _, where, _, source in frontends}
    assert {w for w, _ in seen} == {"rerank", "run", "pick", "likelihood", "leaderboard", "budget", "evalplus",
                                    "lm_eval", "suite", "api"}


def _page_defaults() -> dict[str, dict[str, str]]:
    """docs/names.md's default column: option → {"": the default, subcommand or front end: its own}."""
    out = {}
    for line in (REPO / "docs" / "names.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        text = cells[2].strip("`").replace("\\|", "|")
        base, *others = text.split("; ")
        out[cells[0].strip("`")] = {"": base, **dict(o.split(": ", 1) for o in others)}
    return out


def _shown(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    return str(value)


def test_every_default_named_on_the_names_page_is_the_one_the_code_uses(frontends):
    page = _page_defaults()
    assert set(page) == {o.name for o in OPTIONS}
    wrong = []
    for name, where, value, source in frontends:
        named = page[name].get(where, page[name][""])
        numbers_equal = re.fullmatch(r"-?[\d.]+", named) and isinstance(value, (int, float)) and \
            float(named) == value
        if _shown(value) != named and not numbers_equal:
            wrong.append(f"{source}: {name} = {_shown(value)}, docs/names.md says {named}")
    assert not wrong, "\n".join(wrong)


def test_run_and_rerank_without_output_write_under_the_folder_the_page_names(tmp_path, monkeypatch):
    from coderank_evalplus.cli import run as run_mod
    from coderank_evalplus.engine.execution.workers import CANDIDATE_LOG_ENV
    from tests.cli.test_run_problem_file import FUNCTIONS, PROBLEMS, StandIn

    help_text = option("output").help
    root = re.search(r"under \./([\w.-]+)", help_text)
    page = (REPO / "docs" / "names.md").read_text(encoding="utf-8")
    assert root and f"under ./{root.group(1)} " in page
    root_dir = tmp_path / root.group(1)
    (tmp_path / "mine.jsonl").write_text("".join(json.dumps(p) + "\n" for p in PROBLEMS))
    monkeypatch.setattr(run_mod, "make_model", lambda *a, **k: StandIn(FUNCTIONS))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(CANDIDATE_LOG_ENV, str(tmp_path / "before.log"))  # run sets it (relative): put it back after
    common = ["--dataset", "mine.jsonl", "--limit", "0", "--methods", "recommended", "--workers", "1", "--quiet"]
    assert main(["run", *common, "--model", "stand-in", "--n-samples", "2", "--n-test-samples", "1"]) == 0
    # run: <model>-<dataset>, as the help says
    assert (root_dir / "stand-in-mine.jsonl" / "rerank_results.json").is_file()
    assert main(["rerank", *common, "--solutions", str(root_dir / "stand-in-mine.jsonl" / "samples.jsonl")]) == 0
    folders = sorted(p.name for p in root_dir.iterdir())
    # rerank: <model>--<dataset>--<tests>; nothing written beside the documented root
    assert folders == ["samples--mine--examples+mutate_10", "stand-in-mine.jsonl"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == [root.group(1)]
    assert f"leaderboard: {option('output').default_for('leaderboard')}" in help_text
