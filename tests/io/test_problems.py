import pytest

from coderank_evalplus.io.problems import DataNotFoundError, canonical_dataset, load_problems
from tests.conftest import SHARED_DATA, needs_data


def test_dataset_names():
    assert canonical_dataset("HumanEval_Plus") == "humaneval+"
    assert canonical_dataset("mbpp_plus") == "mbpp+"
    with pytest.raises(ValueError, match="unknown dataset"):
        canonical_dataset("apps")


@needs_data
def test_humaneval_plus_from_data_dir(humaneval_problems):
    assert len(humaneval_problems) == 164
    p = humaneval_problems["HumanEval/0"]
    assert p.entry_point == "has_close_elements" and p.has_plus and p.base_input and p.plus_input
    assert p.trial_tests and all(t.startswith("assert has_close_elements(") for t in p.trial_tests)
    assert ">>>" not in p.test_prompt_body and "def has_close_elements" in p.test_prompt_body


@needs_data
def test_mbpp_plus_from_data_dir():
    probs = load_problems("mbpp", str(SHARED_DATA))
    assert len(probs) == 378
    p = probs["Mbpp/2"]
    assert p.dataset == "mbpp" and p.trial_tests and "similar_elements" in p.trial_tests[0]


def test_original_humaneval_needs_no_download():
    probs = load_problems("humaneval-original")
    assert len(probs) == 164 and "check(" in probs["HumanEval/3"].original_test


def test_missing_data_dir_is_a_clear_error(tmp_path):
    with pytest.raises(DataNotFoundError, match="HumanEvalPlus"):
        load_problems("humaneval", str(tmp_path))


@needs_data
def test_select_problems_follows_the_dataset_order(humaneval_problems):
    from coderank_evalplus.io.problems import describe_selection, select_problems, selection_note

    file_order = ["HumanEval/10", "HumanEval/1", "HumanEval/100", "HumanEval/0", "HumanEval/3", "HumanEval/2"]
    assert select_problems(humaneval_problems, file_order, 3) == ["HumanEval/0", "HumanEval/1", "HumanEval/2"]
    assert select_problems(humaneval_problems, list(reversed(file_order)), 3) == \
        select_problems(humaneval_problems, file_order, 3)
    # the dataset's first N: a problem missing from the input is not replaced by a later one
    assert select_problems(humaneval_problems, file_order, 5) == ["HumanEval/0", "HumanEval/1", "HumanEval/2",
                                                                  "HumanEval/3"]
    assert select_problems(humaneval_problems, file_order, 0) == [f"HumanEval/{i}" for i in (0, 1, 2, 3, 10, 100)]
    assert select_problems(humaneval_problems, None, 12) == [f"HumanEval/{i}" for i in range(12)]
    assert len(select_problems(humaneval_problems)) == 164
    with pytest.raises(ValueError, match="--limit"):
        select_problems(humaneval_problems, None, -1)
    assert describe_selection([f"HumanEval/{i}" for i in range(12)], humaneval_problems) == \
        "HumanEval/0 … HumanEval/11"
    assert describe_selection(["HumanEval/0", "HumanEval/2"], humaneval_problems) == "HumanEval/0, HumanEval/2"
    note = selection_note(humaneval_problems, select_problems(humaneval_problems, file_order, 5), 5, file_order)
    assert note == ("--limit 5: 4 of 6 problems, the dataset's first (HumanEval/0 … HumanEval/3); "
                    "without solutions: HumanEval/4")
    assert selection_note(humaneval_problems, file_order, None, file_order) is None
