"""A fake OpenAI-compatible server on loopback, for end-to-end tests of the LLM chain and of OpenClaw.

Real HTTP, so real clients talk to it: LlamaIndex's `OpenAILike` (and the `openai` SDK under it)
in the provider tests, and the real OpenClaw gateway (tests/e2e) in the host tests.
`POST <base>/chat/completions` (plain JSON, or server-sent events when the request streams) and
`POST <base>/completions` answer from a queue of canned replies, `GET <base>/models` lists the
model, and every request is recorded with its headers and JSON body.

    with FakeOpenAIServer(['{"facts": []}']) as server:
        cfg = LLMConfig(provider="openai_like", model="fake", api_base=server.api_base)
        ...
        assert server.requests[0].body["model"] == "fake"

A reply that is an int is an HTTP error with that status. When the queue is empty the server
answers `default` (a text, or a function of the request body), or 503 without one. A tool call
queued with `queue_tool_call` answers the next chat request that offers tools; `hold_next` makes
the next chat request wait until the test releases it.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ..core.clock import Clock, SystemClock

FakeReply = str | int
DefaultReply = str | Callable[[dict[str, Any]], str] | None


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


@dataclass(frozen=True)
class ToolCall:
    """A scripted tool call a chat completion returns instead of text."""

    name: str
    arguments: dict[str, Any]


class FakeOpenAIServer:
    """An OpenAI-compatible HTTP server on 127.0.0.1 (a free port), replying from a queue."""

    def __init__(
        self,
        replies: Iterable[FakeReply] = (),
        *,
        model: str = "fake-model",
        clock: Clock | None = None,
        default: DefaultReply = None,
        port: int = 0,
    ) -> None:
        self._replies: deque[FakeReply] = deque(replies)
        self._tool_calls: deque[ToolCall] = deque()
        self._hold: tuple[threading.Event, threading.Event] | None = None
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self.model = model
        self.default = default
        self.clock = clock or SystemClock()  # the replies' `created` time
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-openai",
            daemon=True,
        )

    @property
    def port(self) -> int:
        """The loopback port it listens on."""
        return int(self._httpd.server_address[1])

    @property
    def api_base(self) -> str:
        """The base URL to configure as `extraction.llm.api_base` (ends in /v1)."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """The requests received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def chat_requests(self) -> list[dict[str, Any]]:
        """The JSON bodies of the chat completion requests so far, oldest first."""
        return [r.body for r in self.requests if r.path.rstrip("/").endswith("/chat/completions")]

    def push(self, *replies: FakeReply) -> None:
        """Queue more replies (texts, or HTTP status codes to fail with)."""
        with self._lock:
            self._replies.extend(replies)

    def queue_tool_call(self, name: str, arguments: dict[str, Any]) -> None:
        """Make the next chat request that offers tools get this tool call as its answer."""
        with self._lock:
            self._tool_calls.append(ToolCall(name, arguments))

    def hold_next(self) -> tuple[threading.Event, threading.Event]:
        """Make the next chat request wait: returns (arrived, release) events.

        `arrived` is set when the request is in; the answer goes out after `release.set()`
        (or two minutes), so a test can act at a known point in the middle of a run.
        """
        events = (threading.Event(), threading.Event())
        with self._lock:
            self._hold = events
        return events

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

    def _answer(self, request: RecordedRequest) -> tuple[int, FakeReply | ToolCall]:
        """The status and the reply for one completion request (recorded first)."""
        chat = request.path.rstrip("/").endswith("/chat/completions")
        with self._lock:
            self._requests.append(request)
            hold, self._hold = (self._hold, None) if chat else (None, self._hold)
        if hold is not None:
            arrived, release = hold
            arrived.set()
            release.wait(timeout=120)
        with self._lock:
            if chat and self._tool_calls and request.body.get("tools"):
                return 200, self._tool_calls.popleft()
            reply: FakeReply | None = self._replies.popleft() if self._replies else None
        if reply is None:
            default = self.default
            if default is None:
                return 503, 503
            reply = default(request.body) if callable(default) else default
        return (reply, reply) if isinstance(reply, int) else (200, reply)


_USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")


def _usage(request: RecordedRequest, text: str) -> dict[str, int]:
    prompt, completion = len(request.prompt.split()), len(text.split())
    return dict(zip(_USAGE_KEYS, (prompt, completion, prompt + completion)))


