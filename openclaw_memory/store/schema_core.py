"""The SQLite schema's first migration: the core tables every later migration builds on
(store/schema.py applies it and the rest in order)."""

from __future__ import annotations

import sqlite3


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
