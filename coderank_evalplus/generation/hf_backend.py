"""transformers adapter: ``model.generate`` over many prompts at once (each prompt's ``n`` sequences, left-padded,
in as few calls as memory allows), stop strings, and the sum of the sampled tokens' logprobs under the model's raw
distribution, read from the sampling pass's own logits.

evalplus's ``HuggingFaceDecoder`` fixes the temperature at construction and returns no scores, so this adapter
calls transformers directly. GGUF checkpoints load through ``gguf_file=`` (needs the ``gguf`` package; weights
are de-quantized to float32).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import time
from contextlib import contextmanager, nullcontext
from typing import Any, Iterator, Optional

from coderank_evalplus.generation.base import Sample, truncate_at_stop

# sequences per ``model.generate`` call at most, whatever the memory: every row runs until the call's longest is done
MAX_ROWS = 64


def usable_cores() -> int:
    """The CPUs this process may run on (its affinity mask: a container's or ``taskset``'s share), not the host's."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def free_memory(torch, device: str) -> int:
    """Bytes free for a generate call: the GPU's free memory, or the host's available memory (Linux), else 4 GiB."""
    if str(device).startswith("cuda"):
        return int(torch.cuda.mem_get_info(torch.device(device))[0])
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # not Linux
        return 4 << 30


@contextmanager
def gguf_read_once() -> Iterator[None]:
    """Inside the block, loading a GGUF checkpoint parses the file once and builds gguf's tensor-name map once.

    transformers parses the whole file (SmolLM2's 49,152-token vocabulary field by field) for the tokenizer, again
    for the config and again for the weights, and rebuilds ``gguf.get_tensor_name_map(arch, layers)`` for each of
    the model's modules (397 times for SmolLM2). It imports both from ``gguf`` at each call, so the block hands it
    one reader per file and one map per (arch, layers): measured 21–26 s → 8 s at load 7–8 on 2 cores, the same
    logits. A workaround around the library's own functions, not a re-implementation."""
    gguf: Any = importlib.import_module("gguf")  # Any: its attributes are swapped below

    reader, name_map = gguf.GGUFReader, gguf.get_tensor_name_map
    readers: dict[tuple, Any] = {}

    def one_reader(path, *args, **kw):
        key = (os.path.abspath(path), args, tuple(sorted(kw.items())))
        if key not in readers:
            readers[key] = reader(path, *args, **kw)
        return readers[key]

    gguf.GGUFReader, gguf.get_tensor_name_map = one_reader, functools.lru_cache(maxsize=None)(name_map)
    try:
        yield
    finally:
        gguf.GGUFReader, gguf.get_tensor_name_map = reader, name_map


