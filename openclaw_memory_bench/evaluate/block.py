"""Block quality on assistant-style sessions: what a user who mostly asks for help finds injected.

The recall sets (LoCoMo, LongMemEval, MemDaily) are conversations between people, or long
haystacks of them; a user of an agent mostly asks it for help. This instrument writes such
sessions from a small grammar (`data/assistant_grammar.json`): requests for help (questions to
the assistant, small talk, translate / explain / compute / write commands), a few personal
statements, some about other people (by relation and by name), turns that mix a request with a
statement ("I just adopted a puppy named Bobo, which food is best for it?", 我下周去成都出差，
帮我查下那边的天气), a compaction in the middle of the first session, and session ends. Slots
are filled with a seed, so a run is reproducible and another seed gives sessions nobody tuned on.

Each user's sessions go through the real write path; then, in a new session, each stated fact
is asked in the user's language and in the other one, and fresh requests of the same grammar
(new slot values) are asked as a user would. Per language (of the sessions), over the blocks:

- `noise_share`: of the block's non-profile lines (retrieved memories and summaries), the share
  that holds nothing the request asks about (neither the answer of the fact it asks nor the
  person it asks of; every line of a block for a plain request);
- `echoed`: lines that repeat an earlier request for help (a request is not a memory);
- `question_lists`: summary lines that list the user's requests;
- `others_as_user`: stored profile records that speak of another person (their name or the
  relation word): a fact about a daughter filed as the user's;
- `fact_recall`: stated facts whose answer is in the block when asked in the language they were
  stated in (by relation and, for the daughter, by name);
- `cross_recall`: the same, asked in the other language.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from openclaw_memory.core.clock import DAY
from openclaw_memory.types import MemoryType, ScoredMemory, Scope, Turn

DATA = Path(__file__).resolve().parent / "data"
LANGS = ("en", "zh")
#: users per language, turns of requests per user, and the day the sessions start (2026-02-02)
USERS = 3
REQUESTS = 30
_START = 1769990400.0
_SLOT = re.compile(r"\{(\w+)\}")


@lru_cache(maxsize=1)
def grammar() -> dict[str, Any]:
    return json.loads((DATA / "assistant_grammar.json").read_text(encoding="utf-8"))


def _fill(template: str, values: dict[str, str]) -> str:
    return _SLOT.sub(lambda m: values[m.group(1)], template)


class _Slots:
    """Slot values for one user: the people and things its statements name (fixed), and fresh
    draws for each request (`request_values`)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        words = grammar()["words"]
        self.fixed: dict[str, str] = {}
        for key, pairs in words.items():
            if key == "names":
                continue
            self._pick(key, pairs)
        for key, names in words["names"].items():
            self.fixed[key] = rng.choice(names)
        self.fixed["age"] = str(rng.randint(4, 12))
        self.fixed["a"], self.fixed["b"] = str(rng.randint(12, 99)), str(rng.randint(12, 99))

    def _pick(self, key: str, pairs: Sequence[Sequence[str]], into: dict | None = None) -> None:
        en, zh = self.rng.choice(pairs)
        target = self.fixed if into is None else into
        target[key], target[f"{key}_zh"] = en, zh

    def request_values(self) -> dict[str, str]:
        values = dict(self.fixed)
        for key, pairs in grammar()["words"].items():
            if key != "names":
                self._pick(key, pairs, values)
        values["a"], values["b"] = str(self.rng.randint(12, 99)), str(self.rng.randint(12, 99))
        return values


@dataclass
class UserSessions:
    """One generated user: sessions of turns, the facts stated, the requests asked."""

    lang: str
    user_id: str
    sessions: list[list[tuple[str, str]]]  # [(user text, reply)] per session
    compact_after: int  # the first session is compacted after this many turns
    facts: dict[str, list[str]]  # fact key -> answer words
    subjects: dict[str, str]  # fact key -> the other person it is about
    requests: list[str]  # the requests for help that were asked (bare ones)
    probes: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, fact, text)


