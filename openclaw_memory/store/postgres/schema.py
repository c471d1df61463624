"""PostgreSQL schema as numbered migrations (applied in order, recorded in `schema_version`).

The same tables as the SQLite store (`store/schema.py`), with PostgreSQL's types; where SQLite
has an FTS5 table, this store keeps an inverted index of its own (`keyword_docs`,
`keyword_terms`, `keyword_stats`) so BM25's statistics are those of one (user, agent) scope:
one user's words do not shift another's ranking. Migrations run under an advisory lock, so
processes starting together apply each one once.
"""

from __future__ import annotations

from typing import Any

from ..schema import NEWEST_OF_EACH

#: the advisory lock held while migrating (an arbitrary constant of this package)
MIGRATION_LOCK = 0x6F636D01


def _m1_core() -> str:
    return """
        CREATE TABLE records (
            rid BIGSERIAL PRIMARY KEY,
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
            importance DOUBLE PRECISION NOT NULL,
            confidence DOUBLE PRECISION NOT NULL,
            channel TEXT NOT NULL,
            source_session TEXT,
            turn_ids TEXT NOT NULL DEFAULT '[]',
            writer TEXT NOT NULL,
            status TEXT NOT NULL,
            version INTEGER NOT NULL,
            prev_id TEXT,
            superseded_at DOUBLE PRECISION,
            created_at DOUBLE PRECISION NOT NULL,
            updated_at DOUBLE PRECISION NOT NULL,
            last_accessed_at DOUBLE PRECISION,
            access_count BIGINT NOT NULL DEFAULT 0,
            expires_at DOUBLE PRECISION,
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

        CREATE TABLE versions (
            record_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            summary TEXT NOT NULL,
            detail TEXT,
            channel TEXT NOT NULL,
            confidence DOUBLE PRECISION NOT NULL,
            turn_ids TEXT NOT NULL DEFAULT '[]',
            valid_from DOUBLE PRECISION NOT NULL,
            superseded_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (record_id, version)
        );
        CREATE INDEX ver_scope ON versions(user_id, agent_id);

        CREATE TABLE vectors (
            record_id TEXT PRIMARY KEY,
            model TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            dim INTEGER NOT NULL,
            vec BYTEA NOT NULL,
            parts BYTEA
        );

        CREATE TABLE outbox (
            seq BIGSERIAL PRIMARY KEY,
            record_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            op TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL
        );
        CREATE INDEX outbox_scope ON outbox(user_id, agent_id, seq);

        CREATE TABLE audit (
            seq BIGSERIAL PRIMARY KEY,
            at DOUBLE PRECISION NOT NULL,
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
            started_at DOUBLE PRECISION NOT NULL,
            last_active_at DOUBLE PRECISION NOT NULL,
            ended_at DOUBLE PRECISION,
            end_reason TEXT,
            summary_id TEXT,
            PRIMARY KEY (user_id, agent_id, id)
        );
        CREATE INDEX sess_time ON sessions(user_id, agent_id, last_active_at);

        CREATE TABLE messages (
            seq BIGSERIAL PRIMARY KEY,
            session_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            role TEXT NOT NULL,
            content TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            turn_id TEXT,
            created_at DOUBLE PRECISION NOT NULL,
            in_window INTEGER NOT NULL DEFAULT 1
        );
        CREATE INDEX msg_session ON messages(user_id, agent_id, session_id, created_at);
        CREATE INDEX msg_window ON messages(user_id, agent_id, session_id, in_window, seq);

        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """


def _m2_keywords() -> str:
    # An inverted index per (user, agent): a B-tree on (scope, term, rid) finds a term's
    # documents of one scope and counts them (its document frequency) as one index range, which
    # a GIN index over every user's documents cannot. `length` counts the document's tokens
    # plus one, as FTS5 counts the scope token of its row, so scores follow FTS5's bm25().
    return """
        CREATE TABLE keyword_docs (
            rid BIGINT PRIMARY KEY,
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            length INTEGER NOT NULL,
            tokens TEXT NOT NULL
        );
        CREATE TABLE keyword_terms (
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            term TEXT NOT NULL,
            rid BIGINT NOT NULL,
            tf INTEGER NOT NULL,
            PRIMARY KEY (user_id, agent_id, term, rid)
        );
        CREATE INDEX kw_terms_rid ON keyword_terms(rid);
        CREATE TABLE keyword_stats (
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            docs BIGINT NOT NULL,
            length BIGINT NOT NULL,
            PRIMARY KEY (user_id, agent_id)
        );
        CREATE FUNCTION kw_stats() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                INSERT INTO keyword_stats(user_id, agent_id, docs, length)
                VALUES (NEW.user_id, NEW.agent_id, 1, NEW.length)
                ON CONFLICT (user_id, agent_id)
                DO UPDATE SET docs = keyword_stats.docs + 1,
                              length = keyword_stats.length + EXCLUDED.length;
                RETURN NEW;
            END IF;
            UPDATE keyword_stats SET docs = docs - 1, length = length - OLD.length
                WHERE user_id = OLD.user_id AND agent_id = OLD.agent_id;
            DELETE FROM keyword_stats
                WHERE user_id = OLD.user_id AND agent_id = OLD.agent_id AND docs <= 0;
            RETURN OLD;
        END $$;
        CREATE TRIGGER kw_stats_insert AFTER INSERT ON keyword_docs
            FOR EACH ROW EXECUTE FUNCTION kw_stats();
        CREATE TRIGGER kw_stats_delete AFTER DELETE ON keyword_docs
            FOR EACH ROW EXECUTE FUNCTION kw_stats();
        """