class HFGenerator:
    """``batch_size``: sequences per ``model.generate`` call (default: from free memory, see ``max_rows``).
    ``problems_per_call``: how many problems' prompts the sampling loop hands to one ``generate`` call (default 4:
    the first run's 4 problems × (5 solutions + 5 test samples) go in one call); each prompt's samples are yielded
    as soon as its sequences are drawn (``generate_iter``)."""

    def __init__(
        self,
        model: str,
        gguf_file: Optional[str] = None,
        dtype: str = "auto",
        device: Optional[str] = None,
        chat: Optional[bool] = None,
        batch_size: Optional[int] = None,
        problems_per_call: int = 4,
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
        self.seed = seed
        self.calls = 0  # model.generate calls so far: with a seed, call k draws from seed·1000003 + k
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        load: dict[str, Any] = {"trust_remote_code": trust_remote_code}
        if gguf_file:
            load["gguf_file"] = os.path.basename(gguf_file)
            if os.path.isfile(model):  # a path to the .gguf itself
                model = os.path.dirname(os.path.abspath(model))
        with gguf_read_once() if gguf_file else nullcontext():
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
        self.batch_size = None if batch_size is None else max(1, int(batch_size))
        self.problems_per_call = max(1, int(problems_per_call))
        self.logprobs = logprobs
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token

    def device_is_cpu(self, device: Optional[str]) -> bool:
        return (device or ("cuda" if self.torch.cuda.is_available() else "cpu")) == "cpu"

    def pick_threads(self, rows: int = 4) -> int:
        """On the CPU, time one forward pass of one token for each of ``rows`` sequences (a decoding step of the
        coming call) with 1 thread and with all usable cores, and keep the faster. On a busy machine, threads that
        wait for each other at every layer run several times slower than one (measured: 1.3 tokens/s with 2
        threads, 4.0 with 1, at load 6 on 2 cores); on a quiet one all cores win. Probed before each
        ``model.generate`` call (~0.1 s), as the load changes."""
        torch = self.torch
        ids = torch.ones((max(1, rows), 1), dtype=torch.long, device=self.device)
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

    def _chunks(self, rows: list[tuple[int, list[int]]], max_tokens: int) -> Iterator[list[tuple[int, list[int]]]]:
        """``rows`` ((prompt index, prompt tokens), one per sequence to draw) in runs of at most ``max_rows``
        sequences, longest prompts first so that a run pads little."""
        rows = sorted(rows, key=lambda r: -len(r[1]))
        i = 0
        while i < len(rows):
            k = self.max_rows(len(rows[i][1]), max_tokens)
            yield rows[i : i + k]
            i += k

    def max_rows(self, prompt_tokens: int, max_tokens: int) -> int:
        """Sequences per ``model.generate`` call: ``batch_size`` when given, else as many as a quarter of the free
        memory holds (each sequence's KV cache over prompt + reply, and its raw logits per step when log-probabilities
        are kept), at most ``MAX_ROWS``."""
        if self.batch_size is not None:
            return self.batch_size
        cfg = self.model.config.get_text_config()
        heads = getattr(cfg, "num_attention_heads", 1) or 1
        head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // heads
        kv_heads = getattr(cfg, "num_key_value_heads", None) or heads
        width = self.torch.finfo(self.model.dtype).bits // 8
        per_row = (prompt_tokens + max_tokens) * 2 * cfg.num_hidden_layers * kv_heads * head_dim * width
        if self.logprobs:
            per_row += max_tokens * cfg.vocab_size * 4  # float32 logits of every step (output_logits)
        return max(1, min(MAX_ROWS, free_memory(self.torch, self.device) // 4 // per_row))

    def generate_iter(self, prompts, n, temperature, top_p, max_tokens, stop) -> Iterator[tuple[int, list[Sample]]]:
        """Each prompt's ``n`` samples as ``(index in prompts, samples)``, once all of them are drawn: every prompt's
        ``n`` sequences go, left-padded, into as few ``model.generate`` calls as ``max_rows`` allows."""
        texts = [p if isinstance(p, str) else self.apply_chat_template(p) for p in prompts]
        ids = [self.tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]
        done: dict[int, list[Sample]] = {i: [] for i in range(len(texts))}
        rows = [(i, ids[i]) for i in range(len(texts)) for _ in range(n)]
        for chunk in self._chunks(rows, max_tokens):
            drawn = self._generate_rows([r[1] for r in chunk], temperature, top_p, max_tokens, stop)
            for (i, _), s in zip(chunk, drawn):
                done[i].append(s)
                if len(done[i]) == n:
                    yield i, done.pop(i)
        for i in list(done):  # n == 0
            yield i, done.pop(i)

    def generate(self, prompts, n, temperature, top_p, max_tokens, stop) -> list[list[Sample]]:
        out: list[list[Sample]] = [[] for _ in prompts]
        for i, samples in self.generate_iter(prompts, n, temperature, top_p, max_tokens, stop):
            out[i] = samples
        return out

    def _generate_rows(self, rows: list[list[int]], temperature, top_p, max_tokens, stop) -> list[Sample]:
        """One ``model.generate`` call over token lists (one sampled sequence each; equal lists adjacent), left-padded
        with an attention mask; log-probabilities from the raw logits of the sampling pass."""
        torch = self.torch
        if self.choose_threads:
            self.pick_threads(len(rows))
        width = max(len(r) for r in rows)
        pad = self.tokenizer.pad_token_id
        input_ids = torch.tensor([[pad] * (width - len(r)) + r for r in rows], device=self.device)
        mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows], device=self.device)
        kw: dict[str, Any] = dict(
            max_new_tokens=max_tokens,
            pad_token_id=pad,
            return_dict_in_generate=True,
            output_logits=self.logprobs,
        )
        if temperature > 0:
            kw.update(do_sample=True, temperature=temperature, top_p=top_p)
        else:
            kw.update(do_sample=False)
        if stop:
            kw.update(stop_strings=list(stop), tokenizer=self.tokenizer)
        with torch.inference_mode(), self._seeded():
            kw.update(self._shared_prefix(input_ids, mask))
            out = self.model.generate(input_ids=input_ids, attention_mask=mask, **kw)
            gen = out.sequences[:, width:]
            token_lp = None
            if self.logprobs and out.logits:  # step by step: (rows, vocab) at a time, never (rows, steps, vocab)
                token_lp = torch.stack([torch.log_softmax(step.float(), dim=-1).gather(-1, gen[:, t, None])[:, 0]
                                        for t, step in enumerate(out.logits)], dim=1)
        samples = []
        for i in range(gen.shape[0]):
            toks = gen[i].tolist()
            text = truncate_at_stop(self.tokenizer.decode(toks, skip_special_tokens=True), stop)
            lp = n_tok = None
            if token_lp is not None:
                n_tok = self._n_tokens_for(toks, text)
                lp = float(token_lp[i, :n_tok].sum())
            samples.append(Sample(text, lp, n_tok))
        return samples

    @contextmanager
    def _seeded(self) -> Iterator[None]:
        """With a seed, the next ``model.generate`` call draws from its own random state (seed and call number, on
        a fork of torch's global one): a generator's samples depend on its seed and its own calls only."""
        self.calls += 1
        if self.seed is None:
            yield
            return
        kind = self.torch.device(self.device).type
        with self.torch.random.fork_rng(devices=[] if kind == "cpu" else None, device_type=kind):
            self.torch.manual_seed(self.seed * 1_000_003 + self.calls)
            yield

    def _shared_prefix(self, input_ids, mask) -> dict[str, Any]:
        """The KV cache of every prompt but its last token, computed once per distinct prompt and copied to its
        rows, for ``generate`` to go on from (it then runs the last token of each row): the ``n`` sequences of a
        prompt share one prompt pass, where ``num_return_sequences`` or repeated rows would run it ``n`` times.
        Nothing (``generate`` runs the prompts itself) when no prompt repeats or a prompt is one token long."""
        torch = self.torch
        distinct, row_of = torch.unique_consecutive(input_ids, dim=0, return_inverse=True)
        if distinct.shape[0] == input_ids.shape[0] or input_ids.shape[1] < 2:
            return {}
        firsts = [row_of.tolist().index(k) for k in range(distinct.shape[0])]
        dmask = mask[firsts]
        positions = (dmask.long().cumsum(-1) - 1).clamp(min=0)  # as generate computes them from the mask
        params = inspect.signature(self.model.forward).parameters
        key = "cache" if "cache" in params else "past_key_values"  # transformers 5 renamed it
        last = {"logits_to_keep": 1} if "logits_to_keep" in params else {}
        out = self.model(input_ids=distinct[:, :-1], attention_mask=dmask[:, :-1], position_ids=positions[:, :-1],
                         use_cache=True, **last)
        cache = getattr(out, key)
        cache.batch_select_indices(row_of)
        return {key: cache}

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
