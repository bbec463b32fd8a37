"""Editor tool calls in the usage ledger: rows written through a real `UsageLedger` (the same
writer thread and queue as model requests) and read back, a file from before the table
existed, retention, and budgets that never count them."""

from __future__ import annotations

import sqlite3
from datetime import date, datetime, timedelta
from itertools import zip_longest
from pathlib import Path
from typing import Any

from test_usage_queries import D1, D2, D3, local_midnight, row

from bridge.usage.ledger import UsageLedger, open_for_reading
from bridge.usage.queries import Span, summary, tokens_used
from bridge.usage.rows import ToolCallRow, UsageRow, row_values


def tool_call(day: date, hour: int = 12, **fields: Any) -> ToolCallRow:
    values: dict[str, Any] = {
        "started": local_midnight(day) + hour * 3600,
        "client": "claude-code",
        "tool": "editor_diagnostics",
        "duration_ms": 10.0,
        "outcome": "ok",
        "error": None,
        "result_chars": 120,
        "truncated": False,
    }
    values.update(fields)
    return ToolCallRow(**values)


def ledger_with_calls(
    path: Path, calls: list[ToolCallRow], requests: list[UsageRow] | None = None
) -> None:
    """Tool calls (and model requests, interleaved) written the way a bridge writes them."""
    ledger = UsageLedger(path)
    for call, request in zip_longest(calls, requests or []):
        if call is not None:
            ledger.record_tool_call(call)
        if request is not None:
            ledger.record(request)
    assert ledger.flush()
    ledger.close()


CALLS = [
    tool_call(D1, hour=9, tool="editor_diagnostics", duration_ms=30.0, result_chars=500),
    tool_call(D1, hour=10, tool="editor_diagnostics", duration_ms=10.0, result_chars=80),
    tool_call(D1, hour=11, tool="editor_diagnostics", duration_ms=20.0, outcome="timeout",
              error="the editor did not answer in 30 s", result_chars=0),
    tool_call(D2, hour=8, tool="editor_hover", client="codex", duration_ms=5.0),
    tool_call(D2, hour=9, tool="editor_hover", client="codex", duration_ms=7.0,
              result_chars=20_000, truncated=True),
    tool_call(D3, hour=1, tool="nope", client="gemini-cli", duration_ms=0.5,
              outcome="unknown", error="no tool named 'nope'", result_chars=0),
]  # fmt: skip
REQUESTS = [row(D1, input_tokens=1000, output_tokens=100), row(D2, input_tokens=50)]


def read(path: Path, span: Span, recent: int = 20) -> dict[str, Any]:
    conn = open_for_reading(path)
    try:
        return summary(conn, span, recent)
    finally:
        conn.close()


def test_tool_calls_written_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "usage.sqlite3"
    ledger_with_calls(path, CALLS, REQUESTS)
    body = read(path, Span(D1, D3))
    assert body["tools"] == {
        "calls": 6,
        "errors": 2,  # the timeout and the unknown tool
        "by_tool": [  # busiest first, then by name
            {"tool": "editor_diagnostics", "calls": 3, "errors": 1, "p50_ms": 20.0},
            {"tool": "editor_hover", "calls": 2, "errors": 0, "p50_ms": 5.0},  # nearest rank
            {"tool": "nope", "calls": 1, "errors": 1, "p50_ms": 0.5},
        ],
    }
    # Model requests are counted as before: tool calls are no requests.
    assert body["totals"]["requests"] == 2 and len(body["recent"]) == 2
    recent = body["recent_tools"]
    assert [call["tool"] for call in recent] == [call.tool for call in reversed(CALLS)]
    assert recent[0] == {
        "started": datetime.fromtimestamp(CALLS[-1].started).astimezone().isoformat("T", "seconds"),
        "client": "gemini-cli",
        "tool": "nope",
        "duration_ms": 0.5,
        "outcome": "unknown",
        "error": "no tool named 'nope'",
        "result_chars": 0,
        "truncated": False,
    }
    assert recent[1]["truncated"] is True and recent[1]["result_chars"] == 20_000
    # The span and `recent` bound the tool calls as they bound requests.
    only_d2 = read(path, Span(D2, D2), recent=1)
    assert only_d2["tools"]["calls"] == 2 and [t["tool"] for t in only_d2["tools"]["by_tool"]] == [
        "editor_hover"
    ]
    assert len(only_d2["recent_tools"]) == 1 and only_d2["recent_tools"][0]["duration_ms"] == 7.0
    assert read(path, Span(D1, D3), recent=0)["recent_tools"] == []
    empty = read(path, Span(D3 + timedelta(days=1), D3 + timedelta(days=2)))
    assert empty["tools"] == {"calls": 0, "errors": 0, "by_tool": []}


