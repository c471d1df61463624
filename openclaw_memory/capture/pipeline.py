"""The write path of a captured turn, and the sessions it belongs to.

filter -> short-term window -> extract -> consolidate -> store. Sessions are opened by the `new`
hook and ended by the `summary` hook, which turns a session's short-term window (bounded by
tokens, persisted in the record store) into one structured summary memory.
"""

from __future__ import annotations

import logging
import dataclasses
from ..core.clock import Clock, DAY
from ..errors import ValidationError
from ..store.ports import StageStore
from ..lang.text import valid_unicode, message_text
from ..types import Scope, Candidate, Channel, MemoryType, Message, Turn, WindowMessage, WriteResult
from ..config import ShortTermConfig, ExtractionConfig
from ..core.tokens import count_tokens
from typing import TYPE_CHECKING, Any, Mapping, Sequence
from ..extract.summary import Summarizer
from dataclasses import dataclass
from ..extract.base import Extractor, attribute
from ..lang.utterance import is_contentless
from ..lang.utterance import asked_only
from ..lang.utterance import request_only
from ..lang import Languages, all_on
from ..extract.secrets import SecretFilter
from ..write.forget import ForgetCommand, run as forget_run
from ..core.worker import UserJobs
from .events import episode_candidate
from . import PendingTurns, own_turns, transcript_turns
from ..config.tuning import tuned

if TYPE_CHECKING:
    from ..write.consolidate import MemoryWriter, Notify

# Sessions: opened by the `new` hook, ended by the `summary` hook, kept in the record store.


class Sessions:
    def __init__(self, store: StageStore, clock: Clock) -> None:
        self.store, self.clock = store, clock

    #: an open session's last_active_at is refreshed at most this often (seconds): most requests
    #: then only read, with no write transaction on the request path
    ACTIVE_GRANULARITY = 60

    def open(self, scope: Scope, session_id: str) -> bool:
        """Open or continue a session; True when it is new (the `context` hook then runs)."""
        now = self.clock.now()
        row = self.store.session(scope, session_id)
        if (
            row is not None
            and row["ended_at"] is None
            and 0 <= now - row["last_active_at"] < self.ACTIVE_GRANULARITY
        ):
            return False
        return self.store.open_session(scope, session_id, now)

    def end(self, scope: Scope, session_id: str, reason: str, summary_id: str | None) -> None:
        self.store.end_session(scope, session_id, self.clock.now(), reason, summary_id)

    def participants(self, agent_id: str, session_id: str) -> list[Scope]:
        """Every user who has spoken in this session of this agent (a shared session has
        several), oldest first."""
        return [Scope(u, agent_id) for u in self.store.participants(agent_id, session_id)]

    def is_open(self, scope: Scope, session_id: str) -> bool:
        row = self.store.session(scope, session_id)
        return row is not None and row["ended_at"] is None


def check_session_id(session_id: str) -> None:
    """A session id is a non-empty string of at most 256 characters of valid Unicode."""
    if not isinstance(session_id, str) or not session_id.strip() or len(session_id) > 256:
        raise ValidationError(
            f"session_id: expected a non-empty string of at most 256 characters, found {session_id!r}"
        )
    if valid_unicode(session_id) != session_id:
        raise ValidationError(
            f"session_id: expected valid Unicode text, found lone surrogates in {session_id!r}"
        )


# Short-term memory: each session's sliding window, bounded by tokens, persisted in the record store.
#
# Eviction drops the oldest messages until the window fits `max_tokens` and `window_size` (docs/design.md seed 002
# §2.1: by tokens, not by count alone). Messages leave the window but stay in the table, so a
# summary can cite them and a restarted process restores the window as it was. Maintenance prunes
# them later (`prune`): once out of the window and older than `prune_after_days`, unless they are
# among their session's newest `keep_per_session`. A pruned turn leaves its key behind (the user
# message's row, emptied), because hosts send whole transcripts again (OpenClaw's agent_end does,
# every turn): without the key, a long session's old turns would be captured a second time.

SUMMARY_ROLE = "summary"


