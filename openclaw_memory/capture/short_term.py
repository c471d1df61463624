"""Short-term memory: each session's sliding window, bounded by tokens, persisted in the record store.

Eviction drops the oldest messages until the window fits `max_tokens` and `window_size` (docs/design.md seed 002
§2.1: by tokens, not by count alone). Messages leave the window but stay in the table, so a
summary can cite them and a restarted process restores the window as it was. Maintenance prunes
them later (`prune`): once out of the window and older than `prune_after_days`, unless they are
among their session's newest `keep_per_session`. A pruned turn leaves its key behind (the user
message's row, emptied), because hosts send whole transcripts again (OpenClaw's agent_end does,
every turn): without the key, a long session's old turns would be captured a second time.
"""

from __future__ import annotations

from ..core.clock import DAY, Clock
from ..config import ShortTermConfig
from ..store.ports import RecordStore
from ..core.tokens import count_tokens
from ..types import Scope

SUMMARY_ROLE = "summary"


class ShortTermMemory:
    def __init__(self, store: RecordStore, cfg: ShortTermConfig, clock: Clock) -> None:
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
        self.store.append_message(
            scope, session_id, role, content, count_tokens(content), turn_id, self.clock.now()
        )
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
        return self.store.window_tokens(scope, session_id)

    def over_threshold(self, scope: Scope, session_id: str) -> bool:
        return self.tokens(scope, session_id) > self.cfg.summary_threshold

    def replace_with_summary(self, scope: Scope, session_id: str, summary: str) -> None:
        """The window becomes one summary message (docs/design.md seed 002 §2.2)."""
        with self.store.transaction():
            self.store.leave_window(scope, session_id, None)
            self.store.append_message(
                scope,
                session_id,
                SUMMARY_ROLE,
                summary,
                count_tokens(summary),
                None,
                self.clock.now(),
            )

    def captured_turn_ids(self, scope: Scope, session_id: str) -> set[str]:
        return self.store.captured_turn_ids(scope, session_id)

    def prune(self, user_id: str | None = None, agent_id: str | None = None) -> int:
        """Drop the messages the policy no longer keeps (of every user, one user, or one of its
        agents); return how many. A turn's user message stays as an empty row holding the key."""
        days, keep = self.cfg.prune_after_days, self.cfg.keep_per_session
        if days <= 0:
            return 0
        return self.store.prune_messages(user_id, agent_id, self.clock.now() - days * DAY, keep)
