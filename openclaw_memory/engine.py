"""MemoryEngine: the store facade the pipeline stages share.

SQLite (truth) + the Chroma index (derived, fed by the outbox) + the embedder + the clock. Every
method takes a Scope: there is no unscoped read. Construction is by `MemoryEngine.open(config)`,
the one place that turns config into these objects.
"""

from __future__ import annotations

import logging
from typing import Sequence

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from .clock import Clock, SystemClock
from .config import MemoryConfig, load_config
from .consolidate import Consolidator, deactivate
from .embedding import PassageVectors, build_embedder, embed_query, embedder_dim, embedder_name
from .errors import IndexMismatchError, NotFoundError
from .store import records as rec
from .store.db import Database
from .store.indexer import Indexer
from .store.vector import ChromaIndex
from .types import Candidate, Channel, MemoryRecord, Scope, Status, WriteResult

log = logging.getLogger(__name__)


class MemoryEngine:
    def __init__(
        self,
        config: MemoryConfig,
        db: Database,
        index: ChromaIndex,
        embedder: BaseEmbedding,
        clock: Clock,
        *,
        background: bool = True,
    ) -> None:
        self.config = config
        self.db = db
        self.index = index
        self.embedder = embedder
        self.clock = clock
        self.model_name = index.embedder_name
        self._check_vectors_model()
        self.indexer = Indexer(db, index, background=background)
        self.consolidator = Consolidator(db, embedder, self.model_name, clock, config)

    @classmethod
    def open(
        cls,
        config: MemoryConfig | str | None = None,
        *,
        clock: Clock | None = None,
        embedder: BaseEmbedding | None = None,
        background: bool | None = None,
        check_embedder: bool = True,
    ) -> "MemoryEngine":
        cfg = config if isinstance(config, MemoryConfig) else load_config(config)
        emb = embedder or build_embedder(cfg.storage.embedding_model)
        name = embedder_name(emb)
        vs = cfg.storage.vector_store
        index = ChromaIndex(
            kind=vs.kind,
            path=cfg.chroma_dir,
            host=vs.host,
            port=vs.port,
            prefix=vs.collection_prefix,
            embedder_name=name,
            dim=embedder_dim(emb),
            search_ef=vs.search_ef,
        )
        db = None
        try:
            if check_embedder:
                index.check_embedder()
            db = Database(cfg.sqlite_file)
            bg = cfg.storage.background_indexing if background is None else background
            return cls(cfg, db, index, emb, clock or SystemClock(), background=bg)
        except (
            BaseException
        ):  # a refused open (mismatch, locked file) keeps no client or connection
            index.close()
            if db is not None:
                db.close()
            raise

    def _check_vectors_model(self) -> None:
        with self.db.read() as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
        if row is None:
            with self.db.write() as db:
                db.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES ('embedder', ?)",
                    (self.model_name,),
                )
        elif row[0] != self.model_name:
            raise IndexMismatchError(
                f"{self.db.path}: stored vectors come from embedder {row[0]!r}, the config uses "
                f"{self.model_name!r}; run `openclaw-memory reindex` to re-embed and rebuild the index"
            )

    # ---- write ------------------------------------------------------------------------------

    def write(
        self,
        scope: Scope,
        candidates: Sequence[Candidate],
        *,
        session_id: str | None = None,
        writer: str = "openclaw-memory",
        vectors: PassageVectors | None = None,
    ) -> list[WriteResult]:
        """Consolidate and store candidates (one transaction); `vectors` from `embed_candidates`
        spare the embedding."""
        commands = [c for c in candidates if c.forget]
        if commands:  # explicit "forget X" commands are not memories: they run on their own path
            return self._write_with_commands(
                scope, candidates, session_id=session_id, writer=writer
            )
        results = self.consolidator.write(
            scope, candidates, session_id=session_id, writer=writer, vectors=vectors
        )
        self.indexer.notify()
        return results

    def _write_with_commands(
        self, scope: Scope, candidates: Sequence[Candidate], *, session_id: str | None, writer: str
    ) -> list[WriteResult]:
        from .forget import ForgetCommand, run

        stored = iter(
            self.consolidator.write(
                scope, [c for c in candidates if not c.forget], session_id=session_id, writer=writer
            )
        )
        results = []
        for c in candidates:
            if not c.forget:
                results.append(next(stored))
                continue
            done = run(self, scope, ForgetCommand.from_candidate(c))
            reason = (
                f"names {len(done.matches)}, more than one command takes: nothing deactivated"
                if done.too_broad
                else f"deactivated {len(done.ids)}: {', '.join(done.ids)}"
                if done.ids
                else "nothing matched"
            )
            results.append(
                WriteResult(
                    "forget", None, reason, affected=() if done.too_broad else tuple(done.ids)
                )
            )
        self.indexer.notify()
        return results

    def embed_candidates(self, candidates: Sequence[Candidate]) -> PassageVectors:
        """The vectors `write` would compute for these candidates, so that several writes (of
        any scopes) can share one embedding call. A vector depends on the text alone."""
        return self.consolidator.embed(candidates)

    def forget(
        self,
        scope: Scope,
        record_id: str,
        reason: str = "forgotten on request",
        channel: Channel = Channel.EXPLICIT,
        writer: str | None = None,
    ) -> MemoryRecord:
        with self.db.write() as db:
            r = rec.get(db, scope, record_id)
            if r is None:
                raise NotFoundError(f"memory {record_id!r} not found for user {scope.user_id!r}")
            out = (
                deactivate(db, r, self.clock.now(), reason, channel, writer)
                if r.status is not Status.INACTIVE
                else r
            )
        self.indexer.notify()
        return out

    def restore(
        self,
        scope: Scope,
        record_id: str,
        reason: str = "restored on request",
        channel: Channel = Channel.EXPLICIT,
    ) -> MemoryRecord:
        """Undo a forget: the memory is active again (audited); an active one is returned as is."""
        with self.db.write() as db:
            r = rec.get(db, scope, record_id)
            if r is None:
                raise NotFoundError(f"memory {record_id!r} not found for user {scope.user_id!r}")
            if r.status is Status.INACTIVE:
                now = self.clock.now()
                r = r.replace(status=Status.ACTIVE, superseded_at=None, updated_at=now)
                rec.update(
                    db, r, None, self.model_name, reindex=False
                )  # the outbox re-indexes its vector
                rec.audit(db, scope, r.id, "restore", reason, now, channel.value)
        self.indexer.notify()
        return r

    def touch(self, scope: Scope, ids: Sequence[str]) -> None:
        if ids:
            with self.db.write() as db:
                rec.touch(db, scope, ids, self.clock.now())

    # ---- read -------------------------------------------------------------------------------

    def get(self, scope: Scope, record_id: str) -> MemoryRecord:
        with self.db.read() as db:
            r = rec.get(db, scope, record_id)
        if r is None:
            raise NotFoundError(f"memory {record_id!r} not found for user {scope.user_id!r}")
        return r

    def get_many(self, scope: Scope, ids: Sequence[str]) -> dict[str, MemoryRecord]:
        with self.db.read() as db:
            return rec.get_many(db, scope, ids)

    def find(
        self,
        scope: Scope,
        *,
        where: str = "1",
        args: Sequence = (),
        order: str = "updated_at DESC",
        limit: int = 100,
    ) -> list[MemoryRecord]:
        with self.db.read() as db:
            return rec.query(db, scope, where=where, args=args, order=order, limit=limit)

    def neighbours(
        self, scope: Scope, record_id: str, *, before: int = 1, after: int = 1
    ) -> tuple[list[MemoryRecord], list[MemoryRecord]]:
        """Live episodes of the same session just before and after an episode (nearest first)."""
        with self.db.read() as db:
            return rec.session_neighbours(
                db, scope, record_id, before=before, after=after, now=self.clock.now()
            )

    def chain(self, scope: Scope, record_id: str) -> list[MemoryRecord]:
        """The record and the records it replaced, newest first."""
        out = [self.get(scope, record_id)]
        while out[-1].prev_id and len(out) < 100:
            with self.db.read() as db:
                prev = rec.get(db, scope, out[-1].prev_id)
            if prev is None:
                break
            out.append(prev)
        return out

    def versions(self, scope: Scope, record_id: str) -> list[dict]:
        with self.db.read() as db:
            return rec.history(db, scope, record_id)

    def keyword(
        self, scope: Scope, text: str, *, limit: int = 30, statuses: Sequence[str] = ("active",)
    ) -> list[tuple[str, float]]:
        with self.db.read() as db:
            return rec.keyword_search(db, scope, text, statuses=statuses, limit=limit)

    def embed_query(self, text: str) -> np.ndarray:
        return embed_query(self.embedder, text)

    def semantic(
        self, scope: Scope, vector: np.ndarray, *, limit: int = 30, tier: str = "hot"
    ) -> list[tuple[str, float]]:
        """Vector search; pending writes of this scope are indexed first (read-your-writes)."""
        self.indexer.drain(scope)
        return self.index.query(scope, vector, limit, tier=tier)

    def audit_log(self, scope: Scope, record_id: str | None = None, limit: int = 100) -> list[dict]:
        with self.db.read() as db:
            if record_id:
                rows = db.execute(
                    "SELECT * FROM audit WHERE user_id = ? AND agent_id = ? AND record_id = ? ORDER BY seq DESC LIMIT ?",
                    (scope.user_id, scope.agent_id, record_id, limit),
                ).fetchall()
            else:
                rows = db.execute(
                    "SELECT * FROM audit WHERE user_id = ? AND agent_id = ? ORDER BY seq DESC LIMIT ?",
                    (scope.user_id, scope.agent_id, limit),
                ).fetchall()
        return [dict(r) for r in rows]

    # ---- lifecycle --------------------------------------------------------------------------

    def close(self) -> None:
        self.indexer.close()
        self.index.close()
        self.db.close()
