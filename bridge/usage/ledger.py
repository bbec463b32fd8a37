"""The ledger's writer: rows go to SQLite from a thread of their own.

`record` only puts a row on a bounded queue, so the event loop never waits on the disk. The
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

from bridge.usage.rows import CREATE_TABLE, INSERT, SCHEMA_VERSION, UsageRow, row_values

log = logging.getLogger(__name__)

DEFAULT_RETENTION_DAYS = 400  # a year of monthly budgets and trends, with room to compare
BUSY_TIMEOUT_SECONDS = 5.0
QUEUE_ROWS = 10_000  # rows waiting for the disk; past it new rows are dropped
BATCH_ROWS = 500
_STOP = None


def connect(path: Path) -> sqlite3.Connection:
    """A connection that writes the ledger (the file and its table made when missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")  # WAL: durable up to the last checkpoint
    conn.executescript(CREATE_TABLE)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    return conn


def open_for_reading(path: Path) -> sqlite3.Connection:
    """A connection that reads the ledger; a file not made yet reads as an empty ledger."""
    if not path.exists():
        conn = sqlite3.connect(":memory:")
        conn.executescript(CREATE_TABLE)
        return conn
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
    return conn


class UsageLedger:
    """Rows recorded from the event loop, written by one thread; `close` writes what is left."""

    def __init__(self, path: Path, retention_days: int = DEFAULT_RETENTION_DAYS) -> None:
        self.path = path
        self.retention_days = retention_days
        self._rows: queue.Queue[UsageRow | None] = queue.Queue(QUEUE_ROWS)
        self._failing = False  # a run of failures is logged once
        self._thread = threading.Thread(target=self._write_rows, name="usage-ledger", daemon=True)
        self._opened = threading.Event()
        # Told of each row as it is recorded (token budgets count this process's rows at once).
        self.listeners: list[Callable[[UsageRow], None]] = []
        self._thread.start()

    def record(self, row: UsageRow) -> None:
        for listener in self.listeners:
            listener(row)
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
        if not self._failing:
            log.warning("Usage rows are not being saved to %s: %s", self.path, why)
            self._failing = True
        log.debug("Dropped %d usage row(s)", count)

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

    def _open(self) -> sqlite3.Connection | None:
        try:
            conn = connect(self.path)
            self._forget_old(conn)
            return conn
        except (sqlite3.Error, OSError) as exc:
            self._dropped(f"cannot open it ({exc})")
            return None

    def _write(self, conn: sqlite3.Connection | None, rows: list[UsageRow]) -> None:
        if conn is None:
            self._dropped("it could not be opened", len(rows))
            return
        try:
            with conn:
                conn.executemany(INSERT, [row_values(row) for row in rows])
        except sqlite3.Error as exc:  # a full disk, a lock held past the busy timeout
            self._dropped(str(exc), len(rows))
            return
        if self._failing:
            log.info("Usage rows are being saved to %s again", self.path)
            self._failing = False

    def _forget_old(self, conn: sqlite3.Connection) -> None:
        """Rows older than the retention go when a bridge starts (it runs for days at most)."""
        cutoff = time.time() - self.retention_days * 86_400
        with conn:
            conn.execute("DELETE FROM requests WHERE started < ?", (cutoff,))
