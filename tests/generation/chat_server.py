"""A canned-reply OpenAI-compatible CHAT-ONLY server on 127.0.0.1 for tests and bench/openai_throughput.py.

By default it answers as hosted chat APIs do: ``/v1/completions`` refuses the model (404 "This is a chat model and not
supported in the v1/completions endpoint"), ``/v1/chat/completions`` replies, ``/v1/models`` lists the model, a
wrong key gets 401 and an unknown model 404. A reply is picked by the problem prompt found inside the user message:
each problem's canned replies are served in order, ``n`` per request (or one, with ``honour_n=False``), so that a
test can tell whether anything was drawn twice. Faults on demand: a 429 with ``Retry-After`` on the first attempt of
every ``rate_limit_every``-th draw request, a per-request ``delay``, and going away (connections dropped, listener
closed) after ``fail_after`` answered draws, and (``not_json``) a 200 whose body is a web page, as a proxy's is;
``start()`` again brings it back on the same port with its state.
``chat_only=False``: its completions endpoint answers too (the same replies, for a prompt that contains the
problem's).

Hand-written on the standard library's ``http.server``: the tests need a server they can break on purpose.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Optional

CHAT_ONLY = ("This is a chat model and not supported in the v1/completions endpoint. "
             "Did you mean to use v1/chat/completions?")


class CannedChatServer:
    """``replies[task_id]``: the replies to serve; ``prompts[task_id]``: the problem prompt (stripped) that the
    user message of a request for that problem contains."""

    def __init__(self, replies: dict[str, list[str]], prompts: dict[str, str], model: str = "canned-chat",
                 api_key: Optional[str] = None, delay: float = 0.0, rate_limit_every: int = 0,
                 retry_after: float = 1.0, logprobs: bool = True, honour_n: bool = True,
                 fail_after: Optional[int] = None, chat_only: bool = True, not_json: bool = False,
                 test_marker: Optional[str] = None, test_replies: Optional[dict[str, list[str]]] = None) -> None:
        self.replies, self.prompts, self.model, self.api_key = replies, prompts, model, api_key
        self.delay, self.rate_limit_every, self.retry_after = delay, rate_limit_every, retry_after
        self.logprobs, self.honour_n, self.fail_after = logprobs, honour_n, fail_after
        self.chat_only = chat_only  # False: /v1/completions answers too (a base model's server)
        self.not_json = not_json  # True: draws answered 200 with an HTML page
        # a user message holding test_marker (a request for test samples) draws from a cursor of its own, from
        # test_replies when given (else the problem's replies): what a problem's solutions and tests get does not
        # depend on which of the two requests came first
        self.test_marker, self.test_replies = test_marker, test_replies
        self.lock = threading.Lock()
        self.cursor: dict[str, int] = {}  # replies served per problem (per problem and kind, with test_marker)
        self.served: list[tuple[str, int]] = []  # (task_id, replies) per answered draw request
        self.first_attempts = 0  # draw requests seen that were no retry
        self.limited: dict[str, float] = {}  # request body digest -> when it got its 429
        self.waited: list[float] = []  # for each retried 429: seconds between the 429 and the retry
        self.inflight = 0
        self.max_inflight = 0  # draw requests answered at the same time, at most
        self.gone = False
        self.port = 0
        self._httpd: Optional[ThreadingHTTPServer] = None

    # ------------------------------------------------------------------ life cycle

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> "CannedChatServer":
        handler = type("Handler", (_Handler,), {"canned": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", self.port), handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.gone = False
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        """Stop listening; requests on open connections are dropped unanswered."""
        self.gone = True
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()

    def __enter__(self) -> "CannedChatServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ------------------------------------------------------------------ answers

    def task_of(self, text: str) -> Optional[str]:
        return next((t for t, p in self.prompts.items() if p in text), None)

    def draw(self, task_id: str, n: int, text: str = "") -> list[str]:
        test = bool(self.test_marker and self.test_marker in text)
        key = task_id + ("\ttests" if test else "")
        with self.lock:
            k = self.cursor.get(key, 0)
            self.cursor[key] = k + n
            self.served.append((task_id, n))
        pool = (self.test_replies or self.replies)[task_id] if test else self.replies[task_id]
        return [pool[(k + j) % len(pool)] for j in range(n)]


def _tokens(text: str) -> list[str]:
    """Whitespace-split pieces (with their spaces), standing in for a tokenizer's tokens."""
    out, cur = [], ""
    for ch in text:
        if ch.isspace() and cur and not cur[-1].isspace():
            out.append(cur)
            cur = ""
        cur += ch
    return out + ([cur] if cur else [])


