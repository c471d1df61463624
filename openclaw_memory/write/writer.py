"""The write stage's entry: candidates in, consolidated records out (docs/design.md
"consolidate" -> "store" -> "index").

Explicit "forget X" commands are not memories: they run on their own path (forget.py); every
other candidate goes through the Consolidator, and the indexer is woken for the outbox entries
the write queued.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from .consolidate import Consolidator
from ..embed.embedding import PassageVectors
from ..types import Candidate, Scope, WriteResult

if TYPE_CHECKING:
    from ..runtime.engine import MemoryEngine


class MemoryWriter:
    """Consolidate and store candidates through an engine's record store."""

    def __init__(self, engine: MemoryEngine) -> None:
        self.engine = engine
        self.consolidator = Consolidator(
            engine.store, engine.embedder, engine.model_name, engine.clock, engine.config
        )

    def write(
        self,
        scope: Scope,
        candidates: Sequence[Candidate],
        *,
        session_id: str | None = None,
        writer: str = "openclaw-memory",
        vectors: PassageVectors | None = None,
    ) -> list[WriteResult]:
        """Consolidate and store candidates (one transaction); `vectors` from `embed` spare the
        embedding."""
        if any(c.forget for c in candidates):
            return self._with_commands(scope, candidates, session_id=session_id, writer=writer)
        results = self.consolidator.write(
            scope, candidates, session_id=session_id, writer=writer, vectors=vectors
        )
        self.engine.written()
        return results

    def _with_commands(
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
            done = run(self.engine, scope, ForgetCommand.from_candidate(c))
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
        self.engine.written()
        return results

    def embed(self, candidates: Sequence[Candidate]) -> PassageVectors:
        """The vectors `write` would compute for these candidates, so that several writes (of
        any scopes) can share one embedding call. A vector depends on the text alone."""
        return self.consolidator.embed(candidates)
