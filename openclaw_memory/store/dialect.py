"""What differs between the SQL of the two server-less and server backends, as small parameters.

Statements shared by SQLite and PostgreSQL are written once (`store/portability_sql.py`) with
these in place of the few spellings that differ: the parameter mark, null-safe equality, the
smaller and larger of two values, and how a table's columns are listed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Dialect:
    name: str
    #: the parameter mark of the driver (sqlite3: ?, psycopg: %s)
    mark: str
    #: equality that holds between two NULLs
    same: str
    #: the smaller and the larger of two values (SQLite's two-argument MIN and MAX)
    least: str
    greatest: str

    def marks(self, n: int) -> str:
        """n parameter marks, comma-separated."""
        return ", ".join([self.mark] * n)

    def columns(self, conn: Any, table: str) -> set[str]:
        """The column names of a table."""
        if self.name == "sqlite":
            return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        return {
            row[0]
            for row in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = %s "
                "AND table_schema = current_schema()",
                (table,),
            ).fetchall()
        }


SQLITE = Dialect("sqlite", "?", "IS", "MIN", "MAX")
POSTGRES = Dialect("postgres", "%s", "IS NOT DISTINCT FROM", "LEAST", "GREATEST")
