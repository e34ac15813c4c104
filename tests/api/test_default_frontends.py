"""The default pick (``recommended``: ``learned_examples``, then the selection step) is one pick whatever the entry
point: ``cr.rerank`` (every benchmark entry point calls it: the CLI, suites, evalplus.evaluate, the lm-eval tasks),
``Picker``, and the reports that read its results folder; the step changed it where look-alikes hid in the top group,
and the confidence reported is that of the pick shown."""

from __future__ import annotations

import json

import pytest

import coderank_evalplus as cr
from coderank_evalplus.io.problems import load_problems
from coderank_evalplus.io.results_folder import load_folder
from coderank_evalplus.metrics import pick_pool
from coderank_evalplus.rankers.confidence import confidence
from coderank_evalplus.report.scores import problem_scores

PROBLEMS = [  # each prompt's examples pass every candidate below; some candidates are wrong elsewhere
    {"task_id": "doors/add", "entry_point": "add",
     "prompt": 'def add(a, b):\n    """Add two integers.\n    >>> add(2, 3)\n    5\n    >>> add(10, 4)\n    14\n'
               '    """\n',
     "canonical_solution": "    return a + b\n", "base_input": [[2, 3], [5, 1], [7, 7]]},
    {"task_id": "doors/double", "entry_point": "double",
     "prompt": 'def double(x):\n    """Twice x.\n    >>> double(2)\n    4\n    >>> double(0)\n    0\n    """\n',
     "canonical_solution": "    return 2 * x\n", "base_input": [[2], [3], [-4]]},
]
BODIES = {  # the right program three times (two texts), and look-alikes (the pool grown from the examples sets the
    # second problem's apart; only the step's inputs set the first problem's apart)
    "doors/add": ["    return a + b\n", "    return b + a\n", "    return a + b\n",
                  "    return a + b if a != 5 else -7\n", "    return a + b if a != 5 else -7\n"],
    "doors/double": ["    return 2 * x\n", "    return x + x\n", "    return 2 * x\n",
                     "    return x * x if x in (0, 2) else 2 * x\n", "    return x ** 2 if x < 3 else 2 * x\n"],
}


@pytest.fixture(scope="module")
def frontends(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("frontends")
    problems_file = tmp / "problems.jsonl"
    problems_file.write_text("".join(json.dumps(p) + "\n" for p in PROBLEMS))
    samples = tmp / "samples.jsonl"
    samples.write_text("".join(json.dumps({"task_id": t, "completion": b}) + "\n"
                               for t, bodies in BODIES.items() for b in bodies))
    out = cr.rerank(samples, dataset=str(problems_file), methods=["learned_examples", "recommended"],
                    output=str(tmp / "run"), workers=2, progress=False)
    problems = load_problems(str(problems_file))
    with cr.Picker(workers=2) as picker:
        picks = {t: picker.pick(problems[t], [problems[t].prompt + b for b in BODIES[t]]) for t in BODIES}
    return out, picks, tmp


def test_rerank_and_picker_give_the_same_pick_and_the_step_made_it(frontends):
    out, picks, _ = frontends
    for tid, outcome in out.result.outcomes.items():
        after = pick_pool(outcome.rankings["recommended"], outcome.n_candidates)
        assert after == picks[tid].group, tid
        assert outcome.steps["recommended"] and "learned_examples" not in outcome.steps
        assert outcome.confidence["recommended"] == confidence(outcome.rankings["recommended"], outcome.executions)
        assert picks[tid].confidence == outcome.confidence["recommended"]
    assert any(pick_pool(o.rankings["recommended"], o.n_candidates) != pick_pool(o.rankings["learned_examples"],
                                                                                  o.n_candidates)
               for o in out.result.outcomes.values())  # the step changed a pick: the entry points agree on its pick


def test_reports_read_the_pick_the_run_made(frontends):
    out, _, tmp = frontends
    run = load_folder(tmp / "run")
    scores = problem_scores(run, ["learned_examples", "recommended"])
    for m in ("learned_examples", "recommended"):
        assert round(100 * scores[m]["base"].mean(), 2) == out.result.methods[m]["base"]["pass@1"]
    for sp in run.problems:
        assert sp.rankings["recommended"].groups[0].candidates == \
            pick_pool(out.result.outcomes[sp.problem.task_id].rankings["recommended"], sp.executions.n_candidates)
