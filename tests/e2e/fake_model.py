"""The fake OpenAI-compatible model server the real OpenClaw is pointed at in end-to-end runs.

No LLM is reachable offline. This is the package's own fake (`openclaw_memory.llm.fake_openai`) with
the defaults an OpenClaw run needs: every chat request gets the same short reply unless a tool
call is queued, and the model is `fake-model`. It answers `GET /v1/models` and
`POST /v1/chat/completions` (streamed as SSE or plain JSON) and records every request body, so a
test sees exactly what the model would have received.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from openclaw_memory.llm.fake_openai import FakeOpenAIServer, ToolCall

MODEL_ID = "fake-model"

__all__ = ["MODEL_ID", "FakeModelServer", "ToolCall", "system_text", "user_text"]


class FakeModelServer(FakeOpenAIServer):
    """`FakeOpenAIServer` answering every chat request with reply_text (a text, or a function of
    the request body); use as a context manager or call start()/stop()."""

    def __init__(
        self, reply_text: Callable[[dict[str, Any]], str] | str = "好的，已记下。", port: int = 0
    ) -> None:
        super().__init__(model=MODEL_ID, default=reply_text, port=port)

    @property
    def base_url(self) -> str:
        """The OpenAI base URL (ends in /v1)."""
        return self.api_base

    def stop(self) -> None:
        self.close()


def system_text(body: dict[str, Any]) -> str:
    """The text of the system (or developer) messages of a recorded request."""
    return "\n".join(
        _text(m) for m in body.get("messages", []) if m.get("role") in ("system", "developer")
    )


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
    PORTFILE and, after each chat request, every request body so far to LOGFILE as JSON (written
    to a temporary file and renamed, so a reader never sees half a log)."""
    import os
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
                with open(f"{log_file}.tmp", "w") as fh:
                    json.dump(bodies, fh, ensure_ascii=False)
                os.replace(f"{log_file}.tmp", log_file)


if __name__ == "__main__":
    main()
