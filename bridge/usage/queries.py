"""The ledger read back: totals and groups over a span of local days, the latest rows, the
editor tools' calls, and the tokens a budget has used. Plain functions over a connection, so
that the HTTP route (in a worker thread) and `maestro-bridge usage` (no bridge running) give
the same answer."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bridge.usage.rows import COLUMNS, TOOL_COLUMNS

if TYPE_CHECKING:  # the queries are given a connection; `serve`'s flags need none
    import sqlite3

DEFAULT_DAYS = 30
MAX_RECENT = 200

COUNTS = (
    "requests",
    "input_tokens",
    "cached_tokens",
    "cache_write_tokens",
    "output_tokens",
    "reasoning_tokens",
    "errors",
)
# AI credits (bridge/usage/credits.py): their sum over the rows whose cost is known, the part
# of it Copilot reported, and how many rows' cost is not known (the model's price unknown).
CREDITS = ("credits", "credits_reported", "credits_unknown")
_SUMS = """COUNT(*), COALESCE(SUM(input_tokens), 0), COALESCE(SUM(cached_tokens), 0),
    COALESCE(SUM(cache_write_tokens), 0),
    COALESCE(SUM(output_tokens), 0), COALESCE(SUM(reasoning_tokens), 0),
    COALESCE(SUM(status >= 400), 0),
    COALESCE(SUM(credits), 0), COALESCE(SUM(CASE WHEN credits_reported THEN credits END), 0),
    COALESCE(SUM(credits IS NULL), 0)"""
_DAY = "date(started, 'unixepoch', 'localtime')"
_GROUPS = {"by_client": "client", "by_model": "model", "by_day": _DAY}
_GROUP_KEYS = {"by_client": "client", "by_model": "model", "by_day": "day"}


@dataclass(frozen=True)
class Span:
    """Whole local days, `since` to `until` included."""

    since: date
    until: date

    @classmethod
    def last_days(cls, days: int = DEFAULT_DAYS, today: date | None = None) -> Span:
        today = today or date.today()
        if today.toordinal() <= days:  # no days before year 1
            return cls(date.min, today)
        return cls(today - timedelta(days=days - 1), today)

    def bounds(self) -> tuple[float, float]:
        """Unix seconds: local midnight of `since`, local midnight after `until`."""
        return _midnight(self.since), _midnight_after(self.until)


# Days far from now (`?since=0001-01-01`, `?until=9999-12-31`) have no Unix time on every
# platform (Windows has none before 1970): they stand for "from the start" and "to the end".
_EARLIEST, _LATEST = date(1970, 1, 2), date(9999, 12, 30)
_END_OF_TIME = 253_402_300_800.0  # 10000-01-01 UTC


def _midnight(day: date) -> float:
    if day < _EARLIEST:
        return 0.0
    if day > _LATEST:
        return _END_OF_TIME
    return datetime.combine(day, datetime.min.time()).timestamp()


def _midnight_after(day: date) -> float:
    return _END_OF_TIME if day > _LATEST else _midnight(day + timedelta(days=1))


def _counts(values: tuple[Any, ...]) -> dict[str, Any]:
    counts: dict[str, Any] = {
        name: int(value) for name, value in zip(COUNTS, values[: len(COUNTS)], strict=True)
    }
    credits, reported, unknown = values[len(COUNTS) :]
    counts.update(
        credits=round(float(credits), 4),
        credits_reported=round(float(reported), 4),
        credits_unknown=int(unknown),
    )
    return counts


def _percentile(
    conn: sqlite3.Connection, where: str, args: tuple[float, float], q: float
) -> float | None:
    (count,) = conn.execute(
        f"SELECT COUNT(*) FROM requests WHERE {where} AND first_token_ms IS NOT NULL", args
    ).fetchone()
    if not count:
        return None
    offset = min(count - 1, max(0, math.ceil(q * count) - 1))  # nearest rank
    (value,) = conn.execute(
        f"SELECT first_token_ms FROM requests WHERE {where} AND first_token_ms IS NOT NULL "
        "ORDER BY first_token_ms LIMIT 1 OFFSET ?",
        (*args, offset),
    ).fetchone()
    return round(float(value), 1)


def _local_time(started: float) -> str:
    return datetime.fromtimestamp(started).astimezone().isoformat(timespec="seconds")


def recent_rows(conn: sqlite3.Connection, span: Span, limit: int) -> list[dict[str, Any]]:
    where, args = "started >= ? AND started < ?", span.bounds()
    rows = conn.execute(
        f"SELECT {', '.join(COLUMNS)} FROM requests WHERE {where} "
        "ORDER BY started DESC, id DESC LIMIT ?",
        (*args, limit),
    ).fetchall()
    out = []
    for values in rows:
        row = dict(zip(COLUMNS, values, strict=True))
        row["started"] = _local_time(row["started"])
        for flag in ("estimated", "streamed", "cancelled", "credits_reported"):
            row[flag] = bool(row[flag])
        out.append(row)
    return out


def summary(conn: sqlite3.Connection, span: Span, recent: int = 20) -> dict[str, Any]:
    """`GET /v1/usage`'s body (docs/usage.md)."""
    where, args = "started >= ? AND started < ?", span.bounds()
    totals: dict[str, Any] = _counts(
        conn.execute(f"SELECT {_SUMS} FROM requests WHERE {where}", args).fetchone()
    )
    totals["cache_hit_ratio"] = (
        round(totals["cached_tokens"] / totals["input_tokens"], 4)
        if totals["input_tokens"]
        else 0.0
    )
    totals["first_token_ms_p50"] = _percentile(conn, where, args, 0.5)
    totals["first_token_ms_p95"] = _percentile(conn, where, args, 0.95)
    body: dict[str, Any] = {
        "object": "usage",
        "since": span.since.isoformat(),
        "until": span.until.isoformat(),
        "totals": totals,
    }
    for group, column in _GROUPS.items():
        rows = conn.execute(
            f"SELECT {column}, {_SUMS} FROM requests WHERE {where} "
            f"GROUP BY {column} ORDER BY {column}",
            args,
        ).fetchall()
        body[group] = [{_GROUP_KEYS[group]: key, **_counts(rest)} for key, *rest in rows]
    body["recent"] = recent_rows(conn, span, min(max(recent, 0), MAX_RECENT))
    body["tools"] = tool_totals(conn, span)
    body["recent_tools"] = recent_tool_calls(conn, span, min(max(recent, 0), MAX_RECENT))
    return body


