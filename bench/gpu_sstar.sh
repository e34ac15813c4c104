#!/usr/bin/env bash
# S* (model-assisted selection, docs/methods.md#s-model-assisted-selection) with a real code model on a GPU machine
# with vLLM and the model's weights (hub access or a local copy):
#
#   bash bench/gpu_sstar.sh                                        (from the repository root)
#   MODEL=/path/to/Qwen2.5-Coder-7B-Instruct LIMIT=40 bash bench/gpu_sstar.sh      (a local copy; first 40 problems)
#   BACKEND=embedded MODEL=embedded LIMIT=2 N=3 MAX_TOKENS=48 SELECT_TOKENS=48 bash bench/gpu_sstar.sh   (CPU dry run)
#
# One run samples N solutions and N test samples per problem (HumanEval+) and reranks; a second run on the same
# folder (samples resumed, nothing drawn or executed twice) adds S* with the same model (--select-model same):
# distinguishing inputs for the pick and its rival, both run, the model judges in both orders. Prints pass@1
# (base, plus) before and after per method, and S*'s cost: problems asked, decisions, model calls, seconds.
set -euo pipefail
PYTHON="${PYTHON:-python}"
MODEL="${MODEL:-Qwen/Qwen2.5-Coder-7B-Instruct}"
OUT="${OUT:-runs/sstar-$(basename "$MODEL")-humanevalplus}"
LIMIT="${LIMIT:-0}"  # 0: all 164 problems
BACKEND="${BACKEND:-vllm}"
N="${N:-16}"
MAX_TOKENS="${MAX_TOKENS:-512}"
SELECT_TOKENS="${SELECT_TOKENS:-1000}"  # S*'s (dspy's default)
METHODS="${METHODS:-recommended,codet,mbr_exec}"
export PYTHONPATH="$(cd "$(dirname "$0")/.." && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1

run() {
  "$PYTHON" -m coderank_evalplus.cli.console run --backend "$BACKEND" --model "$MODEL" --dataset humaneval+ \
    --limit "$LIMIT" --n-samples "$N" --n-test-samples "$N" --temperature 0.8 --top-p 0.95 \
    --max-tokens "$MAX_TOKENS" --methods "$METHODS" --output "$OUT" --quiet "$@"
}

run
cp "$OUT/rerank_results.json" "$OUT/rerank_results.before_sstar.json"
run --select-model same --select-max-tokens "$SELECT_TOKENS"

"$PYTHON" - "$OUT/rerank_results.before_sstar.json" "$OUT/rerank_results.json" <<'PY'
import json
import sys

before, after = (json.load(open(p)) for p in sys.argv[1:3])
print(f"{'pass@1':24s} {'base':>7s} {'+S*':>7s} {'plus':>7s} {'+S*':>7s}")
for m, row in after["methods"].items():
    cells = []
    for split in ("base", "plus"):
        for res in (before, after):
            v = res["methods"].get(m, {}).get(split)
            cells.append(f"{v['pass@1']:7.2f}" if v else f"{'–':>7s}")
    print(f"{m:24s} " + " ".join(cells))
s = after.get("sstar", {})
ds = list(s.get("decisions", {}).values())
won = sum(d["winner"] is not None for d in ds)
changed = sum(d["winner"] == "B" for d in ds)
print(f"S* ({s.get('model')}): {len(ds)} (problem, method) pairs asked, {won} decided ({changed} changed the pick), "
      f"{sum(1 for d in ds if d['why'] == 'no distinguishing input')} without a distinguishing input, "
      f"{s.get('model_calls')} model calls, {after['timing'].get('select_s')} s")
PY
