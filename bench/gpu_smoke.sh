#!/usr/bin/env bash
# GPU smoke test of the vLLM adapter, for a CUDA machine with vLLM installed and no hub access.
#
#   bash bench/gpu_smoke.sh            (from the repository root; PYTHON=... to pick an interpreter)
#
# Builds a tiny randomly initialised Llama (2 layers, hidden 256, head_dim 64) with a byte-level BPE tokenizer
# trained on the spot, saves both to a temporary directory, then runs make_generator("vllm", dir) on two HumanEval
# prompts (solution prompt and CodeT test prompt) with n=4 and prints the (random) outputs and their logprobs, then
# scores a greedy completion through prompt_logprobs (the likelihood features' path) against the logprob vLLM
# reported while sampling it.
# Exit status 0 means: vLLM loaded the model, returned n samples per prompt with cumulative logprobs and token
# counts, and scored text with values matching its own sampling logprobs.
set -euo pipefail
PYTHON="${PYTHON:-python}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1
export PYTHONPATH="$(cd "$(dirname "$0")/.." && pwd)${PYTHONPATH:+:$PYTHONPATH}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

"$PYTHON" - "$TMP/tiny-llama" <<'PY'
import sys

import tokenizers
import torch
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

path = sys.argv[1]
corpus = [
    "def f(x):\n    return x + 1\n", "assert f(1) == 2\n", '    """ Check if in given list of numbers.\n    """\n',
    "from typing import List\n\n\n", "    pass\n\n# check the correctness of f\nassert ",
] * 20
tok = tokenizers.Tokenizer(tokenizers.models.BPE(unk_token=None))
tok.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
tok.decoder = tokenizers.decoders.ByteLevel()
trainer = tokenizers.trainers.BpeTrainer(
    vocab_size=512, special_tokens=["<|endoftext|>"], initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet()
)
tok.train_from_iterator(corpus, trainer)
fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", pad_token="<|endoftext|>",
                               bos_token="<|endoftext|>")
fast.save_pretrained(path)
torch.manual_seed(0)
cfg = LlamaConfig(
    vocab_size=len(fast), hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
    num_key_value_heads=4, max_position_embeddings=1024, eos_token_id=fast.eos_token_id,
    bos_token_id=fast.bos_token_id, pad_token_id=fast.pad_token_id, torch_dtype="bfloat16",
)
LlamaForCausalLM(cfg).to(torch.bfloat16).save_pretrained(path)
print("saved tiny model to", path)
PY

"$PYTHON" - "$TMP/tiny-llama" <<'PY'
import sys

from coderank_evalplus.generation import make_generator
from coderank_evalplus.testgen.prompts import CODET_STOP, solution_prompt, test_generation_prompt
from coderank_evalplus.testgen.prompt_examples import make_test_prompt_body
from coderank_evalplus.types import Problem

HE = [
    ("HumanEval/0", "has_close_elements",
     "from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
     '    """ Check if in given list of numbers, are any two numbers closer to each other than\n'
     "    given threshold.\n    >>> has_close_elements([1.0, 2.0, 3.0], 0.5)\n    False\n"
     "    >>> has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)\n    True\n    \"\"\"\n"),
    ("HumanEval/2", "truncate_number",
     "\n\ndef truncate_number(number: float) -> float:\n"
     '    """ Given a positive floating point number, it can be decomposed into\n'
     "    and integer part (largest integer smaller than given number) and decimals\n"
     "    (leftover part always smaller than 1).\n\n    Return the decimal part of the number.\n"
     "    >>> truncate_number(3.5)\n    0.5\n    \"\"\"\n"),
]
problems = [Problem(task_id=t, dataset="humaneval", prompt=p, entry_point=e,
                    test_prompt_body=make_test_prompt_body(p, e)) for t, e, p in HE]
gen = make_generator("vllm", sys.argv[1], dtype="bfloat16", max_model_len=1024, chat=False, seed=0,
                     gpu_memory_utilization=0.3, enforce_eager=True)
prompts = [solution_prompt(p) for p in problems] + [test_generation_prompt(p) for p in problems]
res = gen.generate(prompts, 4, 0.8, 0.95, 32, CODET_STOP)
assert len(res) == 4 and all(len(r) == 4 for r in res), [len(r) for r in res]
for prompt, samples in zip(prompts, res):
    print("=" * 30, repr(prompt[-60:]))
    for s in samples:
        print(f"  logprob={s.logprob}  text={s.text!r}")
assert all(s.logprob is not None and s.n_tokens for r in res for s in r), "no cumulative logprobs / token counts"
greedy = gen.generate(prompts[:1], 1, 0.0, 1.0, 16, [])[0][0]
[(total, n)] = gen.score([(prompts[0], greedy.text)])
print(f"greedy sample: logprob={greedy.logprob} over {greedy.n_tokens} tokens; scored: {total} over {n} tokens")
if n == greedy.n_tokens:  # the same tokens after a decode/encode round trip: the same log-probabilities
    assert abs(total - greedy.logprob) <= 0.05 + 0.01 * abs(total), (total, greedy.logprob)
assert n > 0 and total <= 0
print("GPU SMOKE OK")
PY
