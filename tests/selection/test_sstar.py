"""S* (``selection.sstar``) against a chat server on 127.0.0.1 that answers the selection prompts from a script
(tests/generation/chat_server.py, scripted): the decision follows the scripted verdict, the evidence names the
deciding input and both sides' outputs, the replies are logged and a rerun asks the server nothing."""

from __future__ import annotations

import json
import re

import pytest

from coderank_evalplus.types import Group, Problem, Ranking
from tests.generation.chat_server import CannedChatServer

pytest.importorskip("openai")

MODEL = "scripted-judge"
PROMPT = 'def add(a, b):\n    """Return the sum of a and b.\n    >>> add(1, 2)\n    3\n    """\n'
RIGHT = "def add(a, b):\n    return a + b\n"
WRONG = "def add(a, b):\n    return abs(a) + b\n"  # agrees with RIGHT on every non-negative a
ALSO_RIGHT = "def add(a, b):\n    c = a + b\n    return c\n"


class ScriptedServer(CannedChatServer):
    """Every user message answered by ``script(text)``; ``asked`` keeps the messages in the order they came."""

    def __init__(self, script) -> None:
        super().__init__({}, {}, MODEL)
        self.script, self.asked = script, []

    def task_of(self, text: str):
        return text

    def draw(self, text: str, n: int) -> list[str]:
        with self.lock:
            self.asked.append(text)
        return [self.script(text)] * n


def _samples(text: str) -> list[str]:
    """The judge prompt's two code blocks, first shown first."""
    return re.findall(r"\[Sample \d\]: ### Code ###\n```python\n(.*?)```", text, re.S)


def script_favouring(marker: str, inputs: str = "add(1, 2)\nadd(-1, 2)\nadd(0, 0)"):
    """Inputs: ``inputs``; judge: the sample whose code holds ``marker`` (as a careful model would answer)."""
    def answer(text: str) -> str:
        if "[Sample 0]" in text:
            codes = _samples(text)
            k = 0 if marker in codes[0] else 1
            return f"Let me think about it.\nAnswer: {k}"
        return f"Here are inputs:\n```python\n{inputs}\n```\n"
    return answer


def always_zero(text: str) -> str:
    """A judge with a position bias: always the first sample (S*'s two orders catch it)."""
    if "[Sample 0]" in text:
        return "Answer: 0"
    return "```python\nadd(-3, 1)\n```"


@pytest.fixture()
def problem() -> Problem:
    return Problem("T/add", "humaneval", PROMPT, "add", trial_tests=("assert add(1, 2) == 3",))


def _pair(problem, programs, a, b, contenders):
    from coderank_evalplus.selection.sstar import Pair

    return Pair(problem, list(programs), a, b, list(contenders))


def _decide(srv, pairs, tmp_path, **kw):
    from coderank_evalplus.engine.execution.execute import ResultCache
    from coderank_evalplus.generation import make_generator
    from coderank_evalplus.selection.sstar import decide

    gen = make_generator("openai", MODEL, base_url=srv.url, chat=True)
    cache = ResultCache(tmp_path / "cache" / "executions.sqlite")
    try:
        return decide(pairs, gen, str(tmp_path / "sstar.jsonl"), MODEL, cache=cache, workers=1, **kw)
    finally:
        cache.close()


