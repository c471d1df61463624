"""Export and import: a user's memory in and out of the store, without lock-in.

The CLI commands `edit`, `export` and `import` are a thin shell over it, here too.
"""

from __future__ import annotations

import io
import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any
from ..errors import ValidationError
from ..types import Scope
from .jsonl import (
    FORMAT,
    export_jsonl,
    file_lines,
    import_jsonl,
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_RECORDS,
    Progress,
)
from .files import export_markdown, write_file
from .openclaw import OpenClawImporter, export_workspace
from ..write import Storage
from ..core.progress import whole_number
from ..config import MemoryConfig

if TYPE_CHECKING:
    from ..extract.base import Extractor
    from ..extract.secrets import SecretFilter

# Export and import: a user's memory in and out of the store, without lock-in.
#
# Formats:
#     jsonl     lossless (ids, version chains, audit, sessions, timestamps); imports back exactly
#     markdown  a readable document, for people
#     openclaw  OpenClaw's own layout: MEMORY.md + memory/YYYY-MM-DD.md (a directory)
#
# `export_user` writes one of them; `import_path` reads a JSON Lines export or an OpenClaw
# workspace (a directory holding MEMORY.md and/or memory/, or one such file), telling them apart
# by their content.

FORMATS = ("jsonl", "markdown", "openclaw")

__all__ = ["FORMATS", "Storage", "export_text", "export_user", "import_path", "import_text"]


def export_text(
    storage: Storage, user_id: str, fmt: str = "jsonl", agent_id: str | None = None
) -> str:
    """The export as one string (jsonl or markdown)."""
    if fmt == "jsonl":
        buf = io.StringIO()
        export_jsonl(storage, user_id, buf, agent_id)
        return buf.getvalue()
    if fmt == "markdown":
        return export_markdown(storage.store, storage.clock, user_id, agent_id)
    raise ValidationError(
        f"format: expected jsonl or markdown for a single document, found {fmt!r}"
    )


def export_user(
    storage: Storage,
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
        return None, export_workspace(storage.store, user_id, out, agent_id, force=force)
    text = export_text(storage, user_id, fmt, agent_id)
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
    storage: Storage,
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
                storage,
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
        counts = OpenClawImporter(storage, extractor, secrets).import_path(
            path, scope, writer=writer
        )
    return {"format": "openclaw", **counts}


def _shown(name: str) -> str:
    """An uploaded export's name as errors show it: its last part only, never a path (a
    Markdown name is the form's default, not this file's)."""
    shown = Path(name).name[:100]
    return "upload" if not shown or shown.lower().endswith(".md") else shown


def import_path(
    storage: Storage,
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
                storage,
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
    counts = OpenClawImporter(storage, extractor, secrets).import_path(path, scope, writer=writer)
    return {"format": "openclaw", **counts}


# CLI commands `edit`, `export` and `import`: a thin shell over edit.py and portability/.
#
# Each opens the store directly (no background worker), calls the library and prints a short
# report (or JSON with --json). Registered by `add_parsers(subparsers)` from cli.py.


def add_parsers(subparsers: Any) -> None:
    """Register edit, export and import."""
    p = subparsers.add_parser(
        "edit",
        help="correct a memory's text (a new version; the old one is kept)",
        description="Write a new version of a memory with this text. The old version "
        "goes inactive and stays in the version chain; both steps are audited.",
    )
    _scope_args(p)
    p.add_argument("id", help="the memory id")
    p.add_argument("text", help="the corrected text")
    p.add_argument("--detail", default=None, help="new detail (default: keep the old one)")
    p.add_argument("--json", action="store_true", help="print the new version as JSON")
    p.set_defaults(func=cmd_edit)

    p = subparsers.add_parser(
        "export",
        help="export a user's memories (jsonl, markdown or openclaw)",
        description="jsonl round-trips exactly; markdown is for reading; openclaw "
        "writes MEMORY.md + memory/YYYY-MM-DD.md into the --out directory.",
    )
    p.add_argument("--user", required=True, help="user id to export")
    p.add_argument(
        "--agent", default=None, help="only this agent (default: every agent of the user)"
    )
    p.add_argument("--format", default="jsonl", choices=["jsonl", "markdown", "openclaw"])
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        help="output file (directory for openclaw); default stdout",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="replace files at --out that an earlier export did not write (default: refuse)",
    )
    p.set_defaults(func=cmd_export)

    p = subparsers.add_parser(
        "import",
        help="import a JSON Lines export or an OpenClaw workspace",
        description="PATH: an export written by `export --format jsonl`, an OpenClaw "
        "workspace directory (MEMORY.md, memory/YYYY-MM-DD.md), or one such file. "
        "Importing the same thing twice adds nothing.",
    )
    p.add_argument("path", type=Path)
    _scope_args(p)
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--max-bytes",
        type=whole_number(1),
        default=DEFAULT_MAX_BYTES,
        help=f"refuse a JSON Lines file larger than this (default {DEFAULT_MAX_BYTES})",
    )
    p.add_argument(
        "--max-records",
        type=whole_number(1),
        default=DEFAULT_MAX_RECORDS,
        help=f"refuse a JSON Lines file of more lines than this (default {DEFAULT_MAX_RECORDS})",
    )
    p.set_defaults(func=cmd_import)