def _message(reply: str | ToolCall) -> tuple[dict[str, Any], str]:
    if isinstance(reply, ToolCall):
        call = {
            "id": "call_fake_1",
            "type": "function",
            "function": {"name": reply.name, "arguments": json.dumps(reply.arguments)},
        }
        return {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
    return {"role": "assistant", "content": reply}, "stop"


def _completion(
    request: RecordedRequest, reply: str | ToolCall, model: str, now: float
) -> dict[str, Any]:
    chat = request.path.rstrip("/").endswith("/chat/completions")
    choice: dict[str, Any] = {"index": 0, "logprobs": None}
    if chat:
        choice["message"], choice["finish_reason"] = _message(reply)
    else:
        choice["text"], choice["finish_reason"] = str(reply), "stop"
    text = reply if isinstance(reply, str) else ""
    return {
        "id": f"fake-{len(request.prompt)}",
        "object": "chat.completion" if chat else "text_completion",
        "created": int(now),
        "model": str(request.body.get("model") or model),
        "choices": [choice],
        "usage": _usage(request, text),
    }


def _chunk(
    base: dict[str, Any], delta: dict[str, Any], finish: str | None = None
) -> dict[str, Any]:
    return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _stream(
    request: RecordedRequest, reply: str | ToolCall, model: str, now: float
) -> list[dict[str, Any]]:
    """The chunks of a streamed chat completion: role, the content (or the tool call) in two
    pieces, the finish reason, and the usage when the request asked for it."""
    base = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": int(now),
        "model": str(request.body.get("model") or model),
    }
    message, finish = _message(reply)
    chunks = [_chunk(base, {"role": "assistant", "content": ""})]
    if isinstance(reply, ToolCall):
        call = message["tool_calls"][0]
        head = {
            "index": 0,
            "id": call["id"],
            "type": "function",
            "function": {"name": reply.name, "arguments": ""},
        }
        chunks.append(_chunk(base, {"tool_calls": [head]}))
        chunks.append(
            _chunk(
                base,
                {
                    "tool_calls": [
                        {"index": 0, "function": {"arguments": call["function"]["arguments"]}}
                    ]
                },
            )
        )
    else:
        half = max(1, len(reply) // 2)
        chunks += [_chunk(base, {"content": reply[:half]}), _chunk(base, {"content": reply[half:]})]
    chunks.append(_chunk(base, {}, finish))
    if (request.body.get("stream_options") or {}).get("include_usage"):
        chunks.append(
            {
                **base,
                "choices": [],
                "usage": _usage(request, reply if isinstance(reply, str) else ""),
            }
        )
    return chunks


def _handler(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the real APIs (every reply has a length)

        def do_GET(self) -> None:  # noqa: N802 - the http.server naming
            if self.path.rstrip("/").endswith("/models"):
                model = {"id": server.model, "object": "model", "created": 0, "owned_by": "fake"}
                self._json(200, {"object": "list", "data": [model]})
            else:
                self._json(
                    404, {"error": {"message": f"no route {self.path}", "type": "not_found"}}
                )

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw.decode("utf-8") or "{}")
            except ValueError:
                body = {}
            recorded = RecordedRequest(
                self.path,
                {k.lower(): v for k, v in self.headers.items()},
                body if isinstance(body, dict) else {},
            )
            if not self.path.rstrip("/").endswith(("/chat/completions", "/completions")):
                self._json(
                    404, {"error": {"message": f"no route {self.path}", "type": "not_found"}}
                )
                return
            status, reply = server._answer(recorded)
            now = server.clock.now()
            if isinstance(reply, int):
                self._json(
                    status,
                    {"error": {"message": f"fake server: status {status}", "type": "server_error"}},
                )
            elif recorded.body.get("stream") and recorded.path.rstrip("/").endswith(
                "/chat/completions"
            ):
                self._sse(_stream(recorded, reply, server.model, now))
            else:
                self._json(200, _completion(recorded, reply, server.model, now))

        def _json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _sse(self, chunks: list[dict[str, Any]]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")  # the stream ends with the connection
            self.end_headers()
            for chunk in chunks:
                self.wfile.write(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet in tests
            return

    return Handler
