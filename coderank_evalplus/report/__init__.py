"""Reports read stored results and render them; they never run anything. A rerank run's table and timing line
(``text``), per-problem scores recomputed from a results folder (``scores``), budget curves (``curves``), the
adaptive budget simulated (``adaptive``), the confidence's calibration (``calibration``), generated-test quality
(``test_quality``), and the leaderboard: its data (``board``), the computed board (``leaderboard``), model
comparisons (``models``), row names (``run_names``), figures and page. Bootstrap statistics are
``coderank_evalplus.stats``; a suite's entries are run by ``api.suite``.

May import io (results folders), the rankers (on stored matrices), metrics, stats, storage and the core types;
never the engine, the selection, the pipeline, the API or a model (``tests/test_layout.py`` checks it). The CLI,
the integrations and the studies import it.
"""

from coderank_evalplus.report.text import markdown_table, print_result, result_lines, timing_line

__all__ = ["markdown_table", "print_result", "result_lines", "timing_line"]
