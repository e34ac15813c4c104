"""What every backend shares: the ``Sample`` record, the ``Generator`` and ``Scorer`` protocols, stop-sequence
truncation and the helpers the backends use to line tokens up."""

from __future__ import annotations

import collections.abc
import os
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Optional, Protocol, Sequence, Union, runtime_checkable


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


def sampling_competes_for_cpu(generator: object) -> bool:
    """Whether ``generator`` draws on this machine's CPU cores (its ``device`` is the CPU: llama.cpp, transformers
    or vLLM on the CPU). Then executing and judging programs while it decodes takes cores from its decoding, and
    the run is slower for the overlap, not faster (the embedded model's run on 2 cores: 4-5 % slower), so a streamed
    run holds that work until sampling ends. A server (openai: the model runs in another process, here or
    elsewhere) and a GPU leave the cores to the programs: they overlap."""
    device = getattr(generator, "device", None)
    return isinstance(device, str) and device.split(":")[0] == "cpu"


def generate_each(generator: Generator, prompts: list[Prompt], n: int, temperature: float, top_p: float,
                  max_tokens: int, stop: list[str]) -> Iterator[tuple[int, list[Sample]]]:
    """Each prompt's ``n`` samples as they are ready, as ``(index in prompts, samples)``.

    A generator with ``generate_iter`` (same arguments, same pairs) yields them in the order they complete: a
    server answering many requests at once. Any other answers all prompts in one ``generate`` call (a local engine
    batches them), in order. The sampling loop writes each pair as it arrives, so an interrupted run keeps every
    prompt already answered.
    """
    stream = getattr(generator, "generate_iter", None)
    if stream is not None:
        yield from stream(prompts, n, temperature, top_p, max_tokens, stop)
        return
    yield from enumerate(generator.generate(prompts, n, temperature, top_p, max_tokens, stop))


def generate_mixed(generator: Generator, prompts: list[Prompt], counts: Sequence[int], stops: Sequence[Sequence[str]],
                   temperature: float, top_p: float,
                   max_tokens: int) -> collections.abc.Generator[tuple[int, list[Sample]], None, None]:
    """Each prompt's samples as they are ready, as ``(index in prompts, samples)``; prompt i asks for
    ``counts[i]`` samples that stop at ``stops[i]`` (a problem's solutions and its test samples).

    A generator with ``generate_iter_mixed`` (same arguments) takes them all in one call: a server has every
    request in flight at once, whatever its count. Any other gets one ``generate_each`` call per distinct
    (count, stop sequences), in the order they first appear: a local engine batches the prompts of one call, and
    its draws (seeded engines number their calls) stay those of the loop before it took mixed calls."""
    mixed = getattr(generator, "generate_iter_mixed", None)
    if mixed is not None:
        yield from mixed(prompts, list(counts), [list(s) for s in stops], temperature, top_p, max_tokens)
        return
    asks = [(int(k), tuple(s)) for k, s in zip(counts, stops)]
    for k, stop in dict.fromkeys(asks):
        idx = [i for i, ask in enumerate(asks) if ask == (k, stop)]
        for j, samples in generate_each(generator, [prompts[i] for i in idx], k, temperature, top_p, max_tokens,
                                        list(stop)):
            yield idx[j], samples


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
