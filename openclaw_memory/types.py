"""Core values of the memory layer: frozen dataclasses and enums.

Every other module speaks in these types. Times are UTC epoch seconds (floats) read from the
injected clock; scores are in [0, 1], higher is better.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from .errors import ValidationError

_ID_PART = re.compile(r"[A-Za-z0-9_.:@+\-]{1,128}")  # fullmatch: "$" would let "alice\n" through


class MemoryType(str, enum.Enum):
    """What a memory is for; each type has its own write, decay and render policy."""

    PROFILE = "profile"
    PREFERENCE = "preference"
    FACT = "fact"
    EVENT = "event"
    DECISION = "decision"
    TASK = "task"
    SUMMARY = "summary"
    # The episodic log: one conversation turn kept verbatim as evidence (docs/design.md "two layers").
    EPISODE = "episode"
    # How a kind of task was done (the tool steps that worked, the step that failed and its fix),
    # distilled from a session's tool events (openclaw_memory/procedure/).
    PROCEDURE = "procedure"


class Channel(str, enum.Enum):
    """How a memory entered the store; also its trust on conflict (`policy.TRUST_ORDER`)."""

    EXPLICIT = "explicit"
    ADMIN = "admin"  # written by an operator's tool (imports, before they had their own)
    IMPORTED = "imported"  # read from a file (portability/): below admin, above conversation
    IMPLICIT = "implicit"
    TOOL = "tool"
    SUMMARY = "summary"


#: per-type rules and the trust order live in core/policy.py (which imports this module); these names
#: stay importable from here for code written before the table
_MOVED_TO_POLICY = frozenset({"KEYED_TYPES", "APPEND_ONLY_TYPES", "CHANNEL_PRIORITY"})


def __getattr__(name: str) -> Any:
    """The names that moved to core/policy.py, read from there on first use (PEP 562)."""
    if name in _MOVED_TO_POLICY:
        from .core import policy

        return getattr(policy, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Status(str, enum.Enum):
    """A record's life: active (recalled), inactive (forgotten or superseded, kept for audit),
    archived (expired or compacted: deep recall only)."""

    ACTIVE = "active"
    INACTIVE = "inactive"
    ARCHIVED = "archived"


def _check_id(name: str, value: str) -> str:
    if not isinstance(value, str) or not _ID_PART.fullmatch(value):
        raise ValidationError(
            f"{name}: expected 1-128 characters of letters, digits or _.:@+-, found {value!r}"
        )
    return value


@dataclass(frozen=True)
class Scope:
    """Who a memory belongs to. Every read and write carries one (docs/design.md invariant 1)."""

    user_id: str
    agent_id: str = "default"
    workspace: str | None = None

    def __post_init__(self) -> None:
        _check_id("scope.user_id", self.user_id)
        _check_id("scope.agent_id", self.agent_id)
        if self.workspace is not None:
            _check_id("scope.workspace", self.workspace)

    @property
    def key(self) -> str:
        """A stable string naming the (user, agent) partition."""
        return f"{self.user_id}\x1f{self.agent_id}"


@dataclass(frozen=True)
class Source:
    """Provenance (docs/design.md invariant 5): who wrote it, through which channel, from which turns."""

    channel: Channel = Channel.IMPLICIT
    session_id: str | None = None
    turn_ids: tuple[str, ...] = ()
    writer: str = "openclaw-memory"


#: the longest text one memory takes (`remember`'s text, an imported summary or detail): one
#: cap for every door, so no door stores what another would refuse
TEXT_MAX_CHARS = 20_000
#: the longest subject `remember` takes, and so an import
SUBJECT_MAX_CHARS = 500


def memory_text(subject: str | None, summary: str, detail: str | None) -> str:
    """A memory's embedded and keyword-indexed text: subject, summary, detail."""
    head = f"{subject}: {summary}" if subject else summary
    return f"{head}\n{detail}" if detail else head


@dataclass(frozen=True)
class MemoryRecord:
    """One stored memory. SQLite holds the truth; the vector index is derived from it."""

    id: str
    scope: Scope
    type: MemoryType
    summary: str
    subject: str | None = None
    detail: str | None = None
    session_id: str | None = None
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    importance: float = 0.5
    confidence: float = 1.0
    source: Source = field(default_factory=Source)
    status: Status = Status.ACTIVE
    version: int = 1
    prev_id: str | None = None
    superseded_at: float | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    last_accessed_at: float | None = None
    access_count: int = 0
    expires_at: float | None = None
    #: id of a confident record this low-certainty claim contradicts (kept as a doubt).
    doubt_of: str | None = None
    #: for decisions: ids of the facts they decide; for summaries: the records they replace.
    links: tuple[str, ...] = ()

    def replace(self, **changes: Any) -> "MemoryRecord":
        """A copy with the given fields changed."""
        return dataclasses.replace(self, **changes)

    @property
    def text(self) -> str:
        """The text that is embedded and keyword-indexed."""
        return memory_text(self.subject, self.summary, self.detail)


