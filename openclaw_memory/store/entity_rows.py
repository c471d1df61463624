"""The entity rows `store/entity_linking.py` writes, in the SQL SQLite and PostgreSQL share.

`EntityRowsSQL` holds the statements both backends run as written, with the dialect's parameter
mark and its names for the smaller and larger of two values; each backend's subclass adds the
three that differ (creating an entity and returning its id, the key-range and key-list
look-ups). The triggers of each backend's migration drop an entity with its last link and its
aliases with it.
"""

from __future__ import annotations

from typing import Any, Sequence

from .dialect import Dialect
from .entity_linking import Owner


class EntityRowsSQL:
    """`entity_linking.EntityRows` on one connection in its write transaction, minus `create`,
    `keys_extending` and `keys_among` (the backend's subclass)."""

    def __init__(self, conn: Any, dialect: Dialect) -> None:
        self.conn, self.d = conn, dialect

    def _sql(self, statement: str) -> str:
        return statement.replace("?", self.d.mark)

    def resolve(self, owner: Owner, key: str) -> int | None:
        row = self.conn.execute(
            self._sql(
                "SELECT entity_id FROM entity_aliases WHERE user_id = ? AND agent_id = ? "
                "AND alias = ?"
            ),
            (*owner, key),
        ).fetchone()
        return int(row[0]) if row else self.by_key(owner, key)

    def by_key(self, owner: Owner, key: str) -> int | None:
        row = self.conn.execute(
            self._sql("SELECT id FROM entities WHERE user_id = ? AND agent_id = ? AND key = ?"),
            (*owner, key),
        ).fetchone()
        return int(row[0]) if row else None

    def seen(self, eid: int, at: float) -> None:
        d = self.d
        self.conn.execute(
            self._sql(
                f"UPDATE entities SET first_seen = {d.least}(first_seen, ?), "
                f"last_seen = {d.greatest}(last_seen, ?) WHERE id = ?"
            ),
            (at, at, eid),
        )

    def put_alias(self, owner: Owner, alias: str, eid: int, rid: int) -> None:
        self.conn.execute(
            self._sql(
                "INSERT INTO entity_aliases(user_id, agent_id, alias, entity_id, rid) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id, agent_id, alias) "
                "DO UPDATE SET entity_id = excluded.entity_id, rid = excluded.rid"
            ),
            (*owner, alias, eid, rid),
        )

    def merge(self, source: int, target: int) -> None:
        run = self.conn.execute
        run(
            self._sql(
                "INSERT INTO entity_links(entity_id, rid, user_id, agent_id, seen_at) "
                "SELECT ?, rid, user_id, agent_id, seen_at FROM entity_links WHERE entity_id = ? "
                "ON CONFLICT DO NOTHING"
            ),
            (target, source),
        )
        run(
            self._sql("UPDATE entity_aliases SET entity_id = ? WHERE entity_id = ?"),
            (target, source),
        )
        run(
            self._sql(
                f"UPDATE entities SET first_seen = {self.d.least}(first_seen, (SELECT first_seen "
                "FROM entities WHERE id = ?)) WHERE id = ?"
            ),
            (source, target),
        )
        run(self._sql("DELETE FROM entity_links WHERE entity_id = ?"), (source,))
        run(self._sql("DELETE FROM entities WHERE id = ?"), (source,))

    def unlink(self, rid: int) -> None:
        self.conn.execute(self._sql("DELETE FROM entity_links WHERE rid = ?"), (rid,))

    def add_links(self, owner: Owner, rid: int, ids: Sequence[int], at: float) -> None:
        if ids:
            self.conn.executemany(
                self._sql(
                    "INSERT INTO entity_links(entity_id, rid, user_id, agent_id, seen_at) "
                    "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
                ),
                [(eid, rid, *owner, at) for eid in ids],
            )
