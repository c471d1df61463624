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

from ..capture.events import ToolEvent, episode_candidate, tool_event_candidate
from ..clock import DAY
from ..types import Candidate, MemoryType
from . import vocab as V

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
    for name in ("synth.py", "vocab.py"):
        digest.update((Path(__file__).parent / name).read_bytes())
    return digest.hexdigest()[:12]


def user_id(index: int) -> str:
    return f"bench-u{index:04d}"


def user_lang(index: int) -> str:
    return LANGS[index % 2]


def user_counts(records: int, users: int, seed: int) -> list[int]:
    """How many memories each user has: uneven (0.5x to 1.5x the mean), summing to `records`."""
    if users < 1 or records < users:
        from ..errors import ValidationError

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


class _UserState:
    """What a user's generator has used up: PRD numbers, profile slots, preference topics."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.next_prd = rng.randint(100, 800)
        self.prds: list[int] = []
        self.profile = list(range(len(V.PROFILE)))
        self.prefs = list(range(len(V.PREFERENCES)))
        rng.shuffle(self.profile)
        rng.shuffle(self.prefs)
        self.person = rng.choice(V.PEOPLE)
        self.city = rng.choice(V.CITIES)
        self.turns: dict[str, int] = {}

    def new_prd(self) -> str:
        self.next_prd += 1
        self.prds.append(self.next_prd)
        return f"PRD-{self.next_prd}"

    def some_prd(self) -> str:
        return (
            f"PRD-{self.rng.choice(self.prds)}"
            if self.prds and self.rng.random() < 0.7
            else self.new_prd()
        )

    def turn_id(self, session: str) -> str:
        self.turns[session] = self.turns.get(session, 0) + 1
        return f"{session}#{self.turns[session]}"


def _slots(rng: random.Random, state: _UserState) -> dict[str, str]:
    city = rng.choice(V.CITIES)
    feature = rng.choice(V.FEATURES)
    return {
        "person": rng.choice(V.PEOPLE),
        "city": city[0],
        "city_en": city[1],
        "company": rng.choice(V.COMPANIES),
        "feature": feature[0],
        "feature_en": feature[1],
        "file": rng.choice(V.FILES),
        "prd": state.some_prd(),
    }


def _fact(
    rng: random.Random, lang: str, state: _UserState, session: str
) -> tuple[Candidate, tuple[str, ...]]:
    prd, (feat_zh, feat_en), (st_zh, st_en) = (
        state.new_prd(),
        rng.choice(V.FEATURES),
        rng.choice(V.STATUSES),
    )
    person, file, month, day = (
        rng.choice(V.PEOPLE),
        rng.choice(V.FILES),
        rng.randint(1, 12),
        rng.randint(1, 28),
    )
    if lang == "zh":
        text = rng.choice(
            (
                f"{prd}（{feat_zh}）当前状态：{st_zh}，负责人{person}，预计{month}月{day}日上线。",
                f"{prd} 的{feat_zh}需求{st_zh}，{person}负责联调，相关代码在 {file}。",
            )
        )
        questions = (f"{prd} 现在进展到哪一步了？", f"{prd} 那个{feat_zh}需求是谁在负责？")
    else:
        text = rng.choice(
            (
                f"{prd} ({feat_en}) is {st_en}; owner {person}, planned release {month}/{day}.",
                f"{prd}: the {feat_en} work is {st_en}; {person} handles integration, code in {file}.",
            )
        )
        questions = (f"What's the status of {prd}?", f"Who is on the {feat_en} work for {prd}?")
    cand = Candidate(
        MemoryType.FACT,
        text,
        subject=f"task/{prd}",
        entities=(prd, person),
        tags=("status:" + st_en,),
        importance=round(rng.uniform(0.5, 0.9), 2),
        confidence=0.9,
    )
    return cand, questions


def _decision(
    rng: random.Random, lang: str, state: _UserState, session: str
) -> tuple[Candidate, tuple[str, ...]]:
    prd = state.some_prd()
    aspect_zh, aspect_en, options = rng.choice(V.ASPECTS)
    option, (why_zh, why_en) = rng.choice(options), rng.choice(V.REASONS)
    if lang == "zh":
        text = f"决定：{prd} 的{aspect_zh}采用 {option}，原因是{why_zh}。"
        questions = (
            f"为什么 {prd} 的{aspect_zh}选了 {option}？",
            f"{prd} 最后用的什么{aspect_zh}？",
        )
    else:
        text = f"Decision: {prd} uses {option} for its {aspect_en} because {why_en}."
        questions = (
            f"Why did we pick {option} for {prd}?",
            f"Which {aspect_en} did {prd} end up with?",
        )
    cand = Candidate(
        MemoryType.DECISION,
        text,
        subject=f"{prd}/{aspect_en.replace(' ', '-')}",
        entities=(prd, option),
        importance=0.7,
        confidence=0.9,
    )
    return cand, questions


def _event(
    rng: random.Random, lang: str, state: _UserState, session: str
) -> tuple[Candidate, tuple[str, ...]]:
    tool, tool_zh, tool_en = rng.choice(V.TOOLS)
    file, ok = rng.choice(V.FILES), rng.random() < 0.6
    prd = state.some_prd()
    if ok:
        outcome = (
            f"{tool_en} finished for {prd}: {rng.randint(3, 400)} items ok in {rng.randint(2, 90)}s"
        )
    else:
        outcome = rng.choice(V.ERRORS).format(file=file) + f" ({prd}, {file})"
    event = ToolEvent(
        tool,
        {"target": file, "ticket": prd, "attempt": rng.randint(1, 3)},
        outcome,
        ok,
        (file,),
        float(rng.randint(200, 90_000)),
    )
    if lang == "zh":
        questions = (
            (f"{file} 那次{tool_zh}报错是怎么回事？",)
            if not ok
            else (f"{prd} 的{tool_zh}结果怎么样？",)
        )
    else:
        questions = (
            (f"What went wrong with the {tool_en} on {file}?",)
            if not ok
            else (f"How did the {tool_en} for {prd} go?",)
        )
    return tool_event_candidate(event, turn_id=state.turn_id(session)), questions


def _episode(
    rng: random.Random, lang: str, state: _UserState, session: str, *, replies: bool = True
) -> tuple[Candidate, tuple[str, ...]]:
    slots = _slots(rng, state)
    pool = V.EPISODES_ZH if lang == "zh" else V.EPISODES_EN
    first = rng.choice(pool)
    sentences = [first.format(**slots)] + [
        rng.choice(pool).format(**_slots(rng, state)) for _ in range(rng.choice((0, 0, 1, 2)))
    ]
    key = next(slots[k] for k in ("prd", "file", "city", "feature") if "{" + k in first)
    if lang == "en" and key in (slots["city"], slots["feature"]):
        key = slots["city_en"] if key == slots["city"] else slots["feature_en"]
    speaker = "assistant" if replies and rng.random() < 0.3 else "user"
    if speaker == "assistant":
        lead = f"关于{key}：" if lang == "zh" else f"On {key}: "
        sentences = [
            lead + rng.choice(V.REPLIES_ZH if lang == "zh" else V.REPLIES_EN),
            *sentences[1:],
        ]
    text = ("" if lang == "zh" else " ").join(sentences)
    qs = V.EPISODE_QUESTIONS_ZH if lang == "zh" else V.EPISODE_QUESTIONS_EN
    cand = episode_candidate(text, speaker=speaker, turn_id=state.turn_id(session))
    return cand, tuple(q.format(key=key) for q in qs)


def _preference(
    rng: random.Random, lang: str, state: _UserState, session: str
) -> tuple[Candidate, tuple[str, ...]]:
    if not state.prefs:
        return _fact(rng, lang, state, session)
    topic, zh, en, q_zh, q_en, v_zh, v_en = V.PREFERENCES[state.prefs.pop()]
    text = zh.format(v=rng.choice(v_zh)) if lang == "zh" else en.format(v=rng.choice(v_en))
    cand = Candidate(MemoryType.PREFERENCE, text, subject=topic, importance=0.8, confidence=0.95)
    return cand, q_zh if lang == "zh" else q_en


def _profile(
    rng: random.Random, lang: str, state: _UserState, session: str
) -> tuple[Candidate, tuple[str, ...]]:
    if not state.profile:
        return _fact(rng, lang, state, session)
    slot, zh, en, q_zh, q_en = V.PROFILE[state.profile.pop()]
    job, company = rng.choice(V.JOBS), rng.choice(V.COMPANIES)
    values = {
        "name": (state.person, state.person),
        "employer": (company, company),
        "location": state.city,
        "job": job,
        "timezone": (rng.choice(V.TIMEZONES),) * 2,
    }[slot]
    text = zh.format(v=values[0]) if lang == "zh" else en.format(v=values[1])
    cand = Candidate(MemoryType.PROFILE, text, subject=slot, importance=0.9, confidence=0.95)
    return cand, q_zh if lang == "zh" else q_en


_GENERATORS = {
    MemoryType.FACT: _fact,
    MemoryType.DECISION: _decision,
    MemoryType.EVENT: _event,
    MemoryType.EPISODE: _episode,
    MemoryType.PREFERENCE: _preference,
    MemoryType.PROFILE: _profile,
}


def user_memories(seed: int, index: int, count: int) -> list[SynthMemory]:
    """The `count` memories of user `index`, oldest first; the same for the same arguments."""
    rng = random.Random(f"ocm-bench:{seed}:user:{index}")
    state = _UserState(rng)
    primary = user_lang(index)
    other = LANGS[1 - LANGS.index(primary)]
    kinds, weights = zip(*TYPE_MIX)
    times = sorted(rng.uniform(BASE_TIME, BASE_TIME + SPAN_DAYS * DAY) for _ in range(count))
    out: list[SynthMemory] = []
    for n, at in enumerate(times):
        lang = primary if rng.random() < 0.8 else other
        session = f"s{index:04d}-w{int((at - BASE_TIME) // (7 * DAY)):02d}"
        cand, questions = _GENERATORS[rng.choices(kinds, weights)[0]](rng, lang, state, session)
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
    states = {i: _UserState(random.Random(f"ocm-bench:{seed}:turn-user:{i}")) for i in range(users)}
    out: list[SynthTurn] = []
    for n in range(count):
        index = rng.randrange(users)
        lang = user_lang(index) if rng.random() < 0.8 else LANGS[1 - LANGS.index(user_lang(index))]
        text = _turn_text(rng, lang, states[index])
        reply = rng.choice(V.REPLIES_ZH if lang == "zh" else V.REPLIES_EN)
        out.append(SynthTurn(user_id(index), f"ingest-{index:04d}-{n // 20}", lang, text, reply))
    return out


def _turn_text(rng: random.Random, lang: str, state: _UserState) -> str:
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
        return _fact(rng, lang, state, "")[0].summary
    return _episode(rng, lang, state, "ingest", replies=False)[0].summary


_FIRST_PERSON = {
    "Drinks": "I drink",
    "Wants": "I want",
    "Codes": "I code",
    "Does": "I do",
    "Prefers": "I prefer",
}


def system_prompt(lang: str) -> str:
    return V.SYSTEM_ZH if lang == "zh" else V.SYSTEM_EN
