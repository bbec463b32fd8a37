"""A usage ledger file prepared for the budget tests: rows another bridge would have written
(bridge/usage/rows.py), and the expected reset times of a daily and a monthly budget."""

from __future__ import annotations

import math
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from bridge.usage.ledger import connect
from bridge.usage.rows import INSERT, UsageRow, row_values


def usage_row(**fields: Any) -> UsageRow:
    """A finished request's row: 0 tokens, now, sim-echo over Chat Completions, unless told."""
    values: dict[str, Any] = {
        "started": time.time(),
        "client": "other",
        "dialect": "chat",
        "path": "/v1/chat/completions",
        "requested_model": "sim-echo",
        "model": "sim-echo",
        "input_tokens": 0,
        "cached_tokens": 0,
        "output_tokens": 0,
        "reasoning_tokens": 0,
        "estimated": False,
        "first_token_ms": 10.0,
        "duration_ms": 20.0,
        "status": 200,
        "error": None,
        "streamed": False,
        "cancelled": False,
    }
    return UsageRow(**{**values, **fields})


def seed(path: Path, tokens: int, client: str = "other", model: str = "sim-echo") -> None:
    """One finished request of `tokens` input tokens, started a second ago."""
    row = usage_row(
        started=time.time() - 1,
        client=client,
        requested_model=model,
        model=model,
        input_tokens=tokens,
    )
    conn = connect(path)
    try:
        with conn:
            conn.execute(INSERT, row_values(row))
    finally:
        conn.close()


def rows(path: Path) -> list[dict[str, Any]]:
    """Every row of the file, oldest first."""
    conn = connect(path)
    try:
        cursor = conn.execute("SELECT * FROM requests ORDER BY id")
        names = [column[0] for column in cursor.description]
        return [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]
    finally:
        conn.close()


def next_local_midnight() -> datetime:
    now = datetime.now().astimezone()
    return datetime.combine(now.date() + timedelta(days=1), datetime.min.time()).astimezone()


def next_month_start() -> datetime:
    now = datetime.now().astimezone()
    first = (now.date().replace(day=1) + timedelta(days=32)).replace(day=1)
    return datetime.combine(first, datetime.min.time()).astimezone()


def seconds_until(moment: datetime) -> int:
    return math.ceil((moment - datetime.now().astimezone()).total_seconds())


def wait_for(condition: Any, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.1)
