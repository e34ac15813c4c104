"""The one-line summary of where a run's time went."""

from coderank_evalplus.report.text import timing_line

BASE = {"load_s": 1.0, "execute_s": 2.0, "programs": 10, "items": 100, "cached_items": 0, "rank_s": 0.1,
        "judge_s": 0.0, "metrics_s": 0.0, "total_s": 3.1}


def test_judged_by_us_counts_the_distinct_programs_and_the_samples():
    line = timing_line({**BASE, "judge_s": 4.2, "judged_samples": 820, "judged_programs": 611,
                        "verdicts_from": "judge"})
    assert "judge 4.2 s (611 programs judged for 820 samples)" in line


def test_verdicts_read_from_the_cache_are_counted():
    line = timing_line({**BASE, "judged_samples": 820, "judged_programs": 611, "judge_cached": 600})
    assert "(611 programs judged for 820 samples, 600 of them from the cache)" in line


def test_a_result_without_a_program_count_reads_as_before():
    assert "(820 programs judged for 820 samples)" in timing_line({**BASE, "judged_samples": 820})


def test_verdicts_taken_from_a_file_say_none_was_judged_and_where_they_came_from():
    line = timing_line({**BASE, "judged_samples": 0, "judged_programs": 0,
                        "verdicts_from": "samples_eval_results.json"})
    assert "judge 0.0 s (0 programs judged; verdicts from samples_eval_results.json)" in line
