"""The tokens each budget has used, and the check that refuses a request over one.

Use is read from the usage ledger (input + output tokens of every bridge sharing the file) in
a worker thread, at most once per `CACHE_SECONDS` however many requests come at once; this
process's own rows recorded since that read are added as they are recorded (the ledger tells
the guard of each), so a burst from one agent is counted without waiting for the next read.
Rows of other bridges count from the next read on. A ledger that cannot be read admits the
request (logged once): a cap must not stop the user's agents because of a locked file.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bridge.budgets.refusal import budget_exceeded
from bridge.core.budget_spec import WARNING_SHARE, Budget, period_bounds
from bridge.usage.ledger import UsageLedger, open_for_reading
from bridge.usage.queries import tokens_used
from bridge.usage.rows import UsageRow

log = logging.getLogger(__name__)

CACHE_SECONDS = 2.0  # a burst of requests costs one read of the ledger
FLUSH_SECONDS = 0.5  # rows this process queued before a read are written first


@dataclass
class _Reading:
    """Each budget's use as last read, and this process's rows counted since (per budget)."""

    starts: list[float]  # Unix seconds: the start of each budget's period
    resets: list[datetime]
    used: list[int]
    added: list[int]
    at: float  # time.monotonic() of the read

    def note(self, budgets: list[Budget], row: UsageRow) -> None:
        for index, budget in enumerate(budgets):
            if row.started >= self.starts[index] and budget.counts(row.client, row.model):
                self.added[index] += row.input_tokens + row.output_tokens


@dataclass(frozen=True)
class BudgetUse:
    budget: Budget
    used: int
    resets_at: datetime

    def state(self) -> str:
        if self.used >= self.budget.limit:
            return "exceeded"
        return "warning" if self.used >= WARNING_SHARE * self.budget.limit else "ok"

    def as_json(self) -> dict[str, Any]:
        """An entry of GET /v1/usage's `budgets`."""
        return {
            "scope": self.budget.scope,
            "name": self.budget.name,
            "period": self.budget.period,
            "limit": self.budget.limit,
            "used": self.used,
            "resets_at": self.resets_at.isoformat(timespec="seconds"),
            "state": self.state(),
        }


class BudgetGuard:
    def __init__(self, budgets: list[Budget], ledger: UsageLedger) -> None:
        self.budgets = budgets
        self.ledger = ledger
        self._reading: _Reading | None = None
        self._next: _Reading | None = None  # the read under way: rows noted from its start
        self._pending: asyncio.Future[None] | None = None
        self._warned: set[tuple[Budget, float]] = set()  # (budget, period start) logged
        self._unreadable = False  # a run of failed reads is logged once
        self._tried_at = float("-inf")  # the last failed read: tried again after CACHE_SECONDS

    def note(self, row: UsageRow) -> None:
        """A row this process recorded (the ledger calls this from the event loop)."""
        for reading in (self._reading, self._next):
            if reading is not None:
                reading.note(self.budgets, row)
        self._warn()

    async def uses(self) -> list[BudgetUse]:
        """Every budget's use now (this process's rows exact, others' as of the last read)."""
        if self._stale():
            await self._refresh()
        reading = self._reading
        if reading is None:  # the ledger could not be read yet
            return []
        return [
            BudgetUse(budget, reading.used[i] + reading.added[i], reading.resets[i])
            for i, budget in enumerate(self.budgets)
        ]

    async def report(self) -> list[dict[str, Any]]:
        """Every budget's use as `GET /v1/usage` shows it (bridge/usage/routes.py)."""
        return [use.as_json() for use in await self.uses()]

    async def check(self, client: str, model: str) -> None:
        """Raises the 429 `budget_exceeded` when a budget counting this request is spent."""
        if not any(budget.counts(client, model) for budget in self.budgets):
            return  # no read for a request no budget counts
        spent = [
            use
            for use in await self.uses()
            if use.budget.counts(client, model) and use.used >= use.budget.limit
        ]
        if not spent:
            return
        latest = max(spent, key=lambda use: use.resets_at)  # what the client must wait for
        log.info(
            "Refused a request of %s to %s: %s is spent (%d of %d tokens)",
            client,
            model,
            latest.budget.label(),
            latest.used,
            latest.budget.limit,
        )
        raise budget_exceeded(
            latest.budget, latest.used, latest.resets_at, datetime.now().astimezone()
        )

    def _stale(self) -> bool:
        reading = self._reading
        if reading is None:
            return time.monotonic() - self._tried_at >= CACHE_SECONDS
        if time.monotonic() - reading.at >= CACHE_SECONDS:
            return True
        return time.time() >= min(reset.timestamp() for reset in reading.resets)

    async def _refresh(self) -> None:
        """One read at a time; every request that finds the cache stale waits for it."""
        if self._pending is None:
            self._pending = asyncio.ensure_future(self._read())
            self._pending.add_done_callback(self._read_done)
        await asyncio.shield(self._pending)

    def _read_done(self, _: asyncio.Future[None]) -> None:
        self._pending = None

    async def _read(self) -> None:
        await asyncio.to_thread(self.ledger.flush, FLUSH_SECONDS)
        bounds = [period_bounds(budget.period) for budget in self.budgets]
        starts = [start.timestamp() for start, _ in bounds]
        zeros = [0] * len(self.budgets)
        # Rows recorded from here on are counted in memory; a row written in the moment
        # between this and the query counts twice (in the safe direction), never not at all.
        self._next = _Reading(starts, [reset for _, reset in bounds], zeros, list(zeros), 0.0)
        try:
            used = await asyncio.to_thread(self._query, starts)
        except (sqlite3.Error, OSError) as exc:
            if not self._unreadable:
                log.warning(
                    "Token budgets cannot read the usage ledger %s (%s); requests are let "
                    "through until it can be read",
                    self.ledger.path,
                    exc,
                )
                self._unreadable = True
            self._next = None
            self._tried_at = time.monotonic()
            if self._reading is not None:
                self._reading.at = self._tried_at  # tried again after CACHE_SECONDS
            return
        self._unreadable = False
        reading, self._next = self._next, None
        reading.used, reading.at = used, time.monotonic()
        self._reading = reading
        self._warn()

    def _query(self, starts: list[float]) -> list[int]:
        conn = open_for_reading(self.ledger.path)
        try:
            return [
                tokens_used(
                    conn,
                    start,
                    client=budget.name if budget.scope == "client" else None,
                    model=budget.name if budget.scope == "model" else None,
                )
                for budget, start in zip(self.budgets, starts, strict=True)
            ]
        finally:
            conn.close()

    def _warn(self) -> None:
        """80 % of a budget: a warning in the log, once per budget and period."""
        reading = self._reading
        if reading is None:
            return
        for index, budget in enumerate(self.budgets):
            used = reading.used[index] + reading.added[index]
            key = (budget, reading.starts[index])
            if used >= WARNING_SHARE * budget.limit and key not in self._warned:
                self._warned.add(key)
                log.warning(
                    "%s is %d%% used (%d of %d input + output tokens); it resets at %s",
                    budget.label()[0].upper() + budget.label()[1:],
                    used * 100 // budget.limit,
                    used,
                    budget.limit,
                    reading.resets[index].isoformat(timespec="seconds"),
                )
