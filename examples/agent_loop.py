"""A minimal agent loop with long-term memory.

    python examples/agent_loop.py                # scripted replies, fully offline
    OPENAI_BASE_URL=http://127.0.0.1:8080/v1 OPENAI_API_KEY=... OPENAI_MODEL=qwen2.5 \\
        python examples/agent_loop.py            # a real OpenAI-compatible model

Type a message per line; `/new` starts a new session, `/quit` ends. The memory block that
reaches the model is printed before each reply.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import urllib.request

from openclaw_memory.middleware import ChatRequest, MemoryMiddleware
from openclaw_memory.types import Scope

SYSTEM = {"role": "system", "content": "You are a helpful assistant. Use the memory block only when relevant."}


def call_model(messages: list[dict]) -> str:
    base = os.environ.get("OPENAI_BASE_URL")
    if not base:
        last = messages[-1]["content"]
        return f"(scripted reply) I heard: {last[:60]}"
    body = json.dumps({"model": os.environ.get("OPENAI_MODEL", "gpt-4o-mini"), "messages": messages}).encode()
    req = urllib.request.Request(base.rstrip("/") + "/chat/completions", data=body, headers={
        "Content-Type": "application/json", "Authorization": f"Bearer {os.environ.get('OPENAI_API_KEY', '')}"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.load(resp)["choices"][0]["message"]["content"]


def main() -> int:
    data_dir = os.environ.get("OCM_DATA_DIR") or tempfile.mkdtemp(prefix="ocm-example-")
    mw = MemoryMiddleware.from_config(overrides={"storage": {"data_dir": data_dir}})
    scope, session, history = Scope(os.environ.get("USER_ID", "alice"), "example"), 1, []
    print(f"memory store: {data_dir}  (/new = new session, /quit = stop)")
    try:
        for line in sys.stdin:
            text = line.strip()
            if text == "/quit":
                break
            if text == "/new":
                mw.on_session_end(scope, f"s{session}")
                session, history = session + 1, []
                continue
            if not text:
                continue
            request = ChatRequest(scope, f"s{session}", [SYSTEM, *history, {"role": "user", "content": text}])
            result = mw.before_request(request)
            if result.plan.block:
                print(result.plan.block)
            reply = call_model(result.messages)
            mw.after_response(request, reply)
            history += [{"role": "user", "content": text}, {"role": "assistant", "content": reply}]
            print(f"assistant: {reply}")
    finally:
        mw.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
