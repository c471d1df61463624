"""The write path of a captured turn: filter -> short-term window -> extract -> consolidate -> store.

    filter       secrets redacted, contentless turns carry no memory (extract/filter.py)
    window       the turn joins the session's short-term window (capture/short_term.py)
    extract      the extractor proposes candidates; the turn itself is logged as an episode
    commands     an explicit "forget X" runs on its own path (forget.py), never consolidated
    consolidate  the candidates are written through the engine (consolidate.py), then indexed
    summary      when the window is over its threshold, it becomes a summary memory

Queued captures run on the background worker; a batch of them is prepared (filtered, extracted
and embedded in one call) before any of it is written.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from ..config import ExtractionConfig
from ..errors import ValidationError
from ..extract.base import Extractor, attribute
from ..extract.filter import is_contentless
from ..extract.request_grammar import asked_only, request_only
from ..extract.secrets import SecretFilter
from ..write.forget import ForgetCommand
from ..write.forget import run as forget_run
from ..runtime.jobs import UserJobs
from ..lang.text import valid_unicode
from ..types import Candidate, Channel, MemoryType, Scope, Turn, WriteResult
from .events import episode_candidate
from .messages import PendingTurns
from .sessions import Sessions, check_session_id
from .short_term import ShortTermMemory
from .summaries import SessionSummaries

if TYPE_CHECKING:
    from ..runtime.engine import MemoryEngine

__all__ = ["CapturePipeline"]


class CapturePipeline:
    """Turns -> stored memories, queued on the worker (`submit`) or at once (`ingest`)."""

    def __init__(
        self,
        engine: "MemoryEngine",
        *,
        extractor: Extractor,
        secrets: SecretFilter,
        short_term: ShortTermMemory,
        sessions: Sessions,
        summaries: SessionSummaries,
        jobs: UserJobs,
        pending: PendingTurns,
        config: ExtractionConfig,
    ) -> None:
        self.engine = engine
        self.extractor = extractor
        self.secrets = secrets
        self.short_term = short_term
        self.sessions = sessions
        self.summaries = summaries
        self.jobs = jobs
        self.pending = pending
        self.cfg = config

    def submit(
        self, scope: Scope, turns: list[Turn], logged_only: frozenset[str] = frozenset()
    ) -> None:
        """Queue the capture of turns of one scope; their pending claims are released when done.
        logged_only: ids of turns logged as episodes only (stored through the memory tool)."""
        capture = _Capture(turns, logged_only=logged_only)

        def run() -> None:
            try:
                self._capture(capture.turns, capture.prepared, capture.logged_only)
            finally:
                self.pending.release(scope, [t.turn_id for t in capture.turns])

        self.jobs.submit(scope, run, "capture", prepare=self._prepare, payload=capture)

    def ingest(self, turns: Sequence[Turn]) -> int:
        """Capture turns of one scope and session synchronously, in one batch (replays, imports).

        The same write path as a queued capture, with one embedding batch for all of them; the
        caller's clock gives the records their time. Returns the memories written.
        """
        return sum(1 for w in self.write_turns(turns) if w.action != "skip")

    def write_turns(self, turns: Sequence[Turn], *, tags: Sequence[str] = ()) -> list[WriteResult]:
        """`ingest`, answering what consolidation did with each stored candidate (curated
        memories and episodes, in turn order); `tags` go onto every one of them."""
        if not turns:
            return []
        first = turns[0]
        if any(t.scope != first.scope or t.session_id != first.session_id for t in turns):
            raise ValidationError("turns: expected one scope and one session per ingest call")
        check_session_id(first.session_id)
        self.sessions.open(first.scope, first.session_id)
        turns = [
            dataclasses.replace(
                t, user=valid_unicode(t.user or ""), assistant=valid_unicode(t.assistant or "")
            )
            for t in turns
        ]
        return self._capture(turns, tags=tuple(tags))

    def _prepare(self, captures: list["_Capture"]) -> None:
        """Ahead of a worker batch: filter and extract the turns of its captures, and embed all
        the candidates in one call (a vector depends on its text alone, so the records are the
        ones each capture would write by itself). Writes nothing."""
        extracted = [
            [self._turn_candidates(t, extract=t.turn_id not in c.logged_only) for t in c.turns]
            for c in captures
        ]
        stored = [_to_store(e) for e in extracted]
        vectors = self.engine.embed_candidates([c for cands in stored for c in cands])
        start = 0
        for capture, turns, cands in zip(captures, extracted, stored):
            capture.prepared = _Prepared(turns, vectors[start : start + len(cands)])
            start += len(cands)

    def _capture(
        self,
        turns: Sequence[Turn],
        prepared: "_Prepared | None" = None,
        logged_only: frozenset[str] = frozenset(),
        tags: tuple[str, ...] = (),
    ) -> list[WriteResult]:
        scope, sid = turns[0].scope, turns[0].session_id
        extracted = (
            prepared.turns
            if prepared
            else [
                self._turn_candidates(turn, extract=turn.turn_id not in logged_only)
                for turn in turns
            ]
        )
        for command in (c for _, _, found in extracted for c in found if c.forget):
            forget_run(self.engine, scope, ForgetCommand.from_candidate(command))
        cands = [
            dataclasses.replace(c, tags=tuple(dict.fromkeys((*c.tags, *tags)))) if tags else c
            for c in _to_store(extracted)
        ]
        vectors = prepared.vectors if prepared else None
        # The window (which marks a turn captured) and the turn's memories commit together: a
        # crash leaves both or neither, so a capture replayed from the service's journal after
        # a crash is written once, never skipped as captured with its memories missing.
        with self.engine.store.transaction():
            for turn, (user, reply, found) in zip(turns, extracted):
                # a request for help is no part of what a session did: its summary never lists it
                if not any(c.type is MemoryType.EPISODE and asked_only(c.tags) for c in found):
                    self.short_term.add_turn(scope, sid, user, reply, turn.turn_id)
            written = (
                self.engine.write(
                    scope, cands, session_id=sid, writer="after_response", vectors=vectors
                )
                if cands
                else []
            )
        self.engine.written()  # the indexer looks again, now that the outbox rows are committed
        if self.short_term.over_threshold(scope, sid):
            self.summaries.summarize(scope, sid, "threshold", end=False)
        return written

    def _turn_candidates(self, turn: Turn, *, extract: bool = True) -> "_Extracted":
        """Filter (secrets, contentless), extract, and log the episode: the turn's texts without
        secrets and its candidates. Writes nothing. extract=False: the episode only (the turn's
        memories were stored through the memory tool already)."""
        user = self.secrets.redact(turn.user or "")
        reply = self.secrets.redact(turn.assistant or "")
        scope, sid = turn.scope, turn.session_id
        cands: list[Candidate] = []
        speaker = turn.speaker or "user"
        if not is_contentless(user):
            asking = speaker == "user" and request_only(user)
            extracted = (
                self.extractor.extract(
                    Turn(scope, sid, user, reply, turn.turn_id, turn.at, turn.speaker)
                )
                if extract
                else []
            )
            if asking:
                # a request for help states nothing: only an explicit command in it is a memory
                extracted = [c for c in extracted if c.channel is Channel.EXPLICIT]
            extracted = attribute(extracted, turn.speaker)
            cands.extend(extracted)
            # A "forget X" turn is not logged verbatim: the log would keep recalling X.
            if self.cfg.store_episodes and not any(c.forget for c in extracted):
                text = user if speaker == "user" else f"{speaker}: {user}"
                episode = episode_candidate(
                    text, speaker=speaker, turn_id=turn.turn_id, request=asking
                )
                cands.append(episode)
        if reply and self.cfg.store_assistant_episodes and not is_contentless(reply):
            cands.append(
                episode_candidate(reply, speaker="assistant", turn_id=turn.turn_id, max_tokens=150)
            )
        return user, reply, cands


#: one turn after filtering and extraction: (user text, reply text, candidates), secrets removed
_Extracted = tuple[str, str, list[Candidate]]


@dataclass
class _Prepared:
    turns: list[_Extracted]
    #: the vectors of the candidates to store (`_to_store`), in order: each whole, and its sentences
    vectors: Any


@dataclass
class _Capture:
    """Turns queued for capture; `prepared` is filled when their worker batch is prepared."""

    turns: list[Turn]
    prepared: _Prepared | None = None
    #: ids of turns to log as episodes without extracting from them (stored through the tool)
    logged_only: frozenset[str] = frozenset()


def _to_store(extracted: Sequence[_Extracted]) -> list[Candidate]:
    """The candidates a capture writes: all but the "forget X" commands, in turn order."""
    return [c for _, _, found in extracted for c in found if not c.forget]