class ShortTermMemory:
    def __init__(self, store: StageStore, cfg: ShortTermConfig, clock: Clock) -> None:
        self.store, self.cfg, self.clock = store, cfg, clock

    def add(
        self, scope: Scope, session_id: str, role: str, content: str, turn_id: str | None = None
    ) -> int:
        """Append a message, evict the oldest past the budgets; return the window's token count."""
        with self.store.transaction():
            self._append(scope, session_id, role, content, turn_id)
        return self.tokens(scope, session_id)

    def add_turn(
        self, scope: Scope, session_id: str, user: str, reply: str, turn_id: str | None
    ) -> None:
        """The user's message and the reply (when there is one), in one transaction."""
        with self.store.transaction():
            self._append(scope, session_id, "user", user, turn_id)
            if reply:
                self._append(scope, session_id, "assistant", reply, turn_id)

    def _append(
        self, scope: Scope, session_id: str, role: str, content: str, turn_id: str | None
    ) -> None:
        message = WindowMessage(
            session_id, role, content, count_tokens(content), turn_id, self.clock.now()
        )
        self.store.append_message(scope, message)
        self._evict(scope, session_id)

    def _evict(self, scope: Scope, session_id: str) -> None:
        rows = self.store.window_messages(scope, session_id)
        total = sum(r["tokens"] for r in rows)
        count = len(rows)
        evict = []
        for r in rows[:-1]:  # the newest message always stays
            if total <= self.cfg.max_tokens and count <= self.cfg.window_size:
                break
            evict.append(r["seq"])
            total -= r["tokens"]
            count -= 1
        if evict:
            self.store.leave_window(scope, session_id, evict)

    def window(self, scope: Scope, session_id: str, max_tokens: int | None = None) -> list[dict]:
        """The window's messages, oldest first; with max_tokens, only the newest that fit."""
        rows = self.store.window_messages(scope, session_id)
        out, used = [], 0
        for r in reversed(rows):
            if max_tokens is not None and used + r["tokens"] > max_tokens:
                break
            used += r["tokens"]
            out.append({"role": r["role"], "content": r["content"], "turn_id": r["turn_id"]})
        return list(reversed(out))

    def tokens(self, scope: Scope, session_id: str) -> int:
        return sum(m["tokens"] for m in self.store.window_messages(scope, session_id))

    def over_threshold(self, scope: Scope, session_id: str) -> bool:
        return self.tokens(scope, session_id) > self.cfg.summary_threshold

    def replace_with_summary(self, scope: Scope, session_id: str, summary: str) -> None:
        """The window becomes one summary message (docs/design.md seed 002 §2.2)."""
        with self.store.transaction():
            self.store.leave_window(scope, session_id, None)
            message = WindowMessage(
                session_id, SUMMARY_ROLE, summary, count_tokens(summary), None, self.clock.now()
            )
            self.store.append_message(scope, message)

    def captured_turn_ids(self, scope: Scope, session_id: str) -> set[str]:
        return self.store.captured_turn_ids(scope, session_id)

    def prune(self, user_id: str | None = None, agent_id: str | None = None) -> int:
        """Drop the messages the policy no longer keeps (of every user, one user, or one of its
        agents); return how many. A turn's user message stays as an empty row holding the key."""
        days, keep = self.cfg.prune_after_days, self.cfg.keep_per_session
        if days <= 0:
            return 0
        return self.store.prune_messages(user_id, agent_id, self.clock.now() - days * DAY, keep)


# The `summary` hook: a session's short-term window becomes one structured summary memory.
#
# Runs at session end, before the host compacts its context, and when the window goes over its
# token threshold. The summary keeps the ids of the turns it covers (its evidence); the window is
# then replaced by the summary, and at session end the session row points at it.

log = logging.getLogger(__name__)
#: at most this many of a compacted transcript's last messages make its summary
TRANSCRIPT_MESSAGES = 200


