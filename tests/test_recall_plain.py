"""The request as the embedder reads it: the names most of the user's memories carry become
pronouns (recall/channels.py)."""

from __future__ import annotations

import pytest

from openclaw_memory.recall.channels import embedding_text
from openclaw_memory.recall.channels import without_name
from openclaw_memory.runtime.factory import read_ports
from openclaw_memory.recall.recaller import Recaller
from openclaw_memory.config import RecallConfig
from openclaw_memory.types import Candidate, MemoryType, Scope
from store_helpers import writer_of

A, B = Scope("alice", "main"), Scope("bob", "main")


@pytest.mark.parametrize(
    "text, name, expected",
    [
        (
            "What activities does Melanie partake in?",
            "Melanie",
            "What activities does they partake in?",
        ),
        ("What do Melanie's kids like?", "Melanie", "What do their kids like?"),
        ("what did melanie paint?", "Melanie", "what did they paint?"),
        # a whole word only: another name that begins with it stays
        ("Did Jon meet Jonathan?", "Jon", "Did they meet Jonathan?"),
        ("林晓负责的那个记账App叫什么？", "林晓", "负责的那个记账App叫什么？"),
    ],
)
def test_a_name_becomes_a_pronoun(text, name, expected):
    assert without_name(text, name) == expected


def write(engine, scope, text, session):
    # a logged turn of a named speaker: the writer files the speaker as an entity
    turn = Candidate(MemoryType.EPISODE, text, entities=("Melanie",))
    writer_of(engine).write(scope, [turn], session_id=session)


def chat(engine, scope=A, n=12):
    """A store where Melanie speaks in every memory and Oscar is named once."""
    for i in range(n):
        write(engine, scope, f"Melanie: note number {i} about the garden", f"s{i}")
    write(engine, scope, "Melanie: Oscar and I went swimming at the lake.", "s99")


def test_a_name_in_most_memories_is_left_out_of_the_embedded_text(engine):
    chat(engine)
    text = "What does Melanie grow?"
    assert embedding_text(engine.store, A, text) == "What does they grow?"
    # a name the store holds once is evidence: it stays
    text = "What did Melanie do with Oscar?"
    assert embedding_text(engine.store, A, text) == "What did they do with Oscar?"


def test_text_stays_as_written_when_the_name_is_rare_or_all_it_asks(engine):
    chat(engine)
    # nothing but the name and function words: the request is about her as a whole
    for text in ("Melanie?", "What does Melanie do?"):
        assert embedding_text(engine.store, A, text) == text
    assert embedding_text(engine.store, A, "Where is Oscar now?") == "Where is Oscar now?"
    # another user's store does not know Melanie at all
    assert embedding_text(engine.store, B, "What does Melanie grow?") == "What does Melanie grow?"


def test_recall_embeds_the_request_without_the_common_name(engine):
    chat(engine)
    seen = []
    recaller = Recaller(read_ports(engine), RecallConfig(), parallel=False)
    inner = recaller.query_vectors.embed

    def embed(owner, text):
        seen.append(text)
        return inner(owner, text)

    recaller.query_vectors.embed = embed  # type: ignore[method-assign]
    result = recaller.recall(A, "What does Melanie do in the garden?")
    assert seen == ["What does they do in the garden?"]
    # keyword terms and the request the ranking explains are the words the user wrote
    assert result.query.text == "What does Melanie do in the garden?"
    assert "melani" in result.query.terms
