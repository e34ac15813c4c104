"""Adapter for any OpenAI-compatible server (vLLM serve, llama-cpp-python's server, TGI, OpenAI itself).

Chat or not: ``chat=True`` sends chat messages to ``/v1/chat/completions`` (the server applies the model's
template), ``chat=False`` plain prompts to ``/v1/completions``. With ``chat=None`` the server decides, on first use
of ``is_chat``: a one-token request to the completions endpoint; if the server refuses the model there (hosted chat
models answer 404 "This is a chat model and not supported in the v1/completions endpoint") and the chat endpoint
accepts it, the generator chats. One line on stderr says which.

Requests: ``generate_iter`` keeps ``concurrency`` requests in flight (threads sharing the openai client, which is
thread-safe) and yields each prompt's samples as they complete, so the sampling loop writes them at once: an
interrupted run keeps every prompt answered. One request asks for all ``n`` samples; a server that returns fewer
(llama.cpp ignores ``n``) is topped up, and once seen to ignore ``n`` gets ``n`` one-sample requests in parallel.
A reply is read from its JSON (``_reply``), not through the client's typed objects: one per token of
log-probabilities, CPU that the threads in flight share with the sampling loop under the GIL.

Retries: the openai client's own (``max_retries``): 408, 409, 429, 5xx, time-outs and refused connections, with
exponential back-off that honours ``Retry-After`` / ``retry-after-ms`` up to two minutes. After them the error is
one line naming the server: ``ServerUnavailable`` (not reachable, overloaded, rate-limited) or ``ServerRefused``
(a bad key, an unknown model, a rejected request); both are RuntimeErrors, which the console prints as one line.

``score`` uses the completions endpoint with ``echo=True`` and ``logprobs``: the server returns the log-probability
of every prompt token, and those of the continuation (told apart by ``text_offset``) are summed. Servers differ
here: vLLM takes them from its prompt log-probabilities; llama-cpp-python 0.3.x aligns them one position late for
models whose tokenizer adds no BOS token (SmolLM2 among them: −63.3 against −2.92 by a forward pass for the same
6 tokens), so its echoed values are not log p(token | prefix). A chat-only server cannot score (``ServerRefused``).
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional

from coderank_evalplus.generation.base import Sample, truncate_at_stop

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam

DEFAULT_CONCURRENCY = 8
DEFAULT_RETRIES = 5  # the openai client's back-off: 0.5, 1, 2, 4, 8 s (or the server's Retry-After)
MAX_N = 128  # samples asked for in one request at most (OpenAI's limit on n)
MAX_EMPTY_ROUNDS = 3  # replies without a single choice before a prompt is given up
_INTERRUPT_POLL_S = 0.2


class ServerUnavailable(RuntimeError):
    """The OpenAI-compatible server could not be reached (or kept failing) after the allowed retries."""


class ServerRefused(RuntimeError):
    """The server answered, but no: a bad key (401/403), an unknown model (404), a rejected request (4xx)."""


def _server_message(exc: Exception) -> str:
    """The server's own words from an openai error, on one line (at most 300 characters)."""
    body = getattr(exc, "body", None)
    text = None
    if isinstance(body, dict):
        err = body.get("error", body)
        text = err.get("message") if isinstance(err, dict) else err
    return _one_line(str(text or getattr(exc, "message", None) or exc))


def _one_line(text: str) -> str:
    """``text`` on one line, at most 300 characters."""
    text = re.sub(r"\s+", " ", text).strip()
    return text[:300] + ("…" if len(text) > 300 else "")