def _own_messages(scope: Scope, transcript: Sequence[Mapping[str, Any]]) -> list[dict]:
    """The user's and the assistant's messages of a transcript, as window rows; in a shared
    transcript (messages naming their sender) only this user's own and the replies."""
    shared = any(m.get("sender") for m in transcript if m.get("role") == "user")
    out = []
    for m in transcript:
        role, text = m.get("role"), message_text(m).strip()
        if role not in ("user", "assistant") or not text:
            continue
        if shared and role == "user" and m.get("sender") != scope.user_id:
            continue
        out.append({"role": role, "content": text, "turn_id": None})
    return out[-TRANSCRIPT_MESSAGES:]


class SessionSummaries:
    def __init__(
        self,
        writer: MemoryWriter,
        short_term: ShortTermMemory,
        sessions: Sessions,
        summarizer: Summarizer,
    ) -> None:
        self.writer = writer
        self.short_term = short_term
        self.sessions = sessions
        self.summarizer = summarizer

    def summarize(
        self,
        scope: Scope,
        session_id: str,
        reason: str,
        *,
        end: bool,
        transcript: Sequence[Mapping[str, Any]] = (),
        key: str | None = None,
    ) -> str | None:
        """Summarize the window (when it holds an exchange at least); end the session if asked.
        Returns the summary memory's id, or None when there was nothing to summarize.

        transcript: what the host is about to compact. When the window holds less than an
        exchange (a summary of a long session replaced it moments before), the transcript's
        own messages are summarized instead, so a compaction always leaves its summary.

        key: the capture id of the request that asked for it; a replay of that request (the
        process died before it was marked done) finds the summary it wrote and writes none."""
        window = [m for m in self.short_term.window(scope, session_id) if m["role"] != "summary"]
        source = "the recent window"
        if len(window) < 2 and transcript:
            window, source = _own_messages(scope, transcript), "the compacted transcript"
        summary_id = None
        if len(window) < 2:
            log.info(
                "%s summary of %s for %s: nothing to summarize (%d message(s) since the last "
                "summary)",
                reason,
                session_id,
                scope.user_id,
                len(window),
            )
        else:
            evidence = tuple(dict.fromkeys(m["turn_id"] for m in window if m.get("turn_id")))
            summary = self.summarizer.summarize(
                [Message(m["role"], m["content"]) for m in window], evidence
            )
            text = summary.render(with_evidence=False, langs=self.summarizer.langs)
            if text.strip():
                cand = Candidate(
                    MemoryType.SUMMARY,
                    text,
                    subject=f"session/{session_id}",
                    importance=tuned("session_summary.importance"),
                    confidence=tuned("session_summary.confidence"),
                    channel=Channel.SUMMARY,
                    turn_ids=evidence,
                    key=f"{key}:summary" if key else None,
                )
                written = self.writer.write(
                    scope, [cand], session_id=session_id, writer=f"summary-hook:{reason}"
                )
                summary_id = written[0].record.id if written[0].record else None
                self.short_term.replace_with_summary(scope, session_id, text)
                log.info(
                    "%s summary of %s for %s: %s %s from %d message(s) of %s",
                    reason,
                    session_id,
                    scope.user_id,
                    written[0].action,
                    summary_id,
                    len(window),
                    source,
                )
            else:
                log.info(
                    "%s summary of %s for %s: the summarizer found nothing to keep in %d "
                    "message(s)",
                    reason,
                    session_id,
                    scope.user_id,
                    len(window),
                )
        if end:
            self.sessions.end(scope, session_id, reason, summary_id)
        return summary_id


# The write path of a captured turn: filter -> short-term window -> extract -> consolidate -> store.
#
#     filter       secrets redacted, contentless turns carry no memory (lang/utterance.py)
#     window       the turn joins the session's short-term window (capture/pipeline.py)
#     extract      the extractor proposes candidates; the turn itself is logged as an episode
#     commands     an explicit "forget X" runs on its own path (forget.py), never consolidated
#     consolidate  the candidates are written by the writer (consolidate.py), then indexed
#     summary      when the window is over its threshold, it becomes a summary memory
#
# Queued captures run on the background worker; a batch of them is prepared (filtered, extracted
# and embedded in one call) before any of it is written.

__all__ = ["CapturePipeline"]


