"""The whole read path on a few statements: tell a middleware what a user said, then read the
block a request gets."""

from __future__ import annotations

from typing import Any, Sequence

from openclaw_memory.middleware import ChatRequest
from openclaw_memory.types import Scope

SYSTEM = {"role": "system", "content": "You are a helpful assistant."}


def tell(mw: Any, scope: Scope, texts: Sequence[str], clock: Any = None) -> None:
    """Each text as the user's turn of a session of its own, captured before the next; a day
    apart when a clock is given."""
    for i, text in enumerate(texts):
        req = ChatRequest(scope, f"s{i}", [SYSTEM, {"role": "user", "content": text}])
        mw.before_request(req)
        mw.after_response(req, "ok.")
        mw.flush()
        if clock is not None:
            clock.advance(86400)


def block(mw: Any, scope: Scope, text: str) -> str:
    """The memory block a request gets in a new session."""
    msgs = [SYSTEM, {"role": "user", "content": text}]
    return mw.before_request(ChatRequest(scope, "ask", msgs)).plan.block
