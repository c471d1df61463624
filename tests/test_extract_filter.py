"""Contentless turns are not logged; anything with a fact in it is (zh and en side by side)."""

from __future__ import annotations

import pytest

from openclaw_memory.lang.utterance import is_contentless


@pytest.mark.parametrize(
    "text",
    [
        "好的",
        "ok",
        "嗯嗯",
        "k",
        "谢谢！",
        "thanks!",
        "收到",
        "got it",
        "好的，谢谢",
        "ok thanks 👍",
        "你好",
        "hello",
        "哈哈哈",
        "haha",
        "👍👍",
        "🙂",
        "",
        "   ",
        "。。。",
        "...",
        "晚安～",
        "good night",
        "嗯好的",
        "thank you so much!",
        "明白了",
        "sounds good",
        "好滴~",
        "没问题",
        "no problem",
        "Thanks, that was helpful!",  # praise of the answer is a thanks in other words
        "谢谢，这个很有帮助！",
        "this is helpful, thank you",
        "太有帮助了！",
    ],
)
def test_contentless(text: str) -> None:
    assert is_contentless(text)


@pytest.mark.parametrize(
    "text",
    [
        "我喜欢喝茶",
        "I like tea",
        "好的，以后用中文回复",
        "ok, answer in English from now on",
        "谢谢，我住在杭州",
        "thanks, I live in Berlin",
        "42",
        "明天开会",
        "meeting tomorrow",
        "不要用表情",
        "no emoji please",
        "可以用表格吗",
        "记住这个",
        "好人有好报",
        "That was helpful for my project.",  # the praise names something of theirs
        "这个很有帮助，我明天就去试试。",
        "That's really helpful, thanks! I'll wrap the vase in bubble wrap.",
        "谢谢，很有帮助，我下周搬去成都。",
    ],
)
def test_contentful(text: str) -> None:
    assert not is_contentless(text)
