"""``rerank`` end to end on a small synthetic problem: verdicts judged once, the timing block."""

import json

from coderank_evalplus.api.evaluate import stage_config
from coderank_evalplus.api.options import RerankOptions
from coderank_evalplus.engine.execution import ResultCache
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
