"""SQLite schema as numbered migrations (applied in order, recorded in `schema_version`)."""

from __future__ import annotations

import sqlite3
import hashlib
from typing import Callable

# The SQLite schema's first migration: the core tables every later migration builds on
# (store/schema.py applies it and the rest in order).


def core(db: sqlite3.Connection) -> str:
    """Migration 1: the records, their logs, the sessions' messages and the meta table."""
    return """
        CREATE TABLE records (
            rid INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            workspace TEXT,
            session_id TEXT,
            type TEXT NOT NULL,
            subject TEXT,
            summary TEXT NOT NULL,
            detail TEXT,
            tags TEXT NOT NULL DEFAULT '[]',
            entities TEXT NOT NULL DEFAULT '[]',
            importance REAL NOT NULL,
            confidence REAL NOT NULL,
            channel TEXT NOT NULL,
            source_session TEXT,
            turn_ids TEXT NOT NULL DEFAULT '[]',
            writer TEXT NOT NULL,
            status TEXT NOT NULL,
            version INTEGER NOT NULL,
            prev_id TEXT,
            superseded_at REAL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            last_accessed_at REAL,
            access_count INTEGER NOT NULL DEFAULT 0,
            expires_at REAL,
            doubt_of TEXT,
            links TEXT NOT NULL DEFAULT '[]',
            content_hash TEXT NOT NULL
        );
        CREATE INDEX rec_scope ON records(user_id, agent_id, status, type);
        CREATE INDEX rec_subject ON records(user_id, agent_id, type, subject, status);
        CREATE INDEX rec_session ON records(session_id, created_at);
        CREATE INDEX rec_time ON records(user_id, agent_id, created_at);
        CREATE INDEX rec_expiry ON records(expires_at) WHERE expires_at IS NOT NULL;
        CREATE INDEX rec_prev ON records(prev_id) WHERE prev_id IS NOT NULL;

        -- Earlier versions of a record updated in place (restatements), newest last.
        CREATE TABLE versions (
            record_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            summary TEXT NOT NULL,
            detail TEXT,
            channel TEXT NOT NULL,
            confidence REAL NOT NULL,
            turn_ids TEXT NOT NULL DEFAULT '[]',
            valid_from REAL NOT NULL,
            superseded_at REAL NOT NULL,
            PRIMARY KEY (record_id, version)
        );
        CREATE INDEX ver_scope ON versions(user_id, agent_id);

        -- Vectors live here too (content-hash keyed), so the index can be rebuilt without
        -- re-embedding and a pending write can be searched before the index catches up.
        CREATE TABLE vectors (
            record_id TEXT PRIMARY KEY,
            model TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            dim INTEGER NOT NULL,
            vec BLOB NOT NULL
        );

        -- Durable outbox: the vector index follows SQLite commits (docs/design.md invariant 2).
        CREATE TABLE outbox (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            record_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            op TEXT NOT NULL,
            created_at REAL NOT NULL
        );
        CREATE INDEX outbox_scope ON outbox(user_id, agent_id, seq);

        CREATE TABLE audit (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            at REAL NOT NULL,
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            record_id TEXT,
            action TEXT NOT NULL,
            channel TEXT,
            reason TEXT NOT NULL,
            writer TEXT
        );
        CREATE INDEX audit_scope ON audit(user_id, agent_id, at);
        CREATE INDEX audit_record ON audit(record_id);

        CREATE TABLE sessions (
            id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            started_at REAL NOT NULL,
            last_active_at REAL NOT NULL,
            ended_at REAL,
            end_reason TEXT,
            summary_id TEXT,
            PRIMARY KEY (user_id, agent_id, id)
        );
        CREATE INDEX sess_time ON sessions(user_id, agent_id, last_active_at);

        -- Short-term memory: the session's window, persisted so it survives a restart.
        CREATE TABLE messages (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            role TEXT NOT NULL,
            content TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            turn_id TEXT,
            created_at REAL NOT NULL,
            in_window INTEGER NOT NULL DEFAULT 1
        );
        CREATE INDEX msg_session ON messages(user_id, agent_id, session_id, created_at);
        CREATE INDEX msg_window ON messages(user_id, agent_id, session_id, in_window, seq);

        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """


