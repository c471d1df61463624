"""A long request (a pasted log, an article) is read by its head and its tail: recall reads at most
`QUERY_TOKENS` tokens of it, so its cost does not grow with its length (1 MB took seconds when
every stage read all of it), and a question at its end is what it asks. English and Chinese side
by side."""

from __future__ import annotations

import pytest
from middleware_helpers import SYSTEM, tell

from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.middleware import ChatRequest
from openclaw_memory.recall.query import QUERY_TOKENS, build_query
from openclaw_memory.core.tokens import count_tokens, ends
from openclaw_memory.types import Scope

ALICE = Scope("alice", "main")

LOG = {
    "en": "2026-12-05 01:02:03 WARN worker-7 retry 3/5 upstream timeout after 30s; requeued\n",
    "zh": "2026-12-05 01:02:03 警告 工作进程7 第3次重试，上游超时30秒，已重新排队\n",
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_short_text_is_read_whole(lang):
    text = LOG[lang] * 3
    assert ends(text, QUERY_TOKENS) == text


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", [10_000, 1_000_000])
def test_a_long_text_is_read_by_its_head_and_its_tail(lang, size):
    body = LOG[lang] * (size // len(LOG[lang]))
    text = f"START {body} END"
    read = ends(text, QUERY_TOKENS)
    assert read.startswith("START") and read.endswith("END")
    assert "…" in read
    assert count_tokens(read) <= QUERY_TOKENS
    assert build_query(text).text == read  # the query reads what the recall reads


def test_recent_turns_are_read_by_their_ends_too():
    long_turn = {"role": "user", "content": "START " + LOG["en"] * 10_000 + " END"}
    q = build_query("and what about that?", [long_turn])
    assert "START" in q.text and "END" not in q.text  # the current request comes first
    assert count_tokens(q.text) <= QUERY_TOKENS


SAID = {
    "en": ["My dog Biscuit loves running on the beach.", "I work as a nurse at the city hospital."],
    "zh": ["我家狗叫饼干，特别喜欢在海边跑。", "我在市医院当护士。"],
}
ASKED = {"en": "By the way, what's my dog's name?", "zh": "对了，我家狗叫什么名字？"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_pasted_log_is_recalled_for_by_its_ends(tmp_path, clock, make_config, lang):
    mw = build_middleware(
        make_config(tmp_path, storage={"background_indexing": False}), clock=clock
    )
    try:
        tell(mw, ALICE, SAID[lang])
        pasted = LOG[lang] * 20_000 + "\n" + ASKED[lang]  # about 1.6 MB of log, then the question
        result = mw.recaller.recall(ALICE, pasted, ())
        assert result.query.text.startswith(LOG[lang][:20])
        assert result.query.text.endswith(ASKED[lang])
        assert count_tokens(result.query.text) <= QUERY_TOKENS
        msgs = [SYSTEM, {"role": "user", "content": pasted}]
        out = mw.before_request(ChatRequest(ALICE, "ask", msgs)).messages
        assert out[-1] == msgs[-1] and len(out) - len(msgs) in (0, 1)
    finally:
        mw.close()