def _has_tool_calls(conn: sqlite3.Connection) -> bool:
    """A file that no bridge recording tool calls has opened yet has no such table (reading
    never changes the file)."""
    made = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tool_calls'"
    ).fetchone()
    return made is not None


def tool_totals(conn: sqlite3.Connection, span: Span) -> dict[str, Any]:
    """The editor tools' calls over the span: how many, how many did not go well (any
    outcome but "ok"), and per tool, busiest first, with the median duration (nearest rank)."""
    if not _has_tool_calls(conn):
        return {"calls": 0, "errors": 0, "by_tool": []}
    args = span.bounds()
    rows = conn.execute(
        """
        SELECT tool, n, errors, duration_ms FROM (
            SELECT tool, duration_ms,
                ROW_NUMBER() OVER (PARTITION BY tool ORDER BY duration_ms) AS nth,
                COUNT(*) OVER (PARTITION BY tool) AS n,
                SUM(outcome != 'ok') OVER (PARTITION BY tool) AS errors
            FROM tool_calls WHERE started >= ? AND started < ?
        ) WHERE nth = (n + 1) / 2
        ORDER BY n DESC, tool
        """,
        args,
    ).fetchall()
    by_tool = [
        {"tool": tool, "calls": n, "errors": errors, "p50_ms": round(float(p50), 1)}
        for tool, n, errors, p50 in rows
    ]
    return {
        "calls": sum(row["calls"] for row in by_tool),
        "errors": sum(row["errors"] for row in by_tool),
        "by_tool": by_tool,
    }


def recent_tool_calls(conn: sqlite3.Connection, span: Span, limit: int) -> list[dict[str, Any]]:
    if not _has_tool_calls(conn):
        return []
    rows = conn.execute(
        f"SELECT {', '.join(TOOL_COLUMNS)} FROM tool_calls WHERE started >= ? AND started < ? "
        "ORDER BY started DESC, id DESC LIMIT ?",
        (*span.bounds(), limit),
    ).fetchall()
    out = []
    for values in rows:
        row = dict(zip(TOOL_COLUMNS, values, strict=True))
        row["started"] = _local_time(row["started"])
        row["truncated"] = bool(row["truncated"])
        out.append(row)
    return out


def tokens_used(
    conn: sqlite3.Connection,
    since: float,
    *,
    client: str | None = None,
    model: str | None = None,
) -> int:
    """Input + output tokens since `since` (Unix seconds), of one client or model or all."""
    sql = "SELECT COALESCE(SUM(input_tokens + output_tokens), 0) FROM requests WHERE started >= ?"
    args: list[Any] = [since]
    if client is not None:
        sql += " AND client = ?"
        args.append(client)
    if model is not None:
        sql += " AND model = ?"
        args.append(model)
    (used,) = conn.execute(sql, args).fetchone()
    return int(used)


def read_summary(path: Path, span: Span, recent: int) -> dict[str, Any]:
    """The summary from the file (an absent file is an empty ledger)."""
    from bridge.usage.ledger import open_for_reading  # sqlite3: `usage` reads, `serve` needs none

    conn = open_for_reading(path)
    try:
        return summary(conn, span, recent)
    finally:
        conn.close()