# SQLite schema as numbered migrations (applied in order, recorded in `schema_version`).

#: a migration's SQL, given the connection (to skip what a re-run or another process already did)
Migration = Callable[[sqlite3.Connection], str]


def _m2_fts(db: sqlite3.Connection) -> str:
    # Tokens are pre-segmented (jieba for Chinese) and space-joined, so unicode61 splits them.
    return """
        CREATE VIRTUAL TABLE records_fts USING fts5(tokens, tokenize = 'unicode61 remove_diacritics 2');
        """


def _m3_fts_scope(db: sqlite3.Connection) -> str:
    # Each FTS row carries its scope as one opaque token, so a keyword search intersects the
    # query's terms with one user's rows inside FTS5 instead of scoring every user's matches and
    # filtering after the join (at 100k memories over 100 users: 68 -> 9 ms per query).
    return """
        CREATE VIRTUAL TABLE records_fts_scoped USING fts5(tokens, scope, tokenize = 'unicode61 remove_diacritics 2');
        INSERT INTO records_fts_scoped(rowid, tokens, scope)
            SELECT f.rowid, f.tokens, scope_token(r.user_id, r.agent_id)
            FROM records_fts f JOIN records r ON r.rid = f.rowid;
        DROP TABLE records_fts;
        ALTER TABLE records_fts_scoped RENAME TO records_fts;
        """


def _m4_read_indexes(db: sqlite3.Connection) -> str:
    # The read path's per-request lookups, each an index search instead of a walk over all of a
    # user's rows: an episode's neighbours in its session, recent important memories, the latest
    # summaries.
    return """
        CREATE INDEX IF NOT EXISTS rec_session_scope ON records(user_id, agent_id, session_id, created_at);
        CREATE INDEX IF NOT EXISTS rec_recent ON records(user_id, agent_id, status, updated_at);
        CREATE INDEX IF NOT EXISTS rec_type_time ON records(user_id, agent_id, type, created_at);
        """


def _m5_content_hash(db: sqlite3.Connection) -> str:
    # Consolidation looks for a replayed capture of the same text (type + content hash) before
    # every episode or event it appends; without this index that read scans all of the
    # user's records of the type, which grows with the user's history.
    return """
        CREATE INDEX IF NOT EXISTS rec_hash ON records(user_id, agent_id, type, content_hash);
        """


def _m6_sentence_parts(db: sqlite3.Connection) -> str:
    # A memory of several sentences is also indexed by its sentences: their vectors ride with
    # the memory's own (a float32 matrix, one row per part; NULL when it has none), so they are
    # replaced, purged and rebuilt with it.
    if "parts" in {row[1] for row in db.execute("PRAGMA table_info(vectors)")}:
        return ""
    return """
        ALTER TABLE vectors ADD COLUMN parts BLOB;
        """


def _m7_maintenance_runs(db: sqlite3.Connection) -> str:
    # Issue 21: scheduled maintenance. One row per run (who ran it, when, what it changed, how it
    # ended), and named leases so one process at a time runs it, however many share the store.
    return """
        CREATE TABLE IF NOT EXISTS maintenance_runs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            trigger TEXT NOT NULL,
            holder TEXT NOT NULL,
            started_at REAL NOT NULL,
            finished_at REAL,
            status TEXT NOT NULL,
            counts TEXT NOT NULL DEFAULT '{}',
            error TEXT
        );
        CREATE INDEX IF NOT EXISTS maint_time ON maintenance_runs(started_at);
        CREATE TABLE IF NOT EXISTS leases (
            name TEXT PRIMARY KEY,
            holder TEXT NOT NULL,
            expires_at REAL NOT NULL
        );
        """


