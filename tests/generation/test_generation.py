"""Generation: factory errors, the vLLM adapter (against a fake ``vllm`` module), the sampling loop (resume, torn
lines, a failing server), the HF adapter on a tiny random model, and the OpenAI adapter against a real
llama-cpp-python server on 127.0.0.1. Backends that are not installed are skipped."""

from __future__ import annotations

import json
import math
import socket
import subprocess
import sys
import time
import types
import urllib.request

import pytest

from coderank_evalplus.generation import Generator, Sample, generate_samples, make_generator, truncate_at_stop
from coderank_evalplus.testgen.prompt_examples import make_test_prompt_body, trial_tests_from_prompt
from coderank_evalplus.testgen.prompts import CODET_STOP
from coderank_evalplus.types import Problem

PROMPT0 = 'def add(a, b):\n    """ Add.\n    >>> add(1, 2)\n    3\n    """\n'
PROMPT1 = 'def neg(x):\n    """ Negate.\n    >>> neg(1)\n    -1\n    """\n'


def _problem(tid, prompt, ep):
    return Problem(
        task_id=tid,
        dataset="humaneval",
        prompt=prompt,
        entry_point=ep,
        trial_tests=tuple(trial_tests_from_prompt(prompt, ep)),
        test_prompt_body=make_test_prompt_body(prompt, ep),
    )


PROBLEMS = [_problem("T/0", PROMPT0, "add"), _problem("T/1", PROMPT1, "neg"), _problem("T/2", PROMPT1, "neg")]


class FakeGenerator:
    """Returns numbered completions; fails (like a dead server) on the call number ``fail_at``."""

    def __init__(self, is_chat=False, fail_at=None):
        self.is_chat = is_chat
        self.calls = []
        self.fail_at = fail_at

    def generate(self, prompts, n, temperature, top_p, max_tokens, stop):
        self.calls.append((list(prompts), n, tuple(stop)))
        if self.fail_at is not None and len(self.calls) == self.fail_at:
            raise RuntimeError("server down")
        if self.is_chat:
            return [[Sample("```python\ndef add(a, b):\n    return a + b\nassert add(1, 1) == 2\n```")] * n
                    for _ in prompts]
        return [[Sample(f"    return {i}\n", logprob=-float(i)) for i in range(n)] for _ in prompts]


def _jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


# ---------------------------------------------------------------- factory


def test_factory_errors(tmp_path):
    with pytest.raises(ValueError, match="unknown generation backend"):
        make_generator("nope", "m")
    for backend in ("vllm", "hf", "embedded"):
        with pytest.raises(FileNotFoundError):
            make_generator(backend, str(tmp_path / "missing-model"))
    with pytest.raises(FileNotFoundError):
        make_generator("embedded", str(tmp_path / "x.gguf"))


def test_truncate_at_stop():
    assert truncate_at_stop("a\nb\ndef c", CODET_STOP) == "a\nb"
    assert truncate_at_stop("abc", []) == "abc"


# ---------------------------------------------------------------- vLLM adapter against a fake module


