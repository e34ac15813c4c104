"""Adapter for any OpenAI-compatible server (vLLM serve, llama-cpp-python's server, TGI, OpenAI itself).

Plain string prompts go to the completions endpoint (base models); message lists go to the chat endpoint. Servers
that ignore ``n`` (llama.cpp) are asked again until ``n`` samples are collected. A server that cannot be reached
raises ``ServerUnavailable`` after a bounded number of retries (the openai client's own exponential back-off);
the sampling loop writes what it already has before the error propagates.

``score`` uses the completions endpoint with ``echo=True`` and ``logprobs``: the server returns the log-probability
of every prompt token, and those of the continuation (told apart by ``text_offset``) are summed. Servers differ
here: vLLM takes them from its prompt log-probabilities; llama-cpp-python 0.3.x aligns them one position late for
models whose tokenizer adds no BOS token (SmolLM2 among them: −63.3 against −2.92 by a forward pass for the same
6 tokens), so its echoed values are not log p(token | prefix).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Optional

from coderank_evalplus.generation.base import Sample, truncate_at_stop

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam


class ServerUnavailable(RuntimeError):
    """The OpenAI-compatible server could not be reached (or kept failing) after the allowed retries."""


class OpenAIGenerator:
    def __init__(
        self,
        model: str,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        chat: bool = False,
        timeout: float = 120.0,
        max_retries: int = 2,
        logprobs: bool = False,
        seed: Optional[int] = None,
    ) -> None:
        import openai

        self._openai = openai
        self.model = model
        self.base_url = base_url or os.getenv("OPENAI_BASE_URL")
        self.client = openai.OpenAI(
            api_key=api_key or os.getenv("OPENAI_API_KEY", "none"),
            base_url=self.base_url,
            timeout=timeout,
            max_retries=max_retries,
        )
        self.is_chat = bool(chat)
        self.logprobs = logprobs
        self.seed = seed

    # chat prompts are sent as messages; the server applies the model's template
    def _request(self, prompt, n, temperature, top_p, max_tokens, stop):
        kw = dict(model=self.model, n=n, temperature=temperature, top_p=top_p, max_tokens=max_tokens)
        if stop:
            kw["stop"] = list(stop)[:4] if "api.openai.com" in str(self.client.base_url) else list(stop)
        if self.seed is not None:
            kw["seed"] = self.seed
        openai = self._openai
        try:
            if isinstance(prompt, str) and not self.is_chat:
                if self.logprobs:
                    kw["logprobs"] = 1
                r = self.client.completions.create(prompt=prompt, **kw)
                out = []
                for c in r.choices:
                    lp = n_tok = None
                    if self.logprobs and c.logprobs is not None and c.logprobs.token_logprobs:
                        values = [x for x in c.logprobs.token_logprobs if x is not None]
                        lp, n_tok = float(sum(values)), len(values)
                    out.append(Sample(truncate_at_stop(c.text or "", stop), lp, n_tok))
                return out
            messages: list[ChatCompletionMessageParam] = (
                [{"role": "user", "content": prompt}] if isinstance(prompt, str) else list(prompt))
            if self.logprobs:
                kw["logprobs"] = True
            r = self.client.chat.completions.create(messages=messages, **kw)
            out = []
            for c in r.choices:
                lp = n_tok = None
                if self.logprobs and c.logprobs is not None and c.logprobs.content:
                    lp, n_tok = float(sum(t.logprob for t in c.logprobs.content)), len(c.logprobs.content)
                out.append(Sample(truncate_at_stop(c.message.content or "", stop), lp, n_tok))
            return out
        except (openai.APIConnectionError, openai.APITimeoutError, openai.InternalServerError) as e:
            raise ServerUnavailable(
                f"OpenAI-compatible server at {self.client.base_url} unavailable after "
                f"{self.client.max_retries} retries: {type(e).__name__}: {e}"
            ) from e

    def score(self, pairs) -> list[tuple[float, int]]:
        """log p(continuation | context) from the completions endpoint's echoed prompt log-probabilities."""
        openai = self._openai
        out = []
        for context, continuation in pairs:
            full = context + continuation
            try:
                r = self.client.completions.create(model=self.model, prompt=full, echo=True, logprobs=1, max_tokens=1,
                                                   temperature=0.0)
            except (openai.APIConnectionError, openai.APITimeoutError, openai.InternalServerError) as e:
                raise ServerUnavailable(f"OpenAI-compatible server at {self.client.base_url} unavailable: "
                                        f"{type(e).__name__}: {e}") from e
            lp = r.choices[0].logprobs if r.choices else None
            if lp is None or not lp.token_logprobs or not lp.text_offset:
                raise ValueError(f"the server at {self.client.base_url} returned no echoed log-probabilities "
                                 f"(completions endpoint with echo=True and logprobs): it cannot score text")
            offsets = list(lp.text_offset)
            total, n_tok = 0.0, 0
            for i, (off, value) in enumerate(zip(offsets, lp.token_logprobs)):
                end = offsets[i + 1] if i + 1 < len(offsets) else len(full) + 1
                # a continuation token ends after the context and starts inside the text (not the generated one)
                if off < len(full) and end > len(context) and value is not None:
                    total += float(value)
                    n_tok += 1
            out.append((total, n_tok))
        return out

    def generate(self, prompts, n, temperature, top_p, max_tokens, stop) -> list[list[Sample]]:
        results = []
        for p in prompts:
            got: list[Sample] = []
            empty_rounds = 0
            while len(got) < n:
                new = self._request(p, n - len(got), temperature, top_p, max_tokens, stop)
                if not new:
                    empty_rounds += 1
                    if empty_rounds >= 3:
                        raise ServerUnavailable(f"server at {self.client.base_url} returned no choices")
                got.extend(new)
            results.append(got[:n])
        return results
