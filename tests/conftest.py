"""Shared fixtures: a config in a tmp dir, a fake clock, the hashing embedder, and the store
every engine opens: the in-memory record store and numpy index by default
(`openclaw_memory.testing`), SQLite and Chroma for the files of REAL_BACKEND_FILES and the
tests marked `real_store` (what only a real backend does: durability, files and their
permissions, FTS5 ranking, other processes opening the same files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from openclaw_memory.core.clock import FakeClock
from openclaw_memory.config import config_from_dict

TESTS = Path(__file__).resolve().parent


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1_700_000_000.0)


def make_config(tmp_path, embedder: str = "hash", **sections):
    from pg_server import storage_overrides

    data = {
        "storage": {
            "data_dir": str(tmp_path),
            "embedding_model": embedder,
            **storage_overrides(tmp_path),
        }
    }
    for key, value in sections.items():
        data.setdefault(key, {}).update(value)
    return config_from_dict(data)


@pytest.fixture(name="make_config")
def make_config_fixture():
    """make_config(tmp_path, embedder="hash", **sections) -> MemoryConfig."""
    return make_config


@pytest.fixture
def config(tmp_path):
    return make_config(tmp_path)


@pytest.fixture
def engine(config, clock):
    """An engine over the test's store (in memory unless the test keeps the real backends)."""
    from openclaw_memory.runtime.engine import MemoryEngine

    eng = MemoryEngine.open(config, clock=clock, background=False)
    yield eng
    eng.close()


# ---- which store the engines open -----------------------------------------------------------

#: the test files that exist to test the real backends (the store contract, SQLite's schema,
#: rows and migrations, Chroma, the tiered index, PostgreSQL, encryption at rest, reliability,
#: end to end, the benchmark that builds and copies store folders): every engine they open is
#: SQLite and Chroma, or PostgreSQL when selected
REAL_BACKEND_FILES = (
    "test_bench*.py",
    "test_store_*.py",
    "test_postgres*.py",
    "test_contract*.py",
    "test_reliability_*.py",
    "test_encryption_at_rest.py",
    "test_mcp_e2e.py",
    "test_query_plans.py",
    "e2e/*.py",
)
REAL_STORE_MARK = (
    "real_store(reason): the engines of this test open the configured backends (SQLite and "
    "Chroma) instead of the in-memory store, for what only they do; the reason says what"
)


def keeps_real_backends(node) -> bool:
    """The engines opened under this node (a module or a test) are the configured backends:
    a file of REAL_BACKEND_FILES, a `real_store` mark, a test of the steps after the default
    run (STEPS: real servers, browsers, end-to-end and long runs), or a backend selected for
    the run."""
    from pg_server import BACKEND_ENV

    import os

    path = Path(str(node.path))
    if TESTS in path.parents and any(
        path.relative_to(TESTS).match(pattern) for pattern in REAL_BACKEND_FILES
    ):
        return True
    if any(node.get_closest_marker(mark) for mark in ("real_store", *STEPS)):
        return True
    return BACKEND_ENV in os.environ


@pytest.fixture(scope="module", autouse=True)
def _module_store(request):
    """The module's engines open the in-memory backends unless the module keeps the real ones."""
    from openclaw_memory.testing import in_memory_backends

    if keeps_real_backends(request.node):
        yield None
        return
    with in_memory_backends() as backends:
        yield backends


@pytest.fixture(autouse=True)
def _test_store(request, _module_store):
    """A test marked `real_store` in a module on the in-memory backends opens the real ones."""
    from openclaw_memory.testing import real_backends

    if _module_store is not None and keeps_real_backends(request.node):
        with real_backends():
            yield
        return
    yield


# ---- PostgreSQL (the postgres backend's tests) ------------------------------------------------


def pytest_configure(config):
    """Under OPENCLAW_MEMORY_TEST_BACKEND=postgres, start the run's server before any fixture
    starts a helper process, so every process the tests spawn inherits its address. The
    onnxruntime graph of the query embedding is built into a temporary cache, never the user's."""
    import os
    import tempfile

    from pg_server import backend, shared_server

    config.addinivalue_line("markers", REAL_STORE_MARK)
    if "OPENCLAW_MEMORY_CACHE" not in os.environ:
        config._ocm_cache = os.environ["OPENCLAW_MEMORY_CACHE"] = tempfile.mkdtemp(prefix="ocm-")

    if backend() == "postgres":
        shared_server()


def pytest_unconfigure(config):
    import shutil

    if getattr(config, "_ocm_cache", None):
        shutil.rmtree(config._ocm_cache, ignore_errors=True)


# ---- the steps of .ci/run ----------------------------------------------------------------------

#: The marks of the steps .ci/run runs after the default `python -m pytest` (whose addopts in
#: pyproject.toml deselects them); a test belongs to at most one. Files mark themselves with
#: `pytestmark`; a test whose marks, fixtures or parameters say what it needs joins that step.
STEPS = ("backend", "browser", "e2e", "slow")
#: what a test needs, by mark, and the step that provides it: a PostgreSQL or `chroma run` server
#: (backend), Node and openclaw (e2e), a wheel built into a fresh venv (slow)
STEP_OF_MARK = {"postgres": "backend", "server": "backend", "openclaw": "e2e", "wheel": "slow"}
#: fixtures and parameter values of the tests that need the PostgreSQL server (backend)
SERVER_FIXTURES = ("pg_server", "pg_dsn")
SERVER_PARAMS = ("postgres",)


def needs_postgres(item) -> bool:
    if any(name in getattr(item, "fixturenames", ()) for name in SERVER_FIXTURES):
        return True
    params = getattr(getattr(item, "callspec", None), "params", {})
    return any(isinstance(v, str) and v in SERVER_PARAMS for v in params.values())


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Each test to its step (before `-m` deselects), then, under
    OPENCLAW_MEMORY_TEST_BACKEND=postgres, skip the tests about SQLite's own files."""
    from pg_server import BACKEND_ENV, backend

    for item in items:
        needs = {step for mark, step in STEP_OF_MARK.items() if item.get_closest_marker(mark)}
        if needs_postgres(item):
            needs.add("backend")
        for step in sorted(needs):
            if not item.get_closest_marker(step):
                item.add_marker(getattr(pytest.mark, step))
        steps = [name for name in STEPS if item.get_closest_marker(name)]
        if len(steps) > 1:
            raise pytest.UsageError(
                f"{item.nodeid}: marked for the steps {', '.join(steps)}; a test belongs to at "
                f"most one of {', '.join(STEPS)} (pytestmark at the top of its file)"
            )

    if backend() != "postgres":
        return
    skip = pytest.mark.skip(reason=f"SQLite's own files or schema ({BACKEND_ENV}=postgres)")
    for item in items:
        if "sqlite_only" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def pg_server():
    """A throwaway PostgreSQL server for the session (tests/pg_server.py); skips without the
    server binaries or psycopg, unless OPENCLAW_MEMORY_REQUIRE_POSTGRES=1 makes that a failure."""
    import os

    from pg_server import REQUIRE_ENV, shared_server

    try:
        import psycopg  # noqa: F401

        server = shared_server()
    except (ImportError, FileNotFoundError) as exc:
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but PostgreSQL is not usable: {exc}")
        pytest.skip(f"PostgreSQL not available: {exc}")
    yield server
    server.stop()


@pytest.fixture
def pg_dsn(pg_server):
    """The DSN of a database of this test's own on the session's server, dropped after it."""
    name = pg_server.create_database()
    yield pg_server.dsn(name)
    pg_server.drop_database(name)