def test_vllm_adapter_with_fake_module(monkeypatch):
    seen = {}

    class SamplingParams:
        def __init__(self, **kw):
            seen["params"] = kw
            self.__dict__.update(kw)

    class LLM:
        def __init__(self, model, **kw):
            seen["llm"] = (model, kw)

        def get_tokenizer(self):
            class CharTokenizer:  # one token per character
                chat_template = None

                def __call__(self, text):
                    return {"input_ids": [ord(ch) for ch in text]}

            return CharTokenizer()

        def generate(self, prompts, params, use_tqdm=False):
            seen["use_tqdm"] = use_tqdm
            out = types.SimpleNamespace
            if getattr(params, "prompt_logprobs", None) is not None:  # scoring: every prompt token's logprob
                seen["score_params"] = params.__dict__
                return [out(prompt_token_ids=[ord(ch) for ch in p],
                            prompt_logprobs=[None] + [{ord(ch): out(logprob=-0.5 * (i + 1)), 0: out(logprob=-9.0)}
                                                      for i, ch in enumerate(p[1:])],
                            outputs=[out(text="x", cumulative_logprob=None, token_ids=[1])]) for p in prompts]
            return [
                out(outputs=[out(text=f"{p[:3]}-{i}", cumulative_logprob=-1.5 * i, token_ids=list(range(i + 1)))
                             for i in range(params.n)])
                for p in prompts
            ]

    fake = types.ModuleType("vllm")
    fake.LLM, fake.SamplingParams = LLM, SamplingParams
    monkeypatch.setitem(sys.modules, "vllm", fake)
    gen = make_generator("vllm", "org/model", tp=2, max_model_len=4096)
    assert isinstance(gen, Generator) and gen.is_chat is False
    assert seen["llm"][0] == "org/model" and seen["llm"][1]["tensor_parallel_size"] == 2
    assert seen["llm"][1]["enable_prefix_caching"] is True and seen["llm"][1]["max_model_len"] == 4096
    res = gen.generate(["abcdef", "xyz"], 3, 0.8, 0.95, 300, CODET_STOP)
    assert [[s.text for s in r] for r in res] == [["abc-0", "abc-1", "abc-2"], ["xyz-0", "xyz-1", "xyz-2"]]
    assert res[0][2].logprob == -3.0 and res[0][2].n_tokens == 3
    p = seen["params"]
    assert (p["n"], p["temperature"], p["top_p"], p["max_tokens"], p["logprobs"]) == (3, 0.8, 0.95, 300, 0)
    assert p["stop"] == CODET_STOP and seen["use_tqdm"] is False
    # scoring: the prompt's own logprobs, summed over the continuation's positions (3 and 4 of "abcde")
    assert gen.score([("abc", "de"), ("x", "")]) == [(-0.5 * 3 + -0.5 * 4, 2), (0.0, 0)]
    assert seen["score_params"]["prompt_logprobs"] == 0 and seen["score_params"]["max_tokens"] == 1


@pytest.mark.parametrize("on_cpu", [True, False])
def test_vllm_replicas_ask_ray_for_gpus_or_nothing_on_the_cpu(monkeypatch, on_cpu):
    """--dp replicas: on a GPU each asks Ray for its --tp GPUs (and no CPU); on vLLM's CPU platform for nothing, spread
    over the nodes (the real CPU engine: tests/generation/test_vllm_cpu.py)."""
    from coderank_evalplus.generation.vllm_backend import _replica_resources

    platforms = types.ModuleType("vllm.platforms")
    platforms.current_platform = types.SimpleNamespace(is_cpu=lambda: on_cpu)
    monkeypatch.setitem(sys.modules, "vllm", types.ModuleType("vllm"))
    monkeypatch.setitem(sys.modules, "vllm.platforms", platforms)
    expected = ({"num_gpus": 0, "num_cpus": 0, "scheduling_strategy": "SPREAD"} if on_cpu
                else {"num_gpus": 2, "num_cpus": 0})
    assert _replica_resources(2) == expected


@pytest.mark.parametrize("backend, device, held", [
    ("embedded", None, True), ("hf", "cpu", True), ("hf", "cuda", False), ("hf", "cuda:1", False),
    ("hf", "mps", False), ("vllm", "cpu", True), ("vllm", "gpu", False), ("openai", None, False),
    ("fake", None, False)])
