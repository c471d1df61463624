"""One generator per memory type for the synthetic bench corpus: project facts (`task/PRD-123`),
decisions with their reasons, tool events, conversation episodes, preferences and profile facts,
in Chinese or English, each with the questions that should recall it. A user's `UserState`
keeps what their generators have used up (PRD numbers, profile slots, preference topics), so
one random stream per user yields the same memories in any process.
"""

from __future__ import annotations

import random

from openclaw_memory.capture.events import ToolEvent, episode_candidate, tool_event_candidate
from openclaw_memory.types import Candidate, MemoryType
from . import vocab as V


class UserState:
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


def _slots(rng: random.Random, state: UserState) -> dict[str, str]:
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


def fact(
    rng: random.Random, lang: str, state: UserState, session: str
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


def decision(
    rng: random.Random, lang: str, state: UserState, session: str
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


def event(
    rng: random.Random, lang: str, state: UserState, session: str
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


def episode(
    rng: random.Random, lang: str, state: UserState, session: str, *, replies: bool = True
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


def preference(
    rng: random.Random, lang: str, state: UserState, session: str
) -> tuple[Candidate, tuple[str, ...]]:
    if not state.prefs:
        return fact(rng, lang, state, session)
    topic, zh, en, q_zh, q_en, v_zh, v_en = V.PREFERENCES[state.prefs.pop()]
    text = zh.format(v=rng.choice(v_zh)) if lang == "zh" else en.format(v=rng.choice(v_en))
    cand = Candidate(MemoryType.PREFERENCE, text, subject=topic, importance=0.8, confidence=0.95)
    return cand, q_zh if lang == "zh" else q_en


def profile(
    rng: random.Random, lang: str, state: UserState, session: str
) -> tuple[Candidate, tuple[str, ...]]:
    if not state.profile:
        return fact(rng, lang, state, session)
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


GENERATORS = {
    MemoryType.FACT: fact,
    MemoryType.DECISION: decision,
    MemoryType.EVENT: event,
    MemoryType.EPISODE: episode,
    MemoryType.PREFERENCE: preference,
    MemoryType.PROFILE: profile,
}
