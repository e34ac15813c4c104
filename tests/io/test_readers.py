"""Readers of other harnesses' sample files: bigcode-evaluation-harness generations, lm-eval ``--log_samples``.

Small hand-made files in each format; the same samples written as evalplus jsonl, evalplus folder, bigcode
generations and lm-eval log read identically. (A real lm-eval log is read in
tests/integrations/test_lm_eval_integration.py, next to the run that writes it.)
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from coderank_evalplus.io import bigcode
from coderank_evalplus.io.samples import SampleFileError, read_solutions, read_test_samples
from coderank_evalplus.testgen.extract import truncate
from coderank_evalplus.types import Problem
from tests.conftest import CODET_SOLUTIONS, CODET_TESTS, SHARED_DATA, needs_data

# ---------------------------------------------------------------------------------------------------------------
# writers of the foreign formats, as the harnesses write them
# ---------------------------------------------------------------------------------------------------------------


def write_bigcode(path: Path, generations: list[list[str]]) -> Path:
    """bigcode_eval/evaluator.py: ``json.dump(generations, fp)``."""
    path.write_text(json.dumps(generations))
    return path


def lm_eval_doc(problem: Problem) -> dict:
    """The document our lm-eval task builds for a problem (CodeRankTask.download)."""
    from coderank_evalplus.testgen.prompts import solution_prompt, test_generation_prompt

    return {"task_id": problem.task_id, "prompt": solution_prompt(problem),
            "test_prompt": test_generation_prompt(problem), "entry_point": problem.entry_point,
            "canonical_solution": problem.canonical_solution}


def lm_eval_line(doc_id: int, doc: dict, solutions: list[str], tests: list[str] | None,
                 filt: str = "none") -> dict:
    """One line of lm-eval 0.4's samples_<task>_<date>.jsonl for our task (evaluator.py's ``example``, then
    EvaluationTracker.save_results_samples: arguments as gen_args_i/arg_j, responses through str())."""
    gen = {"until": ["\nclass", "\ndef", "\n#", "\nif", "\nprint"], "do_sample": True, "temperature": 0.8}
    arguments = {"gen_args_0": {"arg_0": doc["prompt"], "arg_1": gen}}
    resps = [list(solutions)]
    if tests is not None:
        arguments["gen_args_1"] = {"arg_0": doc.get("test_prompt", ""), "arg_1": gen}
        resps.append(list(tests))
    record = {"task_id": doc["task_id"], "candidates": [truncate(s) for s in solutions], "pass@1": 0.0}
    filtered = [json.dumps(record)] + ([json.dumps({"task_id": doc["task_id"], "tests": []})] if tests else [])
    return {"doc_id": doc_id, "doc": doc, "target": doc.get("canonical_solution", ""), "arguments": arguments,
            "resps": resps, "filtered_resps": filtered, "filter": filt,
            "metrics": ["pass@1", "pass@1_random", "pass@1_oracle"], "doc_hash": "0" * 64, "prompt_hash": "1" * 64,
            "target_hash": "2" * 64, "pass@1": 0.0, "pass@1_random": 0.0, "pass@1_oracle": 0.0}


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def toy_problems(prefix: str = "HumanEval/", ids=range(164), plus: bool = True) -> dict[str, Problem]:
    return {f"{prefix}{i}": Problem(task_id=f"{prefix}{i}", dataset="x", prompt=f"def f{i}(x):\n", entry_point=f"f{i}",
                                    base_input=[[1]] if plus else [])
            for i in ids}


# ---------------------------------------------------------------------------------------------------------------
# one set of samples, every format
# ---------------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def raw_samples():
    """CodeGen-16B's raw samples (CodeT's release) for three problems: 4 solutions and 3 test samples each."""
    by_prompt = {}
    codet_ids = {}
    for f in ("HumanEval_for_code_generation", "HumanEval_for_test_case_generation"):
        for line in open(SHARED_DATA / "microsoft_CodeT" / "dataset" / f"{f}.jsonl", encoding="utf-8"):
            rec = json.loads(line)
            codet_ids[rec["prompt"]] = rec["task_id"]
    for kind, path in (("sol", CODET_SOLUTIONS), ("tst", CODET_TESTS)):
        for line in open(path, encoding="utf-8"):
            rec = json.loads(line)
            by_prompt[(kind, codet_ids[rec["prompt"]])] = rec["samples"]
    tids = ["HumanEval/0", "HumanEval/1", "HumanEval/2"]
    return tids, {t: by_prompt[("sol", t)][:4] for t in tids}, {t: by_prompt[("tst", t)][:3] for t in tids}


@needs_data
def test_same_samples_in_every_format_read_the_same(tmp_path, humaneval_problems, raw_samples):
    problems = humaneval_problems
    tids, sols, tests = raw_samples
    programs = {t: [problems[t].prompt + truncate(s) for s in sols[t]] for t in tids}

    evalplus = write_jsonl(tmp_path / "samples.jsonl",
                           [{"task_id": t, "completion": truncate(s)} for t in tids for s in sols[t]])
    folder = tmp_path / "evalplus_folder"
    for t in tids:
        for n, prog in enumerate(programs[t]):
            (folder / t.replace("/", "_")).mkdir(parents=True, exist_ok=True)
            (folder / t.replace("/", "_") / f"{n}.py").write_text(prog)
    generations = write_bigcode(tmp_path / "generations_humaneval.json",
                                [programs.get(f"HumanEval/{i}", []) for i in range(164)])
    log = write_jsonl(tmp_path / "lm" / "model" / "samples_humaneval_codet_2026-01-01T00-00-00.000000.jsonl",
                      [lm_eval_line(i, lm_eval_doc(problems[t]), sols[t], tests[t]) for i, t in enumerate(tids)])

    expected = read_solutions(evalplus, problems)
    assert expected == programs and list(expected) == tids
    for source in (folder, generations, log, tmp_path / "lm", tmp_path / "lm" / "model"):
        got = read_solutions(source, problems)
        assert got == expected and list(got) == tids, source

    ours = write_jsonl(tmp_path / "tests.jsonl", [{"task_id": t, "samples": tests[t]} for t in tids])
    expected_tests = read_test_samples(ours, problems)
    assert expected_tests == tests
    for source in (log, tmp_path / "lm"):
        assert read_test_samples(source, problems) == expected_tests


# ---------------------------------------------------------------------------------------------------------------
# bigcode-evaluation-harness
# ---------------------------------------------------------------------------------------------------------------


def test_bigcode_humaneval_positions_are_task_ids(tmp_path):
    problems = toy_problems()
    gens = [[f"def f{i}(x):\n    return {i}\n", f"def f{i}(x):\n    return -{i}\n"] for i in range(164)]
    gens[5] = []  # a problem without generations has no entry
    out = read_solutions(write_bigcode(tmp_path / "g.json", gens), problems)
    assert len(out) == 163 and "HumanEval/5" not in out
    assert out["HumanEval/163"] == gens[163] and list(out)[:2] == ["HumanEval/0", "HumanEval/1"]
    # pretty-printed, gzipped, with a byte-order mark: the same
    pretty = tmp_path / "g2.json.gz"
    pretty.write_bytes(gzip.compress(b"\xef\xbb\xbf\n  " + json.dumps(gens, indent=2).encode()))
    assert read_solutions(pretty, problems) == out


def test_bigcode_mbpp_layouts(tmp_path):
    plus_ids = [2, 3, 11, 12, 83, 500, 510, 511, 809]  # 83 is one of the tasks MBPP+ v0.2.0 dropped
    problems = toy_problems("Mbpp/", [i for i in plus_ids if i != 83])
    # bigcode's mbpp: the 500 test problems of the original MBPP, ids 11..510; MBPP+ keeps a subset
    out = read_solutions(write_bigcode(tmp_path / "mbpp.json", [[f"# {11 + i}"] for i in range(500)]), problems)
    assert out == {f"Mbpp/{n}": [f"# {n}"] for n in (11, 12, 500, 510)}
    # bigcode's mbppplus: the MBPP+ dataset in task-id order, either version
    v020 = sorted(problems, key=lambda t: int(t.split("/")[1]))
    out = read_solutions(write_bigcode(tmp_path / "plus.json", [[t] for t in v020]), problems)
    assert out == {t: [t] for t in v020} and list(out) == v020
    v010 = sorted([*v020, *bigcode.MBPP_PLUS_REMOVED_IN_V020], key=lambda t: int(t.split("/")[1]))
    out = read_solutions(write_bigcode(tmp_path / "plus010.json", [[t] for t in v010]), problems)
    assert out == {t: [t] for t in v020}  # the dropped tasks are skipped
    # sanitized MBPP (no plus inputs): only the mbpp layout applies
    sanitized = toy_problems("Mbpp/", plus_ids, plus=False)
    with pytest.raises(SampleFileError, match=r"plus.json: a bigcode generations list of 8 entries matches no "
                                              r"bigcode task of this dataset \(expected one entry per problem: 500"):
        read_solutions(tmp_path / "plus.json", sanitized)


@needs_data
def test_bigcode_mbppplus_orders_match_the_mbpp_plus_releases():
    """Both MBPP+ orders derived from the loaded problems are the release files' orders (evalplus/mbppplus on the
    hub is the release in this order: its OriginFmt file, same schema, lists the same ids)."""
    from coderank_evalplus.io.problems import load_problems

    root = SHARED_DATA / "evalplus_mbppplus_release"

    def ids(version: str, name: str = "MbppPlus.jsonl.gz") -> list[str]:
        return [f"Mbpp/{json.loads(line)['task_id']}".replace("Mbpp/Mbpp/", "Mbpp/")
                for line in gzip.open(root / version / name)]

    layouts = dict(bigcode.layouts(load_problems("mbpp+", str(SHARED_DATA))))
    assert layouts["mbppplus (MBPP+ v0.2.0)"] == ids("v0.2.0") == ids("v0.2.0", "MbppPlus-OriginFmt.jsonl.gz")
    assert layouts["mbppplus (MBPP+ v0.1.0)"] == ids("v0.1.0")
    assert layouts["mbpp (MBPP test split, task ids 11-510)"] == [f"Mbpp/{n}" for n in range(11, 511)]


def test_bigcode_errors(tmp_path):
    problems = toy_problems()
    short = write_bigcode(tmp_path / "short.json", [["x"]] * 20)
    with pytest.raises(SampleFileError, match=r"short.json: a bigcode generations list of 20 entries matches no "
                                              r"bigcode task of this dataset \(expected one entry per problem: 164 "
                                              r"\(humaneval / humanevalplus\); a run with --limit"):
        read_solutions(short, problems)
    gens: list = [["x"]] * 164
    gens[3] = None
    with pytest.raises(SampleFileError, match=r"null.json: entry 3 \(HumanEval/3\) must be a list of generation "
                                              r"strings, got NoneType \(an unfinished \*_intermediate.json\?\)"):
        read_solutions(write_bigcode(tmp_path / "null.json", gens), problems)
    gens[3] = ["x", 7]
    with pytest.raises(SampleFileError, match=r"int.json: entry 3 \(HumanEval/3\), generation 1: expected a "
                                              r"string, got int"):
        read_solutions(write_bigcode(tmp_path / "int.json", gens), problems)
    with pytest.raises(SampleFileError, match=r"empty.json: no generations for any problem"):
        read_solutions(write_bigcode(tmp_path / "empty.json", [[]] * 164), problems)
    pretty = tmp_path / "broken.json"
    pretty.write_text(json.dumps([["x"]] * 164, indent=1)[:-40])
    with pytest.raises(SampleFileError, match=r"broken.json:\d+: (truncated|not valid) JSON"):
        read_solutions(pretty, problems)
    with pytest.raises(SampleFileError, match=r"short.json: a JSON list \(bigcode-evaluation-harness generations\?\) "
                                              r"holds solutions, not test samples"):
        read_test_samples(short, problems)


# ---------------------------------------------------------------------------------------------------------------
# lm-eval --log_samples
# ---------------------------------------------------------------------------------------------------------------


def _log(folder: Path, task: str, date: str, problems, n_sol=2, tests=True, filters=("none",)) -> Path:
    lines = [lm_eval_line(i, {"task_id": t, "prompt": p.prompt, "test_prompt": "", "entry_point": p.entry_point,
                              "canonical_solution": ""},
                          [f"    return {i}{k}\n" for k in range(n_sol)], [f"f{i}(1) == {i}"] if tests else None,
                          filt)
             for filt in filters for i, (t, p) in enumerate(problems.items())]
    return write_jsonl(folder / f"samples_{task}_{date}.jsonl", lines)


def test_lm_eval_log_reads_programs_and_tests(tmp_path):
    problems = toy_problems(ids=range(3))
    path = _log(tmp_path, "humaneval_codet", "2026-01-01T10-00-00.1", problems, filters=("none", "other"))
    sols = read_solutions(path, problems)  # the second filter's copies of the same answers are not read twice
    assert sols == {f"HumanEval/{i}": [f"def f{i}(x):\n    return {i}{k}\n" for k in range(2)] for i in range(3)}
    assert read_test_samples(path, problems) == {f"HumanEval/{i}": [f"f{i}(1) == {i}"] for i in range(3)}
    # the solution is cut at CodeT's stop sequences, as the task cuts it
    cut = write_jsonl(tmp_path / "cut" / "samples_humaneval_codet_d.jsonl",
                      [lm_eval_line(0, {"task_id": "HumanEval/0", "prompt": "def f0(x):\n"},
                                    ["    return 1\n\ndef g():\n    pass\n", "    return 2\nprint(3)"], None)])
    assert read_solutions(cut, problems) == {"HumanEval/0": ["def f0(x):\n    return 1\n", "def f0(x):\n    return 2"]}
    with pytest.raises(SampleFileError, match=r"samples_humaneval_codet_d.jsonl: the lm-eval samples hold no test "
                                              r"samples \(the task ran with n_test_samples 0\)"):
        read_test_samples(cut, problems)


def test_lm_eval_output_folder(tmp_path):
    problems = toy_problems(ids=range(2))
    out = tmp_path / "out"
    _log(out / "model_a", "humaneval_codet", "2026-01-01T10-00-00.1", problems, n_sol=1)
    newest = _log(out / "model_a", "humaneval_codet", "2026-01-02T09-00-00.1", problems, n_sol=3)
    (out / "model_a" / "results_2026-01-02T09-00-00.1.json").write_text("{}")
    assert read_solutions(out, problems) == read_solutions(newest, problems)  # the newest run of the task
    assert len(read_solutions(out / "model_a", problems)["HumanEval/0"]) == 3
    _log(out / "model_a", "humaneval_srank", "2026-01-01T10-00-00.1", problems)
    _log(out / "model_b", "humaneval_codet", "2026-01-01T10-00-00.1", problems)
    for reader in (read_solutions, read_test_samples):
        with pytest.raises(SampleFileError, match=r"out: lm-eval samples of several tasks: humaneval_codet "
                                                  r"\(model_a/\), humaneval_codet \(model_b/\), humaneval_srank "
                                                  r"\(model_a/\); pass one samples_<task>_<date>.jsonl file"):
            reader(out, problems)
    (tmp_path / "empty").mkdir()
    with pytest.raises(SampleFileError, match=r"empty: is a folder with no lm-eval samples_\*.jsonl file"):
        read_test_samples(tmp_path / "empty", problems)


def test_lm_eval_errors(tmp_path):
    problems = toy_problems(ids=range(2))
    doc = {"task_id": "HumanEval/0", "prompt": "def f0(x):\n"}
    good = lm_eval_line(0, doc, ["    return 1\n"], ["f0(1) == 1"])
    cases = [
        ({**good, "doc": "HumanEval/0"}, r":2: lm-eval sample: field 'doc' must be an object \(got str\)"),
        ({**good, "doc": {"task_id": 0, "prompt": "x"}},
         r":2: lm-eval sample: doc field 'task_id' must be a string \(got int; is this a log of a coderank task"),
        ({**good, "doc": {"task_id": "HumanEval/0"}}, r":2: lm-eval sample: doc field 'prompt' must be a string "
                                                      r"\(missing"),
        ({**good, "resps": [["a"], ["b"], ["c"]]}, r":2: lm-eval sample: field 'resps' must hold 1 or 2 lists of "
                                                   r"answers \(solutions, then test samples\); got a list of 3"),
        ({**good, "resps": "a"}, r":2: lm-eval sample: field 'resps' must hold 1 or 2 lists .*; got str"),
        ({**good, "resps": [["a", None]]}, r":2: lm-eval sample: solution answer 1 in 'resps' is NoneType"),
        ({**good, "filter": 3}, r":2: lm-eval sample: field 'filter' must be a string \(got int\)"),
        (good, r":2: duplicate lm-eval sample for HumanEval/0 \(first at line 1\)"),
        ({**good, "doc": {**doc, "task_id": "Mbpp/2"}}, r":2 \(task_id 'Mbpp/2'\)"),
    ]
    for n, (second, pattern) in enumerate(cases):
        path = write_jsonl(tmp_path / f"samples_t_{n}.jsonl", [good, second])
        with pytest.raises(SampleFileError) as err:
            read_solutions(path, problems)
        assert "\n" not in str(err.value)
        assert re.search(re.escape(str(path)) + pattern, str(err.value)), str(err.value)
