"""Does a streamed `run` cost its slowest stage, and give the numbers of the unstreamed order?

For each `--concurrency`, against the tests' canned chat-only server (tests/generation/chat_server.py: real
DeepSeek-Coder-6.7B-Instruct HumanEval replies, each request held `--delay` seconds, in a process of its own, a
problem's test requests served from their own replies' cursor so that what each request gets never depends on the
order they arrive in), three runs on the first `--problems` HumanEval problems × (`--n-samples` solutions +
`--n-tests` test samples), each with a fresh server, folder and execution cache:

1. generation alone: the dataset loaded, then the sampling loop (`generate_samples`, as `run` samples);
2. execution + judging alone: the dataset loaded, then `run_rerank` on those files (what `rerank` does: execute,
   rank, judge, write);
3. the streamed run: `coderank-evalplus run --backend openai` (in this process, through the console's `main`).

Each loads the dataset as a command of its own would (`run` does before sampling, `rerank` before ranking); the
console's imports and the problems' reference outputs are loaded once before any timing (all three would pay them
alike). Prints each one's wall seconds, the streamed run's wall as a multiple of max(1, 2) (the target: at most
1.15), the stream's own wall (its timing block's `stream_s`: the run less the dataset's loading before it and the
writing of the folder after it), the timing block's overlap, and whether the streamed run's results folder
(tests/stream_parity.py: rerank_results.json but its timing and the names of the sample files, verdicts, rankings,
problems, matrices) equals that of 2, i.e. of the unstreamed order.

    python bench/stream_run.py --data-dir ../shared/data --problems 20 --delay 0.5 --concurrency 1,8
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: tests.generation.chat_server

def main() -> None:
    from coderank_evalplus.api.evaluate import run_rerank
    from coderank_evalplus.api.options import RerankOptions
    from coderank_evalplus.cli.console import main as console
    from coderank_evalplus.generation import generate_samples, make_generator
    from coderank_evalplus.io.problems import load_problems
    from coderank_evalplus.io.samples import read_test_samples
    from tests.generation.chat_server import ServerProcess, humaneval_replies
    from tests.stream_parity import results_of

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", default=os.environ.get("CODERANK_DATA", "../shared/data"))
    ap.add_argument("--problems", type=int, default=20, help="the first N HumanEval problems")
    ap.add_argument("--n-samples", type=int, default=10, help="solutions per problem (the set has 10 replies)")
    ap.add_argument("--n-tests", type=int, default=2, help="test samples per problem")
    ap.add_argument("--delay", type=float, default=0.5, help="seconds the server holds each request")
    ap.add_argument("--concurrency", default="1,8", help="comma-separated, run in turn")
    ap.add_argument("--workers", type=int, default=None, help="the worker pool (default: all cores)")
    args = ap.parse_args()

    problems = load_problems("humaneval", args.data_dir)
    chosen = list(problems)[: args.problems]
    replies, prompts = humaneval_replies(args.data_dir, problems, chosen)
    # what all three share in this process, paid before any timing: the console's imports, the reference outputs
    import coderank_evalplus.report  # noqa: F401
    from coderank_evalplus.engine.judging.judge import expected_outputs

    for t in chosen:
        expected_outputs(problems[t])
    marker = "as Python assert statements"  # what a test request asks (testgen.prompts.chat_test_messages)
    workers = ["--workers", str(args.workers)] if args.workers else []
    print(f"{len(chosen)} HumanEval problems × ({args.n_samples} + {args.n_tests} test) samples, server delay "
          f"{args.delay} s, {args.workers or os.cpu_count()} workers, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'concurrency':>11} {'generate s':>10} {'rerank s':>9} {'run s':>7} {'run/max':>7} {'stream s':>9} "
          f"{'overlap s':>9}  same results")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for c in [int(x) for x in args.concurrency.split(",")]:
            alone, streamed = root / f"alone-{c}", root / f"streamed-{c}"
            with ServerProcess(replies, prompts, delay=args.delay, test_marker=marker) as (url, model):
                gen = make_generator("openai", model, base_url=url, concurrency=c, logprobs=True)
                with contextlib.redirect_stderr(io.StringIO()):
                    _ = gen.is_chat  # the chat-or-not probe, outside the timing
                t0 = time.monotonic()
                loaded = load_problems("humaneval", args.data_dir)
                spath, tpath = generate_samples([loaded[t] for t in chosen], gen, args.n_samples, args.n_tests,
                                                out_dir=str(alone), progress=False)
                generate_s = time.monotonic() - t0
            options = RerankOptions(solutions=spath, tests=[tpath], dataset="humaneval", data_dir=args.data_dir,
                                    limit=args.problems, output=str(alone), overwrite=True, model=model,
                                    tests_label="model's own tests", workers=args.workers, progress=False)
            t0 = time.monotonic()
            loaded = load_problems("humaneval", args.data_dir)
            run_rerank(options, problems=loaded, test_samples=read_test_samples(tpath, loaded), frontend="run")
            rerank_s = time.monotonic() - t0
            with ServerProcess(replies, prompts, delay=args.delay, test_marker=marker) as (url, model):
                t0 = time.monotonic()
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    rc = console(["run", "--backend", "openai", "--model", model, "--base-url", url,
                                  "--concurrency", str(c), "--data-dir", args.data_dir, "--limit",
                                  str(args.problems), "--n-samples", str(args.n_samples), "--n-test-samples",
                                  str(args.n_tests), "--output", str(streamed), "--quiet", *workers])
                run_s = time.monotonic() - t0
            if rc != 0:
                raise SystemExit(f"run exited {rc}")
            timing = json.loads((streamed / "rerank_results.json").read_text())["timing"]
            # the same samples in both folders, written in the order they came: the files' names and digests differ
            same = results_of(streamed, files=False) == results_of(alone, files=False)
            most = max(generate_s, rerank_s)
            print(f"{c:>11} {generate_s:>10.1f} {rerank_s:>9.1f} {run_s:>7.1f} {run_s / most:>7.2f} "
                  f"{timing['stream_s']:>9.1f} {timing['overlap_s']:>9.1f}  {'yes' if same else 'NO'}", flush=True)


if __name__ == "__main__":
    main()
