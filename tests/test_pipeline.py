"""``rerank`` end to end on a small synthetic problem: verdicts judged once, the timing block."""

import json
from dataclasses import replace

from coderank_evalplus.api.evaluate import stage_config
from coderank_evalplus.api.options import RerankOptions
from coderank_evalplus.engine.execution.execute import ResultCache
from coderank_evalplus.pipeline import rank_and_judge
from coderank_evalplus.types import Problem

PROB = Problem(task_id="T/0", dataset="humaneval", prompt="def add(a, b):\n", entry_point="add",
               canonical_solution="    return a + b\n", base_input=[[1, 2], [0, 0]], plus_input=[[5, 5], [-1, 1]],
               dataset_hash="synthetic-hash")
GOOD, BAD = "def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a - b\n"
SOLUTIONS = {"T/0": [GOOD, BAD, BAD, GOOD]}
TESTS = {"T/0": ["add(1, 2) == 3", "add(0, 0) == 0\nassert add(2, 2) == 4"]}
CFG = stage_config(RerankOptions(methods=["codet"], workers=2, progress=False))


def _evalplus_file(path, statuses):
    recs = [{"task_id": "T/0", "solution": p, "base_status": b, "plus_status": pl}
            for p, (b, pl) in zip(SOLUTIONS["T/0"], statuses)]
    path.write_text(json.dumps({"hash": PROB.dataset_hash, "eval": {"T/0": recs}}))
    return path


def test_verdicts_come_from_evalplus_results_when_they_match(tmp_path):
    # deliberately not the true verdicts (sample 1 is wrong but marked pass): they can only come from the file
    path = _evalplus_file(tmp_path / "s_eval_results.json",
                          [("pass", "pass"), ("pass", "pass"), ("fail", "fail"), ("fail", "pass")])
    res = rank_and_judge("humaneval", {"T/0": PROB}, SOLUTIONS, TESTS, CFG, ResultCache(tmp_path / "c.sqlite"),
                 eval_results=path)
    out = res.outcomes["T/0"]
    assert [(out.verdicts[c].base, out.verdicts[c].plus) for c in range(4)] == [
        (True, True), (True, True), (False, False), (False, False)]
    assert res.timing["verdicts_from"] == str(path) and res.timing["judged_samples"] == 0
    assert res.methods["random"]["base"]["pass@1"] == 50.0


def test_stale_results_are_not_used_and_the_samples_are_judged(tmp_path, capsys):
    path = _evalplus_file(tmp_path / "s_eval_results.json", [("pass", "pass")] * 4)
    stale = json.loads(path.read_text())
    stale["eval"]["T/0"][1]["solution"] = "def add(a, b):\n    return 0\n"  # results of other samples
    path.write_text(json.dumps(stale))
    res = rank_and_judge("humaneval", {"T/0": PROB}, SOLUTIONS, TESTS, CFG, ResultCache(tmp_path / "c.sqlite"),
                 eval_results=path)
    assert "judging the samples instead" in capsys.readouterr().err
    out = res.outcomes["T/0"]
    assert [out.verdicts[c].plus for c in range(4)] == [True, False, False, True]  # judged: the true verdicts
    assert res.timing["verdicts_from"] == "judge" and res.timing["judged_samples"] == 4


def test_timing_block_accounts_for_the_run(tmp_path):
    res = rank_and_judge("humaneval", {"T/0": PROB}, SOLUTIONS, TESTS, CFG, ResultCache(tmp_path / "c.sqlite"),
                         load_s=1.5)
    t = res.to_json()["timing"]
    phases = ("load_s", "execute_s", "rank_s", "judge_s", "metrics_s")
    assert all(t[p] >= 0 for p in phases) and t["load_s"] >= 1.5
    assert abs(t["total_s"] - sum(t[p] for p in phases)) < 0.05
    assert (t["programs"], t["cached_items"], t["judged_samples"]) == (2, 0, 4)
    assert (t["judged_programs"], t["judge_cached"]) == (2, 0)  # 4 samples, 2 distinct programs: 2 verdicts
    assert t["items"] == t["executed_items"] > 0
    again = rank_and_judge("humaneval", {"T/0": PROB}, SOLUTIONS, TESTS, CFG, ResultCache(tmp_path / "c.sqlite")).timing
    assert again["cached_items"] == t["items"] and again["executed_items"] == 0
    assert (again["judged_samples"], again["judged_programs"], again["judge_cached"]) == (4, 2, 2)


