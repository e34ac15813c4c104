#!/usr/bin/env bash
# DOCE's HumanEval+ setting (Li et al., 2024, "DOCE: Finding the Sweet Spot for Execution-Based Code Generation")
# on a GPU machine with vLLM and the model's weights (hub access or a local copy):
#
#   bash bench/gpu_doce.sh                 (from the repository root)
#   MODEL=/path/to/CodeLlama-7b-Instruct-hf LIMIT=20 bash bench/gpu_doce.sh      (a local copy; first 20 problems)
#   BACKEND=embedded MODEL=embedded LIMIT=1 N=2 MAX_TOKENS=24 bash bench/gpu_doce.sh   (a CPU dry run of the commands)
#
# CodeLlama-7B-Instruct, 50 candidates per problem, temperature 1.6, top-p 0.95 (DOCE's sampling), 50 test
# samples per problem from the same model; likelihood features (coder and reviewer) scored by the same vLLM
# instance; reranking by trial-test filtering + MBR-exec, with and without the likelihoods; then SD-1 (each
# method's top pick, up to 3 rounds) and SD-Multi (every candidate failing a trial test, 1 round, then rerank),
# greedy rewrites. Both self-debug runs reuse the first run's samples, tests, scores and execution cache
# (nothing is generated or executed twice). Results: $OUT/rerank_results.json, "methods" (before) and
# "self_debug": {"sd1": …, "multi": …} (after); each round in $OUT/self_debug_{sd1,multi}.jsonl.
#
# DOCE's MBR-exec clusters on the benchmark's own test inputs: that is mbr_exec_hidden here (it looks at hidden
# inputs, not their outputs); mbr_exec clusters on the model's generated tests (deployable). Both are run.
set -euo pipefail
PYTHON="${PYTHON:-python}"
MODEL="${MODEL:-codellama/CodeLlama-7b-Instruct-hf}"
OUT="${OUT:-runs/doce-codellama7b-instruct-humanevalplus}"
LIMIT="${LIMIT:-0}"  # 0: all 164 problems
BACKEND="${BACKEND:-vllm}"
N="${N:-50}"
MAX_TOKENS="${MAX_TOKENS:-512}"
export PYTHONPATH="$(cd "$(dirname "$0")/.." && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1

METHODS=random,first,ll,coder_reviewer,mbr_exec,mbr_exec_hidden,filter+random,filter+ll,filter+mbr_exec
METHODS=$METHODS,filter+mbr_exec_hidden,filter+ll+mbr_exec,filter+coder_reviewer+mbr_exec
METHODS=$METHODS,filter+ll+mbr_exec_hidden,filter+coder_reviewer+mbr_exec_hidden,codet,filter+codet

run() {
  "$PYTHON" -m coderank_evalplus.cli.console run --backend "$BACKEND" --model "$MODEL" --dataset humaneval+ \
    --limit "$LIMIT" --n-samples "$N" --n-test-samples "$N" --temperature 1.6 --top-p 0.95 \
    --max-tokens "$MAX_TOKENS" --methods "$METHODS" --output "$OUT" "$@"
}

run --self-debug sd1 --debug-rounds 3     # samples, tests, likelihoods, rerank; SD-1
run --self-debug multi --debug-rounds 1   # same samples (resumed); SD-Multi

"$PYTHON" - "$OUT/rerank_results.json" <<'PY'
import json
import sys

res = json.load(open(sys.argv[1]))
rows = ["random", "filter+random", "filter+mbr_exec", "filter+mbr_exec_hidden", "filter+ll+mbr_exec",
        "filter+coder_reviewer+mbr_exec", "ll", "coder_reviewer", "oracle"]
sd = res.get("self_debug", {})
print(f"{'pass@1 (plus)':32s} {'before':>8s} {'SD-1':>8s} {'SD-Multi':>8s}")
for m in rows:
    cells = [res["methods"].get(m, {}).get("plus")] + [sd.get(k, {}).get("methods", {}).get(m, {}).get("plus")
                                                        for k in ("sd1", "multi")]
    print(f"{m:32s} " + " ".join(f"{c['pass@1']:8.2f}" if c else f"{'–':>8s}" for c in cells))
PY
