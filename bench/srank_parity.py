"""Run the released SRank reranking code (FSoft-AI4Code/SRank-CodeRanker, ``reranking/``) beside ``srank_reference``.

The released code is imported from a checkout given by ``--srank-repo`` (never copied): its test-input parser
(``execution/utils.py``), its clustering and scoring (``reranking/functionality_processing.py``,
``reranking/evaluator.py``) and its pass@k (``reranking/codet_evaluation.py``). Its execution step is replaced by
ours: the three pickles its ``reranking/run.py`` reads are written from our execution results — outputs stand as
our digests of the returned values, expected outputs as digests of the values its ``execution/run.py`` evaluates
(same ``==`` for the usual types); a test input we never executed (junk such as ``____.f(x)``) counts as raised.
Ground truth is our judge's (original HumanEval tests by default). Printed: pass@1/2/10 of the released code and of
``srank_reference``. ``pyminifier`` (imported by the released ``reranking/utils.py`` for a filter it does not use
here) is stubbed if missing.

    python bench/srank_parity.py --srank-repo /work/ref/SRank --data-dir ../shared/data --cache-dir /work/shared_cache
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import io
import pickle
import sys
import tempfile
import types
from pathlib import Path

import numpy as np

from coderank_evalplus import metrics
from coderank_evalplus.engine.sandbox.canonical import digest_value
from coderank_evalplus.rankers import RankContext, get_ranker
from coderank_evalplus.types import RETURNED

from codet_setting import execute_and_judge  # bench/codet_setting.py (run as python bench/…)

# execution/run.py: expected outputs that fail to evaluate, or evaluate to these, are dropped
_EVAL_ERRORS = (SyntaxError, ValueError, NameError, TypeError, ZeroDivisionError, KeyError, OverflowError, IndexError,
                LookupError, AttributeError)
_DROPPED = (type({}.keys()), type({}.values()), type({}.items()), types.GeneratorType, io.IOBase, types.FunctionType)


def _normal(text: str):
    try:
        return ast.unparse(ast.parse(text.strip(), mode="eval"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _import_released(repo: Path):
    try:
        import pyminifier  # noqa: F401
    except ImportError:  # only reranking/utils.filter_empty uses it
        stub = types.ModuleType("pyminifier")
        stub.analyze = types.SimpleNamespace(builtins=[])
        stub.minification = types.SimpleNamespace(remove_comments_and_docstrings=None, remove_blank_lines=None)
        sys.modules.update({"pyminifier": stub, "pyminifier.analyze": stub.analyze,
                            "pyminifier.minification": stub.minification})
    sys.path.insert(0, str(repo / "reranking"))
    evaluator = importlib.import_module("evaluator")
    codet_eval = importlib.import_module("codet_evaluation")
    spec = importlib.util.spec_from_file_location("srank_execution_utils", repo / "execution" / "utils.py")
    exec_utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(exec_utils)
    return evaluator, codet_eval, exec_utils


def expected_values(prompt: str, entry_point: str, asserts, counts, convert) -> tuple[list[str], dict]:
    """execution/run.py's input list and {input: [expected value digests]} for one task."""
    namespace: dict = {}
    exec(prompt + "\n    pass", namespace)  # noqa: S102 - the benchmark's own prompt (the reference does this)
    inputs: list[str] = []
    expected: dict[str, list[int]] = {}
    for body, count in zip(asserts, counts):
        inp, out = convert("assert " + body, prompt=prompt, entry_point=entry_point)
        if inp == "":
            continue
        inputs += [inp] * count
        try:
            value = eval(out, namespace)  # noqa: S307 - model-written literal, as the reference evaluates it
        except _EVAL_ERRORS:
            continue
        except Exception:  # noqa: BLE001 - the reference would crash here; count as dropped
            continue
        if isinstance(value, _DROPPED):
            continue
        expected.setdefault(inp, []).extend([digest_value(value)] * count)
    return list(dict.fromkeys(inputs)), expected


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--srank-repo", required=True, help="checkout of FSoft-AI4Code/SRank-CodeRanker")
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--cache-dir", default="srank_parity_cache")
    ap.add_argument("--dataset", default="humaneval-original", help="ground truth: humaneval-original | humaneval")
    ap.add_argument("--solutions", default=None)
    ap.add_argument("--tests", default=None)
    args = ap.parse_args()
    evaluator_mod, codet_eval, exec_utils = _import_released(Path(args.srank_repo).resolve())

    problems, works, exs, verdicts = execute_and_judge(args)

    gt, inputs_exec, generated = [], [], {}
    ours, not_executed = {}, 0
    for w in works:
        tid, prob = w.problem.task_id, w.problem
        ex = exs[tid]
        correct = np.array([v.base for v in verdicts[tid]], dtype=bool)
        gt += [{"task_id": tid, "completion": p, "passed": bool(c)} for p, c in zip(w.programs, correct)]
        ours[tid] = (get_ranker("srank_reference")(RankContext(prob, ex)), correct)
        texts, generated[tid] = expected_values(prob.prompt, prob.entry_point, ex.suite.asserts, ex.suite.counts,
                                                exec_utils.convert_test_case_to_input_output)
        if not texts:
            continue
        column = {call: i for i, call in enumerate(ex.suite.inputs)}
        cols = [column.get(_normal(t), -1) for t in texts]
        not_executed += sum(c < 0 for c in cols)
        for r, prog in enumerate(ex.programs):
            outs = []
            for c in cols:
                ok = c >= 0 and ex.output_kind[r, c] == RETURNED
                outs.append([True, int(ex.output_matrix[r, c])] if ok else [False, None])
            inputs_exec.append({"task_id": tid, "completion": prog, "test_inputs": texts, "outputs": outs,
                                "passed": bool(ex.compiled[r])})

    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for name, obj in (("gt", gt), ("inputs", inputs_exec), ("generated", generated)):
            paths[name] = str(Path(tmp) / f"{name}.pkl")
            with open(paths[name], "wb") as fh:
                pickle.dump(obj, fh)
        ev = evaluator_mod.AttentionRankingEvaluator("HumanEval", paths["gt"], paths["inputs"], paths["generated"],
                                                     logprob_path="None", reverse_logprob_path="None")
    ranked = ev.get_sorted_solutions()
    released = codet_eval.get_result_of_sorted_solutions(ranked, topks=[1, 2, 10])
    print(f"dataset {args.dataset}; {len(works)} problems; {not_executed} reference inputs never executed (raised)")
    print("| k | released SRank code | srank_reference (CodeT's pass@k rule, as the released code) | difference | "
          "srank_reference (ranked rule) |")
    print("|---:|---:|---:|---:|---:|")
    for k in (1, 2, 10):
        ref = 100 * released[f"pass@{k}"]
        mine, ranked = (100 * float(np.mean([metrics.ranked_pass_at_k(r, c, k, rule) for r, c in ours.values()]))
                        for rule in ("codet", "ranked"))
        print(f"| {k} | {ref:.2f} | {mine:.2f} | {mine - ref:+.2f} | {ranked:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
