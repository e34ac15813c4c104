"""evalplus's verdict on one returned value: the body of ``evalplus.eval.unsafe_execute``'s loop, outside the child.

evalplus 0.3.1 compares each output with the expected one inside the process that runs the candidate, which lets
the candidate decide its own verdict. Here the same rules run in the referee (``referee.py``) on the values the
child reported, so they are copied from ``unsafe_execute`` line for line (evalplus has them only inline in that
function); its helpers (``is_floats``, the special oracles' reference functions and task lists) are imported.
Only for an output the report format cannot carry (``report.Opaque``) do the same rules run in the child, where the
candidate's own ``==`` takes part, exactly as in evalplus.
"""

from __future__ import annotations

from typing import Any


def has_special_oracle(dataset: str, entry_point: str) -> bool:
    """Whether evalplus compares this task's outputs other than by ``==`` / ``np.allclose`` (below)."""
    from evalplus.eval._special_oracle import MBPP_OUTPUT_NOT_NONE_TASKS, MBPP_OUTPUT_SET_EQ_TASKS

    if dataset == "humaneval":
        return entry_point == "find_zero"
    return dataset == "mbpp" and (entry_point in ("are_equivalent", "sum_div", "surface_Area", "digit_distance_nums")
                                  or entry_point in MBPP_OUTPUT_SET_EQ_TASKS
                                  or entry_point in MBPP_OUTPUT_NOT_NONE_TASKS)


def evalplus_compare(dataset: str, entry_point: str, inp: Any, out: Any, exp: Any, atol: float) -> tuple[bool, float]:
    """(passed, atol for the next input) for one input, as ``unsafe_execute`` decides it.

    ``atol`` is carried on because evalplus sets it to 1e-6 at the first float output and keeps it for the
    inputs that follow. HumanEval/32 (``find_zero``): evalplus's special oracle ``continue``s past the
    bookkeeping that marks an input passed, so evalplus 0.3.1 fails every program there; so does this."""
    import numpy as np
    from evalplus.eval import _poly, is_floats
    from evalplus.eval._special_oracle import (
        MBPP_OUTPUT_NOT_NONE_TASKS,
        MBPP_OUTPUT_SET_EQ_TASKS,
        _digit_distance_nums,
        _surface_Area,
    )

    try:
        exact_match = out == exp
        if dataset == "mbpp":
            if "are_equivalent" == entry_point:
                exact_match = exact_match or True
            elif "sum_div" == entry_point:
                exact_match = exact_match or out == 0
            elif "surface_Area" == entry_point:
                exact_match = exact_match or abs(out - _surface_Area(*inp)) <= atol
            elif "digit_distance_nums" == entry_point:
                exact_match = exact_match or out == _digit_distance_nums(*inp)
            elif entry_point in MBPP_OUTPUT_SET_EQ_TASKS:
                exact_match = set(out) == set(exp)
            elif entry_point in MBPP_OUTPUT_NOT_NONE_TASKS:
                if isinstance(out, bool):
                    exact_match = out == exp
                else:
                    exact_match = exp == (out is not None)
        if dataset == "humaneval" and "find_zero" == entry_point:
            assert abs(_poly(*inp, out)) <= atol
            return False, atol  # evalplus's `continue`: the input is never marked passed
        if atol == 0 and is_floats(exp):
            atol = 1e-6
        if not exact_match and atol != 0:
            assert type(out) == type(exp)  # noqa: E721 - evalplus's test, verbatim
            if isinstance(exp, (list, tuple)):
                assert len(out) == len(exp)
            assert np.allclose(out, exp, rtol=1e-07, atol=atol)
        else:
            assert exact_match
    except BaseException:  # noqa: BLE001 - evalplus: any exception fails the input
        return False, atol
    return True, atol