def _m8_record_counts(db: sqlite3.Connection) -> str:
    # Issue 20: the console's users page shows every (user, agent)'s counts by status and type.
    # Counting them with GROUP BY walks every row of the store (61 ms of CPU at 100k memories);
    # these counts are kept by triggers in the same transaction as the write that changes them,
    # so they cannot drift, and a group that reaches zero is deleted (a purged user leaves no
    # row). Rebuilt from the records whenever the migration runs (a re-run after a rollback).
    key = "user_id = {r}.user_id AND agent_id = {r}.agent_id AND status = {r}.status AND type = {r}.type"
    add = (
        "INSERT INTO record_counts(user_id, agent_id, status, type, n) "
        "VALUES (NEW.user_id, NEW.agent_id, NEW.status, NEW.type, 1) "
        "ON CONFLICT(user_id, agent_id, status, type) DO UPDATE SET n = n + 1;"
    )
    drop = (
        f"UPDATE record_counts SET n = n - 1 WHERE {key.format(r='OLD')}; "
        f"DELETE FROM record_counts WHERE {key.format(r='OLD')} AND n <= 0;"
    )
    return f"""
        DROP TRIGGER IF EXISTS rec_counts_insert;
        DROP TRIGGER IF EXISTS rec_counts_delete;
        DROP TRIGGER IF EXISTS rec_counts_update;
        DROP TABLE IF EXISTS record_counts;
        CREATE TABLE record_counts (
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            status TEXT NOT NULL,
            type TEXT NOT NULL,
            n INTEGER NOT NULL,
            PRIMARY KEY (user_id, agent_id, status, type)
        ) WITHOUT ROWID;
        INSERT INTO record_counts(user_id, agent_id, status, type, n)
            SELECT user_id, agent_id, status, type, COUNT(*) FROM records GROUP BY user_id, agent_id, status, type;
        CREATE TRIGGER rec_counts_insert AFTER INSERT ON records BEGIN {add} END;
        CREATE TRIGGER rec_counts_delete AFTER DELETE ON records BEGIN {drop} END;
        CREATE TRIGGER rec_counts_update AFTER UPDATE OF user_id, agent_id, status, type ON records
            WHEN OLD.user_id IS NOT NEW.user_id OR OLD.agent_id IS NOT NEW.agent_id
              OR OLD.status IS NOT NEW.status OR OLD.type IS NOT NEW.type
            BEGIN {drop} {add} END;
        """


def _m9_console_indexes(db: sqlite3.Connection) -> str:
    # Issue 20: every console list and the read path's lookups as index ranges at 100k memories
    # of one user, whatever the filter matches (a rare type or subject used to walk every row).
    # - rec_list_updated / rec_list_created: the list's keyset order per status with the filter
    #   columns inside the index, so a page is found among index entries, not table rows. The rid
    #   follows the sort column directly, so their order is exactly that of rec_recent and
    #   rec_time (a query the planner moves onto them returns the same rows in the same order).
    # - rec_active_subject: the subject channel's distinct active subjects, in index order.
    # - rec_profile: the profile channel's query (its WHERE exactly) already in its ORDER BY, ties
    #   by type then rid as the sort over rec_scope gave them; 20 entries read instead of sorting
    #   every profile and preference.
    # - record_turns: turn id -> records distilled from it, kept by triggers from turn_ids (the
    #   outdated-turn check looked through every inactive record's turn list with json_each).
    rebuild = "" if "record_turns" not in _tables(db) else "DROP TABLE record_turns;"
    turns_of = "SELECT {r}.user_id, {r}.agent_id, j.value, {r}.rid FROM json_each({r}.turn_ids) j"
    add = f"INSERT OR IGNORE INTO record_turns(user_id, agent_id, turn_id, rid) {turns_of.format(r='NEW')};"
    drop = "DELETE FROM record_turns WHERE user_id = OLD.user_id AND agent_id = OLD.agent_id AND rid = OLD.rid;"
    return f"""
        CREATE INDEX IF NOT EXISTS rec_list_updated
            ON records(user_id, agent_id, status, updated_at, rid, type, subject, created_at);
        CREATE INDEX IF NOT EXISTS rec_list_created
            ON records(user_id, agent_id, status, created_at, rid, type, subject, updated_at);
        CREATE INDEX IF NOT EXISTS rec_active_subject ON records(user_id, agent_id, status, subject);
        CREATE INDEX IF NOT EXISTS rec_profile ON records(user_id, agent_id, importance DESC, updated_at DESC, type)
            WHERE status = 'active' AND type IN ('profile', 'preference') AND doubt_of IS NULL;
        DROP TRIGGER IF EXISTS rec_turns_insert;
        DROP TRIGGER IF EXISTS rec_turns_delete;
        DROP TRIGGER IF EXISTS rec_turns_update;
        {rebuild}
        CREATE TABLE record_turns (
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            turn_id NOT NULL,  -- no type: compared exactly as json_each returns it
            rid INTEGER NOT NULL,
            PRIMARY KEY (user_id, agent_id, turn_id, rid)
        ) WITHOUT ROWID;
        INSERT OR IGNORE INTO record_turns(user_id, agent_id, turn_id, rid)
            SELECT r.user_id, r.agent_id, j.value, r.rid FROM records r, json_each(r.turn_ids) j;
        CREATE TRIGGER rec_turns_insert AFTER INSERT ON records BEGIN {add} END;
        CREATE TRIGGER rec_turns_delete AFTER DELETE ON records BEGIN {drop} END;
        CREATE TRIGGER rec_turns_update AFTER UPDATE OF user_id, agent_id, turn_ids ON records
            BEGIN {drop} {add} END;
        """