def test_the_decision_follows_the_scripted_verdict_with_its_evidence(problem, tmp_path):
    """The ranking put the wrong program first; the script's judge prefers the right one: B wins, its side (the
    right program and its look-alike) becomes the top group, and the reasons show the deciding input and what each
    side returned there."""
    from coderank_evalplus.metrics import pick_pool
    from coderank_evalplus.selection.sstar import apply_decision

    programs = [WRONG, RIGHT, WRONG, ALSO_RIGHT]
    ranking = Ranking([Group([0, 2], 3.0), Group([1, 3], 2.0)])
    with ScriptedServer(script_favouring("a + b")) as srv:
        got = _decide(srv, [_pair(problem, programs, 0, 1, [0, 1, 2, 3])], tmp_path)[0]
        assert len(srv.asked) == 3  # one input question (it separated them at once), the judge in two orders
    assert (got.winner, got.why, got.answers) == ("B", "agreed", [1, 0])
    assert got.sides == {"A": [0, 2], "B": [1, 3]}
    assert [s.input for s in got.shown] == ["add(-1, 2)"]  # the only input on which they differ
    assert (got.shown[0].a, got.shown[0].b) == ("returns 3", "returns 1")
    reasons = " ".join(got.reasons())
    assert "add(-1, 2)" in reasons and "returns 3" in reasons and "returns 1" in reasons
    assert "B kept: 2 of 4" in reasons
    new = apply_decision(ranking, got)
    assert pick_pool(new, 4) == [1, 3]
    assert new.info["sstar"]["winner_index"] == 1
    assert pick_pool(ranking, 4) == [0, 2]  # the input ranking is left as it was


def test_the_judge_is_not_second_guessed(problem, tmp_path):
    """A script that favours the wrong program wins too: the decision is the model's, not the machinery's."""
    programs = [RIGHT, WRONG]
    with ScriptedServer(script_favouring("abs(")) as srv:
        got = _decide(srv, [_pair(problem, programs, 0, 1, [0, 1])], tmp_path)[0]
    assert (got.winner, got.winner_index) == ("B", 1)


def test_a_position_bias_decides_nothing(problem, tmp_path):
    """'The first one' in both orders is no decision (S*'s rule): the ranking stands."""
    from coderank_evalplus.selection.sstar import apply_decision

    with ScriptedServer(always_zero) as srv:
        got = _decide(srv, [_pair(problem, [WRONG, RIGHT], 0, 1, [0, 1])], tmp_path)[0]
    assert (got.winner, got.why, got.answers) == (None, "disagree", [0, 0])
    ranking = Ranking([Group([0], 2.0), Group([1], 1.0)])
    assert apply_decision(ranking, got).groups[0].candidates == [0]
    assert "the ranking stands" in got.reasons()[-1]


def test_inputs_that_do_not_separate_are_asked_again_up_to_three_times(problem, tmp_path):
    """S*'s three attempts, at temperatures 0.71, 0.72, 0.73; no judge is asked when nothing separated them."""
    with ScriptedServer(script_favouring("a + b", inputs="add(1, 2)\nadd(5, 5)")) as srv:
        got = _decide(srv, [_pair(problem, [WRONG, RIGHT], 0, 1, [0, 1])], tmp_path)[0]
        assert len(srv.asked) == 3 and not any("[Sample 0]" in t for t in srv.asked)
    assert (got.winner, got.why, got.attempts) == (None, "no distinguishing input", 3)
    temps = [json.loads(line) for line in open(tmp_path / "sstar.jsonl")]
    assert [r["step"] for r in temps] == ["inputs 1", "inputs 2", "inputs 3"]
    assert "do not tell" in got.reasons()[0]


def test_replies_are_logged_and_a_rerun_asks_nothing(problem, tmp_path):
    """The second run reads every reply from the log: no request reaches the server, the same decisions."""
    other = Problem("T/add2", "humaneval", PROMPT.replace("the sum", "the sum (again)"), "add")
    pairs = [_pair(problem, [WRONG, RIGHT], 0, 1, [0, 1]), _pair(other, [RIGHT, WRONG], 0, 1, [0, 1])]
    with ScriptedServer(script_favouring("a + b")) as srv:
        first = _decide(srv, pairs, tmp_path)
        n = len(srv.asked)
        again = _decide(srv, pairs, tmp_path)
        assert len(srv.asked) == n == 6
    assert [d.to_json() | {"model_calls": 0} for d in first] == [d.to_json() for d in again]
    assert [d.winner for d in again] == ["B", "A"]
    assert sum(d.model_calls for d in first) == 6 and sum(d.model_calls for d in again) == 0
    log = [json.loads(line) for line in open(tmp_path / "sstar.jsonl")]
    assert len(log) == 6 and {r["task_id"] for r in log} == {"T/add", "T/add2"}


