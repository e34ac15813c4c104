"""The one-line summary of where a run's time went."""

from coderank_evalplus.report.text import timing_line

BASE = {"load_s": 1.0, "execute_s": 2.0, "programs": 10, "items": 100, "cached_items": 0, "rank_s": 0.1,
        "judge_s": 0.0, "metrics_s": 0.0, "total_s": 3.1}


def test_judged_by_us_counts_the_samples():
    line = timing_line({**BASE, "judge_s": 4.2, "judged_samples": 820, "verdicts_from": "judge"})
    assert "judge 4.2 s (820 samples judged)" in line


def test_verdicts_taken_from_a_file_say_none_was_judged_and_where_they_came_from():
    line = timing_line({**BASE, "judged_samples": 0, "verdicts_from": "samples_eval_results.json"})
    assert "judge 0.0 s (0 samples judged; verdicts from samples_eval_results.json)" in line
