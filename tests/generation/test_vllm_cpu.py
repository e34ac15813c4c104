"""The vLLM adapter on the real engine (vLLM's CPU build, SmolLM2-135M-Instruct): n samples per prompt with their
log-probabilities; scores from the prompt's log-probabilities equal to the hf backend's forward pass; ``--dp 2``
(two replicas on Ray) giving the one engine's answers. Skipped where vLLM is absent (tests/vllm_cpu.py)."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from coderank_evalplus.generation import make_generator
from coderank_evalplus.testgen.prompts import CODET_STOP
from tests.vllm_cpu import ENV, needs_vllm, smollm2_dir

pytestmark = [needs_vllm, pytest.mark.model, pytest.mark.timeout(1800)]  # engine starts take minutes on 2 busy cores

ADD = 'def add(a: int, b: int) -> int:\n    """Return the sum of a and b."""\n'
FIB = 'def fib(n: int) -> int:\n    """Return the n-th Fibonacci number: fib(0) = 0, fib(1) = 1."""\n'
CHAT = [{"role": "user", "content": "Write a Python function that reverses a string."}]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> str:
    return smollm2_dir(tmp_path_factory)


@pytest.fixture(scope="module")
def vllm_env():
    saved = {k: os.environ.get(k) for k in ENV}
    os.environ.update(ENV)
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="module")
def gen(model_dir, vllm_env):
    # float32: the hf backend's CPU default, so that scores compare (vLLM's CPU default would cast to bfloat16)
    g = make_generator("vllm", model_dir, dtype="float32", max_model_len=1024, seed=0)
    yield g
    g.close()


def test_samples_with_logprobs(gen):
    assert gen.is_chat is True  # SmolLM2-Instruct's tokenizer has a chat template
    res = gen.generate([ADD, FIB], 3, 0.8, 0.95, 48, CODET_STOP)
    assert [len(r) for r in res] == [3, 3]
    for s in res[0] + res[1]:
        assert s.logprob is not None and s.logprob <= 0 and 1 <= (s.n_tokens or 0) <= 48
    [[greedy]] = gen.generate([ADD + "    return"], 1, 0.0, 1.0, 8, ["\n"])
    assert "a + b" in greedy.text or "b + a" in greedy.text, greedy.text  # weights loaded right, not noise


def test_scores_equal_the_hf_forward_pass(gen, model_dir):
    """log p(continuation | context) from vLLM's prompt log-probabilities against transformers' forward pass on the
    same text (both float32): within 0.01 nats per token, on the same token count."""
    chat_prompt = gen.apply_chat_template(CHAT)
    [[greedy]] = gen.generate([ADD], 1, 0.0, 1.0, 24, CODET_STOP)
    [[sampled]] = gen.generate([FIB], 1, 0.8, 0.95, 32, CODET_STOP)
    [[reply]] = gen.generate([chat_prompt], 1, 0.0, 1.0, 32, [])
    pairs = [(ADD, greedy.text), (FIB, sampled.text), (chat_prompt, reply.text),
             ("# check the correctness of add\nassert ", "add(1, 2) == 3"), (ADD, "")]
    ours = gen.score(pairs)
    hf = make_generator("hf", model_dir, dtype="float32").score(pairs)
    print("\nvLLM vs hf (nats, tokens):", list(zip(ours, hf)))
    assert [n for _, n in ours] == [n for _, n in hf] and ours[-1] == (0.0, 0)
    for (a, n), (b, _) in zip(ours[:-1], hf[:-1]):
        assert n > 0 and abs(a - b) / n < 0.01, (a, b, n)
    if greedy.n_tokens == ours[0][1]:  # the same tokens after decode / encode: the sampling logprob agrees too
        assert abs(ours[0][0] - (greedy.logprob or 0.0)) / ours[0][1] < 0.01, (ours[0], greedy.logprob)


def test_two_replicas_on_ray_give_the_engines_answers(gen, model_dir):
    """--dp 2: two engines as Ray actors on this machine's CPU; prompts dealt out in turn, answers put back in
    order: greedy samples and scores equal those of the single engine."""
    ray = pytest.importorskip("ray")
    prompts = [ADD, FIB, ADD + "    # add them\n", FIB + "    if n < 2:\n"]
    one = gen.generate(prompts, 1, 0.0, 1.0, 16, CODET_STOP)
    pairs = [(p, r[0].text) for p, r in zip(prompts, one)]
    tmp = tempfile.mkdtemp(prefix="crk", dir="/tmp")  # short: Ray's socket paths must fit in 107 bytes
    os.environ["RAY_TMPDIR"] = tmp
    two = make_generator("vllm", model_dir, dtype="float32", max_model_len=1024, seed=0, dp=2)
    try:
        devices = two.devices()
        assert len({d["pid"] for d in devices}) == 2
        res = two.generate(prompts, 1, 0.0, 1.0, 16, CODET_STOP)
        assert [r[0].text for r in res] == [r[0].text for r in one]
        for (a, n), (b, m) in zip(two.score(pairs), gen.score(pairs)):
            assert n == m and abs(a - b) <= 1e-3 * max(1, n)
    finally:
        two.close()
        os.environ.pop("RAY_TMPDIR", None)
        shutil.rmtree(tmp, ignore_errors=True)
    assert not ray.is_initialized()
