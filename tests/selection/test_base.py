"""What a selection returns and the registry of strategies (selection/base.py)."""

import pytest

from coderank_evalplus.rankers import split_selection, uses_prompt_examples, validate_methods
from coderank_evalplus.selection import SelectionEvidence, Side, get_strategy, list_strategies, register_strategy


def test_evidence_says_the_input_each_sides_output_and_the_rule():
    ev = SelectionEvidence("add(-1, 2)", (Side("A", (0, 1), "returns 1"), Side("B", (2,), "returns -3")),
                           "A kept: 7 of 9 candidates agree")
    assert ev.sentence() == "on add(-1, 2): group A returns 1, group B returns -3; A kept: 7 of 9 candidates agree"
    assert ev.to_json()["sides"][1] == {"label": "B", "candidates": [2], "output": "returns -3"}


def test_method_names_take_a_selection_step_after_any_ranker():
    assert split_selection("recommended+select") == ("recommended", "select")
    assert split_selection("filter+srank+select") == ("filter+srank", "select")
    assert split_selection("ll+mbr_exec") == ("ll+mbr_exec", None)
    assert validate_methods(["codet+select"]) == ["codet+select"]
    assert uses_prompt_examples("codet+select")  # its inputs are grown from the prompt's examples
    with pytest.raises(ValueError, match="unknown ranking method"):
        validate_methods(["nothing+select"])
    assert "select" in list_strategies() and callable(get_strategy("select"))


def test_a_strategy_needs_a_registered_step_name():
    with pytest.raises(ValueError, match="SELECTION_STEPS"):
        register_strategy("guess")
    with pytest.raises(KeyError):
        get_strategy("guess")
