"""`openclaw-memory demo`: two sessions, Chinese and English, through the real middleware."""

from __future__ import annotations

import tempfile
from typing import Any

from .config import MemoryConfig, config_from_dict
from .middleware import ChatRequest
from .recall.explain import explain_table
from .types import Scope

SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
SESSION_1 = [
    ("请记住：我对花生过敏，推荐菜的时候要避开花生。", "好的，我记住了：您对花生过敏。"),
    ("From now on, answer me in English with bullet points.", "Understood: English, bullet points."),
    ("PRD-223 我们决定采用后端鉴权方案，因为客户端不能保存密钥。", "记下了：PRD-223 采用后端鉴权。"),
]
SESSION_2 = "今晚想吃川菜，有什么推荐？"


def _turns(mw: Any, scope: Scope, session: str) -> None:
    history = [SYSTEM]
    for user, reply in SESSION_1:
        history.append({"role": "user", "content": user})
        request = ChatRequest(scope, session, list(history))
        mw.before_request(request)
        mw.after_response(request, reply)
        history.append({"role": "assistant", "content": reply})
    mw.on_session_end(scope, session, "end")


def run_demo(config: MemoryConfig, data_dir: str | None = None) -> int:
    from .factory import build_middleware

    with tempfile.TemporaryDirectory(prefix="ocm-demo-") as tmp:
        cfg = config_from_dict({"storage": {"data_dir": data_dir or tmp}}, base=config)
        mw = build_middleware(cfg)
        try:
            alice, bob = Scope("alice", "demo"), Scope("bob", "demo")
            print("== session 1 (alice): three turns are captured in the background ==")
            _turns(mw, alice, "s1")
            mw.flush()
            for r in mw.engine.find(alice, where="status = 'active' AND type != 'episode'"):
                print(f"  stored [{r.type.value}] {r.subject or '-'}: {r.summary[:70]}")
            print(f"\n== session 2 (alice) asks: {SESSION_2} ==")
            result = mw.before_request(ChatRequest(alice, "s2", [SYSTEM, {"role": "user", "content": SESSION_2}]))
            print(explain_table(result.plan))
            print("\n-- the model request, memory right after the system prompt --")
            for m in result.messages:
                print(f"[{m['role']}]\n{m['content']}\n")
            other = mw.before_request(ChatRequest(bob, "b1", [SYSTEM, {"role": "user", "content": SESSION_2}]))
            print(f"== bob asks the same: {len(other.messages) - 2} memory messages injected (alice's stay hers) ==")
        finally:
            mw.close()
    return 0