def _m3_read_indexes() -> str:
    # The read path's per-request lookups, consolidation's replay check and the console's keyset
    # pages (SQLite's 4, 5 and 9).
    return """
        CREATE INDEX rec_session_scope ON records(user_id, agent_id, session_id, created_at);
        CREATE INDEX rec_recent ON records(user_id, agent_id, status, updated_at);
        CREATE INDEX rec_type_time ON records(user_id, agent_id, type, created_at);
        CREATE INDEX rec_hash ON records(user_id, agent_id, type, content_hash);
        CREATE INDEX rec_active_subject ON records(user_id, agent_id, status, subject);
        CREATE INDEX rec_list_updated ON records(user_id, agent_id, status, updated_at, rid);
        CREATE INDEX rec_list_created ON records(user_id, agent_id, status, created_at, rid);
        CREATE INDEX rec_profile ON records(user_id, agent_id, importance DESC, updated_at DESC, type)
            WHERE status = 'active' AND type IN ('profile', 'preference') AND doubt_of IS NULL;
        """


def _m4_maintenance() -> str:
    # Scheduled maintenance: one row per run, and named leases (SQLite's 7).
    return """
        CREATE TABLE maintenance_runs (
            id BIGSERIAL PRIMARY KEY,
            trigger TEXT NOT NULL,
            holder TEXT NOT NULL,
            started_at DOUBLE PRECISION NOT NULL,
            finished_at DOUBLE PRECISION,
            status TEXT NOT NULL,
            counts TEXT NOT NULL DEFAULT '{}',
            error TEXT
        );
        CREATE INDEX maint_time ON maintenance_runs(started_at);
        CREATE TABLE leases (
            name TEXT PRIMARY KEY,
            holder TEXT NOT NULL,
            expires_at DOUBLE PRECISION NOT NULL
        );
        """


def _m5_counts_and_turns() -> str:
    # The console's counts per (user, agent, status, type) and turn id -> records, kept by
    # triggers in the writing transaction (SQLite's 8 and 9); a group at zero is deleted.
    return """
        CREATE TABLE record_counts (
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            status TEXT NOT NULL,
            type TEXT NOT NULL,
            n BIGINT NOT NULL,
            PRIMARY KEY (user_id, agent_id, status, type)
        );
        CREATE TABLE record_turns (
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            turn_id TEXT NOT NULL,
            rid BIGINT NOT NULL,
            PRIMARY KEY (user_id, agent_id, turn_id, rid)
        );
        CREATE FUNCTION rec_derived() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP IN ('UPDATE', 'DELETE') THEN
                UPDATE record_counts SET n = n - 1
                    WHERE user_id = OLD.user_id AND agent_id = OLD.agent_id
                      AND status = OLD.status AND type = OLD.type;
                DELETE FROM record_counts
                    WHERE user_id = OLD.user_id AND agent_id = OLD.agent_id
                      AND status = OLD.status AND type = OLD.type AND n <= 0;
                DELETE FROM record_turns
                    WHERE user_id = OLD.user_id AND agent_id = OLD.agent_id AND rid = OLD.rid;
            END IF;
            IF TG_OP IN ('UPDATE', 'INSERT') THEN
                INSERT INTO record_counts(user_id, agent_id, status, type, n)
                    VALUES (NEW.user_id, NEW.agent_id, NEW.status, NEW.type, 1)
                    ON CONFLICT (user_id, agent_id, status, type)
                    DO UPDATE SET n = record_counts.n + 1;
                INSERT INTO record_turns(user_id, agent_id, turn_id, rid)
                    SELECT NEW.user_id, NEW.agent_id, j.value, NEW.rid
                    FROM jsonb_array_elements_text(NEW.turn_ids::jsonb) AS j(value)
                    ON CONFLICT DO NOTHING;
                RETURN NEW;
            END IF;
            RETURN OLD;
        END $$;
        CREATE TRIGGER rec_derived_insert AFTER INSERT ON records
            FOR EACH ROW EXECUTE FUNCTION rec_derived();
        CREATE TRIGGER rec_derived_delete AFTER DELETE ON records
            FOR EACH ROW EXECUTE FUNCTION rec_derived();
        CREATE TRIGGER rec_derived_update AFTER UPDATE OF user_id, agent_id, status, type, turn_ids
            ON records FOR EACH ROW
            WHEN (OLD.user_id IS DISTINCT FROM NEW.user_id OR OLD.agent_id IS DISTINCT FROM NEW.agent_id
                  OR OLD.status IS DISTINCT FROM NEW.status OR OLD.type IS DISTINCT FROM NEW.type
                  OR OLD.turn_ids IS DISTINCT FROM NEW.turn_ids)
            EXECUTE FUNCTION rec_derived();
        """