def test_which_backends_compete_with_the_stage_for_the_cpu(monkeypatch, backend, device, held):
    """A streamed run holds executing and judging until sampling ends where the model decodes on this machine's
    cores: llama.cpp, transformers on the CPU, vLLM's CPU platform; a server, a GPU (or an object that says no
    device) overlap. The adapters are built without their models; S*'s turn-taking wrapper says what it wraps."""
    from coderank_evalplus.api.stream import _TakingTurns
    from coderank_evalplus.generation.base import sampling_competes_for_cpu
    from coderank_evalplus.generation.embedded_backend import LlamaCppGenerator
    from coderank_evalplus.generation.hf_backend import HFGenerator
    from coderank_evalplus.generation.openai_backend import OpenAIGenerator
    from coderank_evalplus.generation.vllm_backend import VllmGenerator

    gen: object
    if backend == "vllm":
        platforms = types.ModuleType("vllm.platforms")
        platforms.current_platform = types.SimpleNamespace(is_cpu=lambda: device == "cpu")
        monkeypatch.setitem(sys.modules, "vllm", types.ModuleType("vllm"))
        monkeypatch.setitem(sys.modules, "vllm.platforms", platforms)
    kind = {"embedded": LlamaCppGenerator, "hf": HFGenerator, "vllm": VllmGenerator, "openai": OpenAIGenerator,
            "fake": FakeGenerator}[backend]
    gen = object.__new__(kind)
    if backend == "hf":
        gen.device = device
    assert sampling_competes_for_cpu(gen) is held
    assert sampling_competes_for_cpu(_TakingTurns(gen)) is held


# ---------------------------------------------------------------- sampling loop


def test_generate_samples_base_and_resume(tmp_path):
    gen = FakeGenerator()
    spath, tpath = generate_samples(PROBLEMS[:2], gen, 3, 2, out_dir=str(tmp_path), progress=False)
    sols = _jsonl(spath)
    assert [s["task_id"] for s in sols] == ["T/0"] * 3 + ["T/1"] * 3
    assert sols[1] == {"task_id": "T/0", "solution": PROMPT0 + "    return 1\n", "logprob": -1.0}
    tests = _jsonl(tpath)
    assert [t["task_id"] for t in tests] == ["T/0", "T/1"] and len(tests[0]["samples"]) == 2
    # the test prompt is CodeT's, the stop sequences CodeT's
    test_prompt = gen.calls[1][0][0]
    assert test_prompt.endswith("# check the correctness of add\nassert ") and ">>>" not in test_prompt
    assert gen.calls[0][2] == tuple(CODET_STOP)

    # resume: nothing regenerated for done problems; more samples requested → only the missing ones drawn
    gen2 = FakeGenerator()
    generate_samples(PROBLEMS, gen2, 5, 2, out_dir=str(tmp_path), progress=False)
    counts = {}
    for s in _jsonl(spath):
        counts[s["task_id"]] = counts.get(s["task_id"], 0) + 1
    assert counts == {"T/0": 5, "T/1": 5, "T/2": 5}
    assert [c[1] for c in gen2.calls] == [2, 2, 5, 2]  # T/0 +2, T/1 +2, T/2 solutions 5 and tests 2
    assert len(_jsonl(tpath)) == 3