def _m10_entities(db: sqlite3.Connection) -> str:
    # Issue 22: entity memory. The people, places, things and dates the memories name, per
    # (user, agent), one row per normalised name, with the memories that mention them. Links go
    # with their record (deleted, or forgotten: status inactive) and an entity goes with its
    # last link, its aliases with it; an alias goes with the record that stated it too, so a
    # purge leaves no entity text behind. Filled on write (store/records.py); the records
    # stored before are linked by maintenance (migration 11).
    return """
        CREATE TABLE IF NOT EXISTS entities (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            key TEXT NOT NULL,
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            first_seen REAL NOT NULL,
            last_seen REAL NOT NULL,
            UNIQUE (user_id, agent_id, key)
        );
        CREATE TABLE IF NOT EXISTS entity_aliases (
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            alias TEXT NOT NULL,
            entity_id INTEGER NOT NULL,
            rid INTEGER NOT NULL,
            PRIMARY KEY (user_id, agent_id, alias)
        );
        CREATE INDEX IF NOT EXISTS ent_alias_entity ON entity_aliases(entity_id);
        CREATE INDEX IF NOT EXISTS ent_alias_rid ON entity_aliases(rid);
        CREATE TABLE IF NOT EXISTS entity_links (
            entity_id INTEGER NOT NULL,
            rid INTEGER NOT NULL,
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            seen_at REAL NOT NULL,
            PRIMARY KEY (entity_id, rid)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS ent_links_rid ON entity_links(rid);
        DROP TRIGGER IF EXISTS ent_links_delete;
        DROP TRIGGER IF EXISTS ent_links_forget;
        DROP TRIGGER IF EXISTS ent_orphan;
        DROP TRIGGER IF EXISTS ent_aliases_delete;
        CREATE TRIGGER ent_links_delete AFTER DELETE ON records BEGIN
            DELETE FROM entity_links WHERE rid = OLD.rid;
            DELETE FROM entity_aliases WHERE rid = OLD.rid;
        END;
        CREATE TRIGGER ent_links_forget AFTER UPDATE OF status ON records
            WHEN NEW.status = 'inactive' BEGIN
            DELETE FROM entity_links WHERE rid = NEW.rid;
        END;
        CREATE TRIGGER ent_orphan AFTER DELETE ON entity_links
            WHEN NOT EXISTS (SELECT 1 FROM entity_links WHERE entity_id = OLD.entity_id) BEGIN
            DELETE FROM entities WHERE id = OLD.entity_id;
        END;
        CREATE TRIGGER ent_aliases_delete AFTER DELETE ON entities BEGIN
            DELETE FROM entity_aliases WHERE entity_id = OLD.id;
        END;
        """


