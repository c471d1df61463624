"""A fake OpenAI-compatible server on loopback, for end-to-end tests of the LLM chain.

Real HTTP, so the real LlamaIndex `OpenAILike` client (and the `openai` SDK under it) is what
talks to it: `POST <base>/chat/completions` and `POST <base>/completions` answer from a queue of
canned replies, and every request is recorded with its headers and JSON body.

    with FakeOpenAIServer(['{"facts": []}']) as server:
        cfg = LLMConfig(provider="openai_like", model="fake", api_base=server.api_base)
        ...
        assert server.requests[0].body["model"] == "fake"

A reply that is an int is an HTTP error with that status; an empty queue answers 503.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .clock import Clock, SystemClock

FakeReply = str | int


@dataclass(frozen=True)
class RecordedRequest:
    """One request the fake server received."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any] = field(default_factory=dict)

    @property
    def prompt(self) -> str:
        """The text sent: the chat messages' contents joined, or the completion prompt."""
        messages = self.body.get("messages")
        if isinstance(messages, list):
            return "\n".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))
        return str(self.body.get("prompt", ""))


class FakeOpenAIServer:
    """An OpenAI-compatible HTTP server on 127.0.0.1 (a free port), replying from a queue."""

    def __init__(self, replies: Iterable[FakeReply] = (), *, model: str = "fake-model",
                 clock: Clock | None = None) -> None:
        self._replies: deque[FakeReply] = deque(replies)
        self.clock = clock or SystemClock()  # the replies' `created` time
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self.model = model
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-openai", daemon=True)

    @property
    def api_base(self) -> str:
        """The base URL to configure as `extraction.llm.api_base` (ends in /v1)."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """The requests received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def push(self, *replies: FakeReply) -> None:
        """Queue more replies (texts, or HTTP status codes to fail with)."""
        with self._lock:
            self._replies.extend(replies)

    def start(self) -> "FakeOpenAIServer":
        """Serve on a background thread; returns self."""
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and release the port."""
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> "FakeOpenAIServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _answer(self, request: RecordedRequest) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self._requests.append(request)
            reply = self._replies.popleft() if self._replies else 503
        if isinstance(reply, int):
            return reply, {"error": {"message": f"fake server: status {reply}", "type": "server_error"}}
        return 200, _completion(request, reply, self.model, self.clock.now())


def _completion(request: RecordedRequest, text: str, model: str, now: float) -> dict[str, Any]:
    chat = request.path.endswith("/chat/completions")
    choice: dict[str, Any] = {"index": 0, "finish_reason": "stop", "logprobs": None}
    if chat:
        choice["message"] = {"role": "assistant", "content": text}
    else:
        choice["text"] = text
    prompt_tokens, completion_tokens = len(request.prompt.split()), len(text.split())
    return {
        "id": f"fake-{len(request.prompt)}",
        "object": "chat.completion" if chat else "text_completion",
        "created": int(now),
        "model": str(request.body.get("model") or model),
        "choices": [choice],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


def _handler(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server naming
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw.decode("utf-8") or "{}")
            except ValueError:
                body = {}
            recorded = RecordedRequest(self.path, {k.lower(): v for k, v in self.headers.items()},
                                       body if isinstance(body, dict) else {})
            if not self.path.endswith(("/chat/completions", "/completions")):
                status, payload = 404, {"error": {"message": f"no route {self.path}", "type": "not_found"}}
            else:
                status, payload = server._answer(recorded)
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet in tests
            return

    return Handler


__all__ = ["FakeOpenAIServer", "RecordedRequest"]
