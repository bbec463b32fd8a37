"""The ledger's writer: rows go to SQLite from a thread of their own.

`record` (a model request) and `record_tool_call` (an editor tool called over MCP) only put a
row on one bounded queue, so the event loop never waits on the disk. The
thread writes what has gathered in one transaction. A full disk, a file another process holds
locked past the busy timeout, or a queue that is full drops rows (logged once per run of
failures) and never an answer. The file is in WAL mode, so every window's bridge, `serve` and
`maestro-bridge usage` read and write it at once.
"""

from __future__ import annotations

import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from bridge.settings import DEFAULT_RETENTION_DAYS
from bridge.usage.rows import (
    CREATE_TABLE,
    INSERT,
    INSERT_TOOL_CALL,
    SCHEMA_VERSION,
    ToolCallRow,
    UsageRow,
    row_values,
    tool_call_values,
)
from bridge.usage.upgrade import add_columns, read_as_new

log = logging.getLogger(__name__)

BUSY_TIMEOUT_SECONDS = 5.0
QUEUE_ROWS = 10_000  # rows waiting for the disk; past it new rows are dropped
BATCH_ROWS = 500
_STOP = None


def connect(path: Path, busy_timeout: float = BUSY_TIMEOUT_SECONDS) -> sqlite3.Connection:
    """A connection that writes the ledger (the file and its tables made when missing: a
    file from before tool calls were recorded gets their table here)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=busy_timeout)
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")  # WAL: durable up to the last checkpoint
        conn.executescript(CREATE_TABLE)
        add_columns(conn)  # a file from an older bridge
        if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")  # a write: only once
    except BaseException:
        conn.close()
        raise
    return conn


def _empty_ledger() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.executescript(CREATE_TABLE)
    return conn


def open_for_reading(path: Path) -> sqlite3.Connection:
    """A connection that reads the ledger; a file not made yet (or whose table a starting
    bridge has not made yet) reads as an empty ledger."""
    if not path.exists():
        return _empty_ledger()
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS)
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
        made = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'requests'"
        ).fetchone()
    except BaseException:
        conn.close()
        raise
    if made is None:
        conn.close()
        return _empty_ledger()
    try:
        read_as_new(conn)  # a file from an older bridge
    except BaseException:
        conn.close()
        raise
    return conn


class UsageLedger:
    """Rows recorded from the event loop, written by one thread; `close` writes what is left."""

    def __init__(
        self,
        path: Path,
        retention_days: int = DEFAULT_RETENTION_DAYS,
        *,
        busy_timeout: float = BUSY_TIMEOUT_SECONDS,
        queue_rows: int = QUEUE_ROWS,
    ) -> None:
        self.path = path
        self.retention_days = retention_days
        self.busy_timeout = busy_timeout
        self._rows: queue.Queue[UsageRow | ToolCallRow | None] = queue.Queue(queue_rows)
        # A run of failures is logged once; the event loop (a full queue) and the writer
        # thread both report them.
        self._failing = False
        self._failing_lock = threading.Lock()
        self._thread = threading.Thread(target=self._write_rows, name="usage-ledger", daemon=True)
        # Told of each row as it is recorded (token budgets count this process's rows at once).
        self.listeners: list[Callable[[UsageRow], None]] = []
        self._open_error = ""  # why the file could not be opened, told when rows are dropped
        self._thread.start()

    def record(self, row: UsageRow) -> None:
        for listener in self.listeners:
            listener(row)
        self._enqueue(row)

    def record_tool_call(self, row: ToolCallRow) -> None:
        """An editor tool's call (bridge/mcp/); no listener: budgets count tokens, and a tool
        call has none."""
        self._enqueue(row)

    def _enqueue(self, row: UsageRow | ToolCallRow) -> None:
        try:
            self._rows.put_nowait(row)
        except queue.Full:
            self._dropped("the queue of rows to write is full")

    def close(self, timeout: float = 10.0) -> None:
        """Writes the rows still queued (blocking: call it from a thread or at exit)."""
        if self._thread.is_alive():
            self._rows.put(_STOP)
            self._thread.join(timeout)

    def flush(self, timeout: float = 10.0) -> bool:
        """Waits until every row recorded so far is written or dropped (for tests and exit)."""
        deadline = time.monotonic() + timeout
        while self._rows.unfinished_tasks and time.monotonic() < deadline:
            time.sleep(0.01)
        return not self._rows.unfinished_tasks

    def _dropped(self, why: str, count: int = 1) -> None:
        with self._failing_lock:
            first, self._failing = not self._failing, True
        if first:
            log.warning("Usage rows are not being saved to %s: %s", self.path, why)
        log.debug("Dropped %d usage row(s)", count)

    def _saved(self) -> None:
        with self._failing_lock:
            again, self._failing = self._failing, False
        if again:
            log.info("Usage rows are being saved to %s again", self.path)

    def _write_rows(self) -> None:
        conn = self._open()
        while True:
            batch = [self._rows.get()]
            while len(batch) < BATCH_ROWS:
                try:
                    batch.append(self._rows.get_nowait())
                except queue.Empty:
                    break
            rows = [row for row in batch if row is not None]
            if rows:
                conn = conn or self._open()
                self._write(conn, rows)
            for _ in batch:
                self._rows.task_done()
            if len(rows) < len(batch):  # the stop mark
                break
        if conn is not None:
            conn.close()

    def _connect(self) -> sqlite3.Connection:
        return connect(self.path, self.busy_timeout)

    def _open(self) -> sqlite3.Connection | None:
        """The writer's connection, or None (tried again with the next rows: a bridge that
        starts beside another one may find the file busy for a moment)."""
        try:
            conn = self._connect()
        except Exception as exc:  # sqlite3.Error, OSError: the thread lives on
            self._open_error = f"cannot open it ({exc})"
            log.debug("Usage ledger %s not opened: %s", self.path, exc)
            return None
        try:
            self._forget_old(conn)
        except sqlite3.Error as exc:  # locked for now: the next start forgets them
            log.debug("Old usage rows not forgotten now: %s", exc)
        return conn

    def _write(self, conn: sqlite3.Connection | None, rows: list[UsageRow | ToolCallRow]) -> None:
        if conn is None:
            self._dropped(self._open_error, len(rows))
            return
        requests = [row_values(row) for row in rows if isinstance(row, UsageRow)]
        tool_calls = [tool_call_values(row) for row in rows if isinstance(row, ToolCallRow)]
        try:
            with conn:  # one transaction for both tables
                if requests:
                    conn.executemany(INSERT, requests)
                if tool_calls:
                    conn.executemany(INSERT_TOOL_CALL, tool_calls)
        except Exception as exc:  # a full disk, a lock held past the timeout
            self._dropped(str(exc), len(rows))
            return
        self._saved()

    def _forget_old(self, conn: sqlite3.Connection) -> None:
        """Rows older than the retention go when a bridge starts (it runs for days at most)."""
        cutoff = time.time() - self.retention_days * 86_400
        with conn:
            conn.execute("DELETE FROM requests WHERE started < ?", (cutoff,))
            conn.execute("DELETE FROM tool_calls WHERE started < ?", (cutoff,))