def test_median_is_the_nearest_rank_per_tool(tmp_path: Path) -> None:
    path = tmp_path / "usage.sqlite3"
    calls = [tool_call(D1, tool="a", duration_ms=float(ms)) for ms in (40, 10, 30, 20)]
    calls += [tool_call(D1, tool="b", duration_ms=float(ms)) for ms in range(1, 102)]
    ledger_with_calls(path, calls)
    by_tool = read(path, Span(D1, D1))["tools"]["by_tool"]
    assert [(t["tool"], t["calls"], t["p50_ms"]) for t in by_tool] == [
        ("b", 101, 51.0),
        ("a", 4, 20.0),
    ]


def test_long_names_and_errors_are_cut(tmp_path: Path) -> None:
    """An unknown tool's name is whatever the client sent: the file keeps a bounded part."""
    path = tmp_path / "usage.sqlite3"
    ledger_with_calls(path, [tool_call(D1, tool="t" * 5000, outcome="unknown", error="e" * 5000)])
    (call,) = read(path, Span(D1, D1))["recent_tools"]
    assert call["tool"] == "t" * 200 and call["error"] == "e" * 300


# The `requests` table of a ledger file from before tool calls were recorded (schema 1), as
# those bridges made it.
SCHEMA_1 = """
CREATE TABLE requests (
    id INTEGER PRIMARY KEY, started REAL NOT NULL, client TEXT NOT NULL, dialect TEXT NOT NULL,
    path TEXT NOT NULL, requested_model TEXT NOT NULL, model TEXT NOT NULL,
    input_tokens INTEGER NOT NULL, cached_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL, reasoning_tokens INTEGER NOT NULL,
    estimated INTEGER NOT NULL, first_token_ms REAL, duration_ms REAL NOT NULL,
    status INTEGER NOT NULL, error TEXT, streamed INTEGER NOT NULL, cancelled INTEGER NOT NULL
);
CREATE INDEX requests_started ON requests (started);
PRAGMA user_version = 1;
"""


def test_a_file_from_before_gets_the_table_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "usage.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.executescript(SCHEMA_1)
        # The columns of version 1 only (the first 17 of today's).
        values = row_values(row(D1, client="old-bridge", input_tokens=77))[:17]
        conn.execute(f"INSERT INTO requests VALUES (NULL, {', '.join('?' * 17)})", values)
    conn.close()
    # Read as it is (no bridge of this version opened it yet): no tool calls, and reading
    # does not change the file.
    body = read(path, Span(D1, D3))
    assert body["totals"]["requests"] == 1 and body["by_client"][0]["client"] == "old-bridge"
    assert body["tools"] == {"calls": 0, "errors": 0, "by_tool": []}
    assert body["recent_tools"] == []
    with sqlite3.connect(path) as conn:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    conn.close()
    assert "tool_calls" not in tables
    # A bridge of this version opens it: the table is made, the old row stays.
    ledger_with_calls(path, [tool_call(D2, tool="editor_hover")], [row(D2, client="new")])
    body = read(path, Span(D1, D3))
    assert [c["client"] for c in body["by_client"]] == ["new", "old-bridge"]
    assert body["by_client"][1]["input_tokens"] == 77
    assert body["tools"]["by_tool"] == [
        {"tool": "editor_hover", "calls": 1, "errors": 0, "p50_ms": 10.0}
    ]
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
        indexes = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    conn.close()
    assert "tool_calls_started" in indexes


def test_retention_forgets_old_tool_calls(tmp_path: Path) -> None:
    path = tmp_path / "usage.sqlite3"
    today = date.today()
    ledger_with_calls(
        path,
        [
            tool_call(today - timedelta(days=50), tool="old"),
            tool_call(today - timedelta(days=5), tool="recent"),
        ],
        [row(today - timedelta(days=50), client="old")],
    )
    everything = Span(date(2000, 1, 1), today)
    assert read(path, everything)["tools"]["calls"] == 2
    UsageLedger(path, retention_days=10).close()  # a bridge starts: old rows are forgotten
    body = read(path, everything)
    assert [t["tool"] for t in body["tools"]["by_tool"]] == ["recent"]
    assert body["totals"]["requests"] == 0


def test_budgets_never_count_tool_calls(tmp_path: Path) -> None:
    path = tmp_path / "usage.sqlite3"
    ledger = UsageLedger(path)
    told: list[UsageRow] = []
    ledger.listeners.append(told.append)  # how the budget guard hears of each row
    ledger.record_tool_call(tool_call(D1, result_chars=10_000))
    ledger.record(row(D1, input_tokens=30, output_tokens=3))
    assert ledger.flush()
    ledger.close()
    assert [r.input_tokens for r in told] == [30]
    conn = open_for_reading(path)
    try:
        assert tokens_used(conn, local_midnight(D1)) == 33
        assert summary(conn, Span(D1, D1))["tools"]["calls"] == 1
    finally:
        conn.close()
