"""``uses_prompt_examples``: which methods rank with the prompt's own examples (the setting every result states)."""

import pytest

from coderank_evalplus.rankers import list_rankers, uses_prompt_examples

EXAMPLES = {"learned_examples"}  # read the examples themselves
NO_TESTS = {"random", "first", "oracle", "ll", "coder_reviewer", "mbr_exec_hidden"}  # never read the pool


@pytest.mark.parametrize("name", list_rankers())
def test_codet_setting_methods_use_no_examples_on_a_model_pool(name):
    assert uses_prompt_examples(name) == (name in EXAMPLES)


@pytest.mark.parametrize("name", list_rankers())
def test_the_trial_filter_always_uses_them(name):
    assert uses_prompt_examples(f"filter+{name}")


@pytest.mark.parametrize("name", list_rankers())
def test_on_a_pool_grown_from_the_examples_every_reader_of_the_tests_uses_them(name):
    assert uses_prompt_examples(name, tests_from_examples=True) == (name not in NO_TESTS)


def test_composed_names():
    assert not uses_prompt_examples("ll+srank") and uses_prompt_examples("ll+srank", tests_from_examples=True)
    assert uses_prompt_examples("ll+learned_examples") and uses_prompt_examples("filter+ll+mbr_exec")
    assert uses_prompt_examples("recommended") and uses_prompt_examples("codet+select")  # a step grows from them
