"""Token budgets in the application: the guard, fed by the ledger, checked by every dialect."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

from bridge.budgets.guard import BudgetGuard
from bridge.core.admission import set_check
from bridge.settings import BridgeSettings
from bridge.usage.meter import USAGE_LEDGER
from bridge.usage.routes import BUDGET_REPORT

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def install(app: web.Application, settings: BridgeSettings) -> None:
    """The guard, when a budget is set and the ledger it counts from is on."""
    budgets = settings.budgets.budgets()
    if not budgets:
        return
    ledger = app.get(USAGE_LEDGER)
    if ledger is None:
        log.warning(
            "Token budgets are not enforced: they count from the usage ledger, which is off "
            "(--usage-db none, or the maestroBridge.usage.database setting)"
        )
        return
    guard = BudgetGuard(budgets, ledger)
    ledger.listeners.append(guard.note)
    app[BUDGET_REPORT] = guard.report

    @web.middleware
    async def check_budgets(request: web.Request, handler: Handler) -> web.StreamResponse:
        set_check(guard.check)  # called by the dialect once the model is known
        return await handler(request)

    app.middlewares.append(check_budgets)
    log.info("Token budgets: %s", "; ".join(f"{b.label()}: {b.limit} tokens" for b in budgets))
