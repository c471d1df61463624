"""Deterministic synthetic memories, questions and conversation turns for the benchmark.

Everything is drawn from `random.Random` streams seeded by strings, so a (seed, user) pair always
yields the same memories, in any process and whatever PYTHONHASHSEED says. Users alternate a
primary language (even users Chinese, odd users English) and write a fifth of their memories
in the other one. The type mix follows a working agent's store: mostly episodes (turns kept
verbatim), tool events and project facts (`task/PRD-123`), some decisions, a few preferences and
profile facts. A user's memories are generated on their own, so a process that only needs the
questions never holds the whole corpus.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from openclaw_memory.core.clock import DAY
from openclaw_memory.types import Candidate, MemoryType
from . import vocab as V
from .synth_kinds import GENERATORS, UserState, episode, fact

#: 2025-01-01T00:00:00Z: the synthetic history starts here and spans SPAN_DAYS.
BASE_TIME = 1_735_689_600.0
SPAN_DAYS = 180
#: The fake clock's time while measuring: an hour after the last memory.
NOW = BASE_TIME + SPAN_DAYS * DAY + 3600.0
#: Share of each memory type (profile and preference fall back to fact once a user's slots run out).
TYPE_MIX = (
    (MemoryType.EPISODE, 0.42),
    (MemoryType.EVENT, 0.20),
    (MemoryType.FACT, 0.22),
    (MemoryType.DECISION, 0.10),
    (MemoryType.PREFERENCE, 0.04),
    (MemoryType.PROFILE, 0.02),
)
LANGS = ("zh", "en")


@dataclass(frozen=True)
class SynthMemory:
    """One memory to write, with the questions that should recall it."""

    user_id: str
    key: str
    lang: str
    candidate: Candidate
    at: float
    session_id: str
    questions: tuple[str, ...]


@dataclass(frozen=True)
class SynthQuery:
    """A question a user asks; `target_summary` is the memory it should hit."""

    user_id: str
    lang: str
    text: str
    target_key: str
    target_summary: str


@dataclass(frozen=True)
class SynthTurn:
    """One user/assistant exchange for the ingest measurement."""

    user_id: str
    session_id: str
    lang: str
    user: str
    assistant: str


def synth_version() -> str:
    """A hash of this generator's code: cached stores built by older code are not reused."""
    digest = hashlib.sha256()
    for name in ("synth.py", "synth_kinds.py", "vocab.py"):
        digest.update((Path(__file__).parent / name).read_bytes())
    return digest.hexdigest()[:12]


def user_id(index: int) -> str:
    return f"bench-u{index:04d}"


def user_lang(index: int) -> str:
    return LANGS[index % 2]


def user_counts(records: int, users: int, seed: int) -> list[int]:
    """How many memories each user has: uneven (0.5x to 1.5x the mean), summing to `records`."""
    if users < 1 or records < users:
        from openclaw_memory.errors import ValidationError

        raise ValidationError(
            f"records, users: expected users >= 1 and records >= users, found {records}, {users}"
        )
    rng = random.Random(f"ocm-bench:{seed}:counts")
    weights = [rng.uniform(0.5, 1.5) for _ in range(users)]
    total = sum(weights)
    counts = [max(1, int(records * w / total)) for w in weights]
    i = 0
    while sum(counts) != records:
        step = 1 if sum(counts) < records else -1
        if counts[i % users] + step >= 1:
            counts[i % users] += step
        i += 1
    return counts


def user_memories(seed: int, index: int, count: int) -> list[SynthMemory]:
    """The `count` memories of user `index`, oldest first; the same for the same arguments."""
    rng = random.Random(f"ocm-bench:{seed}:user:{index}")
    state = UserState(rng)
    primary = user_lang(index)
    other = LANGS[1 - LANGS.index(primary)]
    kinds, weights = zip(*TYPE_MIX)
    times = sorted(rng.uniform(BASE_TIME, BASE_TIME + SPAN_DAYS * DAY) for _ in range(count))
    out: list[SynthMemory] = []
    for n, at in enumerate(times):
        lang = primary if rng.random() < 0.8 else other
        session = f"s{index:04d}-w{int((at - BASE_TIME) // (7 * DAY)):02d}"
        cand, questions = GENERATORS[rng.choices(kinds, weights)[0]](rng, lang, state, session)
        out.append(SynthMemory(user_id(index), f"m{n:05d}", lang, cand, at, session, questions))
    return out


def iter_users(records: int, users: int, seed: int) -> Iterator[list[SynthMemory]]:
    """Every user's memories, one user at a time."""
    for index, count in enumerate(user_counts(records, users, seed)):
        yield user_memories(seed, index, count)


def question_bank(memories: list[SynthMemory], seed: int, per_user: int = 20) -> list[SynthQuery]:
    """Up to `per_user` questions about one user's memories (kept with a cached store)."""
    if not memories:
        return []
    rng = random.Random(f"ocm-bench:{seed}:bank:{memories[0].user_id}")
    picks = rng.sample(memories, min(per_user, len(memories)))
    return [
        SynthQuery(m.user_id, m.lang, rng.choice(m.questions), m.key, m.candidate.summary)
        for m in picks
    ]


def make_queries(bank: list[SynthQuery], count: int, seed: int) -> list[SynthQuery]:
    """`count` questions from random users, drawn from a question bank."""
    if not bank:
        return []
    rng = random.Random(f"ocm-bench:{seed}:queries:{count}")
    users = sorted({q.user_id for q in bank})
    by_user = {u: [q for q in bank if q.user_id == u] for u in users}
    return [rng.choice(by_user[rng.choice(users)]) for _ in range(count)]


def make_turns(count: int, users: int, seed: int) -> list[SynthTurn]:
    """Conversation turns for the ingest measurement: statements, explicit commands, chat, filler."""
    rng = random.Random(f"ocm-bench:{seed}:turns:{count}")
    states = {i: UserState(random.Random(f"ocm-bench:{seed}:turn-user:{i}")) for i in range(users)}
    out: list[SynthTurn] = []
    for n in range(count):
        index = rng.randrange(users)
        lang = user_lang(index) if rng.random() < 0.8 else LANGS[1 - LANGS.index(user_lang(index))]
        text = _turn_text(rng, lang, states[index])
        reply = rng.choice(V.REPLIES_ZH if lang == "zh" else V.REPLIES_EN)
        out.append(SynthTurn(user_id(index), f"ingest-{index:04d}-{n // 20}", lang, text, reply))
    return out


def _turn_text(rng: random.Random, lang: str, state: UserState) -> str:
    roll = rng.random()
    if roll < 0.08:
        return rng.choice(V.FILLER_TURNS)
    if roll < 0.22:
        _, zh, en, _, _, v_zh, v_en = rng.choice(V.PREFERENCES)
        if lang == "zh":
            return "记住：我" + zh.format(v=rng.choice(v_zh))
        body = en.format(v=rng.choice(v_en))
        head, _, rest = body.partition(" ")
        return body if head == "Reply" else f"Remember that {_FIRST_PERSON[head]} {rest}"
    if roll < 0.35:
        return fact(rng, lang, state, "")[0].summary
    return episode(rng, lang, state, "ingest", replies=False)[0].summary


_FIRST_PERSON = {
    "Drinks": "I drink",
    "Wants": "I want",
    "Codes": "I code",
    "Does": "I do",
    "Prefers": "I prefer",
}


def system_prompt(lang: str) -> str:
    return V.SYSTEM_ZH if lang == "zh" else V.SYSTEM_EN
