"""`bench --backend sqlite|postgres|both`: the same synthetic store measured on each source of
truth, in one run with alternating rounds. The PostgreSQL part runs when the test server is
available (tests/pg_server.py)."""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json

import pytest

from openclaw_memory_bench.bench.backends import backends_for
from openclaw_memory_bench.bench.cli import add_parser, format_table
from openclaw_memory_bench.bench.run import RATIO_FIGURES, BenchOptions, ratios, run_bench
from openclaw_memory_bench.bench.store import ensure_store
from openclaw_memory.config import load_config
from openclaw_memory.errors import ConfigError, ValidationError

from test_bench import ISSUE_SHAPE, TINY, _shape_errors


def _cli(argv: list[str]) -> str:
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["bench", *argv])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert args.func(args, load_config(None)) == 0
    return out.getvalue()


def _databases(dsn: str) -> set[str]:
    import psycopg

    with psycopg.connect(dsn) as conn:
        return {r[0] for r in conn.execute("SELECT datname FROM pg_database").fetchall()}


def test_backend_choices():
    assert backends_for("sqlite") == ("sqlite",)
    assert backends_for("postgres") == ("postgres",)
    assert backends_for("both") == ("sqlite", "postgres")
    with pytest.raises(ValidationError, match="backend"):
        backends_for("mysql")
    with pytest.raises(ValidationError, match="backend"):
        BenchOptions(backend="sqlite,postgres").check()


def test_ratios_are_postgres_over_sqlite_and_none_where_missing():
    a = {"before_request_ms": {"p50": 10.0, "p95": 20.0}, "ingest_per_s": 4.0, "hit_rate": 0.8}
    b = {"before_request_ms": {"p50": 15.0, "p95": 10.0}, "ingest_per_s": 2.0, "hit_rate": 0.8}
    r = ratios(a, b)
    assert set(r) == {name for name, _ in RATIO_FIGURES}
    assert (r["before_request_p50"], r["before_request_p95"]) == (1.5, 0.5)
    assert (r["ingest_per_s"], r["hit_rate"]) == (0.5, 1.0)
    assert r["concurrent_p95"] is None and r["after_response_p95"] is None


def test_postgres_without_a_dsn_names_the_settings(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENCLAW_MEMORY_PG_DSN", raising=False)
    ensure_store(tmp_path, 200, 5, "hash", 3, in_subprocess=False)
    opts = BenchOptions(
        records=200, users=5, embedder="hash", seed=3, cache_dir=tmp_path, backend="both"
    )
    with pytest.raises(ConfigError, match="OPENCLAW_MEMORY_PG_DSN"):
        run_bench(opts, load_config(None))


@pytest.fixture(scope="module")
def both(tmp_path_factory, pg_server):
    """One tiny `--backend both` run, two rounds (sqlite, postgres, sqlite, postgres)."""
    cache = tmp_path_factory.mktemp("bench-cache")
    ensure_store(cache, 200, 5, "hash", 3, in_subprocess=False)
    db = next(cache.iterdir()) / "data" / "memory.db"
    before_db = hashlib.sha256(db.read_bytes()).hexdigest()
    dsn = pg_server.dsn(pg_server.create_database())
    before = _databases(dsn)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        out = _cli(
            [*TINY, "--cache-dir", str(cache), "--backend", "both", "--repeat", "2"]
            + ["--pg-dsn", dsn, "--json"]
        )
    return {
        "result": json.loads(out),
        "out": out,
        "err": err.getvalue(),
        "cache": cache,
        "db_unchanged": hashlib.sha256(db.read_bytes()).hexdigest() == before_db,
        "scratch_left": _databases(dsn) - before,
        "dsn": dsn,
    }


def test_both_reports_one_section_per_backend_with_the_issue_shape(both):
    r = both["result"]
    assert r["backend"] == "both" and (r["memories"], r["users"]) == (200, 5)
    for backend in ("sqlite", "postgres"):
        assert _shape_errors(r[backend], ISSUE_SHAPE) == [], backend
        assert r[backend]["backend"] == backend
        assert len(r[backend]["rounds"]["before_request_p50_ms"]) == 2
        assert r[backend]["targets"]
    assert "postgres_mb" in r["postgres"]["disk"] and "sqlite_mb" in r["sqlite"]["disk"]
    assert r["postgres"]["disk"]["postgres_mb"] > 1


def test_both_ratios_match_the_sections(both):
    r = both["result"]
    s, p = r["sqlite"], r["postgres"]
    assert r["ratios"]["before_request_p50"] == pytest.approx(
        p["before_request_ms"]["p50"] / s["before_request_ms"]["p50"], abs=0.0051
    )
    assert r["ratios"]["ingest_per_s"] == pytest.approx(
        p["ingest_per_s"] / s["ingest_per_s"], abs=0.0051
    )


def test_both_measures_the_same_store_on_each_backend(both):
    s, p = both["result"]["sqlite"], both["result"]["postgres"]
    # the same memories and questions: the target memory is found on both (the keyword channel's
    # statistics differ, per user on PostgreSQL, so the rates may differ a little)
    assert s["hit_rate"] > 0.3 and p["hit_rate"] > 0.3
    assert abs(s["hit_rate"] - p["hit_rate"]) <= 0.25
    # every turn ingested lands in the store, whichever it is
    assert p["ingest"]["memories"] == s["ingest"]["memories"] > 0
    assert p["ingest"]["batched_memories"] == s["ingest"]["batched_memories"]


def test_both_alternates_rounds(both):
    runs = [line for line in both["err"].splitlines() if "] run " in line]
    assert runs == [
        "[bench] run 1/2, sqlite",
        "[bench] run 1/2, postgres",
        "[bench] run 2/2, sqlite",
        "[bench] run 2/2, postgres",
    ]


def test_the_cache_holds_the_sqlite_build_only_and_no_scratch_database_is_left(both):
    cache = both["cache"]
    assert [p.name for p in cache.iterdir()] == [both["result"]["store"]["cache"]]
    assert both["db_unchanged"]
    assert both["scratch_left"] == set()


def test_the_dsn_is_not_printed(both):
    assert both["dsn"] not in both["out"] and both["dsn"] not in both["err"]
    assert "dsn" not in json.dumps(both["result"]).lower()


def test_both_table_names_each_backend_and_the_ratios(both):
    table = format_table(both["result"])
    assert "backend both" in table
    assert "\nsqlite:\n" in table and "\npostgres:\n" in table
    assert "postgres / sqlite:" in table and "before_request_p50" in table
    assert "disk MB (postgres + chroma)" in table and "disk MB (sqlite + wal + chroma)" in table
