"""S* with the embedded model (SmolLM2-135M on llama.cpp) on 12 real HumanEval problems: the machinery end to end
(distinguishing inputs asked, run, shown; the judge asked in both orders; the rankings changed only by a winner;
a rerun asks nothing). A 135M model's judgement is not the yardstick."""

from __future__ import annotations

import pytest

from tests.conftest import needs_data

pytest.importorskip("llama_cpp")
pytestmark = [needs_data, pytest.mark.model]


def test_sstar_end_to_end_with_the_embedded_model(tmp_path):
    from coderank_evalplus.generation.embedded_backend import default_gguf
    from coderank_evalplus.selection.sstar import make_selector
    from tests.selection.sstar_real import check_sstar_machinery

    try:
        default_gguf()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    selector = make_selector("embedded", "embedded", log_dir=tmp_path, max_tokens=64)
    decisions = check_sstar_machinery(selector, tmp_path)
    asked = sum(d.attempts for d in decisions.values())
    assert asked >= len(decisions)
