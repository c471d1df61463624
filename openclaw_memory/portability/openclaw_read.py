"""Reading OpenClaw's memory files: `MEMORY.md` and `memory/YYYY-MM-DD*.md` into note entries.

Each bullet, paragraph or user line of a transcript becomes one `NoteEntry`, timed at the note's
date (or the session's time), with its file, line, heading and the annotations OpenClaw (and our
own export) leave in comments; dreaming's managed blocks and fenced code are skipped. The layout
is described in `openclaw.py`.

A workspace is read as untrusted: no symbolic link is followed (a linked file or folder is
skipped and named), nothing outside the workspace is read, and each file and all of them
together are capped in size (limits.py).
"""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import stat
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..errors import ValidationError
from ..lang.text import valid_unicode
from .limits import WORKSPACE_FILE_BYTES, WORKSPACE_TOTAL_BYTES

log = logging.getLogger(__name__)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

_DAILY_NAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:-[^/]*)?\.md$")
_PROMOTED = re.compile(r"^##\s+Promoted From Short-Term Memory \((\d{4}-\d{2}-\d{2})[^)]*\)\s*$")
_SESSION_HEAD = re.compile(r"^#\s+Session:\s+(\d{4}-\d{2}-\d{2})\s+(\d{1,2}):(\d{2})")
_SESSION_META = re.compile(r"^[-*]\s+\*\*(Session Key|Session ID|Source|Reason)\*\*:\s*(.*)$")
_TRANSCRIPT = re.compile(r'^(user|assistant):\s+(".*")\s*$')
_MANAGED_START = re.compile(r"<!--\s*openclaw:dreaming:[\w-]+:start\s*-->")
_MANAGED_END = re.compile(r"<!--\s*openclaw:dreaming:[\w-]+:end\s*-->")
_TRIGGER = re.compile(r"<!--\s*trigger:\s*(.*?)\s*-->")
_IMPORTANCE = re.compile(r"<!--\s*importance:\s*(\d+)\s*-->")
_PROJECT = re.compile(r"<!--\s*project:\s*(.*?)\s*-->")
# Our own export's annotations (OpenClaw ignores comments): a memory's subject and time of day.
_SUBJECT = re.compile(r"<!--\s*subject:\s*(.*?)\s*-->")
_TIME = re.compile(r"<!--\s*time:\s*(\d{1,2}):(\d{2})\s*-->")
_COMMENT = re.compile(r"<!--.*?-->")
_PROMO_META = re.compile(r"\s*\[score=[^\]]*\]")
_PROMO_SOURCE = re.compile(r"source=(?:[^\]\s]*/)?(\d{4}-\d{2}-\d{2})[^\]\s]*")
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
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
        tags += [t.strip() for t in re.split(r"[,;]", m.group(1)) if t.strip()]
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
            if m.group(1) == "Session ID" and m.group(2).strip() not in ("", "unknown"):
                self.session = m.group(2).strip()
        elif m := _TRANSCRIPT.match(stripped):
            self._flush()
            if m.group(1) == "user":
                self._start, self._buf = number, [_unquote(m.group(2))]
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
