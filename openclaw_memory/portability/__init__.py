"""Export and import: a user's memory in and out of the store, without lock-in.

Formats:
    jsonl     lossless (ids, version chains, audit, sessions, timestamps); imports back exactly
    markdown  a readable document, for people
    openclaw  OpenClaw's own layout: MEMORY.md + memory/YYYY-MM-DD.md (a directory)

`export_user` writes one of them; `import_path` reads a JSON Lines export or an OpenClaw
workspace (a directory holding MEMORY.md and/or memory/, or one such file), telling them apart
by their content.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ValidationError
from ..types import Scope
from .jsonl import FORMAT, export_jsonl, file_lines, import_jsonl
from .markdown import export_markdown
from .openclaw import OpenClawImporter
from .files import write_file
from .limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_RECORDS, Progress
from .openclaw_write import export_workspace

if TYPE_CHECKING:
    from ..runtime.engine import MemoryEngine
    from ..extract.base import Extractor
    from ..extract.secrets import SecretFilter

FORMATS = ("jsonl", "markdown", "openclaw")

__all__ = ["FORMATS", "export_text", "export_user", "import_path", "import_text"]


def export_text(
    engine: MemoryEngine, user_id: str, fmt: str = "jsonl", agent_id: str | None = None
) -> str:
    """The export as one string (jsonl or markdown)."""
    if fmt == "jsonl":
        buf = io.StringIO()
        export_jsonl(engine, user_id, buf, agent_id)
        return buf.getvalue()
    if fmt == "markdown":
        return export_markdown(engine, user_id, agent_id)
    raise ValidationError(
        f"format: expected jsonl or markdown for a single document, found {fmt!r}"
    )


def export_user(
    engine: MemoryEngine,
    user_id: str,
    fmt: str,
    out: Path | None,
    agent_id: str | None = None,
    *,
    force: bool = False,
) -> tuple[str | None, dict[str, Any]]:
    """Export in `fmt`; to `out` (a file, or a directory for openclaw), else returned as text.

    Written files are private (0600, folders 0700), never through a symbolic link, and a file
    this package did not write is replaced only with `force` (files.py)."""
    if fmt not in FORMATS:
        raise ValidationError(f"format: expected one of {', '.join(FORMATS)}, found {fmt!r}")
    if fmt == "openclaw":
        if out is None:
            raise ValidationError("out: the openclaw format writes a directory; expected --out DIR")
        return None, export_workspace(engine, user_id, out, agent_id, force=force)
    text = export_text(engine, user_id, fmt, agent_id)
    data = text.encode("utf-8")
    if out is None:
        return text, {"bytes": len(data)}
    write_file(out, data, ours=_WRITTEN_BY_US[fmt], force=force)
    return None, {"bytes": len(data), "path": str(out)}


#: how a file written by an earlier export of each single-file format begins
_WRITTEN_BY_US = {
    "jsonl": lambda old: is_jsonl_export(old[:300].decode("utf-8", "replace")),
    "markdown": lambda old: old.startswith(b"# Memories of "),
}


def is_jsonl_export(text: str) -> bool:
    """True when text starts with this package's export header."""
    return text.lstrip()[:200].startswith("{") and FORMAT in text.lstrip()[:300]


def import_text(
    engine: MemoryEngine,
    text: str,
    scope: Scope,
    *,
    extractor: Extractor,
    secrets: SecretFilter,
    name: str = "upload",
    writer: str = "import",
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Import an uploaded document: a JSON Lines export, or one OpenClaw memory file named `name`."""
    if is_jsonl_export(text):
        return {
            "format": "jsonl",
            **import_jsonl(
                engine,
                text.splitlines(),
                user_id=scope.user_id,
                where=_shown(name),
                writer=writer,
                secrets=secrets,
                progress=progress,
            ).to_dict(),
        }
    import tempfile

    safe = Path(name).name if Path(name).name.endswith(".md") else "MEMORY.md"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / safe
        path.write_text(text, encoding="utf-8")
        counts = OpenClawImporter(engine, extractor, secrets).import_path(
            path, scope, writer=writer
        )
    return {"format": "openclaw", **counts}


def _shown(name: str) -> str:
    """An uploaded export's name as errors show it: its last part only, never a path (a
    Markdown name is the form's default, not this file's)."""
    shown = Path(name).name[:100]
    return "upload" if not shown or shown.lower().endswith(".md") else shown


def import_path(
    engine: MemoryEngine,
    path: Path,
    scope: Scope,
    *,
    extractor: Extractor,
    secrets: SecretFilter,
    writer: str = "import",
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_records: int = DEFAULT_MAX_RECORDS,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Import a JSON Lines export or an OpenClaw workspace (or memory file) into `scope`.

    A JSON Lines file is streamed under `max_bytes` / `max_records`, checked whole, filtered for
    secrets and written in one transaction; `progress(phase, n)` is called as it goes."""
    if not path.exists():
        raise ValidationError(f"path: {path} does not exist")
    if path.is_file() and not path.name.lower().endswith(".md"):
        with path.open(encoding="utf-8") as fh:
            head = fh.read(300)
        if not is_jsonl_export(head):
            raise ValidationError(
                f"path: {path} is neither an {FORMAT} JSON Lines file nor a Markdown memory file"
            )
        with path.open(encoding="utf-8", errors="replace") as fh:
            report = import_jsonl(
                engine,
                file_lines(fh, max_bytes),
                user_id=scope.user_id,
                where=path.name,
                writer=writer,
                secrets=secrets,
                max_bytes=max_bytes,
                max_records=max_records,
                progress=progress,
            )
        return {"format": "jsonl", **report.to_dict()}
    counts = OpenClawImporter(engine, extractor, secrets).import_path(path, scope, writer=writer)
    return {"format": "openclaw", **counts}
