"""`coderank-evalplus leaderboard --example`, the second half of README's main job: the bundled real samples are
reranked with their test pools, and reranking lifts pass@1 above a random pick."""

import json
import shutil
from pathlib import Path

from coderank_evalplus.stats import MIN_PROBLEMS
from tests.conftest import needs_data
from tests.report.conftest import leaderboard_cmd, run_cli


def test_an_entry_made_in_code_with_tests_uses_them():
    from coderank_evalplus.api.examples import example_suite
    from coderank_evalplus.api.suite import SuiteEntry

    entry = SuiteEntry(name="m", solutions=Path("s.jsonl"), tests=Path("t.jsonl"))
    assert entry.test_sources == [Path("t.jsonl")]
    for e in example_suite(limit=3).entries:
        assert e.test_sources == [e.tests] and e.tests.is_file()


@needs_data
def test_example_leaderboard_reranks_with_its_pools(real_leaderboard, tmp_path):
    # a copy of the shared leaderboard's cache (the same samples and pools on the first two problems): only the
    # third problem's programs are executed and judged here
    cache = tmp_path / "cache"
    shutil.copytree(real_leaderboard["out"] / "cache", cache)
    out = tmp_path / "example"
    proc = run_cli(leaderboard_cmd("--example", "--limit", "3", "--no-curves", "--quiet", "--output", str(out),
                                   "--cache-dir", str(cache)), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # three problems: the gains are printed with the count and no interval or p-value (issue 51: "+56.48 [+31.4,
    # +98.0] p<0.001" from 3 problems)
    assert f"n = 3 < {MIN_PROBLEMS}: no interval or p-value" in proc.stdout
    assert "p<0." not in proc.stdout and "p=" not in proc.stdout
    rows = json.loads((out / "leaderboard.json").read_text())["rows"]
    assert [r["tests_label"] for r in rows] == ["own tests", "gpt-4 tests"]
    for r in rows:
        random = r["methods"]["random"]["base"]["pass@1"]
        for method in ("codet", "srank", "mbr_exec"):
            assert r["methods"][method]["base"]["pass@1"] > random + 10, (r["tests_label"], method)