@dataclass(frozen=True)
class Candidate:
    """A memory proposed by extraction, before consolidation decides insert/update/skip."""

    type: MemoryType
    summary: str
    subject: str | None = None
    detail: str | None = None
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    importance: float = 0.5
    confidence: float = 0.8
    channel: Channel = Channel.IMPLICIT
    turn_ids: tuple[str, ...] = ()
    ttl_seconds: float | None = None
    links: tuple[str, ...] = ()
    #: explicit "forget X" commands: deactivate matching memories instead of storing.
    forget: bool = False
    #: the old value or attribute this claim replaces ("Acme" in "left Acme, joined Globex"):
    #: consolidation retires the live memory that states it (rule chain and LLM chain fill it)
    replaces: str | None = None
    #: a stable key of the request that made it (a journaled capture's id and the candidate's
    #: part in it): the record's id follows from it, so a replay of the request stores nothing
    key: str | None = None

    @property
    def text(self) -> str:
        """The text its record will have (`MemoryRecord.text`), so it can be embedded ahead."""
        return memory_text(self.subject, self.summary.strip(), self.detail)


@dataclass(frozen=True)
class WriteResult:
    """What consolidation did with one candidate."""

    action: str  # "insert" | "update" | "skip" | "doubt" | "forget"
    record: MemoryRecord | None
    reason: str
    replaced_id: str | None = None
    #: ids a forget command deactivated
    affected: tuple[str, ...] = ()


@dataclass(frozen=True)
class AuditEntry:
    """One row of the audit trail: what was done to a record (or to a scope, `record_id` None),
    when, why, and through which channel and writer."""

    scope: Scope
    record_id: str | None
    action: str
    reason: str
    at: float
    channel: str | None = None
    writer: str | None = None


@dataclass(frozen=True)
class WindowMessage:
    """A message of a session's short-term window as stored: its role, text, token count, the
    turn it came from (None for a summary of the window) and when."""

    session_id: str
    role: str
    content: str
    tokens: int
    turn_id: str | None
    at: float


@dataclass(frozen=True)
class Message:
    """An OpenAI-style chat message."""

    role: str
    content: str
    name: str | None = None


@dataclass(frozen=True)
class Turn:
    """One user/assistant exchange as captured by after_response."""

    scope: Scope
    session_id: str
    user: str
    assistant: str = ""
    turn_id: str | None = None
    at: float | None = None
    speaker: str | None = None


@dataclass(frozen=True)
class ScoredMemory:
    """A recall candidate with its component scores (each in [0, 1]) and its fate."""

    record: MemoryRecord
    score: float
    components: Mapping[str, float] = field(default_factory=dict)
    channels: tuple[str, ...] = ()
    rank: int = 0
    kept: bool = True
    reason: str = ""
    #: an episode delivered with its neighbouring turns: the window in session order, the
    #: episode itself included (empty: the record alone)
    context: tuple[MemoryRecord, ...] = ()

    @property
    def turn_ids(self) -> tuple[str, ...]:
        """The dialogue turns this candidate delivers: its provenance and its window's."""
        ids = [*self.record.source.turn_ids, *(t for c in self.context for t in c.source.turn_ids)]
        return tuple(dict.fromkeys(ids))


@dataclass(frozen=True)
class InjectionPlan:
    """Everything a recall decided: the block, where it goes and why each memory is there."""

    block: str
    position: str
    query: str
    candidates: Sequence[ScoredMemory] = ()
    sections: Mapping[str, int] = field(default_factory=dict)
    tokens: int = 0
    to_confirm: Sequence[MemoryRecord] = ()


@dataclass(frozen=True)
class ToolEvent:
    """One finished tool call as the host reports it (after_tool_call)."""

    tool: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    outcome: str = ""
    ok: bool = True
    files: tuple[str, ...] = ()
    duration_ms: float | None = None
    #: the capture id of the request that reported it (its event memory's stable key), if any
    key: str | None = None
