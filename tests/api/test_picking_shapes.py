"""The API's pick on problems beyond a bare function: a LeetCode-style prompt given as text (a class with a method
and a docstring example) and a LiveCodeBench record; ``rerank`` on a problem file of every shape picks as ``pick``
picks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import coderank_evalplus as cr
from coderank_evalplus.io.problems import problem_from_prompt
from coderank_evalplus.types import FUNCTION, METHOD, STDIN
from tests.conftest import LOOKALIKE_DOES, lookalike_data

LEETCODE_PROMPT = '''class Solution:
    def twoSum(self, nums: List[int], target: int) -> List[int]:
        """Given an array of integers nums and an integer target, return the indices i < j of the two
        numbers that add up to target.

        Example 1:
        Input: nums = [2,7,11,15], target = 9
        Output: [0,1]

        Example 2:
        Input: nums = [3,2,4], target = 6
        Output: [1,2]
        """
'''
RIGHT = ("class Solution:\n    def twoSum(self, nums, target):\n        seen = {}\n"
         "        for i, x in enumerate(nums):\n            if target - x in seen:\n"
         "                return [seen[target - x], i]\n            seen[x] = i\n")
RIGHT_TOO = ("class Solution:\n    def twoSum(self, nums, target):\n        for i in range(len(nums)):\n"
             "            for j in range(i + 1, len(nums)):\n                if nums[i] + nums[j] == target:\n"
             "                    return [i, j]\n")
HARD_CODED = "class Solution:\n    def twoSum(self, nums, target):\n        return [0, 1]\n"


def test_a_leetcode_prompt_is_a_method_with_its_examples():
    p = problem_from_prompt(LEETCODE_PROMPT)
    assert (p.shape, p.entry_point, p.callee) == (METHOD, "twoSum", "Solution().twoSum")
    assert p.trial_tests == ("assert Solution().twoSum([2, 7, 11, 15], 9) == [0, 1]",
                             "assert Solution().twoSum([3, 2, 4], 6) == [1, 2]")
    assert problem_from_prompt(LEETCODE_PROMPT, "Solution").callee == "Solution().twoSum"  # the class named
    assert problem_from_prompt(LEETCODE_PROMPT, "twoSum").callee == "Solution().twoSum"


def test_pick_on_a_leetcode_prompt_picks_right_over_hard_coded():
    chosen = cr.pick(LEETCODE_PROMPT, [HARD_CODED, RIGHT, HARD_CODED, RIGHT_TOO], workers=1)
    assert chosen.index in (1, 3) and set(chosen.group) <= {1, 3}
    assert chosen.entry_point == "twoSum" and chosen.uses_prompt_examples
    examples = [e for e in chosen.evidence if e.kind == "example"]
    assert [e.pick_passes for e in examples] == [True, True] and examples[1].agree == 2


def test_pick_on_a_livecodebench_record_uses_its_public_tests():
    data = Path(__file__).parents[1] / "data" / "lcb"
    record = json.loads((data / "problems.jsonl").read_text().splitlines()[10])  # abc900_a, a stdin problem
    right = "n = int(input())\nprint(sum(map(int, input().split())))\n"
    wrong = "n = int(input())\nprint(n)\n"
    chosen = cr.pick(record, [wrong, right, wrong], workers=1)
    assert chosen.index == 1
    assert [e.text for e in chosen.evidence if e.kind == "example"] == [
        "assert run_stdin('3\\n1 2 3\\n') == '6\\n'", "assert run_stdin('2\\n10 -4\\n') == '6\\n'"]


# --- rerank ranks every shape as pick does --------------------------------------------------------------------
SHAPES = Path(__file__).parents[1] / "data" / "shapes"  # one file: a function, two methods, two stdin programs
# lcb_runner's own verdicts of the LiveCodeBench record's candidates (tests/data/lcb, bench/lcb_parity.py)
LCB_VERDICTS = {"abc900_a": json.loads((SHAPES.parent / "lcb" / "lcb_verdicts.json").read_text())["abc900_a"]}


def _shape_data() -> tuple[dict[str, dict], dict[str, list[dict]]]:
    records = {r.get("task_id") or r["question_id"]: r
               for r in map(json.loads, (SHAPES / "problems.jsonl").read_text().splitlines())}
    pools: dict[str, list[dict]] = {}
    for r in map(json.loads, (SHAPES / "samples.jsonl").read_text().splitlines()):
        pools.setdefault(r["task_id"], []).append(r)
    return records, pools


def _picked_as_pick_picks(output, records: dict[str, dict], pools: dict[str, list[dict]]) -> None:
    """Each problem's pick by ``rerank`` is ``pick``'s, given what a user gives ``pick``: the prompt's text for a
    problem tested by asserts (its shape decided from the prompt), else the record; the examples and grown inputs
    ran, and the judge's verdicts are the candidates' kinds."""
    picks = output.picks("recommended")
    with cr.Picker(workers=2) as picker:
        for tid in output.task_ids:
            rec = records[tid]
            given = rec["prompt"] if "test" in rec else rec
            chosen = picker.pick(given, [c["solution"] for c in pools[tid]], name=tid)
            assert (chosen.index, sorted(chosen.group)) == (picks[tid].index, sorted(picks[tid].group)), tid
            outcome = output.result.outcomes[tid]
            assert outcome.executions.trial_matrix.shape[1] >= 1, tid  # the examples ran
            assert outcome.executions.output_matrix.shape[1] >= 1, tid  # and inputs grown from them
            verdicts = [outcome.verdicts[i].base for i in range(len(pools[tid]))]
            assert verdicts == LCB_VERDICTS.get(tid, [c["kind"] == "right" for c in pools[tid]]), tid


def test_rerank_ranks_a_class_solution_problem_of_your_own_as_pick_does(tmp_path):
    """The documented own format (task_id, prompt, entry_point, test) with a ``class Solution`` prompt: a method,
    its docstring's examples the trial tests, its asserts the judge's; ``rerank`` picks what ``pick`` picks on the
    same prompt (where it used to rank it as a function: no test run, recommended = random)."""
    records, pools = _shape_data()
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps(records["mine/two_sum"]) + "\n")
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(c) + "\n" for c in pools["mine/two_sum"]))
    out = cr.rerank(samples, dataset=str(path), methods="recommended", workers=2, progress=False)
    assert out.pass_at("random") == 60.0 and out.pass_at("recommended") == 100.0  # 3 of 5 right; it picks one
    _picked_as_pick_picks(out, records, pools)
    assert out.result.problems["mine/two_sum"].shape == METHOD


def test_rerank_ranks_a_file_of_every_shape_and_a_livecodebench_record_as_pick_does():
    records, pools = _shape_data()
    out = cr.rerank(SHAPES / "samples.jsonl", dataset=str(SHAPES / "problems.jsonl"), methods="recommended",
                    workers=2, progress=False)
    assert {t: p.shape for t, p in out.result.problems.items()} == {
        "mine/inc": FUNCTION, "mine/two_sum": METHOD, "mine/max_profit": METHOD, "mine/product": STDIN,
        "abc900_a": STDIN}
    _picked_as_pick_picks(out, records, pools)
    assert out.pass_at("recommended") > out.pass_at("random")


# --- the reasons say what a candidate did, on every shape -----------------------------------------------------
# how the look-alikes (7, 8, 9) lose under pick's defaults (examples + 10 grown inputs, seeded): the method's grown
# inputs already tell them apart (outvoted); the function's and the stdin program's need the selection step's inputs
SET_APART = {"look/function": "selected", "look/method": "input", "look/stdin": "selected"}


@pytest.mark.parametrize("task_id", list(LOOKALIKE_DOES))
def test_the_reasons_say_what_each_losing_group_did_on_every_shape(task_id):
    """One look-alike problem written as a function, a ``class Solution`` method and a stdin program, picked with
    pick's defaults (``recommended``: the selection step included): the wrong candidate fails the first example, and
    the reasons say what it returned (printed) there; the look-alikes are set apart -- by the selection step on an
    input grown for the leaders, or outvoted on a grown input -- and the reasons (and the step's evidence) say
    "returns False, where the pick returns True" ("prints …" for the stdin program) -- where a method's look-alike
    used to "raise AssertionError" beside a pick that "passes it when run alone (flaky or slow)"."""
    import re

    records, pools = lookalike_data()
    with cr.Picker(workers=2) as picker:
        choice = picker.pick(records[task_id], pools[task_id])
    does = LOOKALIKE_DOES[task_id]
    assert choice.group == list(range(7)), choice.reasons
    why = {g.candidates[0]: g for g in choice.lost}
    assert (why[10].why, why[10].does) == ("example", f"{does} False")
    assert (why[7].why, why[7].candidates) == (SET_APART[task_id], [7, 8, 9])
    assert (why[7].does, why[7].pick_does) == (f"{does} False", f"{does} True")
    text = "\n".join(choice.reasons)
    on = re.escape(why[7].on)
    they = does.removesuffix("s")  # said of the three look-alikes
    if SET_APART[task_id] == "selected":
        assert re.search(f"lost: candidate 7, candidate 8, candidate 9: set apart on `{on}`, an input grown for the "
                         f"leading programs: they {they} False, where the pick {does} True", text), text
        assert re.search(f"selection \\(.*\\): on {on}: group A {does} True, group B {does} False; A kept: 7 of 10 "
                         f"candidates agree \\(B: 3\\)", text), text
    else:
        assert re.search(f"lost: candidate 7, candidate 8, candidate 9: outvoted on `{on}`: they {they} False, where "
                         f"the pick {does} True \\(7 candidates with the pick there, [34] with them\\)", text), text
    assert re.search(f"lost: candidate 10: fails an example of the prompt, `.*` \\({does} False\\)", text), text
    assert "flaky" not in text and "#" not in text