def test_a_killed_run_resumes_from_its_log(problem, tmp_path):
    """A torn last line (a run killed mid-write) is dropped and that reply asked again; the others are kept."""
    pairs = [_pair(problem, [WRONG, RIGHT], 0, 1, [0, 1])]
    with ScriptedServer(script_favouring("a + b")) as srv:
        _decide(srv, pairs, tmp_path)
        log = tmp_path / "sstar.jsonl"
        lines = log.read_text().splitlines(keepends=True)
        log.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
        got = _decide(srv, pairs, tmp_path)[0]
        assert len(srv.asked) == 4  # 3, then the one judge reply whose line was torn
    assert got.winner == "B" and got.model_calls == 1


def test_reading_the_replies(problem):
    from coderank_evalplus.selection.sstar_prompts import parse_inputs, parse_verdict

    assert parse_verdict("reasoning…\nAnswer: 1") == 1
    assert parse_verdict("**Answer:** 2") == 2
    assert parse_verdict("I think the first one.") is None
    assert parse_verdict(" 0\n", base=True) == 0
    reply = "```python\nadd(1, 2)\nassert add(-1, 2) == 1\nadd(x, 2)\nadd(1,\n    2)\nprint('hi')\n```"
    assert parse_inputs(reply, problem) == ["add(1, 2)", "add(-1, 2)"]
    stdin = Problem("S/1", "x", "Read n and print n+1.", "main", shape="stdin")
    assert parse_inputs('```json\n[{"input": "3"}, {"input": "4\\n"}]\n```', stdin) == \
        ["run_stdin('3\\n')", "run_stdin('4\\n')"]


def test_pick_reasons_show_the_deciding_input(tmp_path):
    """``Picker(select_model=…)`` (``pick --select-model``): S* runs after the ranking, the pick follows the judge,
    and the reasons show the deciding input, each side's output and the verdict."""
    from coderank_evalplus.api.picking import Picker

    with ScriptedServer(script_favouring("abs(")) as srv:  # a judge that prefers the wrong program
        with Picker("codet", mutate=0, workers=1, cache_dir=tmp_path, select_model=MODEL,
                    select_base_url=srv.url) as picker:
            chosen = picker.pick(PROMPT, [RIGHT, WRONG, RIGHT], names=["r0", "w1", "r2"])
        assert any("[Sample 0]" in t for t in srv.asked)
    assert chosen.index == 1
    why = "\n".join(chosen.reasons)
    assert "S*: on add(-1, 2): A (r0) returns 1, B (w1) returns 3" in why
    assert "B kept: 1 of 3" in why
    assert (tmp_path / "select_sstar.jsonl").is_file()


def test_select_options_are_checked():
    from coderank_evalplus.api.options import OptionError, RerankOptions

    with pytest.raises(OptionError, match="select_base_url: needs select_backend openai"):
        RerankOptions(select_model="m", select_backend="hf", select_base_url="http://x").check()
    with pytest.raises(OptionError, match="need select_model"):
        RerankOptions(select_base_url="http://x").check()


GCD_RIGHT = ("def greatest_common_divisor(a: int, b: int) -> int:\n    while b:\n        a, b = b, a % b\n"
             "    return a\n")
GCD_WRONG = ("def greatest_common_divisor(a: int, b: int) -> int:\n"
             "    return min(a, b) if max(a, b) % min(a, b) == 0 else 1\n")