def test_generate_samples_torn_line_and_failure(tmp_path):
    gen = FakeGenerator(fail_at=4)  # problem 0: calls 1-2, problem 1: solutions ok (3), tests fail (4)
    with pytest.raises(RuntimeError, match="server down"):
        generate_samples(PROBLEMS, gen, 2, 1, out_dir=str(tmp_path), progress=False)
    spath = tmp_path / "samples.jsonl"
    # the final names appear only when the loop ends; what was generated is kept in the .partial files
    assert not spath.exists() and not (tmp_path / "tests_raw.jsonl").exists()
    partial = tmp_path / "samples.jsonl.partial"
    assert [s["task_id"] for s in _jsonl(partial)] == ["T/0", "T/0", "T/1", "T/1"]
    assert [t["task_id"] for t in _jsonl(tmp_path / "tests_raw.jsonl.partial")] == ["T/0"]
    with open(partial, "a") as f:
        f.write('{"task_id": "T/2", "solu')  # a killed writer
    gen2 = FakeGenerator()
    generate_samples(PROBLEMS, gen2, 2, 1, out_dir=str(tmp_path), progress=False)
    assert [s["task_id"] for s in _jsonl(spath)] == ["T/0"] * 2 + ["T/1"] * 2 + ["T/2"] * 2
    assert [t["task_id"] for t in _jsonl(tmp_path / "tests_raw.jsonl")] == ["T/0", "T/1", "T/2"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["samples.jsonl", "tests_raw.jsonl"]
    # a later run that fails keeps the complete files of this one untouched
    with pytest.raises(RuntimeError, match="server down"):
        generate_samples(PROBLEMS, FakeGenerator(fail_at=1), 3, 1, out_dir=str(tmp_path), progress=False)
    assert [s["task_id"] for s in _jsonl(spath)] == ["T/0"] * 2 + ["T/1"] * 2 + ["T/2"] * 2


def test_generate_samples_chat(tmp_path):
    gen = FakeGenerator(is_chat=True)
    spath, tpath = generate_samples(PROBLEMS[:1], gen, 1, 1, out_dir=str(tmp_path), progress=False)
    sol = _jsonl(spath)[0]["solution"]
    assert "def add(a, b):" in sol and "assert" not in sol
    assert _jsonl(tpath)[0]["samples"] == ["add(1, 1) == 2"]
    msgs = gen.calls[0][0][1]  # solution and test prompts in one call (1 sample each); no apply_chat_template:
    # the messages go to the backend as they are
    assert isinstance(msgs, list) and msgs[-1]["role"] == "user" and ">>>" not in msgs[-1]["content"]
    assert gen.calls[0][2] == ()  # no stop sequences for chat replies


# ---------------------------------------------------------------- OpenAI-compatible server


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_openai_server_down_is_a_clear_bounded_error(tmp_path):
    pytest.importorskip("openai")
    from coderank_evalplus.generation.openai_backend import ServerUnavailable

    port = _free_port()  # nothing listens there
    gen = make_generator("openai", "m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=1, timeout=5)
    t0 = time.time()
    with pytest.raises(ServerUnavailable, match="unavailable after 1 retries"):
        generate_samples(PROBLEMS[:1], gen, 1, 1, out_dir=str(tmp_path), progress=False)
    assert time.time() - t0 < 30


def _gguf():
    from coderank_evalplus.generation.embedded_backend import default_gguf

    try:
        return default_gguf()
    except FileNotFoundError as e:
        pytest.skip(str(e))


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    pytest.importorskip("llama_cpp")
    pytest.importorskip("uvicorn")  # llama-cpp-python[server]
    pytest.importorskip("fastapi")
    gguf = _gguf()
    port = _free_port()
    log = open(tmp_path_factory.mktemp("server") / "server.log", "w+")  # a file, not a pipe: never blocks
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", gguf, "--host", "127.0.0.1", "--port", str(port),
         "--n_ctx", "2048", "--model_alias", "smollm2",
         "--n_threads", "1", "--n_threads_batch", "1"],  # one thread, as CODERANK_LLAMA_THREADS in conftest.py
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.time() + 60
        while True:
            if proc.poll() is not None:
                log.seek(0)
                pytest.fail(f"llama_cpp.server exited: {log.read()[-2000:]}")
            try:
                urllib.request.urlopen(url + "/models", timeout=1).read()
                break
            except OSError:
                if time.time() > deadline:
                    pytest.fail("llama_cpp.server did not start within 60 s")
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def test_openai_adapter_against_llama_cpp_server(llama_server, tmp_path):
    base = make_generator("openai", "smollm2", base_url=llama_server, max_retries=0, seed=0, logprobs=True)
    res = base.generate(["def add(a, b):\n    return"], 2, 0.8, 0.95, 8, ["\ndef"])
    assert len(res) == 1 and len(res[0]) == 2 and all(isinstance(s.text, str) for s in res[0])
    assert all(s.logprob is not None and s.logprob <= 0 and 0 < s.n_tokens <= 8 for s in res[0])
    # scoring through echo: one value per continuation token (the values themselves: see openai_backend.py)
    [(total, n)] = base.score([("def f(x):\n", "    return x\n")])
    local = make_generator("embedded", engine="llama_cpp", n_ctx=512)
    assert math.isfinite(total) and total < 0 and n == local.score([("def f(x):\n", "    return x\n")])[0][1]
    chat = make_generator("openai", "smollm2", base_url=llama_server, chat=True, max_retries=0)
    spath, tpath = generate_samples(PROBLEMS[:1], chat, 1, 1, max_tokens=24, out_dir=str(tmp_path), progress=False)
    assert len(_jsonl(spath)) == 1 and len(_jsonl(tpath)[0]["samples"]) == 1


# ---------------------------------------------------------------- local backends


def test_llama_threads_come_from_the_environment(monkeypatch):
    from coderank_evalplus.generation.embedded_backend import THREADS_ENV, llama_threads

    monkeypatch.setenv(THREADS_ENV, "3")
    assert llama_threads() == 3
    monkeypatch.setenv(THREADS_ENV, "")
    assert llama_threads() is None
    monkeypatch.delenv(THREADS_ENV)
    assert llama_threads() is None
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv(THREADS_ENV, bad)
        with pytest.raises(ValueError, match=f"CODERANK_LLAMA_THREADS='{bad}': expected a positive number"):
            llama_threads()


@pytest.mark.model
def test_embedded_llama_cpp(tmp_path):
    pytest.importorskip("llama_cpp")
    _gguf()
    from coderank_evalplus.generation.embedded_backend import llama_threads

    gen = make_generator("embedded", engine="llama_cpp", n_ctx=1024, seed=0)
    assert gen.llm.n_threads == gen.llm.n_threads_batch == llama_threads()  # conftest.py sets 1
    assert gen.is_chat and "<|im_start|>" in gen.apply_chat_template([{"role": "user", "content": "hi"}])
    res = gen.generate(["def add(a, b):\n"], 2, 0.8, 0.95, 8, CODET_STOP)
    assert len(res[0]) == 2 and all(s.logprob is not None and s.logprob <= 0 and s.n_tokens for s in res[0])
    # our score equals llama.cpp's own per-token logprobs of a completion it drew (read from the same logits)
    r = gen.llm.create_completion("def add(a, b):\n", max_tokens=4, temperature=0.0, logprobs=1)["choices"][0]
    own = [x for x in r["logprobs"]["token_logprobs"] if x is not None]
    [(total, n)] = gen.score([("def add(a, b):\n", r["text"])])
    assert n == len(own) == 4 and total == pytest.approx(sum(own), abs=1e-3)
    # from a cold cache (one batched pass: llama.cpp's quantized kernels give slightly different values than
    # token-by-token decoding, −2.52 against −2.46 here); a misaligned position would be off by nats per token
    gen.llm.reset()
    [(cold, _)] = gen.score([("def add(a, b):\n", r["text"])])
    assert cold == pytest.approx(sum(own), rel=0.05)
    assert gen.score([("abc", "")]) == [(0.0, 0)]


def _tiny_llama(path):
    """A randomly initialised 2-layer Llama with a byte-level BPE tokenizer trained here (no hub access)."""
    tokenizers = pytest.importorskip("tokenizers")
    torch = pytest.importorskip("torch")
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tok = tokenizers.Tokenizer(tokenizers.models.BPE(unk_token=None))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=400, special_tokens=["<|endoftext|>"],
        initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator([PROMPT0, PROMPT1, "def return assert == pass"] * 10, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", pad_token="<|endoftext|>")
    fast.save_pretrained(path)
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=len(fast), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=512,
                      eos_token_id=fast.eos_token_id, pad_token_id=fast.pad_token_id, bos_token_id=fast.eos_token_id)
    LlamaForCausalLM(cfg).save_pretrained(path)
    return path


@pytest.mark.model
def test_hf_adapter_tiny_random_model(tmp_path):
    path = _tiny_llama(str(tmp_path / "tiny"))
    gen = make_generator("hf", path, batch_size=3, seed=0)
    assert gen.is_chat is False
    res = gen.generate([PROMPT0], 5, 1.0, 1.0, 12, ["\ndef"])
    assert len(res[0]) == 5
    for s in res[0]:
        assert "\ndef" not in s.text and s.logprob is not None and s.logprob <= 0
    greedy = gen.generate([PROMPT0], 1, 0.0, 1.0, 6, [])
    assert len(greedy[0]) == 1 and greedy[0][0].n_tokens == 6
    # score: the continuation's tokens under the model, against transformers' own shifted loss over the text
    import torch

    ids = gen.tokenizer(PROMPT0, add_special_tokens=False)["input_ids"]
    first = gen.tokenizer.decode(ids[:1])
    [(total, n)] = gen.score([(first, PROMPT0[len(first):])])
    with torch.inference_mode():
        loss = gen.model(input_ids=torch.tensor([ids]), labels=torch.tensor([ids])).loss.item()
    assert n == len(ids) - 1 and total == pytest.approx(-loss * n, rel=1e-4)


@pytest.mark.model
def test_hf_adapter_batches_prompts_of_different_lengths(tmp_path):
    """Several prompts × n sequences in one left-padded call (the prompts' shared prefix pass included): each
    prompt's greedy reply is the one it gets alone, and each sampled reply's log-probability is the forward-pass
    score of its own tokens after its unpadded prompt."""
    import torch

    path = _tiny_llama(str(tmp_path / "tiny"))
    gen = make_generator("hf", path, seed=0)
    assert gen.problems_per_call >= 4 and gen.max_rows(20, 12) > 9  # the first run's 40 replies: one or two calls
    prompts = [PROMPT0, PROMPT1, "def f():\n"]  # 3 lengths: the shorter ones are left-padded
    alone = [gen.generate([p], 1, 0.0, 1.0, 8, [])[0][0] for p in prompts]
    together = gen.generate(prompts, 2, 0.0, 1.0, 8, [])
    for a, rows in zip(alone, together):
        for b in rows:
            assert b.text == a.text and b.n_tokens == a.n_tokens
            assert b.logprob == pytest.approx(a.logprob, abs=1e-4)

    calls = []
    real = gen.model.generate

    def spy(**kw):
        out = real(**kw)
        calls.append((kw["input_ids"], kw["attention_mask"], out.sequences))
        return out

    gen.model.generate = spy
    drawn = dict(gen.generate_iter(prompts, 3, 1.0, 1.0, 10, ["\ndef"]))
    assert sorted(drawn) == [0, 1, 2] and len(calls) == 1  # 9 sequences, one call
    [(ids, mask, seqs)] = calls
    assert ids.shape[0] == 9 and (mask == 0).any()
    # rows go longest prompt first: PROMPT0, PROMPT1, "def f():\n", 3 rows each
    for row, (i, j) in enumerate((i, j) for i in range(3) for j in range(3)):
        s = drawn[i][j]
        assert "\ndef" not in s.text and s.n_tokens is not None
        prompt = ids[row][mask[row].bool()].tolist()
        reply = seqs[row, ids.shape[1]:][: s.n_tokens].tolist()
        full = torch.tensor([prompt + reply])
        with torch.inference_mode():
            logits = gen.model(input_ids=full).logits[0, len(prompt) - 1 : -1].float()
        expected = torch.log_softmax(logits, -1).gather(-1, full[0, len(prompt):, None]).sum().item()
        assert s.logprob == pytest.approx(expected, abs=1e-3)
    # reproducible: the same seed draws the same samples
    gen.model.generate = real
    again = make_generator("hf", path, seed=0)
    first = make_generator("hf", path, seed=0)
    assert [[s.text for s in r] for r in first.generate(prompts, 3, 1.0, 0.9, 10, [])] == \
        [[s.text for s in r] for r in again.generate(prompts, 3, 1.0, 0.9, 10, [])]


def test_gguf_read_once_shares_one_reader_and_one_name_map(tmp_path):
    """Inside the block a GGUF file is parsed once and gguf's tensor-name map built once; outside, gguf is as it was."""
    gguf = pytest.importorskip("gguf")
    pytest.importorskip("torch")
    import numpy as np

    from coderank_evalplus.generation.hf_backend import gguf_read_once

    path = str(tmp_path / "tiny.gguf")
    writer = gguf.GGUFWriter(path, "llama")
    writer.add_block_count(2)
    writer.add_tensor("token_embd.weight", np.zeros((4, 8), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    reader, name_map = gguf.GGUFReader, gguf.get_tensor_name_map
    with gguf_read_once():
        first = gguf.GGUFReader(path)
        assert gguf.GGUFReader(path) is first and first.tensors[0].name == "token_embd.weight"
        assert gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, 2) is gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, 2)
    assert (gguf.GGUFReader, gguf.get_tensor_name_map) == (reader, name_map)
    assert gguf.GGUFReader(path) is not first


def test_run_through_the_openai_server_with_likelihoods_and_sd1(llama_server, tmp_path):
    """``coderank-evalplus run --backend openai`` against llama.cpp's server: log-probabilities of the samples
    from the completions endpoint, SD-1 rewrites through the same server. (The reviewer's echo scoring is
    checked above: llama-cpp-python sorts the vocabulary in Python for each echoed token, ~20 s per sample here.)"""
    from tests.cli.test_run import check_doce_run, run_cli
    from tests.conftest import SHARED_DATA

    if not SHARED_DATA.is_dir():
        pytest.skip("shared data not present")
    out = tmp_path / "run"
    methods = "ll,ll+mbr_exec,filter+ll+mbr_exec,codet"
    r = run_cli(out, "--backend", "openai", "--base-url", llama_server, "--model", "smollm2", "--self-debug", "sd1",
                methods=methods)
    assert r.returncode == 0, r.stderr[-3000:]
    res = check_doce_run(out, "sd1", methods)
    assert res["self_debug"]["sd1"]["rounds"] == 3
    from coderank_evalplus.io.problems import load_problems
    from tests.stream_parity import rerank_again, results_of

    again = rerank_again(out, tmp_path / "again", load_problems("humaneval", str(SHARED_DATA)), str(SHARED_DATA))
    assert results_of(out) == results_of(again)  # the streamed run's folder is the unstreamed order's


# ---------------------------------------------------------------- the loop's calls, hand-overs and halt


class MixedGenerator(FakeGenerator):
    """A server's generator: every prompt of a call in flight together, whatever its count (``generate_iter_mixed``)."""

    def generate_iter_mixed(self, prompts, counts, stops, temperature, top_p, max_tokens):
        self.calls.append((list(prompts), list(counts), [tuple(s) for s in stops]))
        for i, k in enumerate(counts):
            yield i, [Sample(f"    return {j}\n", logprob=-float(j)) for j in range(k)]


def test_a_server_gets_every_problems_solutions_and_tests_in_one_call(tmp_path):
    gen = MixedGenerator()
    generate_samples(PROBLEMS, gen, 3, 2, out_dir=str(tmp_path), progress=False, problems_per_call=100)
    # nothing waits for the solutions to drain; they go first, so that what needs only them starts early
    assert len(gen.calls) == 1 and gen.calls[0][1] == [3, 3, 3, 2, 2, 2]
    assert [t["task_id"] for t in _jsonl(tmp_path / "tests_raw.jsonl")] == ["T/0", "T/1", "T/2"]


def test_each_problem_is_handed_over_once_those_of_an_earlier_run_first(tmp_path):
    seen = []
    gen = FakeGenerator()
    generate_samples(PROBLEMS[:2], gen, 2, 1, out_dir=str(tmp_path), progress=False,
                     on_problem=lambda p, recs, tests: seen.append((p.task_id, len(recs), tests, len(gen.calls))))
    assert [(t, n, len(tests)) for t, n, tests, _ in seen] == [("T/0", 2, 1), ("T/1", 2, 1)]
    assert seen[0][3] == 2  # as soon as its own calls were answered, before the next problem's
    seen.clear()
    gen = FakeGenerator()
    generate_samples(PROBLEMS, gen, 2, 1, out_dir=str(tmp_path), progress=False,
                     on_problem=lambda p, recs, tests: seen.append((p.task_id, len(recs), tests, len(gen.calls))))
    assert [(t, calls) for t, _, _, calls in seen] == [("T/0", 0), ("T/1", 0), ("T/2", 2)]
    seen.clear()
    generate_samples(PROBLEMS[:1], FakeGenerator(), 2, 0, out_dir=str(tmp_path / "no_tests"), progress=False,
                     on_problem=lambda p, recs, tests: seen.append(tests))
    assert seen == [None]  # no test samples asked for: no test record


def test_solutions_of_a_problem_still_waiting_for_its_tests_are_handed_over_early(tmp_path):
    early, complete = [], []
    generate_samples(PROBLEMS[:2], MixedGenerator(), 2, 1, out_dir=str(tmp_path), progress=False,
                     problems_per_call=100, on_problem=lambda p, recs, tests: complete.append(p.task_id),
                     on_solutions=lambda p, recs: early.append((p.task_id, len(recs), list(complete))))
    assert early == [("T/0", 2, []), ("T/1", 2, [])] and complete == ["T/0", "T/1"]


def test_halt_stops_the_loop_at_the_next_answer_keeping_what_it_wrote(tmp_path):
    import threading

    from coderank_evalplus.generation.sampling import SamplingHalted

    halt = threading.Event()
    with pytest.raises(SamplingHalted):
        generate_samples(PROBLEMS, FakeGenerator(), 2, 1, out_dir=str(tmp_path), progress=False, halt=halt,
                         on_problem=lambda p, recs, tests: halt.set())
    assert {s["task_id"] for s in _jsonl(tmp_path / "samples.jsonl.partial")} == {"T/0"}
    seen = []
    generate_samples(PROBLEMS, FakeGenerator(), 2, 1, out_dir=str(tmp_path), progress=False,
                     on_problem=lambda p, recs, tests: seen.append(p.task_id))
    assert seen == ["T/0", "T/1", "T/2"] and len(_jsonl(tmp_path / "samples.jsonl")) == 6


class ScoringGenerator(FakeGenerator):
    """Samples without log-probabilities; ``score`` gives each continuation -1 per character."""

    def generate(self, prompts, n, temperature, top_p, max_tokens, stop):
        return [[Sample(s.text) for s in out] for out in super().generate(prompts, n, temperature, top_p,
                                                                          max_tokens, stop)]

    def score(self, pairs):
        self.calls.append(("score", len(pairs)))
        return [(-float(len(c)), len(c)) for _, c in pairs]


def test_likelihoods_the_methods_need_are_on_every_record_before_it_is_handed_over(tmp_path):
    handed = []
    generate_samples(PROBLEMS[:1], ScoringGenerator(), 2, 0, out_dir=str(tmp_path), progress=False)
    assert all("logprob" not in r for r in _jsonl(tmp_path / "samples.jsonl"))  # an earlier run's, unscored
    gen = ScoringGenerator()
    generate_samples(PROBLEMS[:2], gen, 2, 0, out_dir=str(tmp_path), progress=False, score=["coder", "reviewer"],
                     on_problem=lambda p, recs, tests: handed.append(recs))
    fields = {"logprob", "logprob_tokens", "reviewer_logprob", "reviewer_logprob_tokens"}
    assert len(handed) == 2 and all(fields <= set(r) for recs in handed for r in recs)
    assert all(fields <= set(r) for r in _jsonl(tmp_path / "samples.jsonl"))  # written with them
    assert [c for c in gen.calls if c[0] == "score"] == [("score", 4), ("score", 4)]  # T/0's first, then T/1's