def _dict(value: Any) -> dict:
    """A reply's object field, read as leniently as the openai client reads it: missing or null is empty."""
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[dict]:
    """A reply's list of objects (choices, tokens), as leniently: missing or null is empty."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


class _DeferredCtrlC:
    """While requests are in flight, the first Ctrl-C only sets ``pressed`` (the loop then stops sending, waits for
    the requests in flight and lets the sampling loop write them; a KeyboardInterrupt raised in the middle of that
    write would tear a prompt's samples); the second one raises at once. Only in the main thread, and only where
    Ctrl-C has Python's default meaning."""

    def __init__(self) -> None:
        self.pressed = False
        self.installed = False
        self._previous: Any = None

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread() or \
                signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
            return
        self._previous = signal.signal(signal.SIGINT, self._handler)
        self.installed = True

    def _handler(self, signum, frame) -> None:
        self.pressed = True
        signal.signal(signal.SIGINT, self._previous)  # a second Ctrl-C acts at once

    def restore(self) -> None:
        if self.installed and signal.getsignal(signal.SIGINT) == self._handler:
            signal.signal(signal.SIGINT, self._previous)


class _InFlight:
    """The requests of one ``generate_iter_mixed`` call: a pool of ``concurrency`` threads, what each prompt got so
    far, and ``halt``, the first error (or Ctrl-C) after which no request is started any more."""

    def __init__(self, generator: OpenAIGenerator, prompts, stops, temperature, top_p, max_tokens) -> None:
        self.generator = generator
        self.prompts, self.stops = prompts, stops
        self.temperature, self.top_p, self.max_tokens = temperature, top_p, max_tokens
        self.got: list[list[Sample]] = [[] for _ in prompts]
        self.sent = [0] * len(prompts)  # requests issued per prompt (the seed of each)
        self.empty = [0] * len(prompts)  # replies in a row without a single choice, per prompt
        self.inflight = [0] * len(prompts)
        self.pending: dict[Future, tuple[int, int]] = {}  # request -> (prompt index, samples asked for)
        # requests as they finish, in that order: one look per request, where waiting on all the pending ones
        # (concurrent.futures.wait) costs a look at each, n times per prompt for a server that ignores n
        self.finished: queue.SimpleQueue[Future] = queue.SimpleQueue()
        self.pool = ThreadPoolExecutor(max_workers=generator.concurrency, thread_name_prefix="openai")
        self.halt: Optional[BaseException] = None  # the first error, or the Ctrl-C: drain, then raise it

    def submit(self, i: int, k: int) -> None:
        """``k`` samples for prompt ``i``: one request for all of them (at most ``MAX_N`` each), or ``k``
        one-sample requests to a server seen to ignore ``n``."""
        gen = self.generator
        parts = [1] * k if gen._n_honoured is False else [min(MAX_N, k - j) for j in range(0, k, MAX_N)]
        for part in parts:
            seed = None if gen.seed is None else gen.seed + self.sent[i]
            self.sent[i] += 1
            self.inflight[i] += 1
            future = self.pool.submit(gen._request, self.prompts[i], part, self.temperature, self.top_p,
                                      self.max_tokens, self.stops[i], seed)
            self.pending[future] = (i, part)
            future.add_done_callback(self.finished.put)

    def drop_queued(self) -> None:
        """Cancel the requests not started yet (those running are waited for)."""
        for f in list(self.pending):
            if f.cancel():
                self.inflight[self.pending.pop(f)[0]] -= 1

    def interrupted(self, e: BaseException) -> None:
        """A Ctrl-C (or ``interrupt()``): no request is started any more; those in flight are waited for."""
        self.halt = e
        self.drop_queued()
        if self.pending:
            print(f"interrupted: waiting for {len(self.pending)} request(s) in flight to write their samples "
                  f"(Ctrl-C again to drop them)", file=sys.stderr)

    def wait(self, poll: float, stop_asked: Callable[[], bool]) -> Optional[list[Future]]:
        """The requests finished since the last look, waiting up to ``poll`` seconds for one; None right after a
        Ctrl-C that was not deferred (look again). A second Ctrl-C raises; ``stop_asked`` (a deferred Ctrl-C,
        ``interrupt()``) stops sending."""
        try:
            done = [self.finished.get(timeout=poll)]
        except queue.Empty:
            done = []
        except KeyboardInterrupt as e:  # Ctrl-C not deferred (not the main thread)
            if isinstance(self.halt, KeyboardInterrupt):
                raise  # the second Ctrl-C: stop waiting
            self.interrupted(e)
            return None
        if stop_asked() and not isinstance(self.halt, KeyboardInterrupt):
            self.interrupted(KeyboardInterrupt())
        while not self.finished.empty():
            done.append(self.finished.get())
        return done

    def answered(self, done: list[Future]) -> list[int]:
        """Take the finished requests' samples (a failure becomes ``halt``): the prompts with none in flight any
        more, in the order they finished."""
        gen = self.generator
        ready = []
        for f in done:
            if f not in self.pending:  # dropped from the queue (cancelled) after a failure or a Ctrl-C
                continue
            i, asked = self.pending.pop(f)
            self.inflight[i] -= 1
            exc = f.exception()
            if exc is not None:
                if self.halt is None:
                    self.halt = exc
                    self.drop_queued()
                continue
            gen._requests += 1
            new = f.result()
            if asked > 1 and gen._n_honoured is None:
                gen._n_honoured = len(new) >= asked
            self.empty[i] = 0 if new else self.empty[i] + 1
            self.got[i].extend(new)
            if self.inflight[i] == 0:
                ready.append(i)
        return ready

    def top_up(self, i: int, count: int) -> None:
        """Ask again for the samples prompt ``i`` still lacks (a server may return fewer than ``n``); a prompt
        answered with no choice ``MAX_EMPTY_ROUNDS`` times in a row is given up."""
        if self.empty[i] >= MAX_EMPTY_ROUNDS:
            raise ServerUnavailable(f"OpenAI-compatible server at {self.generator.client.base_url} returned "
                                    f"no choices {MAX_EMPTY_ROUNDS} times for one prompt")
        self.submit(i, count - len(self.got[i]))


class OpenAIGenerator:
    def __init__(
        self,
        model: str,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        chat: Optional[bool] = None,
        timeout: float = 120.0,
        max_retries: int = DEFAULT_RETRIES,
        logprobs: bool = False,
        seed: Optional[int] = None,
        concurrency: int = DEFAULT_CONCURRENCY,
    ) -> None:
        import openai

        if concurrency < 1:
            raise ValueError(f"--concurrency {concurrency}: must be at least 1")
        if max_retries < 0:
            raise ValueError(f"--retries {max_retries}: must be 0 or more")
        self._openai = openai
        self.model = model
        self.base_url = base_url or os.getenv("OPENAI_BASE_URL")
        self.client = openai.OpenAI(
            api_key=api_key or os.getenv("OPENAI_API_KEY", "none"),
            base_url=self.base_url,
            timeout=timeout,
            max_retries=max_retries,
        )
        self._chat = chat
        self.logprobs = logprobs
        self.seed = seed
        self.concurrency = concurrency
        # the sampling loop hands this many problems to one call, so that `concurrency` requests stay in flight
        self.problems_per_call = 1024
        self._completions_refusal: Optional[str] = None  # why /v1/completions refused the model (detection)
        self._chat_logprobs: Optional[bool] = None  # did the chat endpoint return log-probabilities (detection)
        self._n_honoured: Optional[bool] = None  # does the server return n choices for n? (learned from replies)
        self._requests = 0
        self._t0: Optional[float] = None
        self._interrupt = threading.Event()  # interrupt(): what a first Ctrl-C does, from another thread

    # ------------------------------------------------------------------ chat or not

    @property
    def is_chat(self) -> bool:
        if self._chat is None:
            self._chat = self._detect_chat()
        return self._chat

    @is_chat.setter
    def is_chat(self, value: bool) -> None:
        self._chat = bool(value)

    @property
    def where(self) -> str:
        return f"the server at {self.client.base_url}"

    def _detect_chat(self) -> bool:
        """Chat when the completions endpoint refuses the model and the chat endpoint takes it; one line says so."""
        openai = self._openai
        try:
            self.client.completions.create(model=self.model, prompt="def", max_tokens=1, temperature=0.0)
            print(f"openai: {self.where} completes text with model {self.model!r} on /v1/completions: base prompts "
                  f"(--chat to send chat messages instead)", file=sys.stderr)
            return False
        except (openai.AuthenticationError, openai.PermissionDeniedError, openai.RateLimitError) as e:
            raise self._error(e) from None
        except openai.APIStatusError as e:
            if e.status_code >= 500 or e.status_code in (408, 409):
                raise self._error(e) from None
            refusal = f"{e.status_code}: {_server_message(e)}"
        except openai.APIError as e:
            raise self._error(e) from None
        try:
            extra: dict[str, Any] = {"logprobs": True} if self.logprobs else {}
            r = self.client.chat.completions.create(model=self.model, messages=[{"role": "user", "content": "Hi"}],
                                                    max_tokens=1, temperature=0.0, **extra)
        except openai.APIError as e:
            raise self._error(e) from None
        self._completions_refusal = refusal
        if self.logprobs:
            self._chat_logprobs = any(c.logprobs is not None and c.logprobs.content for c in r.choices)
        print(f"openai: {self.where} refuses model {self.model!r} on /v1/completions ({refusal}): chat messages "
              f"on /v1/chat/completions", file=sys.stderr)
        return True

    # ------------------------------------------------------------------ errors

    def _error(self, exc: Exception, endpoint: str = "") -> RuntimeError:
        """An openai exception (after the client's retries) as one line naming the server (and, for a 404 from
        ``/v1/completions``, the endpoint: a chat-only server refuses the model there)."""
        openai = self._openai
        retries = self.client.max_retries
        if isinstance(exc, (openai.APIConnectionError, openai.InternalServerError, openai.RateLimitError)) or (
                isinstance(exc, openai.APIStatusError) and exc.status_code in (408, 409)):
            what = (f"{exc.status_code}: {_server_message(exc)}" if isinstance(exc, openai.APIStatusError)
                    else f"{type(exc).__name__}: {_server_message(exc)}")
            return ServerUnavailable(f"OpenAI-compatible server at {self.client.base_url} unavailable after "
                                     f"{retries} retries: {what}; rerun the same command to resume")
        if isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError)):
            return ServerRefused(f"{self.where} refused the API key ({exc.status_code}: {_server_message(exc)}); "
                                 f"set OPENAI_API_KEY")
        if isinstance(exc, openai.NotFoundError) and endpoint == "/v1/completions":
            return ServerRefused(f"{self.where} refuses model {self.model!r} on /v1/completions (404: "
                                 f"{_server_message(exc)}){self._served_models()}")
        if isinstance(exc, openai.NotFoundError):
            return ServerRefused(f"{self.where} does not serve model {self.model!r} (404: {_server_message(exc)})"
                                 f"{self._served_models()}")
        if isinstance(exc, openai.APIStatusError):
            return ServerRefused(f"{self.where} rejected a request for model {self.model!r} "
                                 f"({exc.status_code}: {_server_message(exc)})")
        return ServerUnavailable(f"OpenAI-compatible server at {self.client.base_url}: {type(exc).__name__}: "
                                 f"{_server_message(exc)}")

    def _served_models(self) -> str:
        try:
            ids = [m.id for m in self.client.with_options(max_retries=0).models.list()]
        except self._openai.APIError:
            return ""
        return f"; it serves {', '.join(ids[:10])}" if ids else ""

    # ------------------------------------------------------------------ one request

    def _request(self, prompt, n, temperature, top_p, max_tokens, stop, seed) -> list[Sample]:
        kw = dict(model=self.model, n=n, temperature=temperature, top_p=top_p, max_tokens=max_tokens)
        if stop:
            kw["stop"] = list(stop)[:4] if "api.openai.com" in str(self.client.base_url) else list(stop)
        if seed is not None:
            kw["seed"] = seed
        if isinstance(prompt, str) and not self.is_chat:
            if self.logprobs:
                kw["logprobs"] = 1
            r = self._reply(self.client.completions.with_raw_response.create, "/v1/completions", prompt=prompt, **kw)
            out = []
            for c in _dicts(r.get("choices")):
                lp = n_tok = None
                token_logprobs = _dict(c.get("logprobs")).get("token_logprobs")
                if self.logprobs and token_logprobs:
                    values = [x for x in token_logprobs if x is not None]
                    lp, n_tok = float(sum(values)), len(values)
                out.append(Sample(truncate_at_stop(c.get("text") or "", stop), lp, n_tok))
            return out
        messages: list[ChatCompletionMessageParam] = (
            [{"role": "user", "content": prompt}] if isinstance(prompt, str) else list(prompt))
        if self.logprobs:
            kw["logprobs"] = True
        rc = self._reply(self.client.chat.completions.with_raw_response.create, "/v1/chat/completions",
                         messages=messages, **kw)
        out = []
        for ch in _dicts(rc.get("choices")):
            lp = n_tok = None
            values = [t.get("logprob") for t in _dicts(_dict(ch.get("logprobs")).get("content"))]
            if self.logprobs and values and None not in values:
                lp, n_tok = float(sum(values)), len(values)
            out.append(Sample(truncate_at_stop(_dict(ch.get("message")).get("content") or "", stop), lp, n_tok))
        return out

    def _reply(self, create, endpoint: str, **kw) -> dict:
        """One request through the openai client (its retries, its errors), its reply read as plain JSON: the
        client's typed reply costs about 11 ms of CPU more per reply of 10 chat choices with log-probabilities (18
        against 7 ms per request, an object per token), under the GIL that the requests in flight share with the
        sampling loop."""
        try:
            raw = create(**kw)
        except self._openai.APIError as e:
            raise self._error(e, endpoint) from None
        try:
            data = json.loads(raw.http_response.content)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise ServerUnavailable(f"OpenAI-compatible server at {self.client.base_url} answered {endpoint} with no "
                                    f"JSON object: {_one_line(raw.http_response.text)}")
        return data

    # ------------------------------------------------------------------ many requests

    def generate_iter(self, prompts, n, temperature, top_p, max_tokens, stop) -> Iterator[tuple[int, list[Sample]]]:
        """``(index, n samples)`` per prompt in the order they complete, ``concurrency`` requests in flight."""
        yield from self.generate_iter_mixed(prompts, [n] * len(prompts), [stop] * len(prompts), temperature, top_p,
                                            max_tokens)

    def generate_iter_mixed(self, prompts, counts, stops, temperature, top_p,
                            max_tokens) -> Iterator[tuple[int, list[Sample]]]:
        """``(index, counts[index] samples)`` per prompt in the order they complete, ``concurrency`` requests in
        flight whatever their counts and stop sequences (a problem's solutions beside its test samples: the
        requests in flight never drain between the two).

        When a request fails (after the client's retries) or the user presses Ctrl-C, no request is started any
        more; those in flight are waited for and what completes is still yielded (the loop writes it: nothing
        drawn is lost), then the error (or KeyboardInterrupt) is raised. A second Ctrl-C stops waiting."""
        counts = [max(0, int(k)) for k in counts]
        for i in (i for i, k in enumerate(counts) if k == 0):
            yield i, []
        if not any(counts):
            return
        _ = self.is_chat  # decided (and announced) once, before any thread starts
        requests = _InFlight(self, prompts, stops, temperature, top_p, max_tokens)
        if self._t0 is None:
            self._t0 = time.monotonic()
        ctrl_c = _DeferredCtrlC()
        poll = _INTERRUPT_POLL_S  # how often a wait looks at interrupt() (and at a deferred Ctrl-C)
        try:
            ctrl_c.install()
            if self._interrupt.is_set():
                raise KeyboardInterrupt
            for i in range(len(prompts)):
                if counts[i]:
                    requests.submit(i, counts[i])
            while requests.pending:
                done = requests.wait(poll, lambda: ctrl_c.pressed or self._interrupt.is_set())
                if done is None:
                    continue
                for i in requests.answered(done):
                    if len(requests.got[i]) >= counts[i]:
                        yield i, requests.got[i][:counts[i]]
                    elif requests.halt is None:
                        requests.top_up(i, counts[i])
            if requests.halt is not None:
                raise requests.halt
        finally:
            ctrl_c.restore()
            requests.pool.shutdown(wait=False, cancel_futures=True)

    def interrupt(self) -> None:
        """From another thread, what a first Ctrl-C does (a streamed run's sampling is not in the main thread): no
        request is started any more, those in flight are waited for and yielded, then KeyboardInterrupt is raised
        (at once by a call that starts later)."""
        self._interrupt.set()

    def generate(self, prompts, n, temperature, top_p, max_tokens, stop) -> list[list[Sample]]:
        results: list[list[Sample]] = [[] for _ in prompts]
        for i, samples in self.generate_iter(prompts, n, temperature, top_p, max_tokens, stop):
            results[i] = samples
        return results

    def progress_note(self) -> str:
        """Requests completed per second since the first one was sent (the progress bar shows it)."""
        if self._t0 is None or not self._requests:
            return ""
        return f"{self._requests / max(time.monotonic() - self._t0, 1e-9):.2f} req/s"

    # ------------------------------------------------------------------ scoring

    def likelihood_refusal(self, kinds) -> Optional[str]:
        """Why this server cannot give the likelihood features ``kinds`` (``coder``, ``reviewer``), found out
        while deciding chat or not; None when it may (a server that fails later says so then)."""
        if not kinds or not self.is_chat or self._completions_refusal is None:
            return None
        if "reviewer" in kinds:
            return (f"the reviewer likelihood is scored through /v1/completions (echo), which {self.where} refuses "
                    f"for model {self.model!r} ({self._completions_refusal})")
        if "coder" in kinds and self._chat_logprobs is False:
            return (f"{self.where} returns no log-probabilities with model {self.model!r}'s chat replies (chat "
                    f"`logprobs`), and its /v1/completions refuses the model, so it cannot score them either")
        return None

    def _score_one(self, pair: tuple[str, str]) -> tuple[float, int]:
        context, continuation = pair
        full = context + continuation
        openai = self._openai
        try:
            r = self.client.completions.create(model=self.model, prompt=full, echo=True, logprobs=1, max_tokens=1,
                                               temperature=0.0)
        except (openai.NotFoundError, openai.BadRequestError, openai.UnprocessableEntityError) as e:
            raise ServerRefused(f"{self.where} cannot score text with model {self.model!r}: its completions "
                                f"endpoint (echo=True, logprobs) refuses it ({e.status_code}: {_server_message(e)}); "
                                f"the likelihood methods need a server that scores text (vLLM serve, llama.cpp)"
                                ) from None
        except openai.APIError as e:
            raise self._error(e) from None
        lp = r.choices[0].logprobs if r.choices else None
        if lp is None or not lp.token_logprobs or not lp.text_offset:
            raise ServerRefused(f"{self.where} returned no echoed log-probabilities (completions endpoint with "
                                f"echo=True and logprobs): it cannot score text for the likelihood methods")
        offsets = list(lp.text_offset)
        total, n_tok = 0.0, 0
        for i, (off, value) in enumerate(zip(offsets, lp.token_logprobs)):
            end = offsets[i + 1] if i + 1 < len(offsets) else len(full) + 1
            # a continuation token ends after the context and starts inside the text (not the generated one)
            if off < len(full) and end > len(context) and value is not None:
                total += float(value)
                n_tok += 1
        return total, n_tok

    def score(self, pairs) -> list[tuple[float, int]]:
        """log p(continuation | context) from the completions endpoint's echoed prompt log-probabilities,
        ``concurrency`` requests in flight."""
        pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="openai-score")
        try:
            return list(pool.map(self._score_one, list(pairs)))
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
