"""A throwaway PostgreSQL server for the tests: initdb into a temp dir, a unix socket there.

Root cannot run postgres, so under root the server binaries run as an unprivileged user
(`postgres` when it exists, else `nobody`) through runuser. Found in PATH or in Debian's
/usr/lib/postgresql/<version>/bin; without them the tests that need a server skip, unless
OPENCLAW_MEMORY_REQUIRE_POSTGRES=1 (set by .ci/run) makes that a failure.

Imported by path-insertion (pytest puts tests/ on sys.path; there is no tests/__init__.py).
"""

from __future__ import annotations

import atexit
import glob
import hashlib
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

REQUIRE_ENV = "OPENCLAW_MEMORY_REQUIRE_POSTGRES"
SUPERUSER = "ocm"


def find_bindir() -> Path | None:
    """The folder of pg_ctl and initdb: PATH first, then Debian's newest version."""
    found = shutil.which("pg_ctl")
    if found and shutil.which("initdb"):
        return Path(found).parent
    versions = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
        key=lambda p: (
            int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0
        ),
    )
    return Path(versions[-1]).parent if versions else None


def _runner() -> tuple[list[str], str | None]:
    """The command prefix that drops root, and the user it drops to (None: not root)."""
    if os.getuid() != 0:
        return [], None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return ["runuser", "-u", name, "--"], name
    raise RuntimeError("running as root and no unprivileged user (postgres, nobody) to run as")


@dataclass
class PgServer:
    """A running server: connect with `dsn(dbname)`; `create_database` for one test's own."""

    root: Path
    bindir: Path
    prefix: list[str]
    owned: bool = True

    @property
    def socket_dir(self) -> Path:
        return self.root / "sock"

    def dsn(self, dbname: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@/{dbname}?host={self.socket_dir}&port=5432"

    def create_database(self) -> str:
        import psycopg

        name = "t_" + uuid.uuid4().hex[:16]
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return name

    def drop_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        if not self.owned:
            return
        self.owned = False
        subprocess.run(
            [
                *self.prefix,
                str(self.bindir / "pg_ctl"),
                "-D",
                str(self.root / "data"),
                "-m",
                "immediate",
                "stop",
            ],
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(self.root, ignore_errors=True)


def start_server() -> PgServer:
    """initdb and start a server in a new temp dir; raises RuntimeError without the binaries."""
    bindir = find_bindir()
    if bindir is None:
        raise FileNotFoundError("no PostgreSQL server binaries (pg_ctl, initdb) found")
    prefix, user = _runner()
    root = Path(tempfile.mkdtemp(prefix="ocm-pg-"))
    (root / "sock").mkdir()
    if user is not None:
        entry = pwd.getpwnam(user)
        for p in (root, root / "sock"):
            os.chown(p, entry.pw_uid, entry.pw_gid)
    data, log = root / "data", root / "server.log"
    _run(
        [
            *prefix,
            str(bindir / "initdb"),
            "-D",
            str(data),
            "-U",
            SUPERUSER,
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C",
        ],
        root,
    )
    # A unix socket only (no TCP port to collide with other test runs); fsync off: the tests
    # kill clients, never this server.
    options = (
        f"-k {root / 'sock'} -c listen_addresses='' -c fsync=off -c synchronous_commit=off "
        "-c full_page_writes=off -c max_connections=200"
    )
    _run(
        [
            *prefix,
            str(bindir / "pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(log),
            "-o",
            options,
            "-w",
            "start",
        ],
        root,
    )
    return PgServer(root, bindir, prefix)


def _run(cmd: list[str], root: Path) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        log = root / "server.log"
        tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        shutil.rmtree(root, ignore_errors=True)
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr}{tail}")


# ---- one server per test run, shared with the processes the tests spawn ---------------------

#: "postgres" runs the tests that build their config through make_config / hash_config on
#: the PostgreSQL backend (one database per data_dir); anything else: SQLite
BACKEND_ENV = "OPENCLAW_MEMORY_TEST_BACKEND"
#: the running server's root, handed to child processes so they reach the same server
_ROOT_ENV = "OCM_TEST_PG_ROOT"
_server: PgServer | None = None


def backend() -> str:
    return os.environ.get(BACKEND_ENV, "sqlite")


def shared_server() -> PgServer:
    """The run's server: started on first use (stopped at exit), or the parent's in a child."""
    global _server
    if _server is None:
        root = os.environ.get(_ROOT_ENV)
        if root:
            bindir = find_bindir()
            assert bindir is not None
            _server = PgServer(Path(root), bindir, _runner()[0], owned=False)
        else:
            _server = start_server()
            os.environ[_ROOT_ENV] = str(_server.root)
            atexit.register(_server.stop)
    return _server


def database_for(data_dir: str | Path) -> str:
    """The DSN of the database of a data_dir (created on first use, by any process)."""
    import psycopg

    server = shared_server()
    name = "d_" + hashlib.sha256(str(Path(data_dir).resolve()).encode()).hexdigest()[:24]
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        try:
            conn.execute(f'CREATE DATABASE "{name}"')
        except (psycopg.errors.DuplicateDatabase, psycopg.errors.UniqueViolation):
            pass  # made by an earlier call, or by another process at the same moment
    return server.dsn(name)


def storage_overrides(data_dir: str | Path) -> dict:
    """The storage section's keys that put a test's store on the selected backend."""
    if backend() != "postgres":
        return {}
    return {"backend": "postgres", "postgres": {"dsn": database_for(data_dir)}}
