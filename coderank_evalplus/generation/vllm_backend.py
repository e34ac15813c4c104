"""vLLM adapter (GPU). Same construction as ``evalplus.provider.vllm.VllmDecoder`` (prefix caching, the model's
tokenizer decides chat vs base), but one request carries all ``n`` samples (``SamplingParams.n``) and asks for the
sampled tokens' logprobs (``logprobs=0``) so that ``CompletionOutput.cumulative_logprob`` is filled (vLLM's V1
engine reports them under the model's raw distribution, before temperature and top-p; ``logprobs_mode``).

``score`` asks for the prompt's own log-probabilities (``prompt_logprobs=0``, one token generated and dropped):
log p(continuation | context) for many texts in one batched call."""

from __future__ import annotations

from typing import Optional

from coderank_evalplus.generation import Sample


class VllmGenerator:
    def __init__(
        self,
        model: str,
        dtype: str = "auto",
        tp: int = 1,
        max_model_len: int = 2048,
        chat: Optional[bool] = None,
        trust_remote_code: bool = False,
        logprobs: bool = True,
        seed: Optional[int] = None,
        **llm_kwargs,
    ) -> None:
        try:
            from vllm import LLM, SamplingParams
        except ImportError as e:  # pragma: no cover - depends on the machine
            raise ImportError("the vllm backend needs vLLM (a CUDA machine): pip install vllm") from e
        self._SamplingParams = SamplingParams
        self.model = model
        self.llm = LLM(
            model=model,
            tensor_parallel_size=tp,
            dtype=dtype,
            max_model_len=max_model_len,
            trust_remote_code=trust_remote_code,
            enable_prefix_caching=True,
            **({"seed": seed} if seed is not None else {}),
            **llm_kwargs,
        )
        self.tokenizer = self.llm.get_tokenizer()
        has_template = getattr(self.tokenizer, "chat_template", None) is not None
        self.is_chat = has_template if chat is None else bool(chat)
        self.logprobs = logprobs

    def apply_chat_template(self, messages: list[dict]) -> str:
        return self.tokenizer.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=True)

    def generate(self, prompts, n, temperature, top_p, max_tokens, stop) -> list[list[Sample]]:
        params = self._SamplingParams(
            n=n,
            temperature=temperature,
            top_p=top_p if temperature > 0 else 1.0,
            max_tokens=max_tokens,
            stop=list(stop) or None,
            logprobs=0 if self.logprobs else None,
        )
        outputs = self.llm.generate(list(prompts), params, use_tqdm=False)
        return [
            [Sample(o.text, None if o.cumulative_logprob is None else float(o.cumulative_logprob),
                    None if o.cumulative_logprob is None else len(o.token_ids)) for o in r.outputs]
            for r in outputs
        ]

    def score(self, pairs) -> list[tuple[float, int]]:
        from coderank_evalplus.generation import continuation_start

        pairs = list(pairs)
        if not pairs:
            return []
        params = self._SamplingParams(n=1, temperature=0.0, max_tokens=1, prompt_logprobs=0)
        outputs = self.llm.generate([c + x for c, x in pairs], params, use_tqdm=False)
        out = []
        for (context, _), r in zip(pairs, outputs):
            full = list(r.prompt_token_ids)
            start = continuation_start(self.tokenizer(context)["input_ids"], full)
            total = 0.0
            for pos in range(start, len(full)):
                entry = r.prompt_logprobs[pos]  # {token id: Logprob}; the prompt's own token is always present
                total += float(entry[full[pos]].logprob)
            out.append((total, max(0, len(full) - start)))
        return out
