#!/bin/bash
# How long does README's main command take from a fresh clone, and where does the time go?
#
#   bash bench/first_run.sh [CHECKOUT] [FOLDER]
#
# Clones CHECKOUT's HEAD (default: this checkout) into FOLDER (default /tmp/coderank_first_run; removed first),
# unsets CODERANK_DATA, sets HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1, and runs README's first command in that folder
# part by part (its `&&` parts, in order, in one shell), printing after each the seconds since the start and the load
# average. Each coderank-evalplus command's output goes to FOLDER/step<N>.out and .err; at the end: the generation
# bar's last line and the run's table. pip's cache is left as it is (say whether it was warm).
set -euo pipefail
SRC=$(cd "${1:-$(dirname "$0")/..}" && pwd)
DIR=${2:-/tmp/coderank_first_run}
rm -rf "$DIR" && git clone -q "$SRC" "$DIR" && cd "$DIR"
unset CODERANK_DATA PYTHONPATH
export HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1
mapfile -t PARTS < <(python3 -c '
import re
block = re.findall(r"```bash\n(.*?)```", open("README.md").read(), re.S)[0]
print("\n".join(p.strip() for p in block.strip().split(" && ")))')
echo "$(git log --oneline -1 | cut -c1-72)   $(nproc) cores"
T0=$(date +%s.%N)
stamp() { printf "%7.1f s  load %s  %s\n" "$(echo "$(date +%s.%N) - $T0" | bc)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$1"; }
stamp "start"
n=0
for part in "${PARTS[@]}"; do
    n=$((n + 1))
    if [[ $part == coderank-evalplus* ]]; then
        eval "$part" > "step$n.out" 2> "step$n.err"
    else
        eval "$part"
    fi
    stamp "$part"
done
for f in step*.err; do tr '\r' '\n' < "$f" | grep -a "^generate" | tail -1 || true; done
for f in step*.out; do grep -a "^time:" "$f" || true; done
tail -n +1 "step$n.out" | sed -n '/reranked pass@k/,/^$/p'
