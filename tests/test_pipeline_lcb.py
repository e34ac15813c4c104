"""The rerank stage on LiveCodeBench-schema problems (``tests/data/lcb``: 10 LeetCode, 10 stdin, our own writing)
with candidate pools as models write them: the verdicts are lcb_runner's on every non-hostile sample (stored by
``bench/lcb_parity.py --write-expected``, which ran LiveCodeBench's own grader on these files), ``recommended`` picks
far better than random with only the public tests and inputs grown from them, and the hostile candidates are
contained."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coderank_evalplus.types import PASS

DATA = Path(__file__).parent / "data" / "lcb"
HOSTILE_FILE = Path("/tmp/coderank_lcb_hostile.txt")  # what the write_outside candidates try to create


@pytest.fixture(scope="module")
def lcb_run(tmp_path_factory):
    from coderank_evalplus import api

    HOSTILE_FILE.unlink(missing_ok=True)
    out = api.rerank(str(DATA / "samples.jsonl"), dataset=str(DATA / "problems.jsonl"),
                     methods="recommended,codet,srank", workers=2, progress=False,
                     output=tmp_path_factory.mktemp("lcb_run"))
    samples: dict[str, list[dict]] = {}
    for line in (DATA / "samples.jsonl").read_text().splitlines():
        rec = json.loads(line)
        samples.setdefault(rec["task_id"], []).append(rec)
    return out, samples


def test_verdicts_are_lcb_runners_on_every_non_hostile_sample(lcb_run):
    out, samples = lcb_run
    expected = json.loads((DATA / "lcb_verdicts.json").read_text())
    assert sorted(expected) == sorted(samples)
    for tid, recs in samples.items():
        verdicts = out.result.outcomes[tid].verdicts
        ours = [verdicts[c].base for c, r in enumerate(recs) if r["kind"] != "hostile"]
        assert ours == expected[tid], tid


def test_kinds_as_written(lcb_run):
    """right ones pass; look-alikes pass every public test and fail; wrong ones fail a public test."""
    out, samples = lcb_run
    for tid, recs in samples.items():
        outcome = out.result.outcomes[tid]
        trials = outcome.executions.trial_matrix[outcome.executions.program_of_candidate]
        for c, r in enumerate(recs):
            public_ok = bool((trials[c] == PASS).all())
            if r["kind"] == "right":
                assert outcome.verdicts[c].base and public_ok, (tid, c)
            elif r["kind"] == "lookalike":
                assert public_ok and not outcome.verdicts[c].base, (tid, c)
            elif r["kind"] == "wrong":
                assert not public_ok and not outcome.verdicts[c].base, (tid, c)


def test_recommended_beats_random_by_15_points_with_public_tests_only(lcb_run):
    out, _ = lcb_run
    assert out.uses_prompt_examples("recommended")
    assert out.pass_at("recommended") >= out.pass_at("random") + 15, out.summary()


def test_hostile_candidates_fail_and_are_contained(lcb_run):
    out, samples = lcb_run
    for tid, recs in samples.items():
        for c, r in enumerate(recs):
            if r["kind"] == "hostile":
                assert not out.result.outcomes[tid].verdicts[c].base, (tid, c)
    assert not HOSTILE_FILE.exists()