@pytest.mark.slow
def test_rerank_with_select_model_changes_the_pick_before_the_judge(tmp_path):
    """The one entry point (``api.rerank`` → ``rank_and_judge``): S* runs after ranking and before judging, so the
    pass@1 of the method follows the judge's verdict — here a judge that prefers the wrong program turns CodeT's right
    pick into a wrong one; the decision and its evidence are in rerank_results.json."""
    from coderank_evalplus.api import rerank
    from tests.conftest import SHARED_DATA

    if not SHARED_DATA.is_dir():
        pytest.skip("shared data not present")
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps({"task_id": "HumanEval/13", "solution": s}) + "\n"
                               for s in (GCD_WRONG, GCD_RIGHT, GCD_WRONG)))
    kw = dict(tests="examples+mutate:0", dataset="humaneval", data_dir=str(SHARED_DATA), task_ids=["HumanEval/13"],
              methods=["codet"], progress=False, workers=1)
    plain = rerank(str(samples), **kw)
    assert plain.result.methods["codet"]["base"]["pass@1"] == 100.0  # CodeT alone picks the right program

    def script(text: str) -> str:
        if "[Sample 0]" in text:
            return f"Answer: {0 if 'min(a, b)' in _samples(text)[0] else 1}"
        return "```python\ngreatest_common_divisor(4, 6)\ngreatest_common_divisor(3, 5)\n```"

    with ScriptedServer(script) as srv:
        out = rerank(str(samples), select_model=MODEL, select_base_url=srv.url, output=str(tmp_path / "out"), **kw)
    assert out.result.methods["codet"]["base"]["pass@1"] == 0.0
    res = json.loads((tmp_path / "out" / "rerank_results.json").read_text())
    d = res["sstar"]["decisions"]["HumanEval/13|codet"]
    assert d["winner_index"] in (0, 2) and d["why"] == "agreed" and sorted(d["sides"][d["winner"]]) == [0, 2]
    loser = "B" if d["winner"] == "A" else "A"
    assert d["shown"] == [{"input": "greatest_common_divisor(4, 6)", d["winner"]: "returns 1", loser: "returns 2"}]
    assert res["timing"]["select_model_calls"] == 3  # one input question, the judge in two orders
    assert (tmp_path / "out" / "select_sstar.jsonl").is_file()


def test_after_sstar_moves_the_pick_the_confidence_is_the_final_rankings(tmp_path):
    """A judge that prefers the wrong program moves CodeT's pick (one entry point: ``rank_and_judge``). The confidence
    reported is the confidence model's on the ranking S* left, computed once after the last step: not the one of
    the ranking before S*, which differs."""
    from coderank_evalplus.api.evaluate import stage_config
    from coderank_evalplus.api.options import RerankOptions
    from coderank_evalplus.engine.execution.execute import ResultCache
    from coderank_evalplus.metrics import pick_pool
    from coderank_evalplus.pipeline import rank_and_judge
    from coderank_evalplus.rankers.confidence import confidence
    from coderank_evalplus.selection.sstar import make_selector

    prob = Problem("T/add", "humaneval", PROMPT, "add", trial_tests=("assert add(1, 2) == 3",),
                   canonical_solution="    return a + b\n", base_input=[[1, 2], [-1, 2]],
                   dataset_hash="synthetic-sstar")
    sols = {"T/add": [RIGHT, WRONG, RIGHT]}
    cfg = stage_config(RerankOptions(methods=["codet"], workers=1, progress=False, base_only=True))
    cache = ResultCache(tmp_path / "c.sqlite")
    try:
        before = rank_and_judge("humaneval", {"T/add": prob}, sols, {}, cfg, cache).outcomes["T/add"]
        with ScriptedServer(script_favouring("abs(")) as srv:
            selector = make_selector(MODEL, "openai", srv.url, log_dir=tmp_path, chat=True)
            after = rank_and_judge("humaneval", {"T/add": prob}, sols, {}, cfg, cache, select=selector)
    finally:
        cache.close()
    out = after.outcomes["T/add"]
    assert pick_pool(before.rankings["codet"], 3) == [0, 1, 2] and pick_pool(out.rankings["codet"], 3) == [1]
    assert out.confidence["codet"] == confidence(out.rankings["codet"], out.executions)
    assert out.confidence["codet"] != before.confidence["codet"]
    assert after.extra["confidence"]["per_problem"]["codet"]["base"] == [out.confidence["codet"]["base"]]