def generate(lang: str, index: int, seed: int) -> UserSessions:
    """The sessions of one user of `lang`, drawn with `seed`."""
    g, other = grammar(), "zh" if lang == "en" else "en"
    rng = random.Random(f"{seed}:{lang}:{index}")
    slots = _Slots(rng)
    table = g[lang]
    requests = [
        _fill(rng.choice(table["requests"]), slots.request_values()) for _ in range(REQUESTS)
    ]
    statements = [(s["fact"], _fill(s["text"], slots.fixed)) for s in table["own"]]
    statements += [(s["fact"], _fill(s["text"], slots.fixed)) for s in table["others"]]
    statements += [(s["fact"], _fill(s["text"], slots.fixed)) for s in table["mixed"]]
    turns = [("", r) for r in requests]
    for fact, text in statements:
        turns.insert(rng.randrange(len(turns) + 1), (fact, text))
    replies = table["replies"]
    pairs = [(text, rng.choice(replies)) for _, text in turns]
    half = len(pairs) // 2
    facts = {}
    for key, spec in g["answers"].items():
        specs = spec if isinstance(spec, list) else [spec]
        facts[key] = [_fill(s, slots.fixed) for s in specs]
    subjects = {k: _fill(v, slots.fixed) for k, v in g["subjects"].items()}
    user = UserSessions(
        lang,
        f"block-{lang}-{index + 1}",
        [pairs[:half], pairs[half:]],
        half * 2 // 3,
        facts,
        subjects,
        requests,
    )
    for key in facts:
        user.probes.append(("fact", key, _fill(table["probes"][key], slots.fixed)))
        user.probes.append(("cross", key, _fill(g[other]["probes"][key], slots.fixed)))
    user.probes.append(("fact", "child_age", _fill(table["by_name"], slots.fixed)))
    user.probes.append(("cross", "child_age", _fill(g[other]["by_name"], slots.fixed)))
    for _ in range(8):
        text = _fill(rng.choice(table["requests"]), slots.request_values())
        user.probes.append(("request", "", text))
    return user


# ---------------------------------------------------------------------------- judging


