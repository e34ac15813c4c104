"""``recommended``: the default pick is ``learned_examples`` followed by the model-free selection step, an alias that
every front end validates, runs and reports under its own name."""

import pytest

from coderank_evalplus.rankers import alias_of, describe_ranker, get_ranker, split_selection, validate_methods
from coderank_evalplus.rankers.recommended import RANKER, TARGET


def test_recommended_is_the_ranker_followed_by_the_selection_step():
    assert alias_of("recommended") == TARGET == f"{RANKER}+select"
    assert split_selection("recommended") == (RANKER, "select")
    assert validate_methods(["recommended"]) == ["recommended"]
    assert TARGET in describe_ranker("recommended")


def test_it_cannot_be_ranked_from_stored_matrices_alone():
    """The step runs programs: a report reads a stored run's final ranking instead (report.scores.rank)."""
    with pytest.raises(KeyError, match="runs the leading programs again"):
        get_ranker("recommended")
    assert get_ranker(RANKER) is not None  # the pick without the step keeps its ranker's name
