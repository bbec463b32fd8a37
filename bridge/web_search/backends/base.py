"""What every search service gives the bridge, and one bounded HTTP call for those on HTTP."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, Protocol

import aiohttp

from bridge.web_search.request import SearchAsk
from bridge.web_search.results import (
    TOO_MANY_REQUESTS,
    UNAVAILABLE,
    SearchFailed,
    SearchResult,
)

log = logging.getLogger(__name__)

MAX_RESPONSE_BYTES = 2 * 1024 * 1024  # a page of results is a few kilobytes


class SearchBackend(Protocol):
    name: str

    async def search(self, query: str, ask: SearchAsk, limit: int) -> list[SearchResult | None]:
        """Results for `query` (None for one without a usable URL); raises SearchFailed."""
        ...


async def fetch_json(
    method: str,
    url: str,
    timeout: float,
    *,
    params: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
    body: dict[str, Any] | None = None,
) -> Any:
    """The JSON a search service answers, read within `timeout` seconds and a size bound.

    No redirect is followed (a service's answer is its own) and no proxy variable is read (a
    local SearXNG must be reached directly). Raises SearchFailed; the message never holds a
    request header (a key travels in one)."""
    client_timeout = aiohttp.ClientTimeout(total=timeout)
    try:
        async with (
            aiohttp.ClientSession(timeout=client_timeout, trust_env=False) as session,
            session.request(
                method, url, params=params, headers=headers, json=body, allow_redirects=False
            ) as response,
        ):
            data = await response.content.read(MAX_RESPONSE_BYTES + 1)
            status = response.status
    except (aiohttp.ClientError, asyncio.TimeoutError, OSError, ValueError) as exc:
        raise SearchFailed(
            UNAVAILABLE, f"the search service did not answer ({type(exc).__name__})"
        ) from None
    except (ImportError, RuntimeError):  # no `ssl` in this process (bridge/plain_http.py)
        raise SearchFailed(
            UNAVAILABLE, "https needs TLS, which this process was started without"
        ) from None
    if status == 429:
        raise SearchFailed(TOO_MANY_REQUESTS, "the search service says: too many requests")
    if status != 200:
        raise SearchFailed(UNAVAILABLE, f"the search service answered HTTP {status}")
    if len(data) > MAX_RESPONSE_BYTES:
        raise SearchFailed(UNAVAILABLE, "the search service's answer is too large")
    try:
        return json.loads(data)
    except ValueError:
        raise SearchFailed(UNAVAILABLE, "the search service's answer is not JSON") from None


def field(raw: Any, *keys: str) -> Any:
    """`raw[k1][k2]...` through objects, else None."""
    for key in keys:
        if not isinstance(raw, dict):
            return None
        raw = raw.get(key)
    return raw


def items(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
