"""The files an export writes: privately and without surprises, and the readable Markdown one."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from ..errors import ValidationError
from ..core.clock import Clock, iso_time
from ..store.ports import ConsoleStore
from ..types import MemoryRecord, MemoryType, Scope, Status

# Writing an export's files privately and without surprises.
#
# A user's whole memory is in an export, so its files are created 0600 and its folders 0700
# whatever the umask (the store itself is 0700/0600). Nothing is written through a symbolic link:
# the output folder and every file or folder inside it are opened with `O_NOFOLLOW` relative to
# their parent's descriptor, so a link planted in the folder is refused, not followed. A file that
# is already there is replaced only when this package wrote it (a JSON Lines export's header, a
# Markdown export's title, or a file of a workspace export whose content still matches the
# manifest that export left), or with `force`; the replacement is written beside it and renamed
# over it, so a reader never sees half a file.

FILE_MODE = 0o600
DIR_MODE = 0o700
#: the list of files (and their digests) a workspace export wrote, kept beside them
MANIFEST = ".openclaw-memory-export.json"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
#: how much of an existing single-file export is read to recognise it
_HEAD = 4096
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def digest(content: bytes) -> str:
    """The sha256 of a file's content, as the manifest keeps it."""
    return hashlib.sha256(content).hexdigest()


def open_dir(path: Path, *, parent_fd: int | None = None, create: bool = True) -> int:
    """A descriptor of the folder `path` (a name inside `parent_fd` when given), created 0700 when
    missing; a symbolic link, or anything but a folder, is refused by name."""
    name = path.name if parent_fd is not None else str(path)
    if create:
        try:
            if parent_fd is None:
                path.parent.mkdir(parents=True, exist_ok=True)
            os.mkdir(name, DIR_MODE, dir_fd=parent_fd)
            _chmod_created(name, parent_fd, DIR_MODE)
        except FileExistsError:
            pass
        except OSError as exc:
            raise ValidationError(
                f"out: cannot create the folder {path} ({exc.strerror})"
            ) from None
    try:
        st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
    except OSError as exc:
        raise ValidationError(f"out: cannot open the folder {path} ({exc.strerror})") from None
    if stat.S_ISLNK(st.st_mode):
        raise ValidationError(
            f"out: {path} is a symbolic link; an export never writes through a link"
        )
    if not stat.S_ISDIR(st.st_mode):
        raise ValidationError(f"out: {path} exists and is not a folder")
    return os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=parent_fd)


def _chmod_created(name: str, dir_fd: int | None, mode: int) -> None:
    """The mode asked for, whatever the umask took away (only on what was just created)."""
    fd = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=dir_fd)
    try:
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


