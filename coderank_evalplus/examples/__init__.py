"""Real samples bundled with the package (MIT-licensed sources; see NOTICE.md here): CodeGen-16B's HumanEval
samples (CodeT's release: 100 solutions and 100 test samples per problem, temperature 0.8) and GPT-4's asserts.

Data only: ``api.examples`` names them (``example_path``) and makes the example leaderboard of ``coderank-evalplus
leaderboard --example`` from them (reranked with both test pools on the first problems of HumanEval: no model, no
GPU, no download).
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
SOLUTIONS = HERE / "codegen16b_humaneval_solutions.jsonl.gz"  # CodeGen-16B, HumanEval, 100 per problem (CodeT)
OWN_TESTS = HERE / "codegen16b_humaneval_tests.jsonl.gz"  # its own test samples, 100 per problem (CodeT)
GPT4_TESTS = HERE / "gpt4_humaneval_tests.jsonl.gz"  # GPT-4's asserts for HumanEval
