"""Reports: a rerank run's table and timing line (``text``), and the leaderboard — suites of entries run through
one cache (``suite``), per-problem scores (``scores``), bootstrap statistics (``stats``), budget curves
(``curves``), generated-test quality (``test_quality``), the computed board (``board``, ``leaderboard``), its
figures and its page.

May import the pipeline, the rankers, the engine (through the pipeline and the suite), io and the core types;
only the CLI and the integrations import it.
"""

from coderank_evalplus.report.text import markdown_table, print_result, result_lines, timing_line

__all__ = ["markdown_table", "print_result", "result_lines", "timing_line"]