def _norm(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def _has(text: str, words: Sequence[str]) -> bool:
    low = text.lower()
    for w in words:
        w = w.lower()
        if not w:
            continue
        if w.isascii():
            if re.search(r"(?<![a-z0-9])" + re.escape(w) + r"(?![a-z0-9])", low):
                return True
        elif w in low:
            return True
    return False


def _line_text(s: ScoredMemory) -> str:
    return "\n".join([s.record.text, *(c.text for c in s.context)])


def _is_question_list(text: str, requests: Sequence[str]) -> bool:
    """A summary that lists the user's requests: it repeats one, or most of its items ask."""
    if _echoes(text, requests):
        return True
    items = [ln.strip()[2:] for ln in text.splitlines() if ln.strip().startswith("- ")]
    asking = [i for i in items if re.search(r"[?？]\s*$|吗[。]?$", i)]
    return bool(items) and len(asking) * 2 > len(items)


def _echoes(text: str, requests: Sequence[str]) -> bool:
    norm = _norm(text)
    return any(len(_norm(r)) >= 6 and _norm(r) in norm for r in requests)


@dataclass
class _Tally:
    lines: int = 0
    noise: int = 0
    echoed: int = 0
    question_lists: int = 0
    others_as_user: int = 0
    facts: int = 0
    facts_hit: int = 0
    cross: int = 0
    cross_hit: int = 0
    blocks: int = 0
    misses: list[str] = field(default_factory=list)

    def result(self) -> dict[str, Any]:
        def share(a: int, n: int) -> float:
            return round(a / n, 4) if n else 0.0

        return {
            "blocks": self.blocks,
            "lines": self.lines,
            "noise_share": share(self.noise, self.lines),
            "echoed": self.echoed,
            "question_lists": self.question_lists,
            "others_as_user": self.others_as_user,
            "fact_recall": share(self.facts_hit, self.facts),
            "cross_recall": share(self.cross_hit, self.cross),
            "misses": self.misses[:20],
        }


def judge(
    user: UserSessions, kind: str, fact: str, kept: Sequence[ScoredMemory], tally: _Tally
) -> None:
    """Add one block (its kept memories) for probe (kind, fact) of `user` to the tally."""
    from openclaw_memory.inject.assemble import section_of

    tally.blocks += 1
    answers = user.facts.get(fact, [])
    # what the request asks about: the answer, and the person it asks of (their other facts)
    about = [*answers, *([user.subjects[fact]] if fact in user.subjects else [])]
    hit = False
    for s in kept:
        text = _line_text(s)
        hit = hit or _has(text, answers)
        if section_of(s.record) == "profile":
            continue
        tally.lines += 1
        if not (about and _has(text, about)):
            tally.noise += 1
        if s.record.type is MemoryType.SUMMARY:
            tally.question_lists += _is_question_list(s.record.text, user.requests)
        elif _echoes(text, user.requests):
            tally.echoed += 1
    if kind == "fact":
        tally.facts += 1
        tally.facts_hit += hit
    elif kind == "cross":
        tally.cross += 1
        tally.cross_hit += hit
    if kind != "request" and not hit:
        tally.misses.append(f"{user.user_id} {kind} {fact}")


def others_as_user(user: UserSessions, profile: Sequence[Any]) -> int:
    """Profile records of the user that speak of another person (a name or a relation word)."""
    g = grammar()
    words = [*set(user.subjects.values()), *g["en"]["relation_words"], *g["zh"]["relation_words"]]
    return sum(1 for r in profile if _has(r.text, words))


# ---------------------------------------------------------------------------- running


def run_block(
    system: Any,
    *,
    seed: int = 0,
    users: int = USERS,
    langs: Sequence[str] = LANGS,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """`openclaw-memory eval block`: generated users through the write path, then their blocks."""
    mw = system.mw
    by_lang: dict[str, _Tally] = {}
    todo = [(lang, i) for lang in langs for i in range(users)]
    for n, (lang, i) in enumerate(todo):
        user = generate(lang, i, seed)
        scope = Scope(user.user_id)
        _replay(mw, system.clock, scope, user, start=_START + n * 10 * DAY)
        tally = by_lang.setdefault(lang, _Tally())
        records = mw.engine.store.listing(scope, status="active", limit=1000)
        tally.others_as_user += others_as_user(
            user, [r for r in records if r.type is MemoryType.PROFILE]
        )
        system.clock.set(system.clock.now() + DAY)
        for k, (kind, fact, text) in enumerate(user.probes):
            plan = mw.recall(scope, f"probe-{k}", text)
            kept = [c for c in plan.candidates if c.kept]
            judge(user, kind, fact, kept, tally)
        if progress is not None:
            progress(n + 1, len(todo))
    return {
        "dataset": "block",
        "seed": seed,
        "users_per_language": users,
        "by_lang": {lang: t.result() for lang, t in sorted(by_lang.items())},
    }


def _replay(mw: Any, clock: Any, scope: Scope, user: UserSessions, *, start: float) -> None:
    at = start
    for s, pairs in enumerate(user.sessions):
        sid = f"{user.user_id}-s{s + 1}"
        for t, (text, reply) in enumerate(pairs):
            at += 60.0
            clock.set(at)
            mw.ingest([Turn(scope, sid, text, reply, f"{sid}:{t + 1}", at)])
            if s == 0 and t + 1 == user.compact_after:
                mw.on_compaction(scope, sid)
                mw.flush()
        mw.on_session_end(scope, sid, "end")
        mw.flush()
        at += DAY
    mw.engine.sync_index(scope)