class CapturePipeline:
    """Turns -> stored memories, queued on the worker (`submit`) or at once (`ingest`)."""

    def __init__(
        self,
        store: StageStore,
        writer: MemoryWriter,
        indexer: Notify,
        clock: Clock,
        *,
        extractor: Extractor,
        secrets: SecretFilter,
        short_term: ShortTermMemory,
        sessions: Sessions,
        summaries: SessionSummaries,
        jobs: UserJobs,
        pending: PendingTurns,
        config: ExtractionConfig,
        langs: Languages | None = None,
    ) -> None:
        self.langs = langs or all_on()  # what a turn is (a filler, a request), rules switched off
        self.store = store
        self.writer = writer
        self.indexer = indexer
        self.clock = clock
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

    def submit_transcript(
        self,
        scope: Scope,
        session_id: str,
        messages: Sequence[Mapping[str, Any]],
        *,
        stored_turns: Sequence[str] = (),
    ) -> int:
        """Queue the capture of the scope's turns of a transcript not captured before; returns
        how many.

        Turns are known by a stable key (`capture.messages.transcript_turns`), so a transcript
        whose window slid or was compacted is captured where it left off. In a shared transcript
        (messages that name their `sender`) only the scope's user's own turns and the replies to
        them are taken. stored_turns: keys of turns whose memories the agent already stored
        through the memory tool; they are logged as episodes, nothing is extracted from them
        again.
        """
        everyone = transcript_turns(messages)
        mine = own_turns(everyone, scope.user_id)
        if len(mine) < len(everyone):
            log.debug(
                "capture for %s in %s: %d of %d turns are another sender's or nobody's, left out",
                scope.user_id,
                session_id,
                len(everyone) - len(mine),
                len(everyone),
            )
        done = self.short_term.captured_turn_ids(scope, session_id)
        turns = [
            Turn(scope, session_id, t.user, t.reply, f"{session_id}#{t.key}", self.clock.now())
            for t in mine
            if f"{session_id}#{t.key}" not in done
        ]
        claimed = set(self.pending.claim(scope, [t.turn_id or "" for t in turns]))
        new = [t for t in turns if t.turn_id in claimed]
        stored = frozenset(f"{session_id}#{k}" for k in stored_turns)
        for turn in new:
            self.submit(scope, [turn], logged_only=stored)
        return len(new)

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
        vectors = self.writer.embed([c for cands in stored for c in cands])
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
            command_of = ForgetCommand.from_candidate(command)
            forget_run(self.store, self.clock, scope, command_of, self.langs)
        cands = [
            dataclasses.replace(c, tags=tuple(dict.fromkeys((*c.tags, *tags)))) if tags else c
            for c in _to_store(extracted)
        ]
        vectors = prepared.vectors if prepared else None
        # The window (which marks a turn captured) and the turn's memories commit together: a
        # crash leaves both or neither, so a capture replayed from the service's journal after
        # a crash is written once, never skipped as captured with its memories missing.
        with self.store.transaction():
            for turn, (user, reply, found) in zip(turns, extracted):
                # a request for help is no part of what a session did: its summary never lists it
                if not any(c.type is MemoryType.EPISODE and asked_only(c.tags) for c in found):
                    self.short_term.add_turn(scope, sid, user, reply, turn.turn_id)
            written = (
                self.writer.write(
                    scope, cands, session_id=sid, writer="after_response", vectors=vectors
                )
                if cands
                else []
            )
        self.indexer.notify()  # the indexer looks again, now that the outbox rows are committed
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
        if not is_contentless(user, self.langs):
            asking = speaker == "user" and request_only(user, self.langs)
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
            extracted = attribute(extracted, turn.speaker, self.langs)
            cands.extend(extracted)
            # A "forget X" turn is not logged verbatim: the log would keep recalling X.
            if self.cfg.store_episodes and not any(c.forget for c in extracted):
                text = user if speaker == "user" else f"{speaker}: {user}"
                episode = episode_candidate(
                    text, speaker=speaker, turn_id=turn.turn_id, request=asking
                )
                cands.append(episode)
        if reply and self.cfg.store_assistant_episodes and not is_contentless(reply, self.langs):
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
