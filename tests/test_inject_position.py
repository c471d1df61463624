"""Positioning the block: three modes, a new list every time, clear validation errors."""

from __future__ import annotations

import copy
import re

import pytest

from openclaw_memory.errors import ValidationError
from openclaw_memory.inject.render import inject

BLOCK = "<memory-context>\n- 喜欢喝茶 / likes tea\n</memory-context>"
MEM = {"role": "system", "content": BLOCK}


def sys(text="You are helpful."):
    return {"role": "system", "content": text}


def user(text="hi"):
    return {"role": "user", "content": text}


def asst(text="hello"):
    return {"role": "assistant", "content": text}


@pytest.mark.parametrize(
    "messages,expected",
    [
        ([sys(), user()], [sys(), MEM, user()]),
        ([sys("a"), sys("b"), user()], [sys("a"), sys("b"), MEM, user()]),
        (
            [sys(), {"role": "developer", "content": "d"}, user()],
            [sys(), {"role": "developer", "content": "d"}, MEM, user()],
        ),
        ([user(), asst(), user("again")], [MEM, user(), asst(), user("again")]),
        ([sys()], [sys(), MEM]),
        ([], [MEM]),
        ([sys(), user(), sys("late")], [sys(), MEM, user(), sys("late")]),
    ],
    ids=[
        "one-system",
        "two-systems",
        "system+developer",
        "no-system",
        "only-system",
        "empty",
        "late-system-ignored",
    ],
)
def test_after_system(messages, expected):
    assert inject(messages, BLOCK, position="after_system") == expected


@pytest.mark.parametrize(
    "messages,expected",
    [
        ([sys(), user("q1"), asst(), user("q2")], [sys(), user("q1"), asst(), MEM, user("q2")]),
        ([user("only")], [MEM, user("only")]),
        (
            [sys(), user("q"), asst("a"), {"role": "tool", "content": "r"}],
            [sys(), MEM, user("q"), asst("a"), {"role": "tool", "content": "r"}],
        ),
        ([sys(), asst()], [sys(), MEM, asst()]),
    ],
    ids=["last-user", "single-user", "last-user-not-at-end", "no-user-falls-back"],
)
def test_before_user_input(messages, expected):
    assert inject(messages, BLOCK, position="before_user_input") == expected


TEMPLATE = "【历史记忆】\n{memory_block}\n【当前输入】"


@pytest.mark.parametrize(
    "messages,expected",
    [
        (
            [sys("Be brief."), user()],
            [sys(f"Be brief.\n\n【历史记忆】\n{BLOCK}\n【当前输入】"), user()],
        ),
        ([user()], [sys(f"【历史记忆】\n{BLOCK}\n【当前输入】"), user()]),
        (
            [{"role": "system", "content": None}, user()],
            [sys(f"【历史记忆】\n{BLOCK}\n【当前输入】"), user()],
        ),
        (
            [sys("A"), sys("B"), user()],
            [sys(f"A\n\n【历史记忆】\n{BLOCK}\n【当前输入】"), sys("B"), user()],
        ),
    ],
    ids=["append-to-system", "no-system", "null-content", "only-first-system"],
)
def test_system_prefix(messages, expected):
    assert inject(messages, BLOCK, position="system_prefix", system_prefix=TEMPLATE) == expected


def test_system_prefix_default_template_and_braces_in_block():
    block = '<memory-context>\n- likes {"json"} and {memory_block} text\n</memory-context>'
    out = inject([sys("S")], block, position="system_prefix")
    assert out == [sys(f"S\n\n{block}")]


@pytest.mark.parametrize("position", ["after_system", "before_user_input", "system_prefix"])
def test_input_is_never_modified(position):
    messages = [sys(), user("q1"), asst(), user("q2")]
    before = copy.deepcopy(messages)
    out = inject(messages, BLOCK, position=position)
    assert messages == before
    assert out is not messages and out != messages
    out[0]["content"] = "changed"
    assert messages == before


@pytest.mark.parametrize("block", ["", "   \n"])
@pytest.mark.parametrize("position", ["after_system", "before_user_input", "system_prefix"])
def test_empty_block_leaves_messages_unchanged(block, position):
    messages = [sys(), user()]
    out = inject(messages, block, position=position)
    assert out == messages and out is not messages


@pytest.mark.parametrize(
    "messages,field",
    [
        ("not a list", "messages"),
        ((sys(),), "messages"),
        ([sys(), "hello"], "messages[1]"),
        ([sys(), {"content": "no role"}], "messages[1].role"),
        ([{"role": "robot", "content": "x"}], "messages[0].role"),
        ([{"role": 3, "content": "x"}], "messages[0].role"),
        ([sys(), user(), {"role": "user", "content": 42}], "messages[2].content"),
        ([{"role": "user", "content": [{"type": "text", "text": "x"}]}], "messages[0].content"),
    ],
)
def test_invalid_messages_name_index_and_field(messages, field):
    with pytest.raises(ValidationError, match=re.escape(field) + r"(:|\s)"):
        inject(messages, BLOCK, position="after_system")


def test_missing_content_is_allowed():
    out = inject([{"role": "assistant"}, user()], BLOCK, position="after_system")
    assert out[0] == MEM


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"position": "top"}, "position"),
        ({"position": "system_prefix", "system_prefix": "no placeholder"}, "system_prefix"),
        ({"position": "system_prefix", "system_prefix": "{memory}"}, "system_prefix"),
        ({"position": "system_prefix", "system_prefix": None}, "system_prefix"),
    ],
)
def test_invalid_options_name_the_field(kwargs, field):
    with pytest.raises(ValidationError, match=rf"^{field}:"):
        inject([sys(), user()], BLOCK, **kwargs)


def test_block_must_be_a_string():
    with pytest.raises(ValidationError, match="^block:"):
        inject([user()], None, position="after_system")  # type: ignore[arg-type]
