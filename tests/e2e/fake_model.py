"""A fake OpenAI-compatible model server for end-to-end runs of the real OpenClaw.

No LLM is reachable offline, so OpenClaw is pointed at this server. It answers `GET /v1/models`
and `POST /v1/chat/completions` (streamed as SSE or plain JSON), records every request body so a
test can see exactly what the model would have received, and can be scripted to answer the next
request with one tool call (to exercise OpenClaw's tool loop and the after_tool_call hook).
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

MODEL_ID = "fake-model"


@dataclass(frozen=True)
class ToolCall:
    """A scripted tool call the next completion returns instead of text."""

    name: str
    arguments: dict[str, Any]



class FakeModelServer:
    """Threaded HTTP server on 127.0.0.1; use as a context manager or call start()/stop()."""

    def __init__(
        self, reply_text: Callable[[dict[str, Any]], str] | str = "好的，已记下。", port: int = 0
    ) -> None:
        self._reply_text = reply_text
        self._script: deque[ToolCall] = deque()
        self._lock = threading.Lock()
        self._hold: tuple[threading.Event, threading.Event] | None = None
        self.requests: list[dict[str, Any]] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The OpenAI base URL (ends in /v1)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> "FakeModelServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> "FakeModelServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def queue_tool_call(self, name: str, arguments: dict[str, Any]) -> None:
        """Make the next chat completion ask for this tool call."""
        with self._lock:
            self._script.append(ToolCall(name, arguments))

    def hold_next(self) -> tuple[threading.Event, threading.Event]:
        """Make the next chat completion wait: returns (arrived, release) events.

        `arrived` is set when the request is in; the answer goes out after `release.set()`.
        Lets a test act (kill a service, say) at a known point in the middle of a run.
        """
        events = (threading.Event(), threading.Event())
        with self._lock:
            self._hold = events
        return events

    def _wait_if_held(self) -> None:
        with self._lock:
            hold, self._hold = self._hold, None
        if hold is not None:
            arrived, release = hold
            arrived.set()
            release.wait(timeout=120)

    def chat_requests(self) -> list[dict[str, Any]]:
        """Recorded bodies of POST /v1/chat/completions, oldest first."""
        with self._lock:
            return [r["body"] for r in self.requests if r["path"].endswith("/chat/completions")]

    def record(self, path: str, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append({"path": path, "body": body})

    def next_reply(self, body: dict[str, Any]) -> "str | ToolCall":
        """A scripted tool call if one is queued (and tools were offered), else text."""
        with self._lock:
            if self._script and body.get("tools"):
                return self._script.popleft()
        reply = self._reply_text
        return reply(body) if callable(reply) else reply


class _Handler(BaseHTTPRequestHandler):
    """One request; `fake` (the FakeModelServer) is set on the subclass _handler_for makes."""

    protocol_version = "HTTP/1.1"
    fake: FakeModelServer

    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            model = {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "fake"}
            self._json(200, {"object": "list", "data": [model]})
        else:
            self._json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(length) if length else b"{}")
        except ValueError:
            self._json(400, {"error": {"message": "body is not JSON"}})
            return
        self.fake.record(self.path, body)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._json(404, {"error": {"message": f"no route {self.path}"}})
            return
        self.fake._wait_if_held()
        reply = self.fake.next_reply(body)
        if body.get("stream"):
            self._sse(_stream_chunks(reply, body))
        else:
            self._json(200, _completion(reply))

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse(self, chunks: list[dict[str, Any]]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True


def _handler_for(server: FakeModelServer) -> type[BaseHTTPRequestHandler]:
    return type("FakeModelHandler", (_Handler,), {"fake": server})


_USAGE = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}


def _message(reply: "str | ToolCall") -> tuple[dict[str, Any], str]:
    if isinstance(reply, ToolCall):
        call = {"id": "call_fake_1", "type": "function",
                "function": {"name": reply.name, "arguments": json.dumps(reply.arguments)}}
        return {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
    return {"role": "assistant", "content": reply}, "stop"


def _completion(reply: "str | ToolCall") -> dict[str, Any]:
    message, finish = _message(reply)
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": MODEL_ID,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": _USAGE,
    }


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": MODEL_ID,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _stream_chunks(reply: "str | ToolCall", body: dict[str, Any]) -> list[dict[str, Any]]:
    message, finish = _message(reply)
    chunks = [_chunk({"role": "assistant", "content": ""})]
    if isinstance(reply, ToolCall):
        call = message["tool_calls"][0]
        head = {"index": 0, "id": call["id"], "type": "function",
                "function": {"name": reply.name, "arguments": ""}}
        chunks.append(_chunk({"tool_calls": [head]}))
        args = {"index": 0, "function": {"arguments": call["function"]["arguments"]}}
        chunks.append(_chunk({"tool_calls": [args]}))
    else:
        text = message["content"]
        half = max(1, len(text) // 2)
        chunks += [_chunk({"content": text[:half]}), _chunk({"content": text[half:]})]
    chunks.append(_chunk({}, finish))
    if (body.get("stream_options") or {}).get("include_usage"):
        chunks.append({**_chunk({}), "choices": [], "usage": _USAGE})
    return chunks


def system_text(body: dict[str, Any]) -> str:
    """The text of the system (or developer) messages of a recorded request."""
    return "\n".join(_text(m) for m in body.get("messages", []) if m.get("role") in ("system", "developer"))


def user_text(body: dict[str, Any]) -> str:
    """The text of the user messages of a recorded request."""
    return "\n".join(_text(m) for m in body.get("messages", []) if m.get("role") == "user")


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def main() -> None:
    """`python -m tests.e2e.fake_model PORTFILE [LOGFILE]`: serve until killed; write the port to
    PORTFILE and, after each chat request, every request body so far to LOGFILE as JSON."""
    import sys
    import time

    port_file = sys.argv[1]
    log_file = sys.argv[2] if len(sys.argv) > 2 else None
    with FakeModelServer() as server:
        with open(port_file, "w") as fh:
            fh.write(str(server.port))
        seen = 0
        while True:
            time.sleep(0.2)
            bodies = server.chat_requests()
            if log_file and len(bodies) != seen:
                seen = len(bodies)
                with open(log_file, "w") as fh:
                    json.dump(bodies, fh, ensure_ascii=False)


if __name__ == "__main__":
    main()