def _m11_entity_backfill(db: sqlite3.Connection) -> str:
    # Issue 22: the records stored before migration 10 have no entity links; maintenance links
    # them a batch at a time (store/entity_linking.py), so opening a large store stays quick.
    return """
        CREATE TABLE IF NOT EXISTS entity_backfill (next_rid INTEGER NOT NULL, upto INTEGER NOT NULL);
        DELETE FROM entity_backfill;
        INSERT INTO entity_backfill(next_rid, upto) SELECT 0, COALESCE(MAX(rid), 0) FROM records;
        """


def _m12_scope_lookups(db: sqlite3.Connection) -> str:
    # Lookups by id inside one (user, agent), each an index search on the scope and the id
    # together. Without them the planner, which has no statistics here, takes an index on the
    # scope alone and walks every row of the user (at 100,000 memories of one user: every
    # record, link or entity the user has, on each request):
    # - rec_scope_id: a set of records by id within the scope (their entity links);
    # - ent_links_scope: the links of a set of entities within the scope, newest first, and
    #   their counts (read from the index alone);
    # - ent_scope_id: a set of entities by id within the scope (their names).
    return """
        CREATE INDEX IF NOT EXISTS rec_scope_id ON records(user_id, agent_id, id);
        CREATE INDEX IF NOT EXISTS ent_links_scope
            ON entity_links(user_id, agent_id, entity_id, seen_at, rid);
        CREATE INDEX IF NOT EXISTS ent_scope_id ON entities(user_id, agent_id, id);
        """


def _m13_newest_of_each(db: sqlite3.Connection) -> str:
    # A type's or a subject's newest live records read in index order and stopped at the limit
    # (records.newest_of_each): without them the planner either sorted every live record of a
    # common type or subject (27,000 facts of one user for the newest 500) or walked the user's
    # records newest first looking for a rare one (all 100,000 for a scope with no procedure).
    # rec_subject_recent begins with rec_active_subject's columns, which it replaces.
    return NEWEST_OF_EACH


#: the indexes of a type's or a subject's newest records, in both backends' SQL
NEWEST_OF_EACH = """
    CREATE INDEX IF NOT EXISTS rec_type_recent
        ON records(user_id, agent_id, status, type, updated_at);
    CREATE INDEX IF NOT EXISTS rec_subject_recent
        ON records(user_id, agent_id, status, subject, updated_at);
    DROP INDEX IF EXISTS rec_active_subject;
    """


def _tables(db: sqlite3.Connection) -> set[str]:
    return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


MIGRATIONS: tuple[Migration, ...] = (
    core,
    _m2_fts,
    _m3_fts_scope,
    _m4_read_indexes,
    _m5_content_hash,
    _m6_sentence_parts,
    _m7_maintenance_runs,
    _m8_record_counts,
    _m9_console_indexes,
    _m10_entities,
    _m11_entity_backfill,
    _m12_scope_lookups,
    _m13_newest_of_each,
)


def scope_token(user_id: str, agent_id: str) -> str:
    """The FTS token of a (user, agent) scope: a hash, so no user id is spelled out in the index
    and any id (spaces, Chinese) becomes one alphanumeric token."""
    digest = hashlib.blake2b(
        f"{user_id}\0{agent_id}".encode("utf-8", "surrogatepass"), digest_size=10
    )
    return "scope" + digest.hexdigest()


def migrate(db: sqlite3.Connection) -> int:
    """Apply pending migrations in one transaction each; return the schema version."""
    db.create_function("scope_token", 2, scope_token, deterministic=True)
    db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    row = db.execute("SELECT MAX(version) FROM schema_version").fetchone()
    current = row[0] or 0
    for number, migration in enumerate(MIGRATIONS, start=1):
        if number <= current:
            continue
        # One script per migration, inside its own transaction: all of it lands or none.
        db.executescript(
            f"BEGIN IMMEDIATE;\n{migration(db)}\n"
            f"INSERT INTO schema_version(version) VALUES ({number});\nCOMMIT;"
        )
        current = number
    return current
