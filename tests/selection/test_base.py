"""What a step after ranking returns (selection/base.py) and the one registry of steps (rankers.registry)."""

import pytest

from coderank_evalplus.rankers import split_selection, uses_prompt_examples, validate_methods
from coderank_evalplus.rankers.registry import SELECTION_STEPS, STEPS, get_step, register_step
from coderank_evalplus.selection import SelectionEvidence, Side


def test_evidence_says_the_input_each_sides_output_and_the_rule():
    ev = SelectionEvidence("add(-1, 2)", (Side("A", (0, 1), "returns 1"), Side("B", (2,), "returns -3")),
                           "A kept: 7 of 9 candidates agree")
    assert ev.sentence() == "on add(-1, 2): group A returns 1, group B returns -3; A kept: 7 of 9 candidates agree"
    assert ev.to_json()["sides"][1] == {"label": "B", "candidates": [2], "output": "returns -3"}


def test_method_names_take_a_selection_step_after_any_ranker():
    assert split_selection("learned_examples+select") == ("learned_examples", "select")
    assert split_selection("recommended") == split_selection("recommended+select") == ("learned_examples", "select")
    assert split_selection("filter+srank+select") == ("filter+srank", "select")
    assert split_selection("ll+mbr_exec") == ("ll+mbr_exec", None)
    assert validate_methods(["codet+select"]) == ["codet+select"]
    assert uses_prompt_examples("codet+select")  # its inputs are grown from the prompt's examples
    with pytest.raises(ValueError, match="unknown ranking method"):
        validate_methods(["nothing+select"])
    assert split_selection("codet+sstar") == ("codet+sstar", None)  # S* is chosen by --select-model, not by name


def test_both_steps_are_in_one_registry():
    from coderank_evalplus.selection.differential import ModelFreeStep
    from coderank_evalplus.selection.sstar import ModelSelector

    assert get_step("select") is ModelFreeStep and get_step("sstar") is ModelSelector
    assert (ModelFreeStep.name, ModelSelector.name) == ("select", "sstar")
    assert set(STEPS) == {"select", "sstar"} and set(SELECTION_STEPS) == {"select"}


def test_a_step_needs_a_declared_name():
    with pytest.raises(ValueError, match="STEPS"):
        register_step("guess")
    with pytest.raises(KeyError):
        get_step("guess")
