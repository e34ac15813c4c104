"""transformers adapter: ``model.generate`` with ``num_return_sequences`` (chunked), stop strings, and the sum of
the sampled tokens' logprobs under the model's raw distribution.

evalplus's ``HuggingFaceDecoder`` fixes the temperature at construction and returns no scores, so this adapter
calls transformers directly. GGUF checkpoints load through ``gguf_file=`` (needs the ``gguf`` package; weights
are de-quantized to float32).
"""

from __future__ import annotations

import os
import time
from typing import Any, Optional

from coderank_evalplus.generation.base import Sample, truncate_at_stop


def usable_cores() -> int:
    """The CPUs this process may run on (its affinity mask: a container's or ``taskset``'s share), not the host's."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


class HFGenerator:
    def __init__(
        self,
        model: str,
        gguf_file: Optional[str] = None,
        dtype: str = "auto",
        device: Optional[str] = None,
        chat: Optional[bool] = None,
        batch_size: int = 16,
        trust_remote_code: bool = False,
        logprobs: bool = True,
        num_threads: Optional[int] = None,
        seed: Optional[int] = None,
    ) -> None:
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as e:  # pragma: no cover
            raise ImportError("the hf backend needs torch and transformers") from e
        self.torch = torch
        self.max_threads = num_threads or min(torch.get_num_threads(), usable_cores())
        self.choose_threads = num_threads is None and self.max_threads > 1 and self.device_is_cpu(device)
        torch.set_num_threads(self.max_threads)
        if seed is not None:
            torch.manual_seed(seed)
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        load: dict[str, Any] = {"trust_remote_code": trust_remote_code}
        if gguf_file:
            load["gguf_file"] = os.path.basename(gguf_file)
            if os.path.isfile(model):  # a path to the .gguf itself
                model = os.path.dirname(os.path.abspath(model))
        self.tokenizer = AutoTokenizer.from_pretrained(model, **load)
        if dtype != "auto":
            load["dtype"] = getattr(torch, dtype)
        elif self.device == "cpu":
            load["dtype"] = torch.float32
        else:
            load["dtype"] = "auto"
        self.model = AutoModelForCausalLM.from_pretrained(model, **load).to(self.device).eval()
        has_template = getattr(self.tokenizer, "chat_template", None) is not None
        self.is_chat = has_template if chat is None else bool(chat)
        self.batch_size = max(1, int(batch_size))
        self.logprobs = logprobs
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token

    def device_is_cpu(self, device: Optional[str]) -> bool:
        return (device or ("cuda" if self.torch.cuda.is_available() else "cpu")) == "cpu"

    def pick_threads(self) -> int:
        """On the CPU, time one small batched forward pass with 1 thread and with all usable cores, and keep the
        faster. On a busy machine, threads that wait for each other at every layer run several times slower than
        one (measured: 1.3 tokens/s with 2 threads, 4.0 with 1, at load 6 on 2 cores); on a quiet one all cores
        win. Probed before each prompt's sampling (~0.1 s), as the load changes."""
        torch = self.torch
        ids = torch.ones((4, 16), dtype=torch.long, device=self.device)
        best: tuple[float, int] = (float("inf"), self.max_threads)
        for threads in (1, self.max_threads):
            torch.set_num_threads(threads)
            with torch.inference_mode():
                self.model(input_ids=ids)  # warm this thread count's pool
                t0 = time.perf_counter()
                self.model(input_ids=ids)
                best = min(best, (time.perf_counter() - t0, threads))
        torch.set_num_threads(best[1])
        return best[1]

    def apply_chat_template(self, messages: list[dict]) -> str:
        return self.tokenizer.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=True)

    def _generate_one(self, prompt: str, n: int, temperature, top_p, max_tokens, stop) -> list[Sample]:
        torch = self.torch
        if self.choose_threads:
            self.pick_threads()
        enc = self.tokenizer(prompt, return_tensors="pt", add_special_tokens=False).to(self.device)
        plen = enc["input_ids"].shape[1]
        samples: list[Sample] = []
        while len(samples) < n:
            k = min(self.batch_size, n - len(samples))
            kw = dict(
                max_new_tokens=max_tokens,
                num_return_sequences=k,
                pad_token_id=self.tokenizer.pad_token_id,
                return_dict_in_generate=True,
                output_logits=self.logprobs,
            )
            if temperature > 0:
                kw.update(do_sample=True, temperature=temperature, top_p=top_p)
            else:
                kw.update(do_sample=False)
            if stop:
                kw.update(stop_strings=list(stop), tokenizer=self.tokenizer)
            with torch.inference_mode():
                out = self.model.generate(**enc, **kw)
            gen = out.sequences[:, plen:]
            token_lp = None
            if self.logprobs and out.logits:
                logits = torch.stack(out.logits, dim=1).float()  # (k, steps, vocab)
                token_lp = torch.log_softmax(logits, dim=-1).gather(-1, gen[:, : logits.shape[1], None])[..., 0]
            for i in range(gen.shape[0]):
                ids = gen[i].tolist()
                full = self.tokenizer.decode(ids, skip_special_tokens=True)
                text = truncate_at_stop(full, stop)
                lp = n_tok = None
                if token_lp is not None:
                    n_tok = self._n_tokens_for(ids, text)
                    lp = float(token_lp[i, :n_tok].sum())
                samples.append(Sample(text, lp, n_tok))
        return samples

    def _n_tokens_for(self, ids: list[int], text: str) -> int:
        """Smallest number of leading tokens whose decoding covers ``text`` (binary search, a few decodes)."""
        eos = {self.tokenizer.eos_token_id, self.tokenizer.pad_token_id}
        hi = len(ids)
        while hi > 0 and ids[hi - 1] in eos:
            hi -= 1
        lo = 0
        while lo < hi:
            mid = (lo + hi) // 2
            if len(self.tokenizer.decode(ids[:mid], skip_special_tokens=True)) >= len(text):
                hi = mid
            else:
                lo = mid + 1
        return lo

    def score(self, pairs) -> list[tuple[float, int]]:
        """log p(continuation | context): one forward pass over the tokens of context + continuation each."""
        from coderank_evalplus.generation.base import continuation_start

        torch = self.torch
        out = []
        for context, continuation in pairs:
            ctx_ids = self.tokenizer(context, add_special_tokens=False)["input_ids"]
            full = self.tokenizer(context + continuation, add_special_tokens=False)["input_ids"]
            start = continuation_start(ctx_ids, full)
            if start >= len(full):
                out.append((0.0, 0))
                continue
            ids = torch.tensor([full], device=self.device)
            with torch.inference_mode():
                logits = self.model(input_ids=ids).logits[0, start - 1 : len(full) - 1].float()
            target = ids[0, start:]
            lp = torch.log_softmax(logits, dim=-1).gather(-1, target[:, None])[:, 0]
            out.append((float(lp.sum()), int(target.shape[0])))
        return out

    def generate(self, prompts, n, temperature, top_p, max_tokens, stop) -> list[list[Sample]]:
        out = []
        for p in prompts:
            if not isinstance(p, str):
                p = self.apply_chat_template(p)
            out.append(self._generate_one(p, n, temperature, top_p, max_tokens, stop))
        return out
