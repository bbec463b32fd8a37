"""The budget guard on a real ledger file: a burst of requests costs one read of the file, this
process's rows count at once (before any new read), other bridges' rows from the next read,
and a spent budget refuses with 429 `budget_exceeded`."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path

import pytest
from budget_ledger import seed, usage_row

from bridge.budgets import guard as guard_module
from bridge.budgets.guard import BudgetGuard
from bridge.core.budget_spec import Budget
from bridge.core.errors import ApiError
from bridge.usage.ledger import UsageLedger

ROW = usage_row(
    started=0.0,
    client="codex",
    dialect="responses",
    path="/v1/responses",
    input_tokens=30,
    output_tokens=10,
    streamed=True,
)


async def test_a_burst_costs_one_read_and_own_rows_count_at_once(tmp_path: Path) -> None:
    db = tmp_path / "usage.sqlite3"
    seed(db, 50, client="codex")
    ledger = UsageLedger(db)
    try:
        guard = BudgetGuard([Budget("client", "codex", "day", 100)], ledger)
        ledger.listeners.append(guard.note)
        reads = 0
        query = guard._query

        def counted(starts: list[float]) -> list[int]:
            nonlocal reads
            reads += 1
            return query(starts)

        guard._query = counted  # type: ignore[method-assign]
        await asyncio.gather(*(guard.check("codex", "sim-echo") for _ in range(20)))
        assert reads == 1
        ledger.record(replace(ROW, started=time.time()))  # 40 tokens: 90 of 100
        (use,) = await guard.uses()
        assert (use.used, use.state(), reads) == (90, "warning", 1)
        ledger.record(replace(ROW, started=time.time()))  # 130 of 100
        with pytest.raises(ApiError) as refused:
            await guard.check("codex", "sim-echo")
        assert refused.value.status == 429 and refused.value.code == "budget_exceeded"
        assert reads == 1
        await guard.check("aider", "sim-echo")  # not counted by this budget: admitted
        # Another bridge's row counts from the next read; this one's rows are not counted twice.
        seed(db, 5, client="codex")
        guard._reading.at -= guard_module.CACHE_SECONDS  # type: ignore[union-attr]
        (use,) = await guard.uses()
        assert (use.used, reads) == (135, 2)
    finally:
        await asyncio.to_thread(ledger.close)
