"""Ledger files from older bridges: the columns added since (rows.py `UPGRADE`) are added to
the file by a bridge that writes it, and read as their defaults by one that only reads it (a
temporary view in the reader's own connection: the file is not changed)."""

from __future__ import annotations

import sqlite3

from bridge.usage.rows import UPGRADE


def _missing(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    have = {row[1] for row in conn.execute("PRAGMA main.table_info(requests)")}
    return [column for column in UPGRADE if column[0] not in have]


def add_columns(conn: sqlite3.Connection) -> None:
    """The writer's connection: the missing columns added to the file's table."""
    for name, definition, _ in _missing(conn):
        conn.execute(f"ALTER TABLE requests ADD COLUMN {name} {definition}")


def read_as_new(conn: sqlite3.Connection) -> None:
    """A reader's connection: an older table read through a view that has every column (a
    temporary object is found before the file's own of the same name)."""
    missing = _missing(conn)
    if not missing:
        return
    defaults = ", ".join(f"{default} AS {name}" for name, _, default in missing)
    conn.execute(f"CREATE TEMP VIEW requests AS SELECT *, {defaults} FROM main.requests")
