"""OpenClaw's built-in memory files, in and out: `MEMORY.md` and `memory/YYYY-MM-DD*.md`.

The layout OpenClaw 2026.9.6 writes (docs/concepts/memory.md, memory-architecture.md and the
memory-core / session-memory sources):

- `MEMORY.md`: the curated layer, free Markdown; the agent and the dreaming sweep add bullets.
  A promoted entry is a marker line `<!-- openclaw-memory-promotion:KEY -->` followed by
  `- snippet [score=0.812 signals=3 recalls=2 avg=0.700 source=memory/2026-08-30.md:3-5]
  <!-- trigger: a, b --> <!-- importance: 8 -->` under `## Promoted From Short-Term Memory (DAY)`;
  `<!-- project: KEY -->` may trail an entry too.
- `memory/YYYY-MM-DD.md` (or `-<slug>.md`): daily notes, free Markdown. The session-memory hook
  writes `memory/YYYY-MM-DD-HHMM.md` as `# Session: YYYY-MM-DD HH:MM TZ`, `- **Session Key**: ...`,
  `- **Session ID**: ...`, then `## Conversation Summary` and lines `user: "<JSON string>"` /
  `assistant: "<JSON string>"`. Dreaming keeps managed blocks between
  `<!-- openclaw:dreaming:<phase>:start -->` and `...:end -->` (machine output, skipped here).

Import: each bullet, paragraph or user line becomes one typed record (the rule extractor names
its type and subject; otherwise a `MEMORY.md` entry is a fact and a daily-note entry an episode),
timed at the note's date, on the `imported` channel with the file and line as its provenance
(shown by `show`, `list` and the console). Secrets are stripped first. A record's id is a hash of
the user, agent and text, so a second import adds nothing, and a text already stored (as any
type) is not stored again. Claims go through check-before-write with the source priority
explicit > admin > imported > implicit: an imported line never overrides what the user stated
(it is kept inactive, for the record), never leaves two live values of one subject, and a later
conversational change supersedes it. Export writes the same layout back.

Reading the files is `openclaw_read.py`, writing them `openclaw_write.py`; this module turns what
was read into records.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .claims import write_claim
from ..embed.embedding import embed_with_parts
from ..errors import ValidationError
from ..extract.filter import is_contentless
from ..write.policy import KEYED_TYPES, types_where
from ..types import (
    SUBJECT_MAX_CHARS,
    Channel,
    MemoryRecord,
    MemoryType,
    Scope,
    Source,
    Turn,
)
from .markdown import TYPE_TITLES
from .openclaw_read import NoteEntry, load_workspace
from .openclaw_write import DAILY_TYPES

if TYPE_CHECKING:
    from ..runtime.engine import MemoryEngine
    from ..extract.base import Extractor
    from ..extract.secrets import SecretFilter

log = logging.getLogger(__name__)

WRITER = "openclaw-import"
#: what a typed candidate of the rule chain may make of an imported entry
_CURATED = types_where(distilled=True)  # the policy table
#: a section title of our own export names the type of its entries
_TITLED = {title.lower(): kind for kind, title in TYPE_TITLES.items() if kind not in DAILY_TYPES}


def entry_id(scope: Scope, text: str) -> str:
    """An imported entry's record id: the same text for the same user and agent, the same id."""
    digest = hashlib.sha256(
        f"{scope.user_id}\0{scope.agent_id}\0{text}".encode("utf-8", "surrogatepass")
    )
    return "oc_" + digest.hexdigest()[:24]


