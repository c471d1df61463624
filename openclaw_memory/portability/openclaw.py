"""OpenClaw's built-in memory files, in and out: `MEMORY.md` and `memory/YYYY-MM-DD*.md`.

Over 600 lines: reading and writing one file format are kept together so the two directions agree.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import stat
import hashlib
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from ..errors import ValidationError
from ..lang import all_on
from ..lang.pack import format_table
from ..lang.entities import mentions_of
from ..lang.text import valid_unicode
from .jsonl import WORKSPACE_FILE_BYTES, WORKSPACE_TOTAL_BYTES
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from ..types import (
    AuditEntry,
    MemoryRecord,
    MemoryType,
    Status,
    SUBJECT_MAX_CHARS,
    Channel,
    Scope,
    Source,
    Turn,
)
from .files import (
    MANIFEST,
    digest,
    existing,
    open_dir,
    read_manifest,
    refuse_foreign,
    write_private,
    TYPE_TITLES,
    user_records,
)
from .jsonl import claim_decisions
from ..write import Storage
from ..store.ports import ConsoleStore
from .jsonl import write_claim
from ..embed.embedding import embed_with_parts
from ..lang.utterance import is_contentless
from ..core.policy import KEYED_TYPES, types_where

if TYPE_CHECKING:
    from ..extract.base import Extractor
    from ..extract.secrets import SecretFilter
    from ..write.consolidate.decide import Decisions

# Reading OpenClaw's memory files: `MEMORY.md` and `memory/YYYY-MM-DD*.md` into note entries.
#
# Each bullet, paragraph or user line of a transcript becomes one `NoteEntry`, timed at the note's
# date (or the session's time), with its file, line, heading and the annotations OpenClaw (and our
# own export) leave in comments; dreaming's managed blocks and fenced code are skipped. The layout
# is described in `openclaw.py`.
#
# A workspace is read as untrusted: no symbolic link is followed (a linked file or folder is
# skipped and named), nothing outside the workspace is read, and each file and all of them
# together are capped in size (limits.py).

log = logging.getLogger(__name__)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

# The file format's shapes are a format table (`lang/format/openclaw.yaml`); the words OpenClaw
# writes in them (its headings and labels) are each language's openclaw table.
_FORMAT = format_table("openclaw")
_LANGS = all_on()


def _words(entry: str) -> str:
    """The words of `entry` in every language's openclaw table, as one alternation."""
    return _LANGS.alternation("openclaw", entry)


_DAILY_NAME = _FORMAT["daily_name"].pattern
_PROMOTED = _FORMAT["promoted"].regex(promoted=_words("promoted"))
_SESSION_HEAD = _FORMAT["session_head"].regex(session=_words("session"))
_SESSION_META = _FORMAT["session_meta"].regex(
    session_id=_words("session_id"), labels=_words("session_meta")
)
#: the values of a session's id line that name no session
_NO_SESSION = frozenset(
    v for p in _LANGS.all() for v in p.table("openclaw").entry("session_id").setting("none", ())
)
_TRANSCRIPT = _FORMAT["transcript"].regex(user=_words("user"), assistant=_words("assistant"))
_MANAGED_START = _FORMAT["managed_start"].pattern
_MANAGED_END = _FORMAT["managed_end"].pattern
_TRIGGER = _FORMAT["trigger"].pattern
_TAG_SEPARATOR = _FORMAT["tag_separator"].pattern
_IMPORTANCE = _FORMAT["importance"].pattern
_PROJECT = _FORMAT["project"].pattern
# Our own export's annotations (OpenClaw ignores comments): a memory's subject and time of day.
_SUBJECT = _FORMAT["subject"].pattern
_TIME = _FORMAT["time"].pattern
_COMMENT = _FORMAT["comment"].pattern
_PROMO_META = _FORMAT["promo_meta"].pattern
_PROMO_SOURCE = _FORMAT["promo_source"].pattern
_BULLET = _FORMAT["bullet"].pattern
_FENCE = _FORMAT["fence"].pattern
_MAX_ENTRY = 4000


@dataclass(frozen=True)
class NoteEntry:
    """One memory-worthy piece of an OpenClaw memory file."""

    path: str  # relative to the workspace: "MEMORY.md", "memory/2026-09-01.md"
    line: int
    text: str
    at: float | None  # the note's date (epoch seconds, UTC), None when the file gives none
    curated: bool  # from MEMORY.md (the curated layer) rather than a daily note
    tags: tuple[str, ...] = ()
    importance: float | None = None
    session_id: str | None = None
    heading: str | None = None
    subject: str | None = None


