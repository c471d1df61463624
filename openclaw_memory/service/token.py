"""The service's bearer token: where it lives and how it comes to exist.

Nothing listens without a token. The token is chosen, in order, from the environment variable
``OPENCLAW_MEMORY_TOKEN``, the config's ``service.token``, and the token file
``<data_dir>/service.token``; when none is set, a new random token is written to that file with
mode 0600 on first start. The OpenClaw installer reads the same file and hands the token to the
plugin, so a user never types it.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

TOKEN_ENV = "OPENCLAW_MEMORY_TOKEN"
TOKEN_FILE = "service.token"


def token_path(data_dir: str | os.PathLike[str]) -> Path:
    """The token file of a store's data dir."""
    return Path(data_dir) / TOKEN_FILE


def read_token(data_dir: str | os.PathLike[str]) -> str:
    """The token in the data dir's token file, or "" when there is none."""
    try:
        return token_path(data_dir).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return ""


def load_or_create_token(data_dir: str | os.PathLike[str], configured: str = "") -> str:
    """The token to require: the environment, then `configured`, then the file, else a new one.

    A new token is written atomically to ``<data_dir>/service.token`` with mode 0600 (the data dir
    is created 0700 if missing), so only the user running the service can read it.
    """
    chosen = os.environ.get(TOKEN_ENV, "").strip() or (configured or "").strip()
    if chosen:
        return chosen
    existing = read_token(data_dir)
    if existing:
        return existing
    return _write_new_token(Path(data_dir))


def _write_new_token(data_dir: Path) -> str:
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    path = token_path(data_dir)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(token + "\n")
    try:
        os.link(tmp, path)  # fails if another process created the file first: keep theirs
    except FileExistsError:
        token = read_token(data_dir)
    finally:
        tmp.unlink(missing_ok=True)
    return token