class OpenClawImporter:
    """Turns workspace entries into typed records of one scope (filter, type, dedupe, store)."""

    def __init__(self, engine: MemoryEngine, extractor: Extractor, secrets: SecretFilter) -> None:
        self.engine = engine
        self.extractor = extractor
        self.secrets = secrets

    def import_path(self, root: Path, scope: Scope, *, writer: str = WRITER) -> dict[str, Any]:
        """Import a workspace or one memory file; returns counts (added, existing, secrets, files,
        what consolidation did, and the files skipped: links and files outside the workspace)."""
        entries, skipped = load_workspace(root)
        counts: dict[str, Any] = {
            "entries": len(entries),
            "added": 0,
            "existing": 0,
            "secrets_removed": 0,
            "empty": 0,
            "files": len({e.path for e in entries}),
        }
        drafts: dict[str, MemoryRecord] = {}
        for entry in entries:
            record = self._draft(entry, scope, writer, counts)
            if record is not None and record.id not in drafts:
                drafts[record.id] = record
        fresh = self._not_stored(scope, list(drafts.values()), counts)
        actions = self._store(fresh)
        counts["added"] = sum(n for action, n in actions.items() if action != "update")
        counts["consolidated"] = actions
        if skipped:
            counts["skipped"] = skipped
        return counts

    def _draft(
        self, e: NoteEntry, scope: Scope, writer: str, counts: dict[str, int]
    ) -> MemoryRecord | None:
        text = self.secrets.strip(e.text)
        if text != e.text.strip():
            counts["secrets_removed"] += 1
            # What is left of a sentence around a secret ("..., keep it handy") is rarely a memory.
            if len(text) < 0.4 * len(e.text) or is_contentless(text):
                text = ""
        if len(text) < 2:
            counts["empty"] += 1
            return None
        kind, subject, entities, importance, confidence = self._typed(scope, text, e)
        # the annotations a file carries (subject, triggers) are text from the file too
        subject = self.secrets.redact(e.subject[:SUBJECT_MAX_CHARS]) if e.subject else subject
        at = e.at if e.at is not None else self.engine.clock.now()
        tags = tuple(dict.fromkeys([*map(self.secrets.redact, e.tags), "openclaw"]))
        expires = (
            at + self.engine.config.forgetting.task_ttl_days * 86400
            if kind is MemoryType.TASK
            else None
        )
        return MemoryRecord(
            id=entry_id(scope, text),
            scope=scope,
            type=kind,
            summary=text,
            subject=subject,
            session_id=e.session_id,
            tags=tags,
            entities=entities,
            importance=e.importance if e.importance is not None else importance,
            confidence=confidence,
            source=Source(
                channel=Channel.IMPORTED,
                session_id=e.session_id,
                turn_ids=(f"{e.path}:{e.line}",),
                writer=writer,
            ),
            created_at=at,
            updated_at=at,
            expires_at=expires,
        )

    def _typed(
        self, scope: Scope, text: str, e: NoteEntry
    ) -> tuple[MemoryType, str | None, tuple, float, float]:
        """The rule chain's type and subject for the entry, or the layer's default."""
        titled = _TITLED.get((e.heading or "").lower())
        if titled is not None:  # a section of our own export names the type
            return titled, None, (), 0.6, 0.9
        found = [
            c for c in self.extractor.extract(Turn(scope, "openclaw-import", text)) if not c.forget
        ]
        typed = next((c for c in found if c.type in _CURATED), None)
        if typed is not None:
            return typed.type, typed.subject, tuple(typed.entities), max(typed.importance, 0.6), 0.9
        if e.curated:
            return MemoryType.FACT, None, (), 0.6, 0.9
        return MemoryType.EPISODE, None, (), 0.4, 0.8

    def _not_stored(
        self, scope: Scope, drafts: list[MemoryRecord], counts: dict[str, int]
    ) -> list[MemoryRecord]:
        """Drafts whose id and text are not in the store yet (any type, any status)."""
        fresh = []
        for r in drafts:
            if self.engine.store.holds(scope, r):
                counts["existing"] += 1
            else:
                fresh.append(r)
        return fresh

    def _store(self, records: list[MemoryRecord]) -> dict[str, int]:
        """Write the drafts in one transaction: a claim (profile, preference, fact, task) goes
        through check-before-write like a claim said in conversation, on the imported channel
        (below explicit and admin: an imported line never overrides what the user stated; what
        the user says later corrects it); episodes and other entries are appended as they are."""
        eng = self.engine
        actions: dict[str, int] = {}
        vectors = []
        for start in range(0, len(records), 256):
            batch = records[start : start + 256]
            vecs = embed_with_parts(
                eng.embedder, [r.text for r in batch], eng.config.long_term.sentence_vectors
            )
            vectors += list(zip(vecs.whole, vecs.parts))
        try:
            with eng.store.transaction():
                for r, (vec, parts) in zip(records, vectors):
                    action = self._one(r, vec, parts)
                    actions[action] = actions.get(action, 0) + 1
        except ValidationError:
            raise
        except Exception as exc:  # a store refusal: named by kind, never by the store's path
            log.warning("workspace import failed and was rolled back", exc_info=True)
            raise ValidationError(
                f"import: the store refused the import ({type(exc).__name__}); nothing was imported"
            ) from None
        eng.written()
        return actions

    def _one(self, r: MemoryRecord, vec: Any, parts: Any) -> str:
        """Write one draft in the caller's transaction; what was done ("insert", "doubt", ...)."""
        eng = self.engine
        if r.type not in KEYED_TYPES:
            eng.store.insert(r, vec, eng.model_name)
            eng.store.put_parts(r, parts)
            eng.store.audit(
                r.scope,
                r.id,
                "insert",
                f"imported from {r.source.turn_ids[0]}",
                eng.clock.now(),
                r.source.channel.value,
                r.source.writer,
            )
            return "insert"
        return write_claim(eng, r, vec, parts, r.source.turn_ids[0])