def _m6_entities() -> str:
    # Entity memory (SQLite's 10): entities per (user, agent), their aliases (with the record
    # that stated one) and links (entity, record). Triggers, in the writing transaction: a
    # record's links go when it is deleted or forgotten, the aliases it stated when it is
    # deleted; an entity goes with its last link, its aliases with it. A purge leaves no entity
    # text.
    return """
        CREATE TABLE entities (
            id BIGSERIAL PRIMARY KEY,
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            key TEXT NOT NULL,
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            first_seen DOUBLE PRECISION NOT NULL,
            last_seen DOUBLE PRECISION NOT NULL,
            UNIQUE (user_id, agent_id, key)
        );
        CREATE TABLE entity_aliases (
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            alias TEXT NOT NULL,
            entity_id BIGINT NOT NULL,
            rid BIGINT NOT NULL,
            PRIMARY KEY (user_id, agent_id, alias)
        );
        CREATE INDEX ent_alias_entity ON entity_aliases(entity_id);
        CREATE INDEX ent_alias_rid ON entity_aliases(rid);
        CREATE TABLE entity_links (
            entity_id BIGINT NOT NULL,
            rid BIGINT NOT NULL,
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            seen_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (entity_id, rid)
        );
        CREATE INDEX ent_links_rid ON entity_links(rid);
        CREATE FUNCTION ent_record_gone() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM entity_links WHERE rid = OLD.rid;
            IF TG_OP = 'DELETE' THEN
                DELETE FROM entity_aliases WHERE rid = OLD.rid;
            END IF;
            RETURN OLD;
        END $$;
        CREATE TRIGGER ent_links_delete AFTER DELETE ON records
            FOR EACH ROW EXECUTE FUNCTION ent_record_gone();
        CREATE TRIGGER ent_links_forget AFTER UPDATE OF status ON records
            FOR EACH ROW WHEN (NEW.status = 'inactive') EXECUTE FUNCTION ent_record_gone();
        CREATE FUNCTION ent_orphan() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NOT EXISTS (SELECT 1 FROM entity_links WHERE entity_id = OLD.entity_id) THEN
                DELETE FROM entities WHERE id = OLD.entity_id;
            END IF;
            RETURN OLD;
        END $$;
        CREATE TRIGGER ent_orphan AFTER DELETE ON entity_links
            FOR EACH ROW EXECUTE FUNCTION ent_orphan();
        CREATE FUNCTION ent_aliases_gone() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM entity_aliases WHERE entity_id = OLD.id;
            RETURN OLD;
        END $$;
        CREATE TRIGGER ent_aliases_delete AFTER DELETE ON entities
            FOR EACH ROW EXECUTE FUNCTION ent_aliases_gone();
        """


def _m7_entity_backfill() -> str:
    # The records stored before migration 6 have no entity links: maintenance links them a
    # batch at a time (store/entity_linking.py; SQLite's migration 11).
    return """
        CREATE TABLE entity_backfill (next_rid BIGINT NOT NULL, upto BIGINT NOT NULL);
        INSERT INTO entity_backfill(next_rid, upto) SELECT 0, COALESCE(MAX(rid), 0) FROM records;
        """


def _m8_scope_lookups() -> str:
    # Lookups by id inside one (user, agent) as one index search on the scope and the id
    # together (SQLite's 12): a set of records by id, the links of a set of entities (newest
    # first, counted from the index alone) and a set of entities by id.
    return """
        CREATE INDEX IF NOT EXISTS rec_scope_id ON records(user_id, agent_id, id);
        CREATE INDEX IF NOT EXISTS ent_links_scope
            ON entity_links(user_id, agent_id, entity_id, seen_at, rid);
        CREATE INDEX IF NOT EXISTS ent_scope_id ON entities(user_id, agent_id, id);
        """


def _m9_newest_of_each() -> str:
    # A type's or a subject's newest live records in index order, stopped at the limit
    # (SQLite's 13, the same statements); rec_subject_recent replaces rec_active_subject.
    return NEWEST_OF_EACH


MIGRATIONS = (
    _m1_core,
    _m2_keywords,
    _m3_read_indexes,
    _m4_maintenance,
    _m5_counts_and_turns,
    _m6_entities,
    _m7_entity_backfill,
    _m8_scope_lookups,
    _m9_newest_of_each,
)


def migrate(conn: Any) -> int:
    """Apply pending migrations, each in its own transaction; return the schema version.

    conn: a psycopg connection in autocommit mode."""
    conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
        current = row[0] or 0
        for number, migration in enumerate(MIGRATIONS, start=1):
            if number <= current:
                continue
            with conn.transaction():
                conn.execute(migration())
                conn.execute("INSERT INTO schema_version(version) VALUES (%s)", (number,))
            current = number
        return current
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))
