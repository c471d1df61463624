"""Candidate channels: vector, keyword (CJK-aware FTS5), kind, recent-important, subject, profile,
summaries, date, the entity channel with its hop (recall/entity_channel.py) and the speaker
channel (recall/speaker_channel.py), built in their order. Each is a named entry of `CHANNELS`,
switched off by config as `channel.<name>` (`rules.disabled`, openclaw_memory/core/switches.py).

Each channel proposes record ids into the request's pool (recall/pool.py); the pool then loads
every proposed record once and gives each the same raw signals, whichever channel found it
(recall/load.py).
"""

from __future__ import annotations

import re
from functools import partial
from typing import Sequence

import numpy as np

from ..core.clock import DAY
from ..config import RecallConfig
from ..runtime.engine import MemoryEngine
from ..write.policy import type_values, types_where
from ..store.port_values import ListQuery
from ..core.switches import ALL_ON, Switches
from ..config.tuning import tuned_int
from ..types import MemoryRecord, Scope
from .entity_channel import EntityChannel
from .pool import Channel, Pool
from .query import RecallQuery, dated_stretch
from .speaker_channel import SpeakerChannel


class VectorChannel:
    name = "vector"

    def __init__(self, engine: MemoryEngine, limit: int) -> None:
        self.engine, self.limit = engine, limit

    def prepare(self, scope: Scope, query: RecallQuery, pool: Pool) -> None:
        """Read the tiers' vectors (a small tier's: the exact search's matrix) into
        `pool.searches`: run while the query is embedded."""
        for tier in query.tiers:
            pool.search(tier, partial(self.engine.vector_search, scope))

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        for tier in query.tiers:
            search = pool.search(tier, partial(self.engine.vector_search, scope))
            for rid, cos in search(qvec, self.limit):
                pool.propose(rid, self.name)
                pool.cosine[rid] = cos


class KeywordChannel:
    name = "keyword"
    uses_vector = False

    def __init__(self, engine: MemoryEngine, limit: int) -> None:
        self.engine, self.limit = engine, limit

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        for rid, score in self.engine.keyword(
            scope, query.search_text or query.text, limit=self.limit, statuses=query.statuses
        ):
            pool.propose(rid, self.name)
            pool.bm25[rid] = score


class KindChannel:
    """Memories naming a member of a kind the request names ("martial arts": taekwondo, judo;
    乐器: 钢琴, 吉他; recall/kinds.py), found by keyword: a kind and its members share no word."""

    name = "kind"
    uses_vector = False

    def __init__(self, engine: MemoryEngine, limit: int) -> None:
        self.engine, self.limit = engine, limit

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        statuses = query.statuses
        for kind in query.kinds:
            found: dict[str, float] = {}
            for text in kind.searches:
                for rid, score in self.engine.keyword(
                    scope, text, limit=self.limit, statuses=statuses
                ):
                    found[rid] = max(found.get(rid, 0.0), score)
            for rid in sorted(found, key=found.__getitem__, reverse=True)[: self.limit]:
                pool.propose(rid, f"{self.name}:{kind.name}")


#: memories of a named day, month or look-back read at most, the newest first (a month of a busy
#: store may hold more)
DATE_READ = tuned_int("channels.date_read")


class DateChannel:
    """Memories of a day or month the request names ("What did Joanna accomplish in January
    2022?", "on March 14", 5月23日; `query.explicit_dates`) or of the stretch it looks back over
    ("in the past two months", 上周: `timeref`), the nearest in meaning first: the answer may
    share no word with the question and sit far below the vector channel's best of the whole
    store, yet be one of that month's few. A named day or month is read as a dated memory is
    lifted for it (`query.dated_stretch`, `rank.on_named_date`); at most
    `DATE_READ` memories of each stretch are read, the newest first, and the `limit` nearest
    proposed."""

    name = "date"

    def __init__(self, engine: MemoryEngine, limit: int) -> None:
        self.engine, self.limit = engine, limit

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        stretches = [dated_stretch(start, end) for start, end in query.dates]
        if query.window_days is not None and not query.dates:
            now = self.engine.clock.now()
            stretches.append((now - query.window_days * DAY, now + DAY))
        if not stretches or not qvec.size:
            return
        statuses = query.statuses
        found: dict[str, MemoryRecord] = {}
        for start, end in stretches:
            page = self.engine.store.list_page(
                scope,
                ListQuery(
                    statuses=statuses,
                    column="created_at",
                    order="desc",
                    created_from=start,
                    created_to=end,
                    size=DATE_READ,
                ),
            )
            found.update((r.id, r) for r in page.rows)
        if not found:
            return
        vectors, parts = self.engine.store.vectors_with_parts(list(found))
        near = {
            rid: max(float(v @ qvec), float((parts[rid] @ qvec).max()) if rid in parts else -1.0)
            for rid, v in vectors.items()
        }
        for rid in sorted(near, key=near.__getitem__, reverse=True)[: self.limit]:
            pool.records[rid] = found[rid]
            pool.vectors[rid] = vectors[rid]  # read once: `load` takes them from the pool
            if rid in parts:
                pool.parts[rid] = parts[rid]
            pool.propose(rid, self.name)


