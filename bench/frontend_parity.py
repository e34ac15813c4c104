"""Do the entry points give the same numbers as before the one-entry-point change (issue 51)? Runs every front end —
`rerank` (a model's pool, and the pool with examples+mutate), `evalplus.evaluate --rerank`, the lm-eval tasks (a replay
model answering with the samples and the pool, chat mode) and `cr.rerank` — on two shared sets, for one checkout of
the package given by ``--code`` (put first on PYTHONPATH), and writes pass@1 per front end, method and split as JSON.
``--compare OLD.json NEW.json`` prints the table of both and their differences.

The sets: HumanEval+ with GPT-4's samples (164 × 10) and GPT-4's pool (Reflexion's asserts); MBPP+ with
DeepSeek-Coder-6.7B's samples (378 × 10) and its own asserts. The same command lines work for both versions: what
changed between them (a repeated ``--tests``, lm-eval's ``n_solutions``, now ``n_samples``) is chosen by the
checkout's ``__version__``.

    python bench/frontend_parity.py --code /path/to/old-checkout --out runs/parity/old --json old.json   # ~1.5 h
    python bench/frontend_parity.py --code . --out runs/parity/new --json new.json
    python bench/frontend_parity.py --compare old.json new.json
    python bench/frontend_parity.py --code . --out runs/parity/new10 --json new10.json --limit 10  # each set's first 10
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Sequence

SETS = {
    "humaneval": ("extra_humaneval/samples/gpt-4_n10_t0.2.jsonl.gz", "extra_humaneval/tests/gpt-4_reflexion.jsonl",
                  "solution", "humaneval"),
    "mbpp": ("extra_mbpp/samples/deepseek-coder-6.7b-instruct-q5_mbpp+_n10_t0.6.jsonl.gz",
             "extra_mbpp/tests/deepseek-coder-6.7b-instruct-q5_incidental.jsonl", "raw", "mbpp"),
}
METHODS = ("recommended", "codet", "srank", "mbr_exec")
# the lm-eval front end's model: answers with the samples and the pool (run as lm-eval's CLI, standalone, so it
# serves any checkout)
REPLAY = Path(__file__).resolve().parents[1] / "tests" / "integrations" / "fake_lm_eval_model.py"


def _version(code: Path) -> tuple[int, ...]:
    text = (code / "coderank_evalplus" / "__init__.py").read_text()
    found = next(line for line in text.splitlines() if line.startswith("__version__"))
    return tuple(int(x) for x in found.split('"')[1].split("."))


def run_frontends(code: Path, data: Path, out: Path, sets: Sequence[str] = tuple(SETS), limit: int = 0) -> None:
    """Every front end on the named sets, for the checkout ``code``; results under ``out`` (seconds per front end
    printed). ``limit``: each set's first N problems on every front end (0: all)."""
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(code), "CODERANK_DATA": str(data), "HF_DATASETS_OFFLINE": "1",
           "HF_HUB_OFFLINE": "1"}
    new = _version(code) >= (0, 2)
    first = ["--limit", str(limit)] if limit else []
    for name in sets:
        samples, tests, field, dataset = SETS[name]
        s, t = str(data / samples), str(data / tests)
        pool = ["--tests", f"{t},examples+mutate"] if new else ["--tests", t, "--tests", "examples+mutate"]
        runs = {f"rerank_{name}": ["--tests", t], f"rerankm_{name}": pool}
        for folder, tests_args in runs.items():
            _timed(folder, [sys.executable, "-m", "coderank_evalplus.cli", "rerank", "--dataset", dataset,
                            "--solutions", s, *tests_args, "--output", str(out / folder), "--cache-dir",
                            str(out / "cache"), "--quiet", *first], env, out)
        ep = out / "ep"
        ep.mkdir(exist_ok=True)
        plain = ep / f"{name}_samples.jsonl"
        with gzip.open(s, "rt") as src, open(plain, "w") as dst:
            dst.write(src.read())
        _timed(f"evalplus_{name}", [sys.executable, "-m", "evalplus.evaluate", "--dataset", dataset, "--samples",
                                    str(plain), "--rerank", ",".join(METHODS), "--tests", t, *first], env, out)
        key = "n_samples" if new else "n_solutions"
        tasks = ",".join([f"{dataset}_plus_{m}" for m in METHODS] + [f"{dataset}_codet"])
        _timed(f"lm_eval_{name}", [sys.executable, str(REPLAY), "run", "--model", "coderank-replay",
                                   "--model_args", f"samples={s},tests={t},field={field}", "--tasks", tasks,
                                   "--apply_chat_template", "--confirm_run_unsafe_code", "--metadata",
                                   json.dumps({key: 10, "n_test_samples": 10, "progress": False}),
                                   "--output_path", str(out / f"lm_{name}"), *first], env, out)
        code_api = (f"import coderank_evalplus as cr, json\nout = cr.rerank({s!r}, [{t!r}], dataset={dataset!r}, "
                    f"progress=False, cache_dir={str(out / 'cache')!r}, limit={limit or None})\n"
                    f"print(json.dumps({{m: {{sp: out.result.methods[m][sp]['pass@1'] for sp in ('base', 'plus')}} "
                    f"for m in out.methods}}))\n")
        _timed(f"api_{name}", [sys.executable, "-c", code_api], env, out, keep=out / f"api_{name}.json")