# three problems of 4 candidates: look-alikes that agree with the right one on every generated test (add), none
# right (neg), two right (sq); the prompt's example is a trial test, so filter+… and recommended rank too
def _problem(tid, entry, body, example, base, plus):
    return Problem(task_id=tid, dataset="humaneval", prompt=f"def {entry}(a, b):\n" if entry == "add" else
                   f"def {entry}(x):\n", entry_point=entry, canonical_solution=body, base_input=base,
                   plus_input=plus, trial_tests=(f"assert {example}",), dataset_hash="synthetic-hash")


LOOKALIKES = {
    "T/add": _problem("T/add", "add", "    return a + b\n", "add(2, 3) == 5", [[1, 2], [0, 0], [5, 5]], [[2, 3]]),
    "T/neg": _problem("T/neg", "neg", "    return -x\n", "neg(3) == -3", [[3], [-1]], [[0]]),
    "T/sq": _problem("T/sq", "sq", "    return x * x\n", "sq(3) == 9", [[3], [-2]], [[2]]),
}
LOOKALIKE_SOLUTIONS = {
    "T/add": [f"def add(a, b):\n    return {e}\n" for e in ("a | b", "a ^ b", "a + b", "a - b")],
    "T/neg": [f"def neg(x):\n    return {e}\n" for e in ("x", "x + 1", "0", "x")],
    "T/sq": [f"def sq(x):\n    return {e}\n" for e in ("x + x", "x ** 2", "abs(x) * 2", "x * x")],
}
LOOKALIKE_TESTS = {"T/add": ["add(1, 2) == 3", "add(0, 0) == 0"], "T/neg": ["neg(0) == 0"],
                   "T/sq": ["sq(2) == 4", "sq(0) == 0"]}


def test_pass_at_n_is_the_oracle_for_every_ranked_method(tmp_path):
    """k picks of 4 candidates in rank order: pass@4 is the oracle, pass@k grows with k and never passes it, for
    every registered ranker (those that need a model's log-probabilities aside), filtered, and after the selection
    step; pass@1 is the same under CodeT's rule, which misses at k = n where it draws a group twice."""
    from coderank_evalplus.rankers.registry import is_log_score, list_rankers

    methods = [m for m in list_rankers() if not is_log_score(m)] + ["filter+codet", "filter+srank",
                                                                    "recommended+select"]
    cache = ResultCache(tmp_path / "c.sqlite")
    cfg = stage_config(RerankOptions(methods=methods, k=[1, 2, 3, 4], workers=2, progress=False))  # the default rule
    ranked = rank_and_judge("humaneval", LOOKALIKES, LOOKALIKE_SOLUTIONS, LOOKALIKE_TESTS, cfg, cache)
    for split in ("base", "plus"):
        oracle = ranked.methods["oracle"][split]["pass@4"]
        assert oracle == 66.67  # two of the three problems have a right candidate
        for m in methods:
            row = [ranked.methods[m][split][f"pass@{k}"] for k in (1, 2, 3, 4)]
            assert row[3] == oracle, (m, split, row)
            assert row == sorted(row) and max(row) <= oracle, (m, split, row)
    assert ranked.config["pass_at_k_rule"] == "ranked"
    codet = rank_and_judge("humaneval", LOOKALIKES, LOOKALIKE_SOLUTIONS, LOOKALIKE_TESTS,
                           replace(cfg, pass_at_k_rule="codet"), cache)
    assert codet.config["pass_at_k_rule"] == "codet"
    for split in ("base", "plus"):
        for m in methods:
            assert ranked.methods[m][split]["pass@1"] == codet.methods[m][split]["pass@1"], (m, split)
    # CodeT's rule, with replacement inside a group: the look-alikes' group of three drawn twice misses 4/9 of the
    # time, so its pass@4 stays under the oracle
    assert codet.methods["codet"]["base"]["pass@4"] < ranked.methods["oracle"]["base"]["pass@4"]


def test_the_stage_config_has_no_default_of_its_own():
    """Every setting of ``RerankConfig`` comes from the options (``stage_config``): the table's defaults, one place."""
    import dataclasses

    from coderank_evalplus.api.options import option
    from coderank_evalplus.pipeline import RerankConfig

    assert all(f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
               for f in dataclasses.fields(RerankConfig))
    cfg = stage_config(RerankOptions())
    for name in ("time_limit", "seed", "min_time_limit", "gt_time_limit_factor", "workers", "executor", "strict"):
        assert getattr(cfg, name) == option(name).default, name
    assert list(cfg.ks) == list(option("k").default) and list(cfg.methods) == list(option("methods").default)
    assert cfg.tests_per_sample == option("tests_per_sample").default and cfg.plus is not option("base_only").default
