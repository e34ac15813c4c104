"""Self-debug (SD-1, SD-Multi) with a scripted fake model: which candidates are debugged, the feedback shown,
how rounds stop, what is recorded, resuming, and the before/after tables. Real execution engine, judge and
feedback probes on one small made-up problem (no dataset needed)."""

from __future__ import annotations

import json

import pytest

from coderank_evalplus.api.evaluate import stage_config
from coderank_evalplus.api.options import RerankOptions
from coderank_evalplus.doce.feedback import Probe, call_of, feedback_text, probe_all
from coderank_evalplus.doce.selfdebug import DebugSettings, run_self_debug, trial_outcomes
from coderank_evalplus.engine.execution.execute import ExecutionStats, ResultCache
from coderank_evalplus.engine.sandbox import Limits
from coderank_evalplus.generation import Sample
from coderank_evalplus.pipeline import rank_and_judge
from coderank_evalplus.testgen.prompt_examples import make_test_prompt_body, trial_tests_from_prompt
from coderank_evalplus.types import Problem

PROMPT = 'def add(a, b):\n    """ Add two numbers.\n    >>> add(1, 2)\n    3\n    >>> add(2, 2)\n    4\n    """\n'
PROBLEM = Problem(task_id="T/0", dataset="humaneval", prompt=PROMPT, entry_point="add",
                  trial_tests=tuple(trial_tests_from_prompt(PROMPT, "add")),
                  test_prompt_body=make_test_prompt_body(PROMPT, "add"),
                  original_test="assert add(1, 2) == 3\nassert add(-1, 5) == 4\nassert add(0, 0) == 0\n")
PROBLEMS = {"T/0": PROBLEM}
TESTS = {"T/0": ["add(1, 1) == 2\nassert add(0, 0) == 0\nassert add(2, 3) == 5"]}

RIGHT, MINUS, TIMES = "    return a + b\n", "    return a - b\n", "    return a * b\n"
BOOM, BROKEN = "    return 1 / 0\n", "    return a + b +\n"