def _scope_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--user", required=True, help="user id whose memories to use")
    p.add_argument(
        "--agent", default="main", help="agent id (default: main, as the OpenClaw plugin writes)"
    )


def _open(config: MemoryConfig) -> Any:
    """The storage a command works on (a `MemoryEngine`, closed by the command): the one place
    this package opens the runtime."""
    from ..runtime.engine import MemoryEngine

    return MemoryEngine.open(config, background=False)


def cmd_edit(args: argparse.Namespace, config: MemoryConfig) -> int:
    """Edit a memory's text."""
    from ..write.edit import _KEEP
    from ..write.edit import edit_memory
    from ..extract.secrets import SecretFilter
    from .jsonl import record_to_dict

    engine = _open(config)
    try:
        detail = _KEEP if args.detail is None else args.detail
        new = edit_memory(
            engine,
            Scope(args.user, args.agent),
            args.id,
            args.text,
            writer="cli",
            detail=detail,
            secrets=SecretFilter(),
        )
    finally:
        engine.close()
    if args.json:
        print(json.dumps(record_to_dict(new), ensure_ascii=False, indent=2))
    else:
        print(
            f"edited: {args.id} -> {new.id} (version {new.version}; the old version is kept, inactive)"
        )
    return 0


def cmd_export(args: argparse.Namespace, config: MemoryConfig) -> int:
    """Export a user's memories."""

    engine = _open(config)
    try:
        text, info = export_user(
            engine, args.user, args.format, args.out, args.agent, force=args.force
        )
    finally:
        engine.close()
    if text is not None:
        sys.stdout.write(text)
    else:
        print(
            f"exported {args.user} as {args.format} to {args.out}: "
            + ", ".join(f"{k} {v}" for k, v in info.items() if k != "path"),
            file=sys.stderr,
        )
    return 0


def cmd_import(args: argparse.Namespace, config: MemoryConfig) -> int:
    """Import an export or an OpenClaw workspace."""
    from ..extract.rules import RuleExtractor
    from ..extract.secrets import SecretFilter
    from ..core.progress import TerminalProgress

    engine = _open(config)
    # lines read, then records written, on stderr when it is a terminal; silent otherwise
    bars = TerminalProgress("import", units={"read": "lines", "written": "records"})
    try:
        report = import_path(
            engine,
            args.path,
            Scope(args.user, args.agent),
            extractor=RuleExtractor(engine.clock, langs=engine.langs),
            secrets=SecretFilter(),
            writer="cli-import",
            max_bytes=args.max_bytes,
            max_records=args.max_records,
            progress=bars.count,
        )
        engine.sync_index()
    finally:
        bars.close()
        engine.close()
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2, sort_keys=True))
    else:
        print(
            f"imported {args.path} ({report['format']}): "
            + ", ".join(f"{k} {v}" for k, v in report.items() if k != "format")
        )
    return 0
