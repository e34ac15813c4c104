import numpy as np
import pytest

from coderank_evalplus.rankers import get_ranker
from coderank_evalplus.types import RAISED, RETURNED

try:
    from tests.rankers.helpers import groups_of, make_ctx, make_executions
except ImportError:  # tests/ is not a package: pytest put tests/rankers on sys.path
    from helpers import groups_of, make_ctx, make_executions

R, E = RETURNED, RAISED


def _ex():
    # c0,c1 duplicates of one program; c2 same outputs; c3 raises where c4 returns the same digest;
    # c5 does not compile.
    return make_executions(
        outputs=[[1, 2], [1, 2], [1, 2], [7, 3], [7, 3], [1, 2]],
        kinds=[[R, R]] * 3 + [[E, R], [R, R], [R, R]],
        compiled=[True] * 5 + [False],
        program_ids=[0, 0, 1, 2, 3, 4],
    )


def test_mbr_clusters_by_size_with_duplicates():
    got = groups_of(get_ranker("mbr_exec")(make_ctx(_ex())))
    assert got == [([0, 1, 2], 3.0), ([3], 1.0), ([4], 1.0)]


def test_mbr_hidden_uses_benchmark_outputs():
    # rows: programs 0..4; on hidden inputs programs 2 and 3 agree and program 0 differs
    bench = (np.array([[5], [6], [8], [8], [9]]), np.zeros((5, 1), dtype=np.uint8))
    r = get_ranker("mbr_exec_hidden")(make_ctx(_ex(), benchmark_outputs=bench))
    assert groups_of(r) == [([0, 1], 2.0), ([3, 4], 2.0), ([2], 1.0)]
    assert r.info["method"] == "mbr_exec_hidden"
    same = get_ranker("mbr_exec")(make_ctx(_ex(), benchmark_outputs=bench, mbr_inputs="benchmark"))
    assert groups_of(same) == groups_of(r)


def test_mbr_hidden_needs_benchmark_outputs():
    with pytest.raises(ValueError, match="benchmark_outputs"):
        get_ranker("mbr_exec_hidden")(make_ctx(_ex()))


def test_mbr_hidden_description_warns():
    from coderank_evalplus.rankers import describe_ranker

    assert "HIDDEN" in describe_ranker("mbr_exec_hidden")
