"""Encryption at rest (`encryption.enabled`): the SQLite store through SQLCipher, the key from
the environment, a 0600 key file or the OS keyring, clear refusals for a wrong, missing or
misplaced key, and the commands (export, migrate, encrypt) on an encrypted store."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import types
from pathlib import Path

import pytest

from openclaw_memory.cli import main
from openclaw_memory.config import config_from_dict
from openclaw_memory.runtime.engine import MemoryEngine
from openclaw_memory.errors import ConfigError, StoreError
from openclaw_memory.store import keys
from openclaw_memory.store import open_record_store
from openclaw_memory.types import Candidate, Channel, MemoryType, Scope
from store_helpers import writer_of

pytest.importorskip("sqlcipher3", reason="SQLCipher driver not installed (the encryption extra)")

ALICE = Scope("alice")
RAW_KEY = "3f" * 32
OTHER_KEY = "a7" * 32
#: one sentence per language, each distinctive enough that a hit in raw bytes means a leak
SENTENCES = {
    "en": "My sister Marguerite moved to Valparaiso last spring",
    "zh": "我的妹妹去年春天搬到了瓦尔帕莱索",
}


def _config(tmp_path: Path, *, enabled: bool = True, **encryption) -> object:
    return config_from_dict(
        {
            "storage": {
                "data_dir": str(tmp_path),
                "embedding_model": "hash",
                "vector_store": {"exact_below": 0},  # every tier in Chroma: its files are checked
            },
            "encryption": {"enabled": enabled, **encryption},
        },
        base=None,
    )


def _write(engine: MemoryEngine) -> list[str]:
    results = writer_of(engine).write(
        ALICE,
        [
            Candidate(MemoryType.FACT, text, subject=f"move {lang}", channel=Channel.EXPLICIT)
            for lang, text in SENTENCES.items()
        ],
    )
    engine.sync_index(ALICE)
    return [r.record.id for r in results if r.record is not None]


def _fill(cfg, clock) -> list[str]:
    engine = MemoryEngine.open(cfg, clock=clock, background=False)
    try:
        return _write(engine)
    finally:
        engine.close()


def _leaks(folder: Path) -> dict[str, list[str]]:
    """For each sentence, the files under folder whose raw bytes hold it (UTF-8)."""
    files = [p for p in folder.rglob("*") if p.is_file()]
    return {
        lang: sorted(str(p.relative_to(folder)) for p in files if text.encode() in p.read_bytes())
        for lang, text in SENTENCES.items()
    }


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def key_env(monkeypatch):
    monkeypatch.setenv(keys.KEY_ENV, RAW_KEY)
    monkeypatch.setitem(sys.modules, "keyring", None)  # no OS keyring answers in these tests


def test_no_sentence_reaches_the_disk_in_either_language(tmp_path, clock, key_env):
    cfg = _config(tmp_path)
    engine = MemoryEngine.open(cfg, clock=clock, background=False)
    try:
        ids = _write(engine)
        assert len(ids) == 2
        wal = Path(f"{cfg.sqlite_file}-wal")
        assert wal.stat().st_size > 0  # the writes are still in the WAL: it is checked too
        assert _leaks(tmp_path) == {"en": [], "zh": []}
    finally:
        engine.close()
    assert _leaks(tmp_path) == {"en": [], "zh": []}
    assert cfg.sqlite_file.read_bytes()[:16] != b"SQLite format 3\x00"
    store = open_record_store(cfg)
    try:
        assert {r.summary for r in store.get_many(ALICE, ids).values()} == set(SENTENCES.values())
    finally:
        store.close()
    # the vectors and record ids did reach Chroma: the check above looked where data is
    chroma = b"".join(p.read_bytes() for p in cfg.chroma_dir.rglob("*") if p.is_file())
    assert all(i.encode() in chroma for i in ids)


def test_the_same_check_finds_the_sentences_in_a_plaintext_store(tmp_path, clock, key_env):
    cfg = _config(tmp_path, enabled=False)
    _fill(cfg, clock)
    leaks = _leaks(tmp_path)
    assert all(any(f.startswith("memory.db") for f in leaks[lang]) for lang in SENTENCES)
    assert not any("chroma" in f for files in leaks.values() for f in files)


def test_a_wrong_key_fails_naming_its_source_and_writes_nothing(
    tmp_path, clock, key_env, monkeypatch
):
    cfg = _config(tmp_path)
    _fill(cfg, clock)
    before = _digest(tmp_path)
    monkeypatch.setenv(keys.KEY_ENV, OTHER_KEY)
    with pytest.raises(StoreError, match=r"\$OPENCLAW_MEMORY_KEY does not open") as err:
        open_record_store(cfg)
    assert str(cfg.sqlite_file) in str(err.value) and OTHER_KEY not in str(err.value)
    assert _digest(tmp_path) == before


def test_an_encrypted_store_opened_without_encryption_says_so(tmp_path, clock, key_env):
    cfg = _config(tmp_path)
    _fill(cfg, clock)
    before = _digest(tmp_path)
    with pytest.raises(StoreError, match="encryption.enabled: true and its key"):
        open_record_store(_config(tmp_path, enabled=False))
    assert _digest(tmp_path) == before


def test_enabled_with_no_key_anywhere_names_every_source(tmp_path, monkeypatch):
    monkeypatch.delenv(keys.KEY_ENV, raising=False)
    monkeypatch.setitem(sys.modules, "keyring", None)
    with pytest.raises(ConfigError) as err:
        open_record_store(_config(tmp_path))
    for where in (
        "$OPENCLAW_MEMORY_KEY",
        "encryption.key_file",
        "OS keyring",
        "pip install keyring",
    ):
        assert where in str(err.value)
    assert not cfg_file_exists(tmp_path)


def cfg_file_exists(tmp_path: Path) -> bool:
    return (tmp_path / "memory.db").exists()


def test_a_key_in_the_yaml_is_not_a_setting(tmp_path):
    with pytest.raises(ConfigError, match="encryption.key"):
        config_from_dict({"encryption": {"enabled": True, "key": RAW_KEY}})


def test_key_file_private_is_used_and_readable_by_others_is_refused(tmp_path, clock, monkeypatch):
    monkeypatch.delenv(keys.KEY_ENV, raising=False)
    monkeypatch.setitem(sys.modules, "keyring", None)
    key_file = tmp_path / "secrets" / "store.key"
    key_file.parent.mkdir()
    key_file.write_text(RAW_KEY + "\n", encoding="utf-8")
    os.chmod(key_file, 0o644)
    cfg = _config(tmp_path / "data", key_file=str(key_file))
    with pytest.raises(ConfigError, match=r"mode 0644 .* expected 0600 \(run `chmod 600"):
        open_record_store(cfg)
    assert not (tmp_path / "data" / "memory.db").exists()
    os.chmod(key_file, 0o600)
    _fill(cfg, clock)
    assert keys.resolve_key(cfg) == keys.StoreKey(RAW_KEY, keys.resolve_key(cfg).source)
    # the environment comes first: a different key there is the one tried, and named
    monkeypatch.setenv(keys.KEY_ENV, OTHER_KEY)
    with pytest.raises(StoreError, match=r"\$OPENCLAW_MEMORY_KEY"):
        open_record_store(cfg)


def test_the_os_keyring_is_the_third_source(tmp_path, clock, monkeypatch):
    monkeypatch.delenv(keys.KEY_ENV, raising=False)
    asked = []

    class KeyringError(Exception):
        pass

    def get_password(service, user):
        asked.append((service, user))
        return "correct horse battery staple 马" if user == "laptop" else None

    fake = types.ModuleType("keyring")
    fake.get_password = get_password  # type: ignore[attr-defined]
    errors = types.ModuleType("keyring.errors")
    errors.KeyringError = KeyringError  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "keyring", fake)
    monkeypatch.setitem(sys.modules, "keyring.errors", errors)
    cfg = _config(tmp_path, keyring_user="laptop")
    ids = _fill(cfg, clock)
    assert asked[0] == ("openclaw-memory", "laptop")
    key = keys.resolve_key(cfg)
    assert key is not None and key.source == "OS keyring (openclaw-memory/laptop)"
    assert "horse" not in repr(key)
    store = open_record_store(cfg)
    try:
        assert {r.summary for r in store.get_many(ALICE, ids).values()} == set(SENTENCES.values())
    finally:
        store.close()
    with pytest.raises(ConfigError, match="no key was found"):
        open_record_store(_config(tmp_path, keyring_user="desktop"))


@pytest.mark.parametrize(
    "text, accepted",
    [
        (RAW_KEY, True),
        ("a passphrase of enough length", True),
        ("口令也可以是中文的足够长的一句话吧", True),
        ("short", False),
        ("3f" * 31, False),
        ("   ", False),
    ],
)
def test_the_key_forms(text, accepted):
    if accepted:
        assert keys.parse_key(text, "$X").secret == text.strip()
    else:
        with pytest.raises(ConfigError, match=r"\$X: the store key must be 64 hexadecimal digits"):
            keys.parse_key(text, "$X")


def test_a_plaintext_store_is_refused_then_encrypted_in_place(tmp_path, clock, key_env, capsys):
    ids = _fill(_config(tmp_path, enabled=False), clock)
    before = _digest(tmp_path)
    cfg = _config(tmp_path)
    with pytest.raises(StoreError, match="not encrypted .*`openclaw-memory encrypt`"):
        open_record_store(cfg)
    assert _digest(tmp_path) == before
    yaml = _yaml(tmp_path)
    assert main(["--config", str(yaml), "encrypt"]) == 0
    assert "encrypted" in capsys.readouterr().out
    assert _leaks(tmp_path) == {"en": [], "zh": []}
    assert oct(cfg.sqlite_file.stat().st_mode & 0o777) == "0o600"
    store = open_record_store(cfg)
    try:
        assert {r.summary for r in store.get_many(ALICE, ids).values()} == set(SENTENCES.values())
        assert {i for i, _ in store.keyword_search(ALICE, "Valparaiso 妹妹")} == set(ids)
    finally:
        store.close()
    assert main(["--config", str(yaml), "encrypt"]) == 2  # already encrypted: refused, unchanged
    assert "not a plaintext SQLite store" in capsys.readouterr().err


def _yaml(tmp_path: Path, **extra: str) -> Path:
    lines = [
        "storage:",
        f"  data_dir: {tmp_path}",
        "  embedding_model: hash",
        "  vector_store:",
        "    exact_below: 0",
        "encryption:",
        "  enabled: true",
        *[f"  {k}: {v}" for k, v in extra.items()],
    ]
    path = tmp_path / "memory.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_export_reads_an_encrypted_store_into_a_private_plaintext_file(tmp_path, clock, key_env):
    _fill(_config(tmp_path), clock)
    out = tmp_path / "alice.jsonl"
    assert (
        main(["--config", str(_yaml(tmp_path)), "export", "--user", "alice", "--out", str(out)])
        == 0
    )
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert set(SENTENCES.values()) <= {r.get("summary") for r in rows}
    assert out.stat().st_mode & 0o777 == 0o600


def test_a_missing_driver_names_the_extra(tmp_path, key_env, monkeypatch):
    monkeypatch.setitem(sys.modules, "sqlcipher3", None)
    with pytest.raises(StoreError, match=r"openclaw-memory\[encryption\]"):
        open_record_store(_config(tmp_path))
    assert not cfg_file_exists(tmp_path)


def test_postgres_with_encryption_enabled_is_refused(tmp_path, key_env):
    cfg = config_from_dict(
        {
            "storage": {"data_dir": str(tmp_path), "backend": "postgres"},
            "encryption": {"enabled": True},
        }
    )
    with pytest.raises(ConfigError, match="database server's"):
        open_record_store(cfg)


@pytest.mark.postgres
def test_migrate_copies_an_encrypted_store_into_postgres(tmp_path, clock, key_env, pg_dsn, capsys):
    from openclaw_memory.store.postgres import PostgresRecordStore

    ids = _fill(_config(tmp_path), clock)
    assert main(["--config", str(_yaml(tmp_path)), "migrate", "--to", pg_dsn]) == 0
    assert "counts match" in capsys.readouterr().out
    store = PostgresRecordStore.open(pg_dsn)
    try:
        assert {r.summary for r in store.get_many(ALICE, ids).values()} == set(SENTENCES.values())
    finally:
        store.close()


def test_the_capture_journal_is_encrypted_with_the_store_key(tmp_path):
    from openclaw_memory.store.capture_journal import FILE_NAME, CaptureJournal

    path = tmp_path / FILE_NAME
    plain = CaptureJournal(path)  # a journal from before encryption was on, one write pending
    plain.add("c1", "capture", ALICE, {"text": SENTENCES["en"]})
    plain.close()
    assert SENTENCES["en"].encode() in path.read_bytes()
    key = keys.parse_key(RAW_KEY, "$OPENCLAW_MEMORY_KEY")
    journal = CaptureJournal(path, key=key)  # encrypted in place, the pending write kept
    try:
        journal.add("c2", "capture", ALICE, {"text": SENTENCES["zh"]})
        assert [(e.id, e.body["text"]) for e in journal.pending()] == [
            ("c1", SENTENCES["en"]),
            ("c2", SENTENCES["zh"]),
        ]
        assert _leaks(tmp_path) == {"en": [], "zh": []}
    finally:
        journal.close()
    assert _leaks(tmp_path) == {"en": [], "zh": []}
    before = _digest(tmp_path)
    with pytest.raises(StoreError, match="encryption.enabled: true and its key"):
        CaptureJournal(path)
    with pytest.raises(StoreError, match="does not open this encrypted file"):
        CaptureJournal(path, key=keys.parse_key(OTHER_KEY, "$OPENCLAW_MEMORY_KEY"))
    assert _digest(tmp_path) == before


OPEN_AT = """
import sys, time
from pathlib import Path
from openclaw_memory.store.sqlite import Database
from openclaw_memory.store.keys import parse_key

