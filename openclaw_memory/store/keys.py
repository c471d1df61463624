"""The key of an encrypted store (`encryption.enabled`), and the SQLCipher driver that uses it.

The key is looked for in this order, and the first place that has one wins:

1. `$OPENCLAW_MEMORY_KEY` (a service under a secret manager or systemd `LoadCredential`);
2. the file named by `encryption.key_file`, which must be private to its owner (mode 0600 or
   tighter): a key file others can read is refused rather than used;
3. the OS keyring (Secret Service, macOS Keychain, Windows Credential Locker) through the
   optional `keyring` package, under service `openclaw-memory` and user `encryption.keyring_user`.

The YAML config never holds the key itself. A key is either 64 hexadecimal digits (a raw 256-bit
key, used as is) or a passphrase of at least `MIN_PASSPHRASE` characters, not all hex digits
(SQLCipher derives the key from it with PBKDF2, which costs a little time at every open). The two optional imports
(`sqlcipher3`, `keyring`) live here, each with its install hint.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from ..errors import ConfigError, StoreError

if TYPE_CHECKING:
    from ..config.schema import MemoryConfig

#: the environment variable read first
KEY_ENV = "OPENCLAW_MEMORY_KEY"
#: the environment variable `encrypt --rekey` reads the new key from
NEW_KEY_ENV = "OPENCLAW_MEMORY_NEW_KEY"
#: the OS keyring's service name for the store's key
KEYRING_SERVICE = "openclaw-memory"
#: the shortest passphrase accepted (a raw key is 64 hex digits)
MIN_PASSPHRASE = 16
#: the pip extra that installs the SQLCipher driver
EXTRA_HINT = "pip install 'openclaw-memory[encryption]' (the sqlcipher3-binary wheel)"

# Format shapes, not a language's: a key written as hex digits.
#: a raw 256-bit key: 64 hex digits
_RAW_KEY = re.compile(r"[0-9a-fA-F]{64}")
#: hex digits only
_HEX = re.compile(r"[0-9a-fA-F]+")


@dataclass(frozen=True)
class StoreKey:
    """A store key and where it came from (`source`, shown in errors; the key never is)."""

    secret: str = field(repr=False)
    source: str

    def pragma(self) -> str:
        """The argument of `PRAGMA key`: a raw key as a blob literal, a passphrase quoted."""
        if _RAW_KEY.fullmatch(self.secret):
            return f"\"x'{self.secret.lower()}'\""
        return "'" + self.secret.replace("'", "''") + "'"


def parse_key(text: str, source: str) -> StoreKey:
    """The key in text (surrounding whitespace dropped), checked for its form."""
    secret = text.strip()
    hex_only = _HEX.fullmatch(secret) is not None
    if _RAW_KEY.fullmatch(secret) or (len(secret) >= MIN_PASSPHRASE and not hex_only):
        return StoreKey(secret, source)
    # hex digits of another length are a raw key cut or padded by mistake, not a passphrase
    raise ConfigError(
        f"{source}: the store key must be 64 hexadecimal digits (a 256-bit key, e.g. from "
        f"`python -c 'import secrets; print(secrets.token_hex(32))'`) or a passphrase of at "
        f"least {MIN_PASSPHRASE} characters that are not all hex digits; found {len(secret)} "
        f"{'hex digits' if hex_only else 'characters'}"
    )


def resolve_key(config: MemoryConfig) -> StoreKey | None:
    """The store key when `encryption.enabled`, else None; enabled with no key anywhere is a
    ConfigError naming every place looked at."""
    settings = config.encryption
    if not settings.enabled:
        return None
    env = os.environ.get(KEY_ENV, "")
    if env.strip():
        return parse_key(env, f"${KEY_ENV}")
    if settings.key_file:
        return read_key_file(config.resolve(settings.key_file))
    from_keyring = keyring_key(settings.keyring_user)
    if from_keyring is not None:
        return from_keyring
    raise ConfigError(
        f"encryption.enabled is true but no key was found: set ${KEY_ENV}, or name a key file "
        f"(mode 0600) in encryption.key_file, or store the key in the OS keyring under service "
        f"'{KEYRING_SERVICE}', user '{settings.keyring_user}' (needs `pip install keyring`). "
        "The key is never read from the YAML itself"
    )


def new_key(key_file: str | None) -> StoreKey:
    """The new key of `encrypt --rekey`: the file named by --new-key-file, else
    `$OPENCLAW_MEMORY_NEW_KEY`; neither is a ConfigError naming both."""
    if key_file:
        return read_key_file(Path(key_file).expanduser(), setting="--new-key-file")
    env = os.environ.get(NEW_KEY_ENV, "")
    if env.strip():
        return parse_key(env, f"${NEW_KEY_ENV}")
    raise ConfigError(
        f"encrypt --rekey: no new key: set ${NEW_KEY_ENV} or name a file (mode 0600) holding it "
        "with --new-key-file"
    )


def read_key_file(path: Path, *, setting: str = "encryption.key_file") -> StoreKey:
    """The key in a file private to its owner; a file group or others can read is refused."""
    source = f"key file {path} ({setting})"
    try:
        st = path.stat()
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read it ({exc.strerror or exc})") from exc
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"{source}: expected a regular file holding the key")
    if st.st_mode & 0o077:
        raise ConfigError(
            f"{source}: mode {stat.S_IMODE(st.st_mode):04o} lets group or others read the key; "
            f"expected 0600 (run `chmod 600 {path}`)"
        )
    return parse_key(path.read_text(encoding="utf-8"), source)


def keyring_key(user: str) -> StoreKey | None:
    """The key the OS keyring holds for user, or None (no `keyring` package, no backend, no
    entry)."""
    try:
        import keyring
        from keyring.errors import KeyringError
    except ImportError:
        return None
    try:
        secret = keyring.get_password(KEYRING_SERVICE, user)
    except (KeyringError, RuntimeError):
        return None
    if not secret:
        return None
    return parse_key(secret, f"OS keyring ({KEYRING_SERVICE}/{user})")


def sqlcipher() -> ModuleType:
    """The SQLCipher driver (`sqlcipher3.dbapi2`), or a StoreError naming the extra."""
    try:
        from sqlcipher3 import dbapi2
    except ImportError as exc:
        raise StoreError(
            f"encryption.enabled is true but the SQLCipher driver is not installed: {EXTRA_HINT}"
        ) from exc
    return dbapi2
