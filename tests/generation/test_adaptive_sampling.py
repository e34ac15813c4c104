"""The adaptive sampling loop: solutions in rounds, stopped per problem by the stopper; test samples as configured;
what each problem used is written down and a resumed run skips finished problems."""

from __future__ import annotations

import json

from coderank_evalplus.generation import generate_samples
from coderank_evalplus.generation.sampling import adaptive_rounds
from tests.generation.test_generation import PROBLEMS, FakeGenerator


def _jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def test_rounds_end_at_the_cap():
    assert adaptive_rounds(10) == list(range(1, 11))
    assert adaptive_rounds(25) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 25]
    assert adaptive_rounds(0) == []


def test_stops_per_problem_and_records_the_samples_used(tmp_path):
    seen = []

    def stopper(problem, solutions, tests, features):
        seen.append((problem.task_id, len(solutions), len(tests)))
        stop = problem.task_id == "T/0" and len(solutions) >= 3  # T/0 is settled after 3 samples, the others never
        return stop, 0.95 if stop else 0.2

    gen = FakeGenerator()
    spath, tpath = generate_samples(PROBLEMS, gen, 10, 4, out_dir=str(tmp_path), progress=False, stopper=stopper)
    used = {r["task_id"]: r for r in _jsonl(tmp_path / "adaptive.jsonl")}
    assert used["T/0"] == {"task_id": "T/0", "samples": 3, "confidence": 0.95, "stopped": True}
    assert used["T/1"]["samples"] == 10 and not used["T/1"]["stopped"]
    counts = {}
    for r in _jsonl(spath):
        counts[r["task_id"]] = counts.get(r["task_id"], 0) + 1
    assert counts == {"T/0": 3, "T/1": 10, "T/2": 10}
    assert all(len(r["samples"]) == 4 for r in _jsonl(tpath))  # test samples: the configured number
    assert [n for t, n, _ in seen if t == "T/0"] == [1, 2, 3] and all(k == 4 for _, _, k in seen)
    # a resumed run draws nothing more for finished problems
    calls = len(gen.calls)
    generate_samples(PROBLEMS, gen, 10, 4, out_dir=str(tmp_path), progress=False, stopper=stopper)
    assert len(gen.calls) == calls


def test_tau_zero_stops_after_the_first_round(tmp_path):
    gen = FakeGenerator()
    generate_samples(PROBLEMS, gen, 10, 0, out_dir=str(tmp_path), progress=False,
                     stopper=lambda p, s, t, f: (True, 0.5))
    assert all(r["samples"] == 1 and r["stopped"] for r in _jsonl(tmp_path / "adaptive.jsonl"))


def test_a_stopper_that_answers_later_lets_the_loop_draw_for_the_others(tmp_path):
    """A stopper may answer with a Future: the loop draws for the other problems while it waits, and carries on
    with the problem once the answer comes."""
    from concurrent.futures import Future

    waiting: dict[str, Future] = {}

    class Answering(FakeGenerator):
        def generate(self, prompts, n, temperature, top_p, max_tokens, stop):
            for f in waiting.values():  # the loop asks for more samples: answer what waits (go on)
                if not f.done():
                    f.set_result((False, 0.1))
            return super().generate(prompts, n, temperature, top_p, max_tokens, stop)

    def stopper(problem, solutions, tests, features):
        if problem.task_id != "T/0":
            return len(solutions) >= 2, 0.9
        waiting[f"{problem.task_id}:{len(solutions)}"] = Future()
        return waiting[f"{problem.task_id}:{len(solutions)}"]

    gen = Answering()
    generate_samples(PROBLEMS, gen, 3, 0, out_dir=str(tmp_path), progress=False, stopper=stopper)
    order = [next(p.task_id for p in PROBLEMS if c[0][0].startswith(p.prompt) and p.prompt in c[0][0])
             for c in gen.calls]
    assert order[:2] == ["T/0", "T/1"]  # T/1 drawn while T/0's answer was pending
    used = {r["task_id"]: r for r in _jsonl(tmp_path / "adaptive.jsonl")}
    assert used["T/0"]["samples"] == 3 and used["T/1"]["samples"] == 2 and used["T/1"]["stopped"]