def _day(y: str, m: str, d: str, hour: int = 0, minute: int = 0) -> float:
    return datetime(int(y), int(m), int(d), hour, minute, tzinfo=timezone.utc).timestamp()


@dataclass(frozen=True)
class _Notes:
    text: str
    tags: tuple[str, ...]
    importance: float | None  # in [0, 1]
    source_at: float | None  # date of a promoted entry's source note
    subject: str | None
    seconds: float | None  # time of day, from our own export


def _annotations(text: str) -> _Notes:
    """The entry's text without annotations, and what the annotations say."""
    tags: list[str] = []
    for m in _TRIGGER.finditer(text):
        tags += [t.strip() for t in _TAG_SEPARATOR.split(m.group(1)) if t.strip()]
    tags += [f"project:{m.group(1)}" for m in _PROJECT.finditer(text) if m.group(1)]
    imp = _IMPORTANCE.search(text)
    importance = min(10, max(1, int(imp.group(1)))) / 10 if imp else None
    src = _PROMO_SOURCE.search(text)
    at = _day(*src.group(1).split("-")) if src else None
    subject = _SUBJECT.search(text)
    tod = _TIME.search(text)
    clean = _COMMENT.sub(" ", _PROMO_META.sub(" ", text))
    return _Notes(
        " ".join(clean.split()),
        tuple(dict.fromkeys(tags)),
        importance,
        at,
        (subject.group(1) or None) if subject else None,
        int(tod.group(1)) * 3600 + int(tod.group(2)) * 60 if tod else None,
    )


class _Parser:
    """Reads one file's lines into entries; state is the current heading, date and session."""

    def __init__(self, path: str, text: str, *, curated: bool, at: float | None) -> None:
        self.path, self.curated, self.at = path, curated, at
        self.lines = text.splitlines()
        self.heading: str | None = None
        self.session: str | None = None
        self.entries: list[NoteEntry] = []
        self._buf: list[str] = []
        self._start = 0

    def parse(self) -> list[NoteEntry]:
        managed = fenced = False
        for number, raw in enumerate(self.lines, start=1):
            if _MANAGED_START.search(raw):
                self._flush()
                managed = not _MANAGED_END.search(raw)
                continue
            if managed:
                managed = not _MANAGED_END.search(raw)
                continue
            if _FENCE.match(raw):
                self._flush()
                fenced = not fenced
                continue
            if not fenced:
                self._line(number, raw)
        self._flush()
        return self.entries

    def _line(self, number: int, raw: str) -> None:
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped or _COMMENT.fullmatch(stripped):
            self._flush()
        elif stripped.startswith("#"):
            self._heading(stripped)
        elif m := _SESSION_META.match(stripped):
            self._flush()
            if m.group("id") and m.group("value").strip() not in _NO_SESSION:
                self.session = m.group("value").strip()
        elif m := _TRANSCRIPT.match(stripped):
            self._flush()
            if m.group("user"):
                self._start, self._buf = number, [_unquote(m.group("quoted"))]
                self._flush()
        elif m := _BULLET.match(line):
            self._flush()
            self._start, self._buf = number, [m.group(2)]
        elif line.startswith((" ", "\t")) or self._buf:
            if not self._buf:
                self._start = number
            self._buf.append(stripped)
        else:
            self._start, self._buf = number, [stripped]

    def _heading(self, stripped: str) -> None:
        self._flush()
        if m := _PROMOTED.match(stripped):
            self.at = _day(*m.group(1).split("-"))
        elif m := _SESSION_HEAD.match(stripped):
            y, mo, d = m.group(1).split("-")
            self.at = _day(y, mo, d, int(m.group(2)), int(m.group(3)))
        self.heading = stripped.lstrip("#").strip() or None

    def _flush(self) -> None:
        if not self._buf:
            return
        n = _annotations(" ".join(self._buf))
        self._buf = []
        if len(n.text) < 2:
            return
        at = n.source_at or self.at
        if at is not None and n.seconds is not None:
            at = at - at % 86400 + n.seconds
        self.entries.append(
            NoteEntry(
                self.path,
                self._start,
                n.text[:_MAX_ENTRY],
                at,
                self.curated,
                n.tags,
                n.importance,
                self.session,
                self.heading,
                n.subject,
            )
        )


def _unquote(quoted: str) -> str:
    try:
        value = json.loads(quoted)
    except ValueError:
        return quoted.strip('"')
    return value if isinstance(value, str) else quoted