class RecentChannel:
    """Recent important memories (e.g. the last 3 days), whatever their wording."""

    name = "recent"
    uses_vector = False

    def __init__(
        self,
        engine: MemoryEngine,
        cfg: RecallConfig,
        limit: int = tuned_int("channels.recent_limit"),
    ) -> None:
        self.engine, self.cfg, self.limit = engine, cfg, limit

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        since = self.engine.clock.now() - self.cfg.recent_days * DAY
        for r in self.engine.store.recent_important(
            scope, since, self.cfg.recent_min_importance, self.limit
        ):
            pool.records[r.id] = r
            pool.propose(r.id, self.name)


#: live subjects a request is matched against, and memories of the matched ones proposed
SUBJECTS_READ = tuned_int("channels.subjects_read")
SUBJECT_RECORDS = tuned_int("channels.subject_records")


class SubjectChannel:
    """Exact subject/key matches: the query names a subject (PRD-223, coding_lang, 咖啡)."""

    name = "subject"
    uses_vector = False

    def __init__(self, engine: MemoryEngine) -> None:
        self.engine = engine

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        subjects = self.engine.store.live_subjects(scope, limit=SUBJECTS_READ)
        text = query.text.lower()
        terms = set(query.terms)
        hits = [s for s in subjects if subject_matches(s, text, terms)]
        if not hits:
            return
        for r in self.engine.store.live_by_subject(scope, hits, limit=SUBJECT_RECORDS):
            pool.records[r.id] = r
            pool.propose(r.id, self.name)


def subject_matches(subject: str, text: str, terms: set[str]) -> bool:
    """The request names the subject's leaf: as a term, or written out (three characters at least;
    a Latin leaf as a whole word: "art" is not in "earth" or "party")."""
    leaf = subject.lower().rsplit("/", 1)[-1].strip()
    if len(leaf) < 2:
        return False
    if leaf in terms:
        return True
    if len(leaf) < 3 or leaf not in text:  # (a pattern per subject outgrows re's cache)
        return False
    if leaf.isascii():
        return re.search(rf"(?<![a-z0-9]){re.escape(leaf)}(?![a-z0-9])", text) is not None
    return leaf in text


#: the types the profile section holds (the policy table)
_PROFILE_TYPES = type_values(types_where(section="profile"))
#: profile and preference memories the profile channel proposes
PROFILE_RECORDS = tuned_int("channels.profile_records")


class ProfileChannel:
    """The profile whitelist (docs/design.md seed 001 §5.1): the user's profile and preference
    memories, bounded by the profile budget; the stable facts and standing instructions among them
    (reply language, format, allergies) are injected every turn, a like read from conversation
    where it is relevant (`gate.standing`)."""

    name = "profile"
    uses_vector = False

    def __init__(self, engine: MemoryEngine, cfg: RecallConfig) -> None:
        self.engine, self.cfg = engine, cfg

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        for r in self.engine.store.profile(
            scope, _PROFILE_TYPES, list(self.cfg.profile_whitelist or ()), limit=PROFILE_RECORDS
        ):
            pool.records[r.id] = r
            pool.propose(r.id, self.name)


class SummaryChannel:
    """Level 1 of progressive disclosure: the most recent session summaries."""

    name = "summary"
    uses_vector = False

    def __init__(self, engine: MemoryEngine, count: int) -> None:
        self.engine, self.count = engine, count

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        if self.count <= 0:
            return
        for r in self.engine.store.latest_summaries(scope, self.count):
            pool.records[r.id] = r
            pool.propose(r.id, self.name)
            pool.recent_summaries.append(r.id)


#: the built-in channels by name, in the order they run; `rules.disabled` switches one off as
#: `channel.<name>`. `hop` is the entity channel's hop, `entity` its search by the entities the
#: request names; `kind` also stops reading the kinds a request names (ranking reads them too).
CHANNELS = (
    "vector",
    "keyword",
    "kind",
    "recent",
    "subject",
    "profile",
    "summary",
    "date",
    "entity",
    "hop",
    "speaker",
)


#: read steps after the channels that a switch turns off as it turns off a channel
#: (`channel.bridge`: the two-hop read of a described subject, recall/bridge.py;
#: `channel.share`: each question of a request its share of the head, recall/share.py)
STEPS = ("bridge", "share")


def channel_switch(name: str) -> str:
    """The switch name of the channel `name` ("channel.vector")."""
    return f"channel.{name}"


def build_channels(
    engine: MemoryEngine, cfg: RecallConfig, summaries: int, switches: Switches = ALL_ON
) -> Sequence[Channel]:
    """The built-in channels that `switches` leaves on, in their order."""
    n = cfg.candidates_per_channel
    on = {name: switches.on(channel_switch(name)) for name in CHANNELS}
    entity = on["entity"] or on["hop"]
    built: tuple[tuple[bool, Channel], ...] = (
        (on["vector"], VectorChannel(engine, n)),
        (on["keyword"], KeywordChannel(engine, n)),
        (on["kind"], KindChannel(engine, n)),
        (on["recent"], RecentChannel(engine, cfg)),
        (on["subject"], SubjectChannel(engine)),
        (on["profile"], ProfileChannel(engine, cfg)),
        (on["summary"], SummaryChannel(engine, summaries)),
        (on["date"], DateChannel(engine, n)),
        # its hop starts from the others' candidates
        (entity, EntityChannel(engine, n, named=on["entity"], hop=on["hop"])),
        # after the others: it adds what none of them proposed
        (on["speaker"], SpeakerChannel(engine, n)),
    )
    return tuple(channel for kept, channel in built if kept)


TYPES_WITHOUT_DECAY = types_where(decays=False)  # the policy table
