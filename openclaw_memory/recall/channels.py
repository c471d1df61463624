"""Candidate channels: vector, keyword, kind, recent-important, subject, profile, entity, speaker.

With the request as the embedder reads it (without the names most of the user's memories carry).
Over 600 lines: every channel fills the same pool by the same protocol, side by side.
"""

from __future__ import annotations

import re
import numpy as np
from typing import Sequence
from ..lang.entities import normalise
from ..store.ports import ListQuery, StageStore
from ..lang import Languages, all_on
from ..lang.text import tokenize, unspaced
from ..config.tuning import tuned, tuned_int
from ..types import Scope, MemoryRecord, MemoryType
from .pool import Pool, Channel
from .analyse import request_keys
from .query import RecallQuery, dated_stretch
from .reference import TABLE as REFERENCE
from functools import partial
from ..core.clock import DAY, Clock
from ..config import RecallConfig
from ..core.policy import type_values, types_where
from ..core import ALL_ON, Switches
from . import OpenSearch, ReadPorts


# The entity channel: memories that name what the request names, across sessions, and one hop
# through the entities of the strongest candidates (multi-hop questions); the request's entity
# reads it shares with the query's embedding text (recall/channels.py).

#: channel name prefixes: "entity:Melanie" (the request names Melanie), "hop:Boston" (a strong
#: candidate names Boston); `search --explain` shows them
ENTITY, HOP = "entity", "hop"
#: an entity whose weight (store/records.py `idf`) is below this, a name in more than total^0.7
#: of the user's memories (their own, a chat partner's), selects nothing
MIN_ENTITY_WEIGHT = tuned("entity_channel.min_weight")
#: memories read per entity set, as a multiple of the channel's candidates
REACH = tuned_int("entity_channel.reach")


