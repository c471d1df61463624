"""Writing OpenClaw's memory files: a user's live memories as `MEMORY.md` (curated types, one
section each) and `memory/YYYY-MM-DD.md` (events, episodes and summaries by day), with the
annotations OpenClaw reads (trigger, importance) and our own (subject, time of day) in comments,
so that an export imports back as the same memories. The files are written privately
(files.py).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from ..types import MemoryRecord, MemoryType, Status
from .files import (
    MANIFEST,
    digest,
    existing,
    open_dir,
    read_manifest,
    refuse_foreign,
    write_private,
)
from .markdown import TYPE_TITLES, user_records

if TYPE_CHECKING:
    from ..runtime.engine import MemoryEngine

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
    engine: MemoryEngine,
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
    files = render_workspace(user_records(engine, user_id, agent_id))
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
