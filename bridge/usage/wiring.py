"""The ledger in the application: tags on every request, `GET /v1/usage` and its page
`GET /usage`, the metered backend."""

from __future__ import annotations

import asyncio

from aiohttp import web

from bridge.core.backend import Backend, ModelPrices
from bridge.settings import BridgeSettings
from bridge.usage import page_route, routes
from bridge.usage.ledger import UsageLedger
from bridge.usage.location import ledger_path
from bridge.usage.meter import USAGE_LEDGER, MeteredBackend
from bridge.usage.tagging import tag_requests


def install(app: web.Application, backend: Backend, settings: BridgeSettings) -> Backend:
    """`backend`, recording each chat in the ledger unless the ledger is off."""
    app.middlewares.append(tag_requests)
    routes.mount(app)
    page_route.mount(app)  # GET /usage: the page that reads /v1/usage
    path = ledger_path(settings.usage)
    if path is None:
        return backend
    ledger = UsageLedger(path, settings.usage.retentionDays)
    rates = {
        model: ModelPrices(
            input=rate.input,
            output=rate.output,
            cacheRead=rate.cacheRead,
            cacheWrite=rate.cacheWrite,
        )
        for model, rate in settings.usage.creditRates.items()
    }
    metered = MeteredBackend(backend, ledger, rates)
    app[USAGE_LEDGER] = ledger

    async def close(_: web.Application) -> None:
        await metered.drain()
        await asyncio.to_thread(ledger.close)  # writes what is still queued

    app.on_cleanup.append(close)
    return metered