class EntityChannel:
    """Memories that name what the request names, across sessions (aliases resolved: "Mel" finds
    Melanie's), then one hop: the entities of the strongest candidates the channels before it
    found lead to other memories that name them (multi-hop questions: evidence in several
    sessions linked by a person, place or thing). The hop adds at most `hop_share` of `limit`
    and only what the pool does not hold, so single-hop ranking keeps its candidates. `named`
    and `hop` switch either part off (`channel.entity`, `channel.hop`).

    Runs after the vector and keyword channels (it reads their candidates for the hop), so it
    declares no `uses_vector = False`: the parallel recaller runs it after the early channels'
    pools are merged, on the pool of every channel before it. Reads entities through the
    store's port (`ports.StageStore`)."""

    name = ENTITY

    def __init__(
        self,
        store: StageStore,
        limit: int,
        *,
        seeds: int = tuned_int("entity_channel.seeds"),
        hop_share: float = tuned("entity_channel.hop_share"),
        named: bool = True,
        hop: bool = True,
    ) -> None:
        self.store, self.limit, self.seeds, self.hop_share = store, limit, seeds, hop_share
        self.named, self.hop = named, hop

    def prepare(self, scope: Scope, query: RecallQuery, pool: Pool) -> None:
        """Read what `propose` reads of the request's own entities (not the hop's, which starts
        from the other channels' candidates) into `pool.entities`: run while the query is
        embedded."""
        reads = pool.entities = pool.entities or EntityReads(self.store, scope)
        if not self.named:
            return
        named = reads.named(query.analysis.entity_keys)
        reads.naming(self._asked(named, reads.weights(sorted(named))), *self._reach(query))

    def _reach(self, query: RecallQuery) -> tuple[tuple[str, ...], int]:
        """The statuses searched and the cap of records read per entity set."""
        return query.statuses, self.limit * REACH

    @staticmethod
    def _asked(named: dict[int, str], weight: dict[int, float]) -> list[int]:
        return sorted(e for e in named if weight.get(e, 0.0) >= MIN_ENTITY_WEIGHT)

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        statuses, cap = self._reach(query)
        store = self.store
        reads = pool.entities or EntityReads(store, scope)
        named = reads.named(query.analysis.entity_keys) if self.named else {}
        seeds = self._seeds(pool) if self.hop else []
        seed_entities = store.entities_of(scope, seeds) if seeds else {}
        hop_ids = {e for es in seed_entities.values() for e in es} - set(named)
        # an entity's weight is its own (its memories among the scope's): one read for both
        weight = hop_weight = reads.weights(sorted({*named, *hop_ids}))
        hits = reads.naming(self._asked(named, weight), statuses, cap) if named else []
        for rid, label in _best(hits, weight, named, self.limit):
            pool.propose(rid, f"{ENTITY}:{label}")
        if not self.hop:
            return
        hop_ids = {e for e in hop_ids if hop_weight.get(e, 0.0) >= MIN_ENTITY_WEIGHT}
        hop_hits = store.records_naming(scope, sorted(hop_ids), statuses=statuses, limit=cap)
        hop_names = store.entity_names(scope, hop_ids)
        share = max(1, int(self.limit * self.hop_share))
        counts = {e: sum(e in es for es in seed_entities.values()) for e in hop_ids}
        score = {e: counts[e] * hop_weight[e] for e in hop_ids}
        fresh = [(rid, e) for rid, e in hop_hits if rid not in pool.channels]
        for rid, label in _best(fresh, score, hop_names, share):
            pool.propose(rid, f"{HOP}:{label}")

    def _seeds(self, pool: Pool) -> list[str]:
        """The strongest first-pass candidates: best vector cosine, best keyword score."""
        vector = sorted(
            (r for r, c in pool.channels.items() if "vector" in c and r in pool.cosine),
            key=lambda r: -pool.cosine[r],
        )
        keyword = sorted(pool.bm25, key=lambda r: -pool.bm25[r])
        return list(dict.fromkeys([*vector[: self.seeds], *keyword[: max(1, self.seeds // 2)]]))


def _best(
    hits: list[tuple[str, int]], weight: dict[int, float], names: dict[int, str], limit: int
) -> list[tuple[str, str]]:
    """Records by the summed weight of the entities they share (most first), each with the
    name of its strongest one."""
    total: dict[str, float] = {}
    top: dict[str, int] = {}
    for rid, e in hits:
        w = weight.get(e, 0.0)
        total[rid] = total.get(rid, 0.0) + w
        if rid not in top or w > weight.get(top[rid], 0.0):
            top[rid] = e
    ranked = sorted(total, key=lambda r: -total[r])[:limit]
    return [(rid, names.get(top[rid], "?")) for rid in ranked]


class EntityReads:
    """The entities a request names and their weights, read once a request: the query's
    embedding text (recall/channels.py), the entity channel and the speaker channel all ask
    (two statements each)."""

    def __init__(self, store: StageStore, scope: Scope) -> None:
        self.store, self.scope = store, scope
        self._named: dict[frozenset[str], dict[int, str]] = {}
        self._weight: dict[int, float] = {}
        self._asked: set[int] = set()  # an entity linked to no memory has no weight
        self._naming: dict[tuple, list[tuple[str, int]]] = {}

    def named(self, keys: frozenset[str]) -> dict[int, str]:
        """entity id -> name of the entities a request names by these keys
        (`analyse.request_keys`)."""
        if keys not in self._named:
            found = self.store.entities_named(self.scope, keys)
            # a Chinese name inside a longer one the request names is the longer one's piece
            # (李明 of 李明轩)
            self._named[keys] = {
                e: n
                for e, n in found.items()
                if not any(n != m and n in m and unspaced(n) for m in found.values())
            }
        return self._named[keys]

    def naming(
        self, ids: Sequence[int], statuses: Sequence[str], limit: int
    ) -> list[tuple[str, int]]:
        """`StageStore.records_naming` of ids, read once a request for the same arguments."""
        key = (tuple(ids), tuple(statuses), limit)
        if key not in self._naming:
            self._naming[key] = self.store.records_naming(
                self.scope, list(ids), statuses=statuses, limit=limit
            )
        return self._naming[key]

    def weights(self, ids: Sequence[int]) -> dict[int, float]:
        """`StageStore.entity_weights` of ids, each entity read once (in ids' order)."""
        missing = sorted(set(ids) - self._asked)
        if missing:
            self._weight.update(self.store.entity_weights(self.scope, missing))
            self._asked.update(missing)
        return {e: self._weight[e] for e in ids if e in self._weight}


# The request as the embedder reads it: without the names most of the user's memories carry.
#
# In a store where one or two people speak or are addressed in most memories (a chat between two
# friends, a replayed group conversation, a user who names a partner in every note), their names
# tell nothing about which memory answers "What activities does Melanie partake in?": every
# memory of hers names her. For the embedder they do worse than nothing: a short request that
# names a person comes nearest to the small talk that addresses that person ("Wow, Melanie!
# What's the best part?"), and the memories that say what she does ("I'm off to go swimming with
# the kids") fall behind. So the vector search reads the request with each such name (an entity
# whose weight is under `channels.MIN_ENTITY_WEIGHT`, the bar below which the entity channel
# selects nothing by it either) written as a pronoun: "they", "their" for a possessive, and
# nothing in Chinese (林晓负责的项目 -> 负责的项目), which drops a subject freely.
#
# Only the query vector changes: keyword search, the entity channel and relevance gating's terms
# and names read the request as written, and a name the store holds in few memories (a pet, a
# shop, a colleague mentioned once) stays in the embedded text, where it is evidence.


def embedding_text(
    store: StageStore,
    scope: Scope,
    text: str,
    reads: EntityReads | None = None,
    keys: frozenset[str] | None = None,
    langs: Languages | None = None,
) -> str:
    """text with the names most of scope's memories carry written as pronouns (see the module
    docstring); text itself when it names none, or when nothing but such names is left. `reads`:
    the request's entity reads, shared with the entity channel (new ones when not given);
    `keys`: text's entity keys, as the request's analysis read them (read here when not given)."""
    reads = reads or EntityReads(store, scope)
    named = reads.named(request_keys(text, langs) if keys is None else keys) if text.strip() else {}
    if not named:
        return text
    weight = reads.weights(sorted(named))
    common = [n for e, n in named.items() if n and weight.get(e, 1.0) < MIN_ENTITY_WEIGHT]
    out = text
    for name in sorted(common, key=len, reverse=True):  # "Mary Ann" before "Mary"
        out = without_name(out, name, langs)
    # "Melanie?" asks about her and nothing else: that request keeps its name
    return out if out != text and tokenize(out, drop_stopwords=True, langs=langs) else text


def without_name(text: str, name: str, langs: Languages | None = None) -> str:
    """text with name written as a pronoun, as the name's language does (the `reads: pronoun`
    entries of its `reference` table, in order): "their" for "Name's", "they" for "Name" (as a
    whole word, in any case); a Chinese name left out."""
    table = (langs or all_on()).of(name).table(REFERENCE)
    for entry in table.values():
        if entry.setting("reads") == "pronoun":
            text = entry.fresh(name=re.escape(name)).sub(entry.setting("by", ""), text)
    return text


# The speaker channel: what a person of the chat said, for a request about that person.
#
# "What activities does Melanie partake in?", 刘婷从学车到能独自上高速经历了哪些阶段？ ask about one of
# the people who speak in the user's memories. The answers are that person's own turns, spread over
# many sessions, and the request names nothing else to find them by: the person is named in so many
# memories (each turn they said, each reply to them) that the entity channel selects nothing by the
# name (`entity_channel.MIN_ENTITY_WEIGHT`), and the query is embedded without it (recall/channels.py).
# So for a request that names exactly one such person, the vector index is searched `SEARCH_DEPTH`
# times deeper than the vector channel searches it, and the nearest memories that person *said*
# that no channel proposed yet are proposed: at most `SHARE` of the channel's candidates. A memory's
# speaker is its episode's first tag or a ``speaker:NAME`` tag; a reply to the person ("Thanks,
# Melanie!") names them, but says what the other one thinks, so it is not theirs. At most
# `READ_CAP` of the nearest memories naming the person are read to find theirs: in a chat of the
# user's own, a person the user often mentions says nothing, and costs no more than that.
#
# A request that names two such people ("What do Jon and Gina both have in common?") is left to the
# other channels, whose candidates already hold both; a person named in few memories is the entity
# channel's. What this channel proposes is scored like any candidate: it only widens the pool.
# Which of the nearest memories name the person is read from their entity links: the memories
# naming a person of the chat may be most of the store (thousands at one user's 100,000), the
# nearest are the channel's depth.

#: how many times deeper than the vector channel the index is searched for the person's turns
SEARCH_DEPTH = tuned_int("speaker_channel.search_depth")
#: the share of the channel's candidates the person's own turns may add
SHARE = tuned("speaker_channel.share")
#: the most of the nearest memories naming the person read to find those they said: a person
#: who said none of them is no speaker of this store (someone the user often mentions)
READ_CAP = tuned_int("speaker_channel.read_cap")


class SpeakerChannel:
    """What the one person a request names said (module docstring)."""

    name = "speaker"

    def __init__(
        self,
        store: StageStore,
        search: OpenSearch,
        limit: int,
        *,
        depth: int = SEARCH_DEPTH,
        share: float = SHARE,
    ) -> None:
        self.store, self.search, self.limit = store, search, limit
        self.depth, self.share = depth, share

    def prepare(self, scope: Scope, query: RecallQuery, pool: Pool) -> None:
        """Read the entities the request names (kept in `pool.entities`) and have the prepared
        vector searches go deep enough: run while the query is embedded."""
        reads = pool.entities = pool.entities or EntityReads(self.store, scope)
        if self._person(reads, query) is not None:
            # the vector channel's search goes this deep at once (`SharedSearch`)
            for search in pool.searches.values():
                search.widen(self.depth * self.limit)

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        take = int(self.limit * self.share)
        if take < 1 or qvec.size == 0:
            return
        reads = pool.entities or EntityReads(self.store, scope)
        found = self._person(reads, query)
        if found is None:
            return
        entity, person = found
        near: list[str] = []
        for tier in query.tiers:
            search = pool.search(tier, partial(self.search, scope))
            near += [
                rid for rid, _ in search(qvec, self.depth * self.limit) if rid not in pool.channels
            ]
        links = self.store.entities_of(scope, list(dict.fromkeys(near)))
        near = [rid for rid in near if entity in links.get(rid, ())]
        # nearest first, read a few at a time: the replies to the person among them are read,
        # then left out
        key = normalise(person)
        added = 0
        near = near[:READ_CAP]
        for at in range(0, len(near), 2 * take):
            batch = near[at : at + 2 * take]
            records = self.store.get_many(scope, batch)
            for rid in batch:
                r = records.get(rid)
                if r is None or r.status.value not in query.statuses:
                    continue
                if not any(normalise(s) == key for s in speakers(r)):
                    continue
                pool.propose(rid, f"{self.name}:{person}")
                pool.records[rid] = r
                added += 1
                if added == take:
                    return

    @staticmethod
    def _person(reads: EntityReads, query: RecallQuery) -> tuple[int, str] | None:
        """The one person the request names whom many memories name (entity id, name); None
        when it names none or several."""
        named = reads.named(query.analysis.entity_keys)
        weight = reads.weights(sorted(named))
        common = [e for e in named if e in weight and weight[e] < MIN_ENTITY_WEIGHT]
        if len(common) != 1:
            return None
        return common[0], named[common[0]]


def speakers(r: MemoryRecord) -> list[str]:
    """Who said the memory: an episode's first tag, and any "speaker:NAME" tag."""
    said = [t.split(":", 1)[1] for t in r.tags if t.lower().startswith("speaker:")]
    return [*(r.tags[:1] if r.type is MemoryType.EPISODE else ()), *said]


# Candidate channels: vector, keyword (FTS5 over each language's tokens), kind, recent-important, subject, profile,
# summaries, date, the entity channel with its hop (recall/channels.py) and the speaker
# channel (recall/channels.py), built in their order. Each is a named entry of `CHANNELS`,
# switched off by config as `channel.<name>` (`rules.disabled`, openclaw_memory/core/__init__.py).
#
# Each channel proposes record ids into the request's pool (recall/pool.py); the pool then loads
# every proposed record once and gives each the same raw signals, whichever channel found it
# (recall/pool.py).


class VectorChannel:
    name = "vector"

    def __init__(self, search: OpenSearch, limit: int) -> None:
        self.search, self.limit = search, limit

    def prepare(self, scope: Scope, query: RecallQuery, pool: Pool) -> None:
        """Read the tiers' vectors (a small tier's: the exact search's matrix) into
        `pool.searches`: run while the query is embedded."""
        for tier in query.tiers:
            pool.search(tier, partial(self.search, scope))

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        for tier in query.tiers:
            search = pool.search(tier, partial(self.search, scope))
            for rid, cos in search(qvec, self.limit):
                pool.propose(rid, self.name)
                pool.cosine[rid] = cos


class KeywordChannel:
    name = "keyword"
    uses_vector = False

    def __init__(self, store: StageStore, limit: int) -> None:
        self.store, self.limit = store, limit

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        for rid, score in self.store.keyword_search(
            scope, query.search_text or query.text, statuses=query.statuses, limit=self.limit
        ):
            pool.propose(rid, self.name)
            pool.bm25[rid] = score


class KindChannel:
    """Memories naming a member of a kind the request names ("martial arts": taekwondo, judo;
    乐器: 钢琴, 吉他; recall/kinds.py), found by keyword: a kind and its members share no word."""

    name = "kind"
    uses_vector = False

    def __init__(self, store: StageStore, limit: int) -> None:
        self.store, self.limit = store, limit

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        statuses = query.statuses
        for kind in query.kinds:
            found: dict[str, float] = {}
            for text in kind.searches:
                for rid, score in self.store.keyword_search(
                    scope, text, statuses=statuses, limit=self.limit
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

    def __init__(self, store: StageStore, clock: Clock, limit: int) -> None:
        self.store, self.clock, self.limit = store, clock, limit

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        stretches = [dated_stretch(start, end) for start, end in query.dates]
        if query.window_days is not None and not query.dates:
            now = self.clock.now()
            stretches.append((now - query.window_days * DAY, now + DAY))
        if not stretches or not qvec.size:
            return
        statuses = query.statuses
        found: dict[str, MemoryRecord] = {}
        for start, end in stretches:
            page = self.store.list_page(
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
        vectors, parts = self.store.vectors_with_parts(list(found))
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
        store: StageStore,
        clock: Clock,
        cfg: RecallConfig,
        limit: int = tuned_int("channels.recent_limit"),
    ) -> None:
        self.store, self.clock, self.cfg, self.limit = store, clock, cfg, limit

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        since = self.clock.now() - self.cfg.recent_days * DAY
        for r in self.store.recent_important(
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

    def __init__(self, store: StageStore) -> None:
        self.store = store

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        subjects = self.store.live_subjects(scope, limit=SUBJECTS_READ)
        terms = set(query.terms)
        hits = [s for s in subjects if subject_matches(s, query.analysis.lower, terms)]
        if not hits:
            return
        for r in self.store.live_by_subject(scope, hits, limit=SUBJECT_RECORDS):
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

    def __init__(self, store: StageStore, cfg: RecallConfig) -> None:
        self.store, self.cfg = store, cfg

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        for r in self.store.profile(
            scope, _PROFILE_TYPES, list(self.cfg.profile_whitelist or ()), limit=PROFILE_RECORDS
        ):
            pool.records[r.id] = r
            pool.propose(r.id, self.name)


class SummaryChannel:
    """Level 1 of progressive disclosure: the most recent session summaries."""

    name = "summary"
    uses_vector = False

    def __init__(self, store: StageStore, count: int) -> None:
        self.store, self.count = store, count

    def propose(self, scope: Scope, query: RecallQuery, qvec: np.ndarray, pool: Pool) -> None:
        if self.count <= 0:
            return
        for r in self.store.latest_summaries(scope, self.count):
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
#: (`channel.bridge`: the two-hop read of a described subject, recall/head.py;
#: `channel.share`: each question of a request its share of the head, recall/head.py;
#: `channel.holder`: another person's value of an attribute gives way to the user's own,
#: `channel.frames`: a question's frames are no evidence once its key is stated, `channel.digest`:
#: a session's summary passes on evidence of its own only, recall/gate.py)
STEPS = ("bridge", "share", "holder", "frames", "digest")


def channel_switch(name: str) -> str:
    """The switch name of the channel `name` ("channel.vector")."""
    return f"channel.{name}"


def build_channels(
    ports: ReadPorts, cfg: RecallConfig, summaries: int, switches: Switches = ALL_ON
) -> Sequence[Channel]:
    """The built-in channels that `switches` leaves on, in their order, each handed the ports it
    reads."""
    n = cfg.candidates_per_channel
    store, search, clock = ports.store, ports.search, ports.clock
    on = {name: switches.on(channel_switch(name)) for name in CHANNELS}
    entity = on["entity"] or on["hop"]
    built: tuple[tuple[bool, Channel], ...] = (
        (on["vector"], VectorChannel(search, n)),
        (on["keyword"], KeywordChannel(store, n)),
        (on["kind"], KindChannel(store, n)),
        (on["recent"], RecentChannel(store, clock, cfg)),
        (on["subject"], SubjectChannel(store)),
        (on["profile"], ProfileChannel(store, cfg)),
        (on["summary"], SummaryChannel(store, summaries)),
        (on["date"], DateChannel(store, clock, n)),
        # its hop starts from the others' candidates
        (entity, EntityChannel(store, n, named=on["entity"], hop=on["hop"])),
        # after the others: it adds what none of them proposed
        (on["speaker"], SpeakerChannel(store, search, n)),
    )
    return tuple(channel for kept, channel in built if kept)


TYPES_WITHOUT_DECAY = types_where(decays=False)  # the policy table
