"""The storage ports: what the pipeline stages ask of the record store and the vector index.

Over 600 lines: it is the storage contract, read in one place (protocols and the values they pass).

Stages depend on these protocols, never on SQLite, Chroma or SQL. Each method names an intention
(the live memories of a subject, the profile, the session's neighbours) rather than a query, so a
backend (SQLite + FTS5, PostgreSQL, pure-Python fakes in tests) answers it its own way. Each
door has its port (`StageStore`, `IndexFeed`, `MaintenanceStore`, `ConsoleStore`); `RecordStore`
is all of them.
"""

from __future__ import annotations

import hashlib
import numpy as np
from ..lang.text import MAX_SENTENCE_PARTS
from dataclasses import dataclass
from typing import (
    NamedTuple,
    Any,
    ContextManager,
    Iterable,
    Protocol,
    Sequence,
    Mapping,
    runtime_checkable,
    Iterator,
)
from ..types import AuditEntry, MemoryRecord, Scope, WindowMessage
from ..lang.entities import Mentions

# The ids a record's vectors go under in every vector index: its own id, and one per
# sentence part (the record's id, a mark, the part's number).

#: a sentence-part vector's id: its record's id, this mark, its number (from 1)
PART_MARK = "#"


def part_ids(record_id: str, n: int = MAX_SENTENCE_PARTS) -> list[str]:
    """The index ids of a record's first n sentence-part vectors."""
    return [f"{record_id}{PART_MARK}{k}" for k in range(1, n + 1)]


def record_of(vector_id: str) -> str:
    """The record a vector id belongs to (itself, or the record of a sentence part)."""
    return vector_id.split(PART_MARK, 1)[0]


# The values the storage ports pass: scored ids, the console's page query and page, and the
# hashes every backend files texts and purged users under (ports.py).

#: (record id, score in [0, 1]) best first
Scored = list[tuple[str, float]]
#: (id, vector, metadata) of the records a tier takes
VectorItems = Sequence[tuple[str, np.ndarray, dict]]
#: record id -> its sentence-part vectors (k, d), or none
Parts = Mapping[str, np.ndarray] | None


class TierVector(NamedTuple):
    """One record of a scope's tier as the vector index would hold it (`tier_vectors`)."""

    id: str
    type: str
    workspace: str  # "" for a record of no workspace
    vec: np.ndarray
    parts: np.ndarray | None  # its sentence-part vectors (k, d), if any


#: a tier's records by status: "hot" the live ones, "cold" the archive (as the indexer files them)
TIER_STATUS = {"hot": "active", "cold": "archived"}


