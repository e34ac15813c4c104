"""``pipeline.adaptive_stopper``: a problem's solutions so far down the per-problem path; it stops at τ."""

from __future__ import annotations

from coderank_evalplus.api.evaluate import stage_config
from coderank_evalplus.api.options import RerankOptions
from coderank_evalplus.engine.execution.execute import ResultCache
from coderank_evalplus.pipeline import adaptive_stopper
from coderank_evalplus.types import Problem

PROMPT = 'def add(a, b):\n    """ Add.\n    """\n'
PROBLEM = Problem(task_id="T/0", dataset="humaneval", prompt=PROMPT, entry_point="add")
RIGHT = PROMPT + "    return a + b\n"
WRONG = PROMPT + "    return a - b\n"
TESTS = ["add(1, 2) == 3\nassert add(2, 2) == 4", "add(0, 0) == 0"]


def test_agreeing_right_samples_are_more_confident_than_a_split_and_tau_decides(tmp_path):
    cache = ResultCache(tmp_path / "executions.sqlite")
    cfg = stage_config(RerankOptions(methods=["recommended"], workers=1, progress=False))
    try:
        stop = adaptive_stopper("recommended", cfg, cache, tau=0.0)
        done, agree = stop(PROBLEM, [RIGHT] * 6, TESTS, {})
        assert done  # τ = 0 stops at once
        split = adaptive_stopper("recommended", cfg, cache, tau=1.0)(PROBLEM, [RIGHT, WRONG, WRONG + "\n"], TESTS, {})
        assert split[0] is False and 0.0 <= split[1] < agree <= 1.0
    finally:
        cache.close()


def test_the_stopping_method_and_threshold():
    from coderank_evalplus.pipeline import adaptive_method, adaptive_tau
    from coderank_evalplus.rankers.confidence import default_model

    assert adaptive_method(["random", "codet", "srank", "oracle"]) == "codet"
    assert adaptive_method(["random", "codet", "recommended", "oracle"]) == "recommended"
    assert adaptive_method(["random", "oracle"]) == "recommended"
    assert adaptive_tau(0.3) == 0.3 and adaptive_tau(0) == 0.0
    assert adaptive_tau() == float(default_model()["tau"])


class _Model:
    """A base model whose solutions alternate right, wrong (log-probabilities ``right_lp`` and ``wrong_lp`` over 4
    tokens, as a backend records them) and whose test sample checks two sums."""

    is_chat = False

    def __init__(self, right_lp: float, wrong_lp: float) -> None:
        self.lp, self.drawn = (right_lp, wrong_lp), 0

    def generate(self, prompts, n, temperature, top_p, max_tokens, stop):
        from coderank_evalplus.generation.base import Sample

        out = []
        for p in prompts:
            if "# check the correctness" in p:
                out.append([Sample("add(1, 2) == 3\nassert add(2, 2) == 4")] * n)
                continue
            got = []
            for _ in range(n):
                right = self.drawn % 2 == 0
                self.drawn += 1
                got.append(Sample("    return a + b\n" if right else "    return a - b\n",
                                  logprob=self.lp[0] if right else self.lp[1], n_tokens=4))
            out.append(got)
        return out


def test_under_adaptive_a_likelihood_ranker_gets_the_samples_log_probabilities(tmp_path):
    """``--adaptive`` with ``ll``: the stopper ranks with the log-probabilities the model reported while sampling
    (the same RankContext as a rerank), so the pick and its confidence follow them: the right program more likely
    gives a higher confidence than the wrong one more likely."""
    import json

    from coderank_evalplus.generation import generate_samples

    cfg = stage_config(RerankOptions(methods=["ll"], workers=1, progress=False))
    confidence = {}
    cache = ResultCache(tmp_path / "executions.sqlite")
    try:
        for name, lps in (("right_likelier", (-0.5, -8.0)), ("wrong_likelier", (-8.0, -0.5))):
            out = tmp_path / name
            generate_samples([PROBLEM], _Model(*lps), 2, 1, out_dir=str(out), progress=False,
                             stopper=adaptive_stopper("ll", cfg, cache, tau=1.0))
            (row,) = [json.loads(line) for line in (out / "adaptive.jsonl").read_text().splitlines()]
            assert row["samples"] == 2 and row["confidence"] is not None
            confidence[name] = row["confidence"]
    finally:
        cache.close()
    assert confidence["right_likelier"] > confidence["wrong_likelier"]
