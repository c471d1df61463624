"""The storage ports: what the pipeline stages ask of the record store and the vector index.

Stages depend on these protocols, never on SQLite, Chroma or SQL. Each method names an intention
(the live memories of a subject, the profile, the session's neighbours) rather than a query, so a
backend (SQLite + FTS5 today, PostgreSQL next, pure-Python fakes in tests) answers it its own way.

Contracts every implementation keeps (the contract tests in `tests/test_store_contract.py` run
one suite against each):

- Scope: every read and write of user data takes a `Scope` (user, agent, optional workspace). A
  workspace scope also sees the records with no workspace. Nothing of one (user, agent) reaches
  another's call.
- Scores: higher is better. Keyword relevance is in (0, 1], relative to the call's best hit
  (which scores 1.0). Vector similarity is the cosine: in [0, 1] for the embedders the package
  ships (normalised, e5 puts even unrelated pairs far above 0); an arbitrary test embedder can
  reach below 0, and the ranker clips nothing, so it is passed on as is.
- Order: lists come in the order the docstring names (best first for scores). Ties are the
  backend's: a caller that needs a total order asks for one (`in_written_order`).
- Transactions: `transaction()` groups writes atomically; nested calls join the outer one; a
  write outside one commits on its own. A record, its keyword row, its vector and its outbox
  entry commit together (the outbox guarantee: the vector index follows from the outbox).
- Errors: a backend failure surfaces as `StoreError` (or a subclass); driver exceptions
  (sqlite3, chromadb, psycopg) never leave the store.
"""

from __future__ import annotations

from typing import Protocol

from .log_ports import AuditLog, MaintenanceLog, MessageWindow, Outbox, SessionLog
from .port_values import ListPage, ListQuery, Scored, content_hash, hashed_user, text_hash
from .record_ports import EntityMemory, RecordReads, RecordWrites, Transactional
from .upkeep_ports import Forgetting, Housekeeping, Portability
from .vector_ports import ManagedVectorIndex, VectorIndex

# The ports live in one module per concern; this one is where stages import them from.
__all__ = [
    "AuditLog",
    "EntityMemory",
    "Forgetting",
    "Housekeeping",
    "ListPage",
    "ListQuery",
    "MaintenanceLog",
    "ManagedVectorIndex",
    "MessageWindow",
    "Outbox",
    "Portability",
    "RecordReads",
    "RecordStore",
    "RecordWrites",
    "Scored",
    "SessionLog",
    "Transactional",
    "VectorIndex",
    "content_hash",
    "hashed_user",
    "text_hash",
]


class RecordStore(
    Transactional,
    RecordWrites,
    RecordReads,
    EntityMemory,
    AuditLog,
    Outbox,
    SessionLog,
    MessageWindow,
    MaintenanceLog,
    Forgetting,
    Housekeeping,
    Portability,
    Protocol,
):
    """The source of truth: records, versions, keyword index, audit, outbox, sessions, the
    short-term window and the maintenance log."""