def text_hash(text: str) -> str:
    """The key a text (and its vector) is filed under, in every backend."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def content_hash(record: MemoryRecord) -> str:
    return text_hash(record.text)


def hashed_user(user_id: str) -> str:
    """What stays of a purged user id in the audit log, in every backend."""
    return "sha256:" + hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class ListQuery:
    """One page of a scope's memories for the console, ordered by `column` then a row cursor
    (keyset paging: `after` is the last row's (sort value, row key))."""

    statuses: tuple[str, ...]
    column: str = "updated_at"  # or "created_at"
    order: str = "desc"
    type: str = ""
    types: tuple[str, ...] = ()  # any of these types (empty: no restriction)
    subject: str = ""  # a prefix
    text: str = ""  # keyword filter: its newest `text_cap` matches
    created_from: float | None = None
    created_to: float | None = None  # exclusive
    after: tuple[float, int] | None = None
    size: int = 50
    text_cap: int = 2_000
    count_cap: int = 10_000


@dataclass(frozen=True)
class UnusedQuery:
    """What cleanup deletes: live or archived records not of `kept_types`, not explicit, of
    importance at most `max_importance`, neither used nor updated after `cutoff`; `limit` of
    them at a time, in written order."""

    kept_types: tuple[str, ...]
    max_importance: float
    cutoff: float
    limit: int


@dataclass
class ListPage:
    rows: list[MemoryRecord]
    next_after: tuple[float, int] | None
    total: int  # at most count_cap + 1
    text_filter: bool


# The record store's ports, one a door: the stages (`StageStore`: the write path, the read path,
# the hooks and the service), the vector index's feed (`IndexFeed`: the indexer and the tiered
# index), maintenance (`MaintenanceStore`: maintain/) and the console and admin door
# (`ConsoleStore`: console/, the admin verbs, portability/). `RecordStore` is every one of them:
# what each backend implements and the engine holds. A caller names the narrowest it needs.


class StageStore(Protocol):
    """What the pipeline stages ask of the record store: transactions, record writes, the reads
    of consolidation and of the recall channels, entity memory's reads, the audit log, sessions
    and the short-term window.

    Entity links are written with the records: `insert` and `update` take what the record
    names (`mentions`: the aliases its text states and the entities of its text and its
    `entities` field, read by the writer: lang/entities.py `mentions_of`) and file it in the
    same transaction (store/entity_linking.py: which names are one entity, for every backend);
    a forgotten record keeps no links, a restored one gets them back. Deleting or purging a
    record removes its links and the aliases it stated; an entity goes with its last link, its
    aliases with it: a purge leaves no entity text. Entity ids are the backend's own and hold
    for one request."""

    def transaction(self) -> ContextManager[None]:
        """Group the calls inside into one atomic write; nested transactions join the outer."""

    def in_transaction(self) -> bool:
        """True inside this thread's own open transaction."""

    def insert(
        self, record: MemoryRecord, vector: np.ndarray | None, model: str, *, mentions: Mentions
    ) -> None:
        """Store a new record, its keyword row, its entity links (to what `mentions` names)
        and (given) its vector; queue it for the index."""

    def update(
        self,
        record: MemoryRecord,
        vector: np.ndarray | None,
        model: str,
        *,
        reindex: bool,
        mentions: Mentions,
    ) -> None:
        """Rewrite a record and link it again to what `mentions` names (none for an inactive
        record); `reindex` refreshes its keyword row and vector (its text changed). Queues an
        upsert (a delete for an inactive record)."""

    def put_parts(self, record: MemoryRecord, parts: np.ndarray | None) -> None:
        """Attach sentence-part vectors (k, d) to the record's vector, if that vector is of this
        very text."""

    def save_version(self, old: MemoryRecord, superseded_at: float) -> None:
        """Keep the text of a version that is being replaced (the `versions` history)."""

    def get(self, scope: Scope, record_id: str) -> MemoryRecord | None: ...

    def get_many(self, scope: Scope, ids: Iterable[str]) -> dict[str, MemoryRecord]: ...

    def in_written_order(self, scope: Scope, ids: Sequence[str]) -> list[MemoryRecord]:
        """The records of these ids in the order they were first written."""

    def live_by_subject(
        self,
        scope: Scope,
        subjects: Sequence[str],
        *,
        types: Sequence[str] | None = None,
        limit: int = 20,
    ) -> list[MemoryRecord]:
        """Active records whose subject is one of `subjects` (of `types`), newest update first."""

    def live_claims(
        self,
        scope: Scope,
        types: Sequence[str],
        *,
        subject: str | None = None,
        created_before: float | None = None,
        limit: int = 500,
    ) -> list[MemoryRecord]:
        """Active, undoubted records of `types` (with that subject; created at or before
        `created_before`), newest update first: what a new claim may replace."""

    def copies_of_text(
        self, scope: Scope, type_: str, content_hash: str, limit: int = 20
    ) -> list[MemoryRecord]:
        """Records of a type holding this very text (any status), newest update first."""

    def live_episodes_before(
        self, scope: Scope, at: float, limit: int, *, exclude: str | None = None
    ) -> list[MemoryRecord]:
        """Active episodes created at or before `at` (but `exclude`), newest first."""

    def live_episodes_saying(
        self, scope: Scope, summary: str, *, exclude: str, limit: int = 50
    ) -> list[MemoryRecord]:
        """Active episodes with exactly this text (but `exclude`), newest update first."""

    def vectors_with_parts(
        self, ids: Sequence[str]
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """`vectors` and record id -> its sentence-part vectors (k, d), for records with parts."""

    def live_subjects(self, scope: Scope, limit: int = 2000) -> list[str]:
        """Distinct subjects of the scope's active records, the first `limit` in sort order."""

    def recent_important(
        self, scope: Scope, since: float, min_importance: float, limit: int
    ) -> list[MemoryRecord]:
        """Active curated records (not episodes, not summaries) updated since `since` with
        importance at least `min_importance`, newest update first."""

    def profile(
        self, scope: Scope, types: Sequence[str], whitelist: Sequence[str], limit: int = 20
    ) -> list[MemoryRecord]:
        """Active, undoubted records of the profile `types` (of the `whitelist` subjects when
        one is given), most important first, then newest update."""

    def latest_summaries(self, scope: Scope, count: int) -> list[MemoryRecord]:
        """The newest active session summaries, newest first."""

    def neighbours_of(
        self, scope: Scope, record_ids: Sequence[str], *, before: int, after: int, now: float
    ) -> dict[str, tuple[list[MemoryRecord], list[MemoryRecord]]]:
        """`session_neighbours` of each of several episodes, by id (every id asked for is a
        key): the read path asks for a dozen a request."""

    def retired_turns(self, scope: Scope, turn_ids: Sequence[str]) -> dict[str, str]:
        """turn id -> an inactive curated record distilled from that turn (it is outdated)."""

    def keyword_search(
        self, scope: Scope, text: str, *, statuses: Sequence[str] = ("active",), limit: int = 30
    ) -> Scored:
        """(record id, relevance in (0, 1]) for the scope's records whose search tokens (jieba
        and Snowball, `text.fts_document`) match the text's (`text.fts_query`), best first:
        BM25 divided by the best hit's, so the best scores 1.0."""

    def search_tokens(self, ids: Sequence[str]) -> dict[str, frozenset[str]]:
        """record id -> its search tokens as the keyword index holds them."""

    def list_page(self, scope: Scope, q: ListQuery) -> ListPage:
        """One keyset page of the scope's memories for the console (see `ListQuery`)."""

    def entities_named(self, scope: Scope, keys: Iterable[str]) -> dict[int, str]:
        """entity id -> name of the (user, agent)'s entities filed under any of these
        normalised keys (`lang.entities.normalise`), as their own key or an alias."""

    def entity_weights(self, scope: Scope, ids: Sequence[int]) -> dict[int, float]:
        """How much naming each entity tells: `entity_linking.idf` of its links over the
        (user, agent)'s active and archived memories. Ids without links are absent."""

    def records_naming(
        self,
        scope: Scope,
        ids: Sequence[int],
        *,
        statuses: Sequence[str] = ("active",),
        limit: int = 200,
    ) -> list[tuple[str, int]]:
        """(record id, entity id) of the scope's records of `statuses` linked to these
        entities, the newest link first (then the newest record, then the lower entity id)."""

    def entities_of(self, scope: Scope, record_ids: Sequence[str]) -> dict[str, set[int]]:
        """record id -> the entities the scope's record is linked to (records with none
        absent)."""

    def entity_names(self, scope: Scope, ids: Iterable[int]) -> dict[int, str]:
        """entity id -> name, of the (user, agent)'s entities among `ids`."""

    def audit(self, entry: AuditEntry) -> None:
        """Append an audit row."""

    def episodes_of_turns(self, scope: Scope, turns: Sequence[str]) -> list[str]:
        """Ids of the episodes logged for these turns."""

    def session(self, scope: Scope, session_id: str) -> dict[str, Any] | None:
        """{started_at, last_active_at, ended_at} of a session, or None."""

    def open_session(self, scope: Scope, session_id: str, now: float) -> bool:
        """Open a new session or reopen/continue one; True when it is new."""

    def end_session(
        self, scope: Scope, session_id: str, now: float, reason: str, summary_id: str | None
    ) -> None: ...

    def participants(self, agent_id: str, session_id: str) -> list[str]:
        """Users who have spoken in this session of this agent, oldest first."""

    def append_message(self, scope: Scope, message: WindowMessage) -> None: ...

    def window_messages(self, scope: Scope, session_id: str) -> list[dict[str, Any]]:
        """The messages in the window, oldest first: {seq, role, content, tokens, turn_id}."""

    def leave_window(self, scope: Scope, session_id: str, seqs: Sequence[int] | None) -> None:
        """Take these messages (all, when None) out of the window; they stay logged."""

    def captured_turn_ids(self, scope: Scope, session_id: str) -> set[str]: ...

    def prune_messages(
        self, user_id: str | None, agent_id: str | None, before: float, keep: int
    ) -> int:
        """Drop messages out of the window, older than `before`, past the `keep` newest of
        their session (a user message keeps an empty row holding its turn key)."""


class IndexFeed(StageStore, Protocol):
    """What the vector index's upkeep reads from the record store: the outbox (the indexer)
    and a scope's tier of stored vectors (the tiered index)."""

    def pending(self, scope: Scope | None = None) -> int: ...

    def next_entries(self, scope: Scope | None, limit: int) -> list[dict[str, Any]]:
        """The oldest queued entries: {seq, record_id, user_id, agent_id, op}."""

    def done(self, seqs: Sequence[int]) -> None:
        """Drop applied entries."""

    def tier_vectors(
        self, scope: Scope, tier: str, at_most: int | None = None
    ) -> list[TierVector] | None:
        """The vectors the index would hold for a (user, agent)'s tier ("hot": active records,
        "cold": archived), of every workspace, with each record's type and workspace; None
        when the tier holds more than `at_most` records (then no vector is read)."""


class MaintenanceStore(IndexFeed, Protocol):
    """The maintenance door (maintain/): the forgetting jobs' look-ups, reindex and doctor,
    purges, entity links for old records, the lease and the run log."""

    def delete_records(self, scope: Scope, ids: Sequence[str]) -> int:
        """Remove records everywhere (row, keyword row, vector, versions); queue index deletes.
        Returns how many were removed."""

    def records_by_id(self, ids: Sequence[str]) -> list[MemoryRecord]:
        """Records for ids in any scope (the ids came from a scoped query)."""

    def scopes(self, user_id: str | None = None) -> list[Scope]:
        """Every (user, agent) partition holding records (of one user), sorted."""

    def successors(self, scope: Scope, record_id: str, limit: int = 100) -> list[MemoryRecord]:
        """The records whose `prev_id` is record_id (the versions that replaced it)."""

    def expired(self, scope: Scope, now: float, limit: int) -> list[MemoryRecord]:
        """Active records whose `expires_at` has passed, oldest expiry first."""

    def unused(self, scope: Scope, q: UnusedQuery) -> list[MemoryRecord]:
        """The scope's records cleanup may delete (see `UnusedQuery`)."""

    def crowded_event_subjects(self, scope: Scope, more_than: int) -> list[str | None]:
        """Subjects holding more than `more_than` active events, sorted."""

    def live_event_count(self, scope: Scope, subject: str | None) -> int: ...

    def oldest_live_events(
        self, scope: Scope, subject: str | None, limit: int
    ) -> list[MemoryRecord]:
        """Active events of the subject (None: no subject), oldest first."""

    def curated_count(self, scope: Scope, uncapped: Sequence[str]) -> int:
        """Active records not of the `uncapped` types."""

    def lowest_value(self, scope: Scope, uncapped: Sequence[str], limit: int) -> list[MemoryRecord]:
        """Active records not of the `uncapped` types, lowest value first: profile and explicit
        ones last, then by importance, last use, access count, age, written order."""

    def live_statuses(self, scope: Scope) -> dict[str, str]:
        """record id -> status of the partition's records that are not inactive."""

    def live_count(self) -> int:
        """Records that are not inactive, in every scope."""

    def embedder(self) -> str | None:
        """The embedder the stored vectors come from (None: a new store)."""

    def set_embedder(self, name: str) -> None: ...

    def put_vector(self, record: MemoryRecord, vector: np.ndarray, model: str) -> None:
        """Store a record's vector (without parts), replacing the one it had."""

    def stale_vector_ids(self, model: str, dim: int, scope: Scope | None = None) -> list[str]:
        """Live records whose stored vector is missing, of another model or dimension, or of
        an older text, in written order."""

    def part_stale_ids(self, max_parts: int, scope: Scope | None = None) -> list[str]:
        """Live records whose sentence-part vectors are not the ones `max_parts` asks for."""

    def retire_vectors(self, model: str, dim: int) -> int:
        """Drop stored vectors of another model or dimension or of no record; record `model`
        as the store's embedder. Returns how many were dropped."""

    def orphan_vector_rows(self, *, delete: bool = False) -> int:
        """Stored vectors of no record (deleted when `delete`)."""

    def last_outbox_seq(self) -> int: ...

    def clear_outbox(self, upto: int) -> int:
        """Drop the outbox entries up to `upto` (a full rebuild covered them)."""

    def pending_by_scope(self) -> dict[tuple[str, str], set[str]]:
        """Records with outbox entries still to apply, by (user, agent)."""

    def keyword_index_gaps(self) -> tuple[list[int], list[str]]:
        """Keyword rows of no record (their keys), and ids of records with no keyword row."""

    def repair_keyword_index(self, orphan: Sequence[int], missing: Sequence[str]) -> None: ...

    def optimize_keyword_index(self) -> None:
        """Compact the keyword index so deleted rows' tokens leave the disk (purge)."""

    def user_agents(self, user_id: str, agent_id: str | None = None) -> list[str]:
        """The agents under which the user has any row."""

    def purge_user(
        self, user_id: str, agent_id: str | None, at: float, writer: str
    ) -> dict[str, int]:
        """Delete every row of a user (every agent, or one); audit the purge under a hashed
        user id. Returns rows removed per kind (records, fts, vectors, versions, outbox,
        messages, sessions, audit)."""

    def purge_records(
        self, scope: Scope, ids: Sequence[str], turns: Sequence[str]
    ) -> dict[str, int]:
        """Delete records everywhere with their audit rows, and the short-term messages of
        `turns`. Returns {vectors, records, audit, messages}."""

    def purged_at(self, user_id: str, agent_id: str) -> float | None:
        """When the user (every agent, or this one) was last purged."""

    def vacuum(self) -> None:
        """Give freed space back, so deleted content leaves the disk."""

    def entity_backlog(self, limit: int = 500) -> list[MemoryRecord]:
        """The records among the next `limit` of those stored before entity memory existed
        that want their entity links, oldest first (none once the backlog is done)."""

    def backfill_entity_links(
        self, named: Sequence[tuple[MemoryRecord, Mentions]], limit: int = 500
    ) -> tuple[int, int]:
        """Link the next `limit` of the records stored before entity memory existed, oldest
        first, as their writes would have (store/entity_linking.py), to what each names:
        `named` holds `entity_backlog`'s records with their mentions; a record not among them
        as it is now ends the batch before it. Returns (records examined, records left).
        Resumable, and a done backlog changes nothing."""

    def acquire_lease(self, name: str, holder: str, now: float, seconds: float) -> bool: ...

    def release_lease(self, name: str, holder: str) -> None: ...

    def lease(self, name: str, now: float) -> dict[str, Any] | None: ...

    def begin_run(self, trigger: str, holder: str, now: float) -> int: ...

    def finish_run(
        self, run_id: int, now: float, status: str, counts: str, error: str | None
    ) -> None: ...

    def recent_runs(self, limit: int) -> list[dict[str, Any]]: ...


class ConsoleStore(StageStore, Protocol):
    """The console and admin door (console/, the admin verbs, portability/): listings, history,
    audit, counts, and a user's rows out and in."""

    def listing(
        self,
        scope: Scope,
        *,
        status: str | None = None,
        type_: str | None = None,
        curated_only: bool = False,
        oldest_first: bool = False,
        limit: int = 100,
    ) -> list[MemoryRecord]:
        """Records of the scope for a listing (CLI, demo), of a status and type when given:
        newest update first, or oldest creation first; `curated_only` leaves episodes out."""

    def session_episodes(
        self, scope: Scope, session_id: str, limit: int = 2000
    ) -> list[MemoryRecord]:
        """The episodes of a session (any status), oldest first."""

    def session_messages(self, scope: Scope, session_id: str, limit: int = 5000) -> list[dict]:
        """Non-empty messages carrying a turn id, in order: {turn_id, role, content}."""

    def latest_successor(self, scope: Scope, record_id: str) -> MemoryRecord | None:
        """The newest version that replaced record_id, if any."""

    def versions(self, scope: Scope, record_id: str) -> list[dict[str, Any]]:
        """The saved earlier versions of a record (of the scope's user and agent), oldest
        first: {record_id, version, summary, detail, channel, confidence, turn_ids, valid_from,
        superseded_at, ...}."""

    def versions_in_scope(self, scope: Scope, record_id: str) -> list[dict[str, Any]]:
        """`versions`, looked up by record id first (the console's page of one memory)."""

    def audit_log(
        self, scope: Scope, record_id: str | None = None, limit: int = 100
    ) -> list[dict[str, Any]]:
        """Audit rows of the scope (of one record), newest first."""

    def audit_of(self, scope: Scope, ids: Sequence[str], limit: int = 500) -> list[dict[str, Any]]:
        """Audit rows of these records, newest first."""

    def counts_by_scope(self) -> list[dict[str, Any]]:
        """{user_id, agent_id, status, type, n} for every non-empty group."""

    def record_count(self) -> int:
        """Records of every scope and status."""

    def audit_purge_request(
        self, user_id: str, agent_id: str | None, at: float, reason: str, writer: str
    ) -> None:
        """An audit row about a purge of a user, under the hashed user id."""

    def user_records(
        self, user_id: str, agent_id: str | None = None, *, newest_first: bool = False
    ) -> list[MemoryRecord]:
        """Every record of a user (every agent, or one), in written order or newest first."""

    def user_rows(
        self, table: str, user_id: str, agent_id: str | None = None
    ) -> Iterator[dict[str, Any]]:
        """The user's rows of "versions", "audit", "sessions" or "messages", in written order,
        as column -> value."""

    def record_owner(self, record_id: str) -> tuple[str, str] | None:
        """(user, agent) of the record with this id, in any scope."""

    def holds(self, scope: Scope, record: MemoryRecord) -> bool:
        """The store holds this record: its id (any scope), its text (any type or status),
        or its summary under the same type and subject."""

    def import_row(self, table: str, item: dict[str, Any]) -> int:
        """Add one exported row of a user table unless one with its identity is there;
        returns 1 when added."""


class RecordStore(MaintenanceStore, ConsoleStore, Protocol):
    """The source of truth: records, versions, keyword index, audit, outbox, sessions, the
    short-term window and the maintenance log (every door's port), and the engine's own calls."""

    def touch(self, scope: Scope, ids: Sequence[str], at: float) -> None:
        """Reinforcement by access: count one access of each record, now."""

    def session_neighbours(
        self, scope: Scope, record_id: str, *, before: int, after: int, now: float
    ) -> tuple[list[MemoryRecord], list[MemoryRecord]]:
        """The live episodes logged just before and just after an episode in its session
        (nearest first)."""

    def close(self) -> None: ...


# The vector index's ports: what recall and the indexer ask of it, and what reindex, doctor
# and purge manage (contracts in ports.py).


@runtime_checkable
class VectorIndex(Protocol):
    """Derived from the record store (rebuildable from it at any time). Two tiers per scope:
    "hot" (live memories) and "cold" (the archive, deep recall only)."""

    embedder_name: str

    def upsert(self, scope: Scope, tier: str, items: VectorItems, parts: Parts = None) -> None:
        """Put (id, vector, metadata) into a tier with their sentence parts, replacing what the
        tier held for those ids."""

    def delete(
        self, scope: Scope, ids: Sequence[str], tiers: Sequence[str] = ("hot", "cold")
    ) -> None: ...

    def query(self, scope: Scope, vector: np.ndarray, k: int, *, tier: str = "hot") -> Scored:
        """Up to k (record id, similarity) best first; a record found by a sentence part scores
        that part's similarity if it beats its own. Similarity is the cosine (see the module
        docstring of ports.py: in [0, 1] for the package's embedders)."""

    def ids(self, scope: Scope, tier: str = "hot") -> set[str]: ...

    def count(self, scope: Scope, tier: str = "hot") -> int:
        """Vectors in the tier, sentence parts included."""

    def drop_scope(self, scope: Scope) -> None:
        """Delete both tiers of a scope (purge)."""

    def close(self) -> None: ...


class VectorSearch(Protocol):
    """One tier's search with its reads done (`searcher` of an index that offers it): called as
    `search(vector, k)`, it answers as `VectorIndex.query`. `vectors` and `parts`: the records'
    vectors and sentence parts it read, by record id (empty for an index that reads none)."""

    vectors: dict[str, np.ndarray]
    parts: dict[str, np.ndarray]

    def __call__(self, vector: np.ndarray, k: int) -> Scored: ...


class IndexSearch:
    """A `VectorSearch` that is the index's own `query` (nothing to read before the vector)."""

    def __init__(self, index: VectorIndex, scope: Scope, tier: str) -> None:
        self.index, self.scope, self.tier = index, scope, tier
        self.vectors: dict[str, np.ndarray] = {}
        self.parts: dict[str, np.ndarray] = {}

    def __call__(self, vector: np.ndarray, k: int) -> Scored:
        return self.index.query(self.scope, vector, k, tier=self.tier)


class ManagedVectorIndex(VectorIndex, Protocol):
    """A vector index with its collections named: what reindex, doctor and purge manage."""

    dim: int
    prefix: str
    #: why the index cannot be used ("" when it can); searches then return nothing
    unusable: str

    def check_embedder(self, *, allow_init: bool = True) -> None:
        """Raise `IndexMismatchError` when the index was built by another embedder."""

    def stamp_embedder(self) -> None: ...

    def collection_name(self, scope: Scope, tier: str = "hot") -> str: ...

    def scope_names(self) -> list[str]:
        """Every collection's name."""

    def collection_size(self, name: str) -> int: ...

    def drop_collection(self, name: str) -> bool: ...

    def compact(self) -> dict[str, int]:
        """Zero freed bytes in the index's files (purge); bytes zeroed per file."""


# The storage ports: what the pipeline stages ask of the record store and the vector index.
#
# Stages depend on these protocols, never on SQLite, Chroma or SQL. Each method names an intention
# (the live memories of a subject, the profile, the session's neighbours) rather than a query, so a
# backend (one SQL store over SQLite + FTS5 or PostgreSQL, a pure-Python fake) answers it its own way.
#
# Contracts every implementation keeps (the contract tests in `tests/test_store_contract.py` run
# one suite against each):
#
# - Scope: every read and write of user data takes a `Scope` (user, agent, optional workspace). A
#   workspace scope also sees the records with no workspace. Nothing of one (user, agent) reaches
#   another's call.
# - Scores: higher is better. Keyword relevance is in (0, 1], relative to the call's best hit
#   (which scores 1.0). Vector similarity is the cosine: in [0, 1] for the embedders the package
#   ships (normalised, e5 puts even unrelated pairs far above 0); an arbitrary test embedder can
#   reach below 0, and the ranker clips nothing, so it is passed on as is.
# - Order: lists come in the order the docstring names (best first for scores). Ties are the
#   backend's: a caller that needs a total order asks for one (`in_written_order`).
# - Transactions: `transaction()` groups writes atomically; nested calls join the outer one; a
#   write outside one commits on its own. A record, its keyword row, its vector and its outbox
#   entry commit together (the outbox guarantee: the vector index follows from the outbox).
# - Errors: a backend failure surfaces as `StoreError` (or a subclass); driver exceptions
#   (sqlite3, chromadb, psycopg) never leave the store.

__all__ = [
    "ConsoleStore",
    "IndexFeed",
    "ListPage",
    "ListQuery",
    "MaintenanceStore",
    "ManagedVectorIndex",
    "RecordStore",
    "Scored",
    "StageStore",
    "VectorIndex",
    "content_hash",
    "hashed_user",
    "text_hash",
]
