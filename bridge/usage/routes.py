"""`GET /v1/usage`: the ledger's totals and groups over a span of days (docs/usage.md),
behind the same key and Host/Origin rules as the API."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from datetime import date
from typing import Any

from aiohttp import web

from bridge.core.errors import ApiError, invalid_request
from bridge.http.json_body import strict_json_response
from bridge.usage.meter import USAGE_LEDGER
from bridge.usage.queries import DEFAULT_DAYS, MAX_RECENT, Span, read_summary

# The budgets' use for the answer's `budgets` (set by bridge/budgets/wiring.py when a budget is
# on): the budgets count from this ledger and sit above it, so they plug in here.
BUDGET_REPORT: web.AppKey[Callable[[], Awaitable[list[dict[str, Any]]]]] = web.AppKey(
    "budget_report"
)


def _day(query: dict[str, str] | Any, name: str, today: date | None = None) -> date | None:
    text = query.get(name)
    if text is None:
        return None
    if text == "today":  # the bridge's local day, whatever the caller's clock says
        return today or date.today()
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise invalid_request(
            f"Invalid {name!r}: {text!r} is not an ISO date (YYYY-MM-DD).", param=name
        ) from None


def span_of(query: Any, today: date | None = None) -> Span:
    """`?since=` and `?until=` (ISO dates or `today`, local days, both included); by default
    the last 30 days. A `since` alone runs to today, an `until` alone covers the 30 days
    before it."""
    since, until = _day(query, "since", today), _day(query, "until", today)
    last = Span.last_days(DEFAULT_DAYS, until or today)
    span = Span(since or last.since, until or last.until)
    if span.since > span.until:
        raise invalid_request(
            f"Invalid 'since': {span.since} is after 'until' ({span.until}).", param="since"
        )
    return span


def _recent(query: Any) -> int:
    text = query.get("recent", "20")
    # ASCII digits only: `str.isdigit` takes "²", which `int` refuses.
    if not (text.isascii() and text.isdigit()) or int(text) > MAX_RECENT:
        raise invalid_request(
            f"Invalid 'recent': {text!r} is not a whole number from 0 to {MAX_RECENT}.",
            param="recent",
        )
    return int(text)


async def usage(request: web.Request) -> web.Response:
    ledger = request.app.get(USAGE_LEDGER)
    if ledger is None:
        raise ApiError(
            404,
            "The usage ledger is off (--usage-db none, or the maestroBridge.usage.database "
            "setting): nothing is recorded.",
            code="usage_off",
        )
    span, recent = span_of(request.query), _recent(request.query)
    try:
        body = await asyncio.to_thread(read_summary, ledger.path, span, recent)
    except sqlite3.Error as exc:
        raise ApiError(
            503,
            f"The usage ledger {ledger.path} cannot be read now ({exc}). Retry shortly.",
            type="server_error",
            code="usage_unavailable",
            headers={"Retry-After": "1"},
        ) from None
    report = request.app.get(BUDGET_REPORT)
    body["budgets"] = await report() if report else []
    return strict_json_response(body)


def mount(app: web.Application) -> None:
    app.router.add_get("/v1/usage", usage)