start = float(sys.argv[2])
time.sleep(max(0.0, start - time.time()))
Database(Path(sys.argv[1]), key=parse_key(sys.argv[3], "$OPENCLAW_MEMORY_KEY")).close()
"""


@pytest.mark.slow  # several processes, each deriving the key
@pytest.mark.parametrize("key_text", [RAW_KEY, "a passphrase of enough length"])
def test_processes_creating_one_encrypted_store_at_once_all_open_it(tmp_path, key_text):
    import subprocess
    import time

    for round_ in range(3):
        path = tmp_path / f"round{round_}" / "memory.db"
        start = time.time() + 2.0  # every process imported and waiting before the start
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN_AT, str(path), str(start), key_text],
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(6)
        ]
        failed = [p.stderr.read()[-300:] for p in procs if p.wait(timeout=120) != 0]
        assert failed == []
        from openclaw_memory.store.sqlite import Database

        Database(path, key=keys.parse_key(key_text, "$X")).close()


def _keyword_plan(conn, scope: Scope, query: str) -> list[str]:
    """The query plan of the keyword channel's statement for query, as conn's SQLite plans it."""
    from openclaw_memory.store import records as rec

    traced: list[str] = []
    conn.set_trace_callback(traced.append)
    try:
        assert rec.keyword_search(conn, scope, query)
    finally:
        conn.set_trace_callback(None)
    [sql] = [s for s in traced if "bm25(" in s]
    return [row[-1] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}")]


def test_the_keyword_search_plans_alike_in_both_sqlite_versions(tmp_path, clock):
    """SQLCipher bundles a newer SQLite whose planner walked the user's active records and probed
    the keyword index once for each; the keyword index stays the outer loop in both versions."""
    import sqlite3

    from sqlcipher3 import dbapi2

    engine = MemoryEngine.open(_config(tmp_path, enabled=False), clock=clock, background=False)
    try:
        for i in range(60):
            writer_of(engine).write(
                ALICE,
                [
                    Candidate(MemoryType.FACT, f"{text} {i}", channel=Channel.EXPLICIT)
                    for text in SENTENCES.values()
                ],
            )
    finally:
        engine.close()
    plans = {}
    for name, driver in (("sqlite3", sqlite3), ("sqlcipher", dbapi2)):
        conn = driver.connect(str(tmp_path / "memory.db"))
        conn.row_factory = driver.Row
        try:
            plans[name] = {
                q: _keyword_plan(conn, ALICE, q) for q in ("Valparaiso sister", "妹妹 搬到")
            }
        finally:
            conn.close()
    assert plans["sqlite3"] == plans["sqlcipher"]
    for plan in plans["sqlcipher"].values():
        assert plan[0].startswith("SCAN records_fts"), plan


def _journal_with_pending(tmp_path: Path, key_text: str) -> None:
    from openclaw_memory.store.capture_journal import FILE_NAME, CaptureJournal

    journal = CaptureJournal(tmp_path / FILE_NAME, key=keys.parse_key(key_text, "test"))
    try:
        journal.add("c1", "capture", ALICE, {"text": SENTENCES["zh"]})
    finally:
        journal.close()


def _opens_with(tmp_path: Path, key_text: str) -> dict[str, bool]:
    """Which of the store and the journal key_text opens; what it opens must hold their rows."""
    from openclaw_memory.store.capture_journal import FILE_NAME, CaptureJournal
    from openclaw_memory.store import inspect
    from openclaw_memory.store.sqlite import Database
    from openclaw_memory.store.sqlite import SQLiteStore

    key = keys.parse_key(key_text, "test")
    out = {}
    try:
        db = Database(_config(tmp_path).sqlite_file, key=key)
    except StoreError:
        out["store"] = False
    else:
        try:
            held = inspect.select(SQLiteStore(db), "records", ("summary",))
            found = {row["summary"] for row in held}
            assert found == set(SENTENCES.values())
            out["store"] = True
        finally:
            db.close()
    if not (tmp_path / FILE_NAME).exists():
        return out
    try:
        journal = CaptureJournal(tmp_path / FILE_NAME, key=key)
    except StoreError:
        out["journal"] = False
    else:
        try:
            assert [e.body["text"] for e in journal.pending()] == [SENTENCES["zh"]]
            out["journal"] = True
        finally:
            journal.close()
    return out


def test_rekey_changes_the_key_of_the_store_and_its_journal(
    tmp_path, clock, key_env, monkeypatch, capsys
):
    _fill(_config(tmp_path), clock)
    _journal_with_pending(tmp_path, RAW_KEY)
    chroma = _digest(_config(tmp_path).chroma_dir)
    monkeypatch.setenv(keys.NEW_KEY_ENV, "a new passphrase, long enough")
    assert main(["--config", str(_yaml(tmp_path)), "encrypt", "--rekey"]) == 0
    out = capsys.readouterr().out
    assert "rekeyed" in out and "$OPENCLAW_MEMORY_NEW_KEY" in out and RAW_KEY not in out
    assert _opens_with(tmp_path, RAW_KEY) == {"store": False, "journal": False}
    assert _opens_with(tmp_path, "a new passphrase, long enough") == {
        "store": True,
        "journal": True,
    }
    assert _leaks(tmp_path) == {"en": [], "zh": []}
    assert not [p for p in tmp_path.iterdir() if p.name.endswith((".rekeying", ".encrypting"))]
    assert oct(_config(tmp_path).sqlite_file.stat().st_mode & 0o777) == "0o600"
    assert _digest(_config(tmp_path).chroma_dir) == chroma  # no record text there to rekey
    monkeypatch.setenv(keys.KEY_ENV, "a new passphrase, long enough")
    store = open_record_store(_config(tmp_path))
    try:
        assert len(store.keyword_search(ALICE, "Valparaiso 妹妹")) == 2
    finally:
        store.close()


def test_rekey_with_a_wrong_old_key_names_its_source_and_writes_nothing(
    tmp_path, clock, key_env, monkeypatch, capsys
):
    _fill(_config(tmp_path), clock)
    _journal_with_pending(tmp_path, RAW_KEY)
    yaml = str(_yaml(tmp_path))
    before = _digest(tmp_path)
    monkeypatch.setenv(keys.KEY_ENV, "e1" * 32)
    monkeypatch.setenv(keys.NEW_KEY_ENV, OTHER_KEY)
    assert main(["--config", yaml, "encrypt", "--rekey"]) == 2
    err = capsys.readouterr().err
    assert "the key from $OPENCLAW_MEMORY_KEY does not open" in err and "nothing was written" in err
    assert "$OPENCLAW_MEMORY_NEW_KEY" in err and "e1" * 32 not in err
    assert _digest(tmp_path) == before
    assert _opens_with(tmp_path, RAW_KEY) == {"store": True, "journal": True}


def test_rekey_needs_a_new_key_from_a_private_file_or_the_environment(
    tmp_path, clock, key_env, capsys
):
    _fill(_config(tmp_path), clock)
    yaml = str(_yaml(tmp_path))
    before = _digest(tmp_path)
    assert main(["--config", yaml, "encrypt", "--rekey"]) == 2
    assert "set $OPENCLAW_MEMORY_NEW_KEY or name a file" in capsys.readouterr().err
    new_file = tmp_path.parent / f"{tmp_path.name}-new.key"
    new_file.write_text(OTHER_KEY + "\n", encoding="utf-8")
    new_file.chmod(0o644)
    assert main(["--config", yaml, "encrypt", "--rekey", "--new-key-file", str(new_file)]) == 2
    assert "--new-key-file): mode 0644" in capsys.readouterr().err
    assert _digest(tmp_path) == before
    new_file.chmod(0o600)
    assert main(["--config", yaml, "encrypt", "--rekey", "--new-key-file", str(new_file)]) == 0
    assert _opens_with(tmp_path, OTHER_KEY) == {"store": True}


CRASH_AT = """
import os, sys
from openclaw_memory.cli import main
from openclaw_memory.store import encrypt