class ScriptedModel:
    """A base model that rewrites a debugged body according to ``fixes`` (shown body → new body)."""

    is_chat = False

    def __init__(self, fixes):
        self.fixes = fixes
        self.prompts = []

    def generate(self, prompts, n, temperature, top_p, max_tokens, stop):
        out = []
        for p in prompts:
            self.prompts.append(p)
            assert "# A corrected version of the code above:\n" + PROMPT in p and p.endswith(PROMPT)
            shown = p.split("\n\n\n# The code above is wrong.")[0][len(PROMPT):] + "\n"
            out.append([Sample(self.fixes[shown])] * n)
        return out

    def score(self, pairs):
        return [(-0.1 * len(cont), max(1, len(cont) // 4)) for _, cont in pairs]


def _setup(tmp_path, bodies, methods):
    solutions = {"T/0": [PROMPT + b for b in bodies]}
    cfg = stage_config(RerankOptions(methods=methods, workers=2, progress=False))
    cache = ResultCache(tmp_path / "cache" / "executions.sqlite")
    before = rank_and_judge("humaneval", PROBLEMS, solutions, TESTS, cfg, cache)
    return solutions, cfg, cache, before


def _log(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_call_and_feedback_sentences():
    assert call_of("assert add(1, 2) == 3", "add") == "add(1, 2)"
    assert call_of("assert abs(add(1.0, 2.0) - 3.0) < 1e-6", "add") == "add(1.0, 2.0)"
    t = "assert add(1, 2) == 3"
    assert feedback_text(t, "fail", ("returned", "add(1, 2)", "-1")) == \
        "The test `assert add(1, 2) == 3` failed: `add(1, 2)` returned `-1`."
    assert feedback_text(t, "error", ("raised", "add(1, 2)", "ZeroDivisionError: division by zero")) == \
        "The test `assert add(1, 2) == 3` failed: `add(1, 2)` raised ZeroDivisionError: division by zero."
    assert feedback_text(t, "timeout", ("timeout",)) == \
        "The test `assert add(1, 2) == 3` failed: it did not finish within the time limit."
    assert feedback_text(t, "import", ("import-error", "SyntaxError: invalid syntax (<candidate>, line 8)")) == \
        "The code does not run: SyntaxError: invalid syntax (<candidate>, line 8)."


def test_probes_tell_what_the_candidate_returned_or_raised():
    t = "assert add(1, 2) == 3"
    odd = "assert str(add(1, 2)) == '3'"  # no call the parser knows: the entry-point call inside is shown
    got = probe_all([Probe(PROMPT + b, t, "add") for b in (MINUS, BOOM, BROKEN, "    return [a] * 200\n")]
                    + [Probe(PROMPT + MINUS, odd, "add"), Probe(PROMPT + "    assert a < 0\n", t, "add")], workers=2)
    assert got[0] == ("returned", "add(1, 2)", "-1")
    assert got[1] == ("raised", "add(1, 2)", "ZeroDivisionError: division by zero")
    assert got[2][0] == "import-error" and got[2][1].startswith("SyntaxError")
    assert got[3][0] == "returned" and got[3][2].endswith("…") and len(got[3][2]) == 301  # long reprs are cut
    assert got[4] == ("returned", "add(1, 2)", "-1")
    assert got[5] == ("raised", "add(1, 2)", "AssertionError")


def test_trial_outcomes_come_from_the_cache(tmp_path):
    solutions, cfg, cache, _ = _setup(tmp_path, [RIGHT, MINUS, BOOM, BROKEN], ["mbr_exec"])
    stats = ExecutionStats()
    outs = trial_outcomes(PROBLEMS, solutions, cache, Limits(cpu=cfg.time_limit), 2, False, stats)["T/0"]
    assert stats.executed_pairs == 0 and stats.cached_pairs > 0  # rerank executed them already
    assert [(o.first_fail, o.status) for o in outs] == [(None, "pass"), (0, "fail"), (0, "error"), (0, "import")]
    cache.close()


@pytest.mark.slow
def test_self_debug_runs_on_the_runs_executor(tmp_path, monkeypatch):
    """Handed the run's executor, self-debug's trial tests, feedback probes and the debugged pool's rerank and judge
    all run on its workers: no pool of their own."""
    from coderank_evalplus.engine.execution.executors import LocalExecutor, WarmPools

    bodies = [RIGHT, MINUS, BOOM]
    solutions, cfg, _, before = _setup(tmp_path, bodies, ["mbr_exec"])
    cache = ResultCache(tmp_path / "fresh" / "executions.sqlite")  # nothing cached: every trial test runs
    model = ScriptedModel({MINUS: RIGHT, BOOM: "    return a + b + 0\n"})
    kinds: list[str] = []

    class Counted(WarmPools):
        def run(self, name, args, on_lost=None):
            kinds.append(name)
            yield from super().run(name, args, on_lost)

    def refuse(*args, **kwargs):
        raise AssertionError("self-debug made a pool of its own")

    monkeypatch.setattr(LocalExecutor, "__init__", refuse)
    with Counted(2) as executor:
        res = run_self_debug("humaneval", PROBLEMS, solutions, TESTS, cfg, cache, before, model,
                             DebugSettings("multi"), tmp_path, executor=executor)
    assert res.block["now_pass_trial_tests"] == 2 and len(set(kinds)) >= 3  # execution, probes, judge
    cache.close()


@pytest.mark.slow
def test_multi_debugs_every_failing_candidate_once_then_reranks(tmp_path):
    bodies = [RIGHT, MINUS, TIMES, BOOM, BROKEN, RIGHT, MINUS]
    solutions, cfg, cache, before = _setup(tmp_path, bodies, ["first", "mbr_exec", "filter+mbr_exec"])
    model = ScriptedModel({MINUS: RIGHT, TIMES: TIMES, BOOM: "    return a + b + 0\n", BROKEN: MINUS})
    res = run_self_debug("humaneval", PROBLEMS, solutions, TESTS, cfg, cache, before, model,
                         DebugSettings("multi"), tmp_path)
    d = {c: res.debugged[("T/0", c)] for c in (1, 2, 3, 4)}
    assert set(res.debugged) == {("T/0", c) for c in (1, 2, 3, 4, 6)}  # 0 and 5 pass their trial tests
    assert len(model.prompts) == 4  # 6 is 1's program: one greedy rewrite serves both
    assert res.debugged[("T/0", 6)].rounds == res.debugged[("T/0", 1)].rounds
    assert [len(x.rounds) for x in d.values()] == [1, 1, 1, 1]  # one round each (multi's default)
    assert [x.stop for x in d.values()] == ["passes", "unchanged", "passes", "rounds"]
    # the feedback shown: what each candidate returned, raised, or why it did not run
    fb = {c: x.rounds[0].feedback for c, x in d.items()}
    assert fb[1] == "The test `assert add(1, 2) == 3` failed: `add(1, 2)` returned `-1`."
    assert fb[2] == "The test `assert add(1, 2) == 3` failed: `add(1, 2)` returned `2`."
    assert fb[3] == ("The test `assert add(1, 2) == 3` failed: `add(1, 2)` raised ZeroDivisionError: "
                     "division by zero.")
    assert fb[4].startswith("The code does not run: SyntaxError")
    assert any("# The code above is wrong. The test `assert add(1, 2) == 3` failed: `add(1, 2)` returned `-1`."
               in p for p in model.prompts)
    # recorded per round; the debugged pool as evalplus samples
    log = _log(tmp_path / "self_debug_multi.jsonl")
    assert sorted(r["sample"] for r in log) == [1, 2, 3, 4, 6] and all(r["round"] == 1 for r in log)
    assert {r["sample"]: r["program"] for r in log}[1] == PROMPT + RIGHT
    pool = _log(tmp_path / "samples_multi.jsonl")
    assert [r["solution"] for r in pool] == [PROMPT + b for b in
                                             [RIGHT, RIGHT, TIMES, "    return a + b + 0\n", MINUS, RIGHT, RIGHT]]
    assert pool[1]["self_debug_stop"] == "passes" and "self_debug_stop" not in pool[0]
    # before/after: oracle unchanged (a correct candidate existed), random improves, every method is reported
    b, a = before.methods, res.block["methods"]
    assert list(a) == ["random", "first", "mbr_exec", "filter+mbr_exec", "oracle"]
    assert b["random"]["base"]["pass@1"] == pytest.approx(100 * 2 / 7, abs=0.01)
    assert a["random"]["base"]["pass@1"] == pytest.approx(100 * 5 / 7, abs=0.01)
    assert a["oracle"]["base"]["pass@1"] == 100.0
    assert res.block["candidates_debugged"] == 5 and res.block["now_pass_trial_tests"] == 3
    assert res.block["rewritten"] == 4 and res.block["stopped_unchanged"] == 1
    # nothing cached is executed again: the pool's old programs came from the cache
    assert res.after.stats["executed_items"] < res.after.stats["cached_items"]

    # a rerun resumes from the log: no model call, no execution
    again = ScriptedModel({})
    res2 = run_self_debug("humaneval", PROBLEMS, solutions, TESTS, cfg, cache, before, again,
                          DebugSettings("multi"), tmp_path)
    assert again.prompts == [] and res2.block == res.block and res2.after.stats["executed_items"] == 0
    assert len(_log(tmp_path / "self_debug_multi.jsonl")) == 5
    cache.close()


@pytest.mark.slow
def test_sd1_debugs_each_methods_top_pick_for_up_to_three_rounds(tmp_path):
    bodies = [MINUS, RIGHT, TIMES, RIGHT]
    solutions, cfg, cache, before = _setup(tmp_path, bodies, ["first", "mbr_exec"])
    model = ScriptedModel({MINUS: TIMES, TIMES: RIGHT})
    res = run_self_debug("humaneval", PROBLEMS, solutions, TESTS, cfg, cache, before, model,
                         DebugSettings("sd1"), tmp_path)
    # first's top pick: 0 (fails); mbr_exec's top cluster: {1, 3} (pass their trial tests): only 0 is debugged
    assert set(res.debugged) == {("T/0", 0)}
    d = res.debugged[("T/0", 0)]
    assert [r.program for r in d.rounds] == [PROMPT + TIMES, PROMPT + RIGHT] and d.stop == "passes"
    assert d.rounds[1].feedback == "The test `assert add(1, 2) == 3` failed: `add(1, 2)` returned `2`."
    assert d.rounds[1].shown == PROMPT + TIMES
    b, a = before.methods, res.block["methods"]
    assert b["first"]["base"]["pass@1"] == 0.0 and a["first"]["base"]["pass@1"] == 100.0
    assert {s: a["mbr_exec"][s] for s in ("base", "plus")} == {s: b["mbr_exec"][s] for s in ("base", "plus")}
    # its pick was right and stays; after the rewrites (trial-test feedback) every row used the prompt's examples
    assert all(v["uses_prompt_examples"] for v in a.values()) and not b["mbr_exec"]["uses_prompt_examples"]
    assert res.block["rounds"] == 3 and res.block["mode"] == "sd1"
    cache.close()


@pytest.mark.slow
def test_rounds_stop_at_the_limit(tmp_path):
    solutions, cfg, cache, before = _setup(tmp_path, [MINUS, TIMES], ["first"])
    model = ScriptedModel({MINUS: TIMES, TIMES: MINUS})  # never right, never the same as shown
    res = run_self_debug("humaneval", PROBLEMS, solutions, TESTS, cfg, cache, before, model,
                         DebugSettings("sd1", rounds=2), tmp_path)
    d = res.debugged[("T/0", 0)]
    assert len(d.rounds) == 2 and d.stop == "rounds" and len(model.prompts) == 2
    assert res.block["out_of_rounds"] == 1
    # SD-Multi on the same samples, in the same folder: both blocks land in rerank_results.json side by side
    from coderank_evalplus.doce.selfdebug import add_to_results
    from coderank_evalplus.pipeline import write_results

    multi = run_self_debug("humaneval", PROBLEMS, solutions, TESTS, cfg, cache, before, model,
                           DebugSettings("multi"), tmp_path)
    path = write_results(before, tmp_path)
    add_to_results(path, tmp_path)
    blocks = json.loads(path.read_text())["self_debug"]
    assert blocks["sd1"] == json.loads(json.dumps(res.block)) and blocks["multi"]["candidates_debugged"] == 2
    assert multi.block["mode"] == "multi"
    cache.close()


def test_settings_are_checked():
    with pytest.raises(ValueError, match="sd1, multi"):
        DebugSettings("sd2")
    with pytest.raises(ValueError, match="at least 1"):
        DebugSettings("multi", rounds=0)
    assert DebugSettings("sd1").n_rounds == 3 and DebugSettings("multi").n_rounds == 1


def test_features_of_the_debugged_pool():
    from coderank_evalplus.doce.selfdebug import Debugged, Round, pool_features

    pool = {"T/0": [PROMPT + RIGHT, PROMPT + TIMES, PROMPT + MINUS]}
    debugged = {("T/0", 0): Debugged("T/0", 0, PROMPT + MINUS, [Round(1, PROMPT + MINUS, "t", "f", PROMPT + RIGHT)]),
                ("T/0", 1): Debugged("T/0", 1, PROMPT + TIMES, [Round(1, PROMPT + TIMES, "t", "f", PROMPT + TIMES)])}
    feats = {"T/0": {"logprob": [-1.0, -2.0, -3.0], "logprob_tokens": [1, 1, 1],
                     "reviewer_logprob": [-4.0, -5.0, -6.0], "reviewer_logprob_tokens": [1, 1, 1]}}
    model = ScriptedModel({})
    got = pool_features(feats, PROBLEMS, pool, debugged, {"coder", "reviewer"}, model)
    # only candidate 0 changed: its coder and reviewer values are scored, the others kept
    assert got["T/0"]["logprob"][1:] == [-2.0, -3.0] and got["T/0"]["logprob"][0] == -0.1 * len(RIGHT)
    assert got["T/0"]["reviewer_logprob"][1:] == [-5.0, -6.0] and got["T/0"]["reviewer_logprob"][0] != -4.0
    assert feats["T/0"]["logprob"][0] == -1.0  # the originals' features are not modified
    # values of an earlier run's pool are reused, nothing is scored
    known = [{"task_id": "T/0", "solution": PROMPT + RIGHT, "logprob": -7.0, "logprob_tokens": 2,
              "reviewer_logprob": -8.0, "reviewer_logprob_tokens": 2}]
    again = pool_features(feats, PROBLEMS, pool, debugged, {"coder", "reviewer"}, object(), known)
    assert again["T/0"]["logprob"][0] == -7.0 and again["T/0"]["reviewer_logprob"][0] == -8.0

    class ChatModel(ScriptedModel):
        is_chat = True

        def apply_chat_template(self, messages):
            return messages[-1]["content"]

    chat = pool_features(feats, PROBLEMS, pool, debugged, {"coder"}, ChatModel({}))
    # a chat model's sampled value covers its whole reply: every candidate's coder likelihood is scored anew
    assert all(v != old for v, old in zip(chat["T/0"]["logprob"], [-1.0, -2.0, -3.0]))