class _Handler(BaseHTTPRequestHandler):
    canned: CannedChatServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args) -> None:  # quiet
        pass

    def _send(self, code: int, body: dict, headers: Optional[dict] = None) -> None:
        self._write(code, json.dumps(body).encode(), "application/json", headers)

    def _write(self, code: int, data: bytes, content_type: str, headers: Optional[dict] = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, code: int, message: str, kind: str = "invalid_request_error", headers=None) -> None:
        self._send(code, {"error": {"message": message, "type": kind, "param": None, "code": None}}, headers)

    def _drop(self) -> None:
        self.close_connection = True

    def _authorised(self) -> bool:
        key = self.canned.api_key
        if key is not None and self.headers.get("Authorization") != f"Bearer {key}":
            self._error(401, "Incorrect API key provided.", "invalid_api_key")
            return False
        return True

    def do_GET(self) -> None:
        if self.canned.gone:
            return self._drop()
        if not self._authorised():
            return
        if self.path.rstrip("/").endswith("/models"):
            return self._send(200, {"object": "list", "data": [{"id": self.canned.model, "object": "model",
                                                                 "owned_by": "tests"}]})
        self._error(404, f"no route {self.path}")

    def do_POST(self) -> None:
        c = self.canned
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if c.gone:
            return self._drop()
        if not self._authorised():
            return
        body = json.loads(raw or b"{}")
        if body.get("model") != c.model:
            return self._error(404, f"The model `{body.get('model')}` does not exist or you do not have access "
                                    f"to it.", "model_not_found")
        if self.path.endswith("/completions") and not self.path.endswith("/chat/completions"):
            if c.chat_only:
                return self._error(404, CHAT_ONLY)
            prompt = body.get("prompt") or ""
            task = c.task_of(prompt)
            texts = ["("] if task is None and body.get("max_tokens") == 1 else None
            if texts is None and task is None:
                return self._error(400, "no canned reply for this prompt")
            texts = texts or c.draw(str(task), int(body.get("n") or 1) if c.honour_n else 1)
            return self._send(200, {"id": "cmpl-canned", "object": "text_completion", "created": int(time.time()),
                                    "model": c.model, "choices": [
                                        {"index": i, "text": t, "logprobs": None, "finish_reason": "stop"}
                                        for i, t in enumerate(texts)]})
        if not self.path.endswith("/chat/completions"):
            return self._error(404, f"no route {self.path}")
        messages = body.get("messages") or []
        user = next((m.get("content", "") for m in reversed(messages) if m.get("role") == "user"), "")
        if body.get("max_tokens") == 1 and user == "Hi":  # the client's chat-or-not probe: not a draw
            return self._reply(["Hello"], body)
        task = c.task_of(user)
        if task is None:
            return self._error(400, "no canned reply for this prompt")
        retry = int(self.headers.get("x-stainless-retry-count") or 0)
        digest = hashlib.sha256(raw).hexdigest()
        with c.lock:
            if retry == 0:
                c.first_attempts += 1
                limit = c.rate_limit_every and c.first_attempts % c.rate_limit_every == 0
            else:
                limit = False
                if digest in c.limited:
                    c.waited.append(time.monotonic() - c.limited.pop(digest))
            if limit:
                c.limited[digest] = time.monotonic()
            going = c.fail_after is not None and len(c.served) >= c.fail_after
        if limit:
            return self._error(429, "Rate limit reached; try again later.", "requests",
                               {"Retry-After": f"{c.retry_after:g}"})
        if going:  # the server goes away: this connection dropped, the listener closed
            threading.Thread(target=c.stop, daemon=True).start()
            return self._drop()
        if c.not_json:
            return self._write(200, b"<html><body>\n<h1>Welcome</h1>\n</body></html>", "text/html")
        with c.lock:
            c.inflight += 1
            c.max_inflight = max(c.max_inflight, c.inflight)
        try:
            if c.delay:
                time.sleep(c.delay)
            n = int(body.get("n") or 1) if c.honour_n else 1
            texts = c.draw(task, n, user) if c.test_marker else c.draw(task, n)
        finally:
            with c.lock:
                c.inflight -= 1
        self._reply(texts, body)

    def _reply(self, texts: list[str], body: dict) -> None:
        choices = []
        for i, text in enumerate(texts):
            choice: dict = {"index": i, "message": {"role": "assistant", "content": text}, "finish_reason": "stop",
                            "logprobs": None}
            if body.get("logprobs") and self.canned.logprobs:  # made-up but fixed values: -0.01 per character
                choice["logprobs"] = {"content": [{"token": t, "logprob": -0.01 * len(t), "bytes": None,
                                                   "top_logprobs": []} for t in _tokens(text)]}
            choices.append(choice)
        self._send(200, {"id": "chatcmpl-canned", "object": "chat.completion", "created": int(time.time()),
                         "model": self.canned.model, "choices": choices,
                         "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})


# --- the server in a process of its own (benchmarks: its JSON and threads do not take the client's GIL) ---------

DEEPSEEK_SET = "extra_humaneval/samples/deepseek-coder-6.7b-instruct-q5_humaneval_n10_t0.6.jsonl.gz"


def humaneval_replies(data_dir: str, problems: dict, task_ids: list[str]) -> tuple[dict[str, list[str]],
                                                                                    dict[str, str]]:
    """DeepSeek-Coder-6.7B-Instruct's real HumanEval replies (10 per problem, ../shared/data) for ``task_ids``, and
    what names each problem in a request: its entry point's def line, which a test prompt shows too."""
    import gzip
    from pathlib import Path

    replies: dict[str, list[str]] = {t: [] for t in task_ids}
    with gzip.open(Path(data_dir) / DEEPSEEK_SET, "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            if rec["task_id"] in replies:
                replies[rec["task_id"]].append(rec["raw"])
    prompts = {t: next(line for line in problems[t].prompt.split("\n")
                       if line.startswith(f"def {problems[t].entry_point}(")) for t in task_ids}
    return replies, prompts


def serve(conn, replies: dict[str, list[str]], prompts: dict[str, str], options: dict) -> None:
    """The canned server, in the process this runs in, until told to stop; sends back its URL and model, then
    (requests answered, the most held at once)."""
    server = CannedChatServer(replies, prompts, **options).start()
    conn.send((server.url, server.model))
    conn.recv()
    server.stop()
    conn.send((len(server.served), server.max_inflight))


class ServerProcess:
    """``with ServerProcess(replies, prompts, delay=0.5) as (url, model): …``: the canned server in a fresh
    interpreter (spawned: no threads or locks of the caller's forked); ``stats`` after the block: (requests
    answered, the most held at once)."""

    def __init__(self, replies: dict[str, list[str]], prompts: dict[str, str], **options) -> None:
        self.args = (replies, prompts, options)
        self.stats: Optional[tuple[int, int]] = None

    def __enter__(self) -> tuple[str, str]:
        import multiprocessing

        spawn = multiprocessing.get_context("spawn")
        self.conn, theirs = spawn.Pipe()
        self.proc = spawn.Process(target=serve, args=(theirs, *self.args), daemon=True)
        self.proc.start()
        theirs.close()  # ours only: a server that dies is an EOFError here, not a wait for ever
        return self.conn.recv()

    def __exit__(self, *exc) -> None:
        try:
            self.conn.send("stop")
            self.stats = self.conn.recv()
        finally:
            self.proc.join(timeout=10)
            if self.proc.is_alive():
                self.proc.kill()