def existing(dir_fd: int, name: str, shown: Path, limit: int = -1) -> bytes | None:
    """The content (its first `limit` bytes, when given) of the regular file `name` in the
    folder, None when there is none; a link or anything but a regular file is refused by name."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise ValidationError(
            f"out: {shown} is a symbolic link; an export never writes through a link"
        )
    if not stat.S_ISREG(st.st_mode):
        raise ValidationError(f"out: {shown} exists and is not a regular file")
    fd = os.open(name, os.O_RDONLY | _NOFOLLOW, dir_fd=dir_fd)
    with os.fdopen(fd, "rb") as fh:
        return fh.read(limit)


def write_private(dir_fd: int, name: str, content: bytes) -> None:
    """Write `name` in the folder as a new 0600 file, renamed over any file of that name."""
    tmp = f".{name}.{os.getpid()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW
    try:
        fd = os.open(tmp, flags, FILE_MODE, dir_fd=dir_fd)
    except FileExistsError:  # left by an export that died: ours, and never followed
        os.unlink(tmp, dir_fd=dir_fd)
        fd = os.open(tmp, flags, FILE_MODE, dir_fd=dir_fd)
    try:
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, "wb") as fh:
            fh.write(content)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        raise


def refuse_foreign(shown: Path) -> ValidationError:
    """The error for a file this package did not write."""
    return ValidationError(
        f"out: {shown} already exists and was not written by an export; "
        "choose another path, or pass --force to replace it"
    )


def write_file(path: Path, content: bytes, *, ours: Callable[[bytes], bool], force: bool) -> None:
    """Write one export file at `path` privately; an existing file is replaced only when
    `ours(old content)` says this package wrote it, or with `force`."""
    parent = open_dir(path.parent)
    try:
        old = existing(parent, path.name, path, limit=_HEAD)
        if old is not None and not force and not ours(old):
            raise refuse_foreign(path)
        write_private(parent, path.name, content)
    finally:
        os.close(parent)


def read_manifest(dir_fd: int) -> dict[str, str]:
    """relative path -> digest of what the last workspace export here wrote ({} when none)."""
    try:
        raw = existing(dir_fd, MANIFEST, Path(MANIFEST))
    except ValidationError:
        return {}
    if raw is None:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else {}


# A readable Markdown export: a user's memories by type, newest first, with their facts.
#
# For people, not for machines (the JSON Lines export is the one that round-trips). Live memories
# come first, one section per type; inactive (forgotten or replaced) and archived ones follow in
# their own sections, so a reader sees at a glance what the agent would use.

#: section order and titles
TYPE_TITLES: dict[MemoryType, str] = {
    MemoryType.PROFILE: "Profile",
    MemoryType.PREFERENCE: "Preferences",
    MemoryType.FACT: "Facts",
    MemoryType.DECISION: "Decisions",
    MemoryType.TASK: "Tasks",
    MemoryType.PROCEDURE: "Procedures",
    MemoryType.EVENT: "Events",
    MemoryType.SUMMARY: "Session summaries",
    MemoryType.EPISODE: "Conversation log",
}


def user_records(
    store: ConsoleStore, user_id: str, agent_id: str | None = None
) -> list[MemoryRecord]:
    """Every record of a user (every agent, or one), newest first."""
    Scope(user_id, agent_id or "default")
    return store.user_records(user_id, agent_id, newest_first=True)


def _escape(text: str) -> str:
    """One line of Markdown text: newlines folded, leading markup characters neutralised."""
    line = " ".join(text.split())
    return "\\" + line if line[:1] in "#>-*+|" else line


def _entry(r: MemoryRecord) -> list[str]:
    head = f"**{_escape(r.subject)}**: " if r.subject else ""
    lines = [f"- {head}{_escape(r.summary)}"]
    if r.detail:
        lines.append(f"  {_escape(r.detail)}")
    facts = [
        r.status.value,
        f"v{r.version}",
        iso_time(r.created_at) + " UTC",
        f"importance {r.importance:.2f}",
        f"confidence {r.confidence:.2f}",
    ]
    if r.tags:
        facts.append("tags: " + ", ".join(r.tags))
    if r.scope.agent_id != "default":
        facts.append(f"agent {r.scope.agent_id}")
    facts.append(f"id `{r.id}`")
    lines.append("  _" + " · ".join(facts) + "_")
    return lines


def _section(title: str, records: Iterable[MemoryRecord]) -> list[str]:
    items = list(records)
    if not items:
        return []
    out = [f"## {title} ({len(items)})", ""]
    for r in items:
        out += _entry(r)
    return [*out, ""]


def render_markdown(records: list[MemoryRecord], user_id: str, exported_at: float) -> str:
    """The Markdown document for these records."""
    live = [r for r in records if r.status is Status.ACTIVE]
    out = [
        f"# Memories of {_escape(user_id)}",
        "",
        f"Exported {iso_time(exported_at)} UTC: {len(records)} memories ({len(live)} active).",
        "",
    ]
    for kind, title in TYPE_TITLES.items():
        out += _section(title, (r for r in live if r.type is kind))
    out += _section("Archived", (r for r in records if r.status is Status.ARCHIVED))
    out += _section(
        "Inactive (forgotten or replaced)", (r for r in records if r.status is Status.INACTIVE)
    )
    return "\n".join(out).rstrip() + "\n"


def export_markdown(
    store: ConsoleStore, clock: Clock, user_id: str, agent_id: str | None = None
) -> str:
    """A user's memories as one Markdown document (dated by clock)."""
    return render_markdown(user_records(store, user_id, agent_id), user_id, clock.now())
