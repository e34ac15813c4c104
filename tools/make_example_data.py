"""Build the example data bundled in coderank_evalplus/examples/ from the shared data folder (run once, by hand).

Only files whose source repository is MIT-licensed are bundled (see coderank_evalplus/examples/NOTICE.md):
CodeT's CodeGen-16B HumanEval solutions and test samples (microsoft/CodeT) and GPT-4's HumanEval asserts
(noahshinn/reflexion). CodeT's {prompt, samples} records are joined to task ids and written as evalplus-style
{task_id, solution} (solution = CodeT's prompt + the sample cut at CodeT's stop sequences, as `rerank` reads them).

    python tools/make_example_data.py ../shared/data
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

from coderank_evalplus.io.problems import load_original_humaneval
from coderank_evalplus.io.samples import read_jsonl, read_solutions, read_test_samples

OUT = Path(__file__).resolve().parents[1] / "coderank_evalplus" / "examples"


def _write(path: Path, records) -> None:
    with gzip.GzipFile(path, "wb", mtime=0, compresslevel=9) as fh:
        for rec in records:
            fh.write((json.dumps(rec) + "\n").encode())
    print(f"{path.name}: {path.stat().st_size:,} bytes")


def main(data: str) -> None:
    root = Path(data)
    gen = root / "microsoft_CodeT" / "generated_data"
    problems = load_original_humaneval()
    sols = read_solutions(gen / "HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_code_solution.jsonl", problems,
                          data)
    order = [t for t in problems if t in sols]
    _write(OUT / "codegen16b_humaneval_solutions.jsonl.gz",
           ({"task_id": t, "solution": s} for t in order for s in sols[t]))
    tests = read_test_samples(gen / "HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_test_case.jsonl", problems,
                              data)
    _write(OUT / "codegen16b_humaneval_tests.jsonl.gz",
           ({"task_id": t, "samples": tests[t]} for t in order if t in tests))
    gpt4 = {rec["task_id"]: rec["asserts"]
            for _, rec in read_jsonl(root / "extra_humaneval" / "tests" / "gpt-4_reflexion.jsonl")}
    _write(OUT / "gpt4_humaneval_tests.jsonl.gz", ({"task_id": t, "asserts": gpt4[t]} for t in order if t in gpt4))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/data")
