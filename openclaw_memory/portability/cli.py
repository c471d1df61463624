"""CLI commands `edit`, `export` and `import`: a thin shell over edit.py and portability/.

Each opens the store directly (no background worker), calls the library and prints a short
report (or JSON with --json). Registered by `add_parsers(subparsers)` from cli.py.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..cli import whole_number
from ..config import MemoryConfig
from ..types import Scope
from .limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_RECORDS


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
    from ..runtime.engine import MemoryEngine

    return MemoryEngine.open(config, background=False)


def cmd_edit(args: argparse.Namespace, config: MemoryConfig) -> int:
    """Edit a memory's text."""
    from ..write.edit import _KEEP, edit_memory
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
    from . import export_user

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
    from . import import_path

    engine = _open(config)
    # lines read, then records written, on stderr when it is a terminal; silent otherwise
    bars = TerminalProgress("import", units={"read": "lines", "written": "records"})
    try:
        report = import_path(
            engine,
            args.path,
            Scope(args.user, args.agent),
            extractor=RuleExtractor(engine.clock),
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
