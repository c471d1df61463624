"""Compare the default config and a project YAML on the same recorded conversation.

    python examples/tune_project.py examples/project.yaml

Replays a short Chinese/English history through both configs (hash embedder, temp stores) and
prints, per question, how many tokens each would inject and whether the expected memory is in.
"""

from __future__ import annotations

import sys
import tempfile

from openclaw_memory.config import load_config
from openclaw_memory.testing import ConversationDriver
from openclaw_memory.testing import harness_config
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.types import Scope

HISTORY = ["请记住：我对花生过敏", "I prefer answers in bullet points", "PRD-223 我们决定采用后端鉴权方案",
           "下周五要交季度报告", "My dog is called Pepper"]
QUESTIONS = [("推荐几道菜", "花生"), ("What is my dog's name?", "Pepper"), ("PRD-223 用什么鉴权", "后端鉴权")]


def run(config_path: str | None) -> None:
    cfg = harness_config(tempfile.mkdtemp(), load_config(config_path))
    chat = ConversationDriver(build_middleware(cfg), Scope("alice", "tune"))
    try:
        chat.start_session("s1")
        for text in HISTORY:
            chat.prompt(text)
        chat.end_session()
        chat.start_session("s2")
        for question, expected in QUESTIONS:
            chat.prompt(question)
            plan = chat.plans[-1]
            print(f"  {question:<24} tokens={plan.tokens:<4} found={expected in plan.block}")
    finally:
        chat.middleware.close()


if __name__ == "__main__":
    print("default config:")
    run(None)
    if len(sys.argv) > 1:
        print(f"{sys.argv[1]}:")
        run(sys.argv[1])