def parse_file(path: Path, rel: str, *, cap: int = WORKSPACE_FILE_BYTES) -> list[NoteEntry]:
    """The entries of one OpenClaw memory file (`rel`: its path inside the workspace)."""
    text, mtime = read_file(path, rel, cap)
    name = _DAILY_NAME.match(path.name)
    # MEMORY.md has no date of its own but its promotion sections': its entries are as old as the file
    at = _day(name.group(1), name.group(2), name.group(3)) if name else mtime
    return _Parser(
        rel, valid_unicode(text), curated=path.name.upper() == "MEMORY.MD", at=at
    ).parse()


def read_file(path: Path, rel: str, cap: int) -> tuple[str, float]:
    """The text and modification time of a regular file, opened without following a link and
    refused by name when larger than `cap` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ValidationError(f"{rel}: a symbolic link; an import never follows one") from None
        raise ValidationError(f"{rel}: cannot read ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise ValidationError(f"{rel}: expected a regular file")
        data = fh.read(cap + 1)
    if len(data) > cap:
        raise _too_big(rel, cap)
    return data.decode("utf-8", errors="replace"), st.st_mtime


def _too_big(rel: str, cap: int) -> ValidationError:
    return ValidationError(
        f"{rel}: larger than the cap of {cap} bytes for one memory file; "
        "split it, or import a smaller one; nothing was imported"
    )


@dataclass
class Workspace:
    """The memory files of a workspace to read, and what was left out (links, outside files)."""

    files: list[tuple[Path, str]]
    skipped: list[str]


def _inside(root: Path, p: Path, rel: str, skipped: list[str]) -> bool:
    """A regular file or folder of the workspace itself: no link, nothing that resolves outside."""
    if p.is_symlink():
        skipped.append(f"{rel}: a symbolic link, not followed")
        log.warning("workspace import: %s is a symbolic link; skipped", rel)
        return False
    if not p.resolve().is_relative_to(root):
        skipped.append(f"{rel}: outside the workspace, not read")
        log.warning("workspace import: %s lies outside the workspace; skipped", rel)
        return False
    return True


def workspace_files(root: Path) -> Workspace:
    """The workspace's MEMORY.md and dated daily notes, MEMORY.md first (`root` may also be one
    such file). No symbolic link is followed and no file outside the workspace is read: such
    entries are skipped and named in `skipped`."""
    if root.is_symlink():
        raise ValidationError(f"path: {root.name} is a symbolic link; an import never follows one")
    if root.is_file():
        return Workspace([(root, root.name)], [])
    if not root.is_dir():
        raise ValidationError(
            f"path: expected an OpenClaw workspace directory or a memory file, found {root.name}"
        )
    base, skipped = root.resolve(), list[str]()
    files = [
        (p, p.name)
        for p in (root / "MEMORY.md", root / "memory.md")
        if (p.is_file() or p.is_symlink()) and _inside(base, p, p.name, skipped) and p.is_file()
    ][:1]
    notes = root / "memory"
    if notes.exists() or notes.is_symlink():
        if _inside(base, notes, "memory/", skipped) and notes.is_dir():
            for p in sorted(notes.iterdir()):
                rel = f"memory/{p.name}"
                if _DAILY_NAME.match(p.name) and _inside(base, p, rel, skipped) and p.is_file():
                    files.append((p, rel))
    if not files:
        raise ValidationError(
            f"path: {root.name} holds neither MEMORY.md nor memory/YYYY-MM-DD.md notes"
            + (f" that may be read ({'; '.join(skipped)})" if skipped else "")
        )
    return Workspace(files, skipped)


def read_workspace(root: Path) -> list[NoteEntry]:
    """Every entry of a workspace (or of one file), in file order (`load_workspace`)."""
    return load_workspace(root)[0]


def load_workspace(
    root: Path,
    *,
    file_cap: int = WORKSPACE_FILE_BYTES,
    total_cap: int = WORKSPACE_TOTAL_BYTES,
) -> tuple[list[NoteEntry], list[str]]:
    """Every entry of a workspace (or of one file), in file order, and what was skipped. Each
    file is capped at `file_cap` bytes and all of them together at `total_cap`."""
    ws = workspace_files(root)
    total = 0
    for path, rel in ws.files:
        size = os.lstat(path).st_size
        if size > file_cap:
            raise _too_big(rel, file_cap)
        total += size
        if total > total_cap:
            raise ValidationError(
                f"{rel}: the workspace's memory files pass the cap of {total_cap} bytes together; "
                "import fewer at a time; nothing was imported"
            )
    entries = [e for path, rel in ws.files for e in parse_file(path, rel, cap=file_cap)]
    return entries, ws.skipped


# Writing OpenClaw's memory files: a user's live memories as `MEMORY.md` (curated types, one
# section each) and `memory/YYYY-MM-DD.md` (events, episodes and summaries by day), with the
# annotations OpenClaw reads (trigger, importance) and our own (subject, time of day) in comments,
# so that an export imports back as the same memories. The files are written privately
# (files.py).

#: the types written to the daily notes; the others go to MEMORY.md under their title
DAILY_TYPES = (MemoryType.EVENT, MemoryType.EPISODE, MemoryType.SUMMARY)


def _bullet(r: MemoryRecord, *, daily: bool = False) -> str:
    text = " ".join(r.summary.split())
    notes = (
        [f"<!-- subject: {' '.join(r.subject.split()).replace('--', '- -')} -->"]
        if r.subject
        else []
    )
    if daily:
        notes.append(
            f"<!-- time: {datetime.fromtimestamp(r.created_at, tz=timezone.utc):%H:%M} -->"
        )
    tags = [t for t in r.tags if t != "openclaw" and not t.startswith("project:")]
    if tags:
        notes.append(f"<!-- trigger: {', '.join(t.replace(',', ' ') for t in tags[:3])} -->")
    notes.append(f"<!-- importance: {min(10, max(1, round(r.importance * 10)))} -->")
    return f"- {text} " + " ".join(notes)


def render_workspace(records: list[MemoryRecord]) -> dict[str, str]:
    """relative path -> content of the OpenClaw layout for these (live) records."""
    live = sorted(
        (r for r in records if r.status is Status.ACTIVE), key=lambda r: (r.created_at, r.id)
    )
    memory = ["# Long-Term Memory", ""]
    for kind, title in TYPE_TITLES.items():
        items = [r for r in live if r.type is kind and kind not in DAILY_TYPES]
        if items:
            memory += [f"## {title}", "", *(_bullet(r) for r in items), ""]
    files = {"MEMORY.md": "\n".join(memory).rstrip() + "\n"}
    days: dict[str, list[MemoryRecord]] = {}
    for r in live:
        if r.type in DAILY_TYPES:
            days.setdefault(
                datetime.fromtimestamp(r.created_at, tz=timezone.utc).strftime("%Y-%m-%d"), []
            ).append(r)
    for day, items in days.items():
        body = [f"# {day}", ""]
        body += [_bullet(r, daily=True) for r in items]
        files[f"memory/{day}.md"] = "\n".join(body) + "\n"
    return files


def export_workspace(
    store: ConsoleStore,
    user_id: str,
    out_dir: Path,
    agent_id: str | None = None,
    *,
    force: bool = False,
) -> dict[str, int]:
    """Write MEMORY.md and memory/YYYY-MM-DD.md for a user's live memories into out_dir.

    Files are 0600 and folders 0700 (files.py); a symbolic link in the folder is refused; a file
    already there is replaced only when the previous export here wrote it as it is (its
    manifest), or with `force`. Every file is checked before the first is written."""
    files = render_workspace(user_records(store, user_id, agent_id))
    root = open_dir(out_dir)
    fds: dict[str, int] = {"": root}
    try:
        manifest = read_manifest(root)
        plan = []
        for rel in iter_paths(files):
            folder, _, name = rel.rpartition("/")
            if folder not in fds:
                fds[folder] = open_dir(Path(folder), parent_fd=root)
            old = existing(fds[folder], name, out_dir / rel)
            if old is not None and not force and manifest.get(rel) != digest(old):
                raise refuse_foreign(out_dir / rel)
            plan.append((fds[folder], name, rel, files[rel].encode("utf-8")))
        existing(root, MANIFEST, out_dir / MANIFEST)  # a link in its place is refused too
        for fd, name, _, content in plan:
            write_private(fd, name, content)
        record = {"files": {rel: digest(content) for _, _, rel, content in plan}}
        write_private(root, MANIFEST, json.dumps(record, sort_keys=True).encode("utf-8"))
    finally:
        for fd in fds.values():
            os.close(fd)
    return {"files": len(files), "memories": sum(c.count("\n- ") for c in files.values())}


def iter_paths(files: dict[str, str]) -> Iterator[str]:
    """The relative paths of a rendered workspace, MEMORY.md first."""
    yield from sorted(files, key=lambda p: (p != "MEMORY.md", p))


# OpenClaw's built-in memory files, in and out: `MEMORY.md` and `memory/YYYY-MM-DD*.md`.
#
# The layout OpenClaw 2026.9.6 writes (docs/concepts/memory.md, memory-architecture.md and the
# memory-core / session-memory sources):
#
# - `MEMORY.md`: the curated layer, free Markdown; the agent and the dreaming sweep add bullets.
#   A promoted entry is a marker line `<!-- openclaw-memory-promotion:KEY -->` followed by
#   `- snippet [score=0.812 signals=3 recalls=2 avg=0.700 source=memory/2026-08-30.md:3-5]
#   <!-- trigger: a, b --> <!-- importance: 8 -->` under `## Promoted From Short-Term Memory (DAY)`;
#   `<!-- project: KEY -->` may trail an entry too.
# - `memory/YYYY-MM-DD.md` (or `-<slug>.md`): daily notes, free Markdown. The session-memory hook
#   writes `memory/YYYY-MM-DD-HHMM.md` as `# Session: YYYY-MM-DD HH:MM TZ`, `- **Session Key**: ...`,
#   `- **Session ID**: ...`, then `## Conversation Summary` and lines `user: "<JSON string>"` /
#   `assistant: "<JSON string>"`. Dreaming keeps managed blocks between
#   `<!-- openclaw:dreaming:<phase>:start -->` and `...:end -->` (machine output, skipped here).
#
# Import: each bullet, paragraph or user line becomes one typed record (the rule extractor names
# its type and subject; otherwise a `MEMORY.md` entry is a fact and a daily-note entry an episode),
# timed at the note's date, on the `imported` channel with the file and line as its provenance
# (shown by `show`, `list` and the console). Secrets are stripped first. A record's id is a hash of
# the user, agent and text, so a second import adds nothing, and a text already stored (as any
# type) is not stored again. Claims go through check-before-write with the source priority
# explicit > admin > imported > implicit: an imported line never overrides what the user stated
# (it is kept inactive, for the record), never leaves two live values of one subject, and a later
# conversational change supersedes it. Export writes the same layout back.
#
# Reading the files is `openclaw_read.py`, writing them `openclaw_write.py`; this module turns what
# was read into records.

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

    def __init__(self, storage: Storage, extractor: Extractor, secrets: SecretFilter) -> None:
        self.storage = storage
        self.extractor = extractor
        self.secrets = secrets
        self._decisions: Decisions | None = None

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
            if len(text) < 0.4 * len(e.text) or is_contentless(text, self.storage.langs):
                text = ""
        if len(text) < 2:
            counts["empty"] += 1
            return None
        kind, subject, entities, importance, confidence = self._typed(scope, text, e)
        # the annotations a file carries (subject, triggers) are text from the file too
        subject = self.secrets.redact(e.subject[:SUBJECT_MAX_CHARS]) if e.subject else subject
        at = e.at if e.at is not None else self.storage.clock.now()
        tags = tuple(dict.fromkeys([*map(self.secrets.redact, e.tags), "openclaw"]))
        expires = (
            at + self.storage.config.forgetting.task_ttl_days * 86400
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
            if self.storage.store.holds(scope, r):
                counts["existing"] += 1
            else:
                fresh.append(r)
        return fresh

    def _store(self, records: list[MemoryRecord]) -> dict[str, int]:
        """Write the drafts in one transaction: a claim (profile, preference, fact, task) goes
        through check-before-write like a claim said in conversation, on the imported channel
        (below explicit and admin: an imported line never overrides what the user stated; what
        the user says later corrects it); episodes and other entries are appended as they are."""
        storage = self.storage
        actions: dict[str, int] = {}
        vectors = []
        for start in range(0, len(records), 256):
            batch = records[start : start + 256]
            vecs = embed_with_parts(
                storage.embedder, [r.text for r in batch], storage.config.long_term.sentence_vectors
            )
            vectors += list(zip(vecs.whole, vecs.parts))
        try:
            with storage.store.transaction():
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
        storage.written()
        return actions

    def _one(self, r: MemoryRecord, vec: Any, parts: Any) -> str:
        """Write one draft in the caller's transaction; what was done ("insert", "doubt", ...)."""
        storage = self.storage
        if r.type not in KEYED_TYPES:
            storage.store.insert(r, vec, storage.model_name, mentions=mentions_of(r, storage.langs))
            storage.store.put_parts(r, parts)
            storage.store.audit(
                AuditEntry(
                    r.scope,
                    r.id,
                    "insert",
                    f"imported from {r.source.turn_ids[0]}",
                    storage.clock.now(),
                    r.source.channel.value,
                    r.source.writer,
                ),
            )
            return "insert"
        if self._decisions is None:
            self._decisions = claim_decisions(storage)
        return write_claim(storage, self._decisions, r, vec, parts, r.source.turn_ids[0])
