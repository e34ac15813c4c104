"""CodeT's released CodeContests test samples (davinci-002, 165 problems × 50 samples): our extraction gives, per
problem, the counts CodeT's own parser gives (``bench/codet_codecontests_tests.py --write-counts``, which ran
``PostProcessor.map_task_id_for_test_case`` from microsoft/CodeT and compared every list of asserts)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import SHARED_DATA, needs_data

COUNTS = Path(__file__).parents[1] / "data" / "codet_codecontests_counts.json"


@needs_data
@pytest.mark.slow
def test_the_asserts_per_problem_are_codets():
    from coderank_evalplus.io.codet import load_codecontests
    from coderank_evalplus.io.samples import read_test_samples
    from coderank_evalplus.testgen.extract import build_suite, extract_asserts

    root = SHARED_DATA / "microsoft_CodeT"
    problems = load_codecontests(root / "dataset" / "CodeContests_zeroshot_for_test_case_generation.jsonl")
    raw = read_test_samples(root / "generated_data" /
                            "CodeContests_zeroshot_davinci002_temp0.8_topp0.95_num50_max300_test_case.jsonl",
                            problems, str(SHARED_DATA))
    expected = json.loads(COUNTS.read_text())
    assert len(expected) == len(raw) == 165
    for tid, samples in raw.items():
        suite = build_suite(samples, "solution", 5)
        got = {"samples": len(samples), "asserts": sum(len(extract_asserts(s, "solution")) for s in samples),
               "first5": sum(suite.counts), "distinct": len(Counter(suite.asserts))}
        assert got == expected[tid], tid