step, when = int(sys.argv[2]), sys.argv[3]
real, calls = encrypt._replace, []

def crash(path, target):
    calls.append(path)
    if len(calls) == step and when == "before":
        os._exit(9)
    real(path, target)
    if len(calls) == step and when == "after":
        os._exit(9)

encrypt._replace = crash
sys.exit(main(["--config", sys.argv[1], "encrypt", "--rekey"]))
"""


@pytest.mark.parametrize(
    "step,when",
    [(1, "before"), (1, "after"), (2, "before")],
    ids=["store-copied", "store-renamed", "journal-copied"],
)
def test_a_rekey_killed_at_a_step_leaves_each_file_whole_and_a_rerun_finishes(
    tmp_path, clock, key_env, monkeypatch, step, when
):
    import subprocess

    _fill(_config(tmp_path), clock)
    _journal_with_pending(tmp_path, RAW_KEY)
    monkeypatch.setenv(keys.NEW_KEY_ENV, OTHER_KEY)
    yaml = str(_yaml(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", CRASH_AT, yaml, str(step), when],
        env={**os.environ},
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 9, done.stderr.decode()
    old, new = _opens_with(tmp_path, RAW_KEY), _opens_with(tmp_path, OTHER_KEY)
    store_done = (step, when) != (1, "before")
    assert old == {"store": not store_done, "journal": True}
    assert new == {"store": store_done, "journal": False}
    assert main(["--config", yaml, "encrypt", "--rekey"]) == 0
    assert _opens_with(tmp_path, RAW_KEY) == {"store": False, "journal": False}
    assert _opens_with(tmp_path, OTHER_KEY) == {"store": True, "journal": True}
    assert not [p for p in tmp_path.iterdir() if ".rekeying" in p.name]


def test_rekey_leaves_a_journal_still_in_plaintext_to_the_next_start(
    tmp_path, clock, key_env, monkeypatch
):
    from openclaw_memory.store.capture_journal import FILE_NAME, CaptureJournal

    _fill(_config(tmp_path), clock)
    plain = CaptureJournal(tmp_path / FILE_NAME)  # written before encryption was turned on
    plain.add("c1", "capture", ALICE, {"text": SENTENCES["zh"]})
    plain.close()
    monkeypatch.setenv(keys.NEW_KEY_ENV, OTHER_KEY)
    assert main(["--config", str(_yaml(tmp_path)), "encrypt", "--rekey"]) == 0
    assert _opens_with(tmp_path, OTHER_KEY) == {"store": True, "journal": True}
    assert _leaks(tmp_path) == {"en": [], "zh": []}  # the start encrypted it, with the new key
