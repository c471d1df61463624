"""A user's own extractor and recall channel, plugged in through the factory (no fork).

The extractor recognises ticket ids ("OPS-42", "工单 PAY-7") and writes each as a fact keyed by
the ticket; the channel proposes the user's ticket memories whenever a request names a ticket.
Both run inside the real pipeline: captures through after_response on the worker, recall and
injection through before_request, admin calls through the same extractor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest

from openclaw_memory import (
    Channel,
    ChatRequest,
    Extractor,
    MemoryType,
    RecallChannel,
    Scope,
    build_middleware,
)
from openclaw_memory.extract.rules import RuleExtractor
from openclaw_memory.types import Candidate, Turn
from store_helpers import find

ALICE = Scope("alice", "main")
TICKET = re.compile(r"\b[A-Z]{2,5}-\d{1,5}\b")


@dataclass
class TicketExtractor:
    """One fact per ticket id the user names, then the rule chain's candidates."""

    rules: RuleExtractor
    seen: int = 0

    def extract(self, turn: Turn) -> list[Candidate]:
        self.seen += 1
        found = [
            Candidate(
                MemoryType.FACT,
                f"ticket {tid}: {turn.user.strip()}",
                subject=f"ticket/{tid}",
                tags=("ticket",),
                entities=(tid,),
                importance=0.7,
                confidence=0.9,
            )
            for tid in dict.fromkeys(TICKET.findall(turn.user))
        ]
        return [*found, *self.rules.extract(turn)]


class TicketChannel:
    """Proposes the ticket memories of the ids a request names."""

    name = "tickets"

    def __init__(self) -> None:
        self.engine = None  # set once the middleware is built (the channel reads its store)
        self.calls = 0

    def propose(self, scope, query, qvec: np.ndarray, pool) -> None:
        self.calls += 1
        for tid in dict.fromkeys(TICKET.findall(query.text)):
            for r in find(
                self.engine,
                scope,
                status="active",
                subject=f"ticket/{tid}",
            ):
                pool.propose(r.id, self.name)


def _chat(mw, session: str, text: str, reply: str = "ok") -> object:
    request = ChatRequest(ALICE, session, [{"role": "user", "content": text}])
    result = mw.before_request(request)
    mw.after_response(request, reply)
    return result


@pytest.fixture
def built(config, clock):
    channel = TicketChannel()
    extractor = TicketExtractor(RuleExtractor(clock))
    mw = build_middleware(config, clock=clock, extractor=extractor, recall_channels=[channel])
    channel.engine = mw.engine
    yield mw, extractor, channel
    mw.close()


def test_the_protocols_are_public_and_the_plugins_satisfy_them(built):
    mw, extractor, channel = built
    assert isinstance(extractor, Extractor)
    assert mw.extractor is extractor and mw.capture.extractor is extractor
    assert channel in mw.recaller.channels
    assert RecallChannel.__name__ == "Channel" and hasattr(RecallChannel, "propose")


@pytest.mark.parametrize(
    "statement,question,needle",
    [
        (
            "The deploy of OPS-42 stalls the payment queue",
            "What do we know about OPS-42?",
            "OPS-42",
        ),
        ("工单 PAY-7 是退款接口超时的问题", "PAY-7 现在什么情况？", "PAY-7"),
    ],
)
def test_a_custom_extractor_and_channel_take_effect_end_to_end(built, statement, question, needle):
    mw, extractor, channel = built
    _chat(mw, "s1", statement)
    mw.flush()
    tickets = find(mw.engine, ALICE, subject=f"ticket/{needle}")
    assert [r.tags for r in tickets] == [
        ("ticket",)
    ]  # the extractor's fact, written by the real pipeline
    assert extractor.seen >= 1

    result = mw.before_request(ChatRequest(ALICE, "s2", [{"role": "user", "content": question}]))
    mine = [c for c in result.plan.candidates if c.record.id == tickets[0].id]
    assert mine and mine[0].kept and "tickets" in mine[0].channels  # proposed by the user's channel
    assert f"ticket {needle}" in result.plan.block
    assert channel.calls >= 2


def test_the_channel_proposes_nothing_for_a_request_without_a_ticket(built):
    mw, _, channel = built
    _chat(mw, "s1", "工单 PAY-7 是退款接口超时的问题")
    mw.flush()
    result = mw.before_request(
        ChatRequest(ALICE, "s2", [{"role": "user", "content": "推荐一本小说 recommend a novel"}])
    )
    assert not any("tickets" in c.channels for c in result.plan.candidates)


def test_remember_goes_through_the_custom_extractor(built):
    mw, extractor, _ = built
    mw.flush()  # the warm-up job runs the extractor once on the worker
    before = extractor.seen
    written = mw.remember(ALICE, "OPS-99 needs a rollback plan")
    assert extractor.seen == before + 1
    assert written.record.subject == "ticket/OPS-99" and written.record.tags == ("ticket",)
    assert written.record.source.channel is Channel.EXPLICIT


def test_without_the_plugins_neither_takes_effect(config, clock):
    mw = build_middleware(config, clock=clock)
    try:
        _chat(mw, "s1", "The deploy of OPS-42 stalls the payment queue")
        mw.flush()
        assert find(mw.engine, ALICE, subject_prefix="ticket/") == []
        result = mw.before_request(
            ChatRequest(ALICE, "s2", [{"role": "user", "content": "What about OPS-42?"}])
        )
        assert not any("tickets" in c.channels for c in result.plan.candidates)
    finally:
        mw.close()