def _timed(label: str, cmd: list[str], env: dict, out: Path, keep: Path | None = None) -> None:
    t0 = time.monotonic()
    r = subprocess.run(cmd, env=env, cwd=out, capture_output=True, text=True)
    (out / f"{label}.log").write_text(r.stdout[-20000:] + "\n--- stderr ---\n" + r.stderr[-20000:])
    if keep is not None and r.returncode == 0:
        keep.write_text(r.stdout.strip().splitlines()[-1] + "\n")
    print(f"{label}: exit {r.returncode}, {time.monotonic() - t0:.0f} s", flush=True)


def collect(out: Path) -> dict:
    """{set: {frontend: {method: {split: pass@1}}}} from ``run_frontends``' folder."""
    found: dict = {}
    for name, (_, _, _, dataset) in SETS.items():
        frontends: dict = {}
        limited = sorted((out / "ep").glob(f"{name}_samples_limit*_rerank_results.json"))  # a run with --limit
        evalplus = limited[-1] if limited else out / "ep" / f"{name}_samples_rerank_results.json"
        for frontend, file in (("rerank", out / f"rerank_{name}" / "rerank_results.json"),
                           ("rerank+mutate", out / f"rerankm_{name}" / "rerank_results.json"),
                           ("evalplus", evalplus)):
            if file.is_file():
                methods = json.loads(file.read_text())["methods"]
                frontends[frontend] = {m: {s: (v.get(s) or {}).get("pass@1") for s in ("base", "plus")}
                               for m, v in methods.items()}
        api = out / f"api_{name}.json"
        if api.is_file():
            frontends["api"] = json.loads(api.read_text())
        results = sorted((out / f"lm_{name}").glob("**/results_*.json"))
        if results:
            table = json.loads(results[-1].read_text())["results"]
            lm: dict = {}
            for task, metrics in table.items():
                split = "plus" if "_plus_" in task else "base"
                method = task.split(f"{dataset}_plus_" if split == "plus" else f"{dataset}_", 1)[1]
                lm.setdefault(method, {})[split] = round(100 * metrics["pass@1,none"], 2)
                lm.setdefault("random", {})[split] = round(100 * metrics["pass@1_random,none"], 2)
                lm.setdefault("oracle", {})[split] = round(100 * metrics["pass@1_oracle,none"], 2)
            frontends["lm-eval"] = lm
        found[name] = frontends
    return found


def compare(old: dict, new: dict) -> int:
    """Print old, new and new − old per set, frontend, method and split; return the number of cells that differ."""
    differ = 0
    print("| set | frontend | method | split | before | after | after − before |\n|---|---|---|---|---:|---:|---:|")
    for name in SETS:
        for frontend in sorted(set(old.get(name, {})) | set(new.get(name, {}))):
            o, n = old.get(name, {}).get(frontend, {}), new.get(name, {}).get(frontend, {})
            for m in sorted(set(o) | set(n), key=lambda m: (m != "random", m == "oracle", m)):
                for split in ("base", "plus"):
                    a, b = (o.get(m) or {}).get(split), (n.get(m) or {}).get(split)
                    if a is None and b is None:
                        continue
                    d = "–" if a is None or b is None else f"{b - a:+.2f}"
                    differ += d not in ("+0.00", "-0.00")
                    print(f"| {name} | {frontend} | {m} | {split} | {a} | {b} | {d} |")
    print(f"\n{differ} cell(s) differ")
    return differ


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--code", type=Path, help="the checkout to run (first on PYTHONPATH)")
    ap.add_argument("--data-dir", type=Path, default=Path(os.environ.get("CODERANK_DATA", "../shared/data")))
    ap.add_argument("--out", type=Path, help="where the front ends write (kept: a rerun collects without running)")
    ap.add_argument("--json", type=Path, help="write the collected pass@1 here")
    ap.add_argument("--collect-only", action="store_true", help="collect what --out holds, run nothing")
    ap.add_argument("--sets", default=",".join(SETS), help=f"comma-separated, of {', '.join(SETS)}")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"))
    ap.add_argument("--limit", type=int, default=0, help="each set's first N problems on every front end (0: all)")
    args = ap.parse_args()
    if args.compare:
        return 1 if compare(*(json.loads(p.read_text()) for p in args.compare)) else 0
    if not args.collect_only:
        run_frontends(args.code.resolve(), args.data_dir.resolve(), args.out.resolve(), args.sets.split(","),
                  args.limit)
    found = collect(args.out.resolve())
    if args.json:
        args.json.write_text(json.dumps(found, indent=1) + "\n")
    print(json.dumps(found, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
