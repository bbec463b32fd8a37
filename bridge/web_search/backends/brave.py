"""Brave Search's Web Search API: `GET https://api.search.brave.com/res/v1/web/search` with
the key in `X-Subscription-Token` (api-dashboard.search.brave.com)."""

from __future__ import annotations

from bridge.web_search.backends.base import fetch_json, field, items
from bridge.web_search.request import SearchAsk
from bridge.web_search.results import SearchResult, result_of

BRAVE_URL = "https://api.search.brave.com/res/v1/web/search"


class BraveSearch:
    name = "brave"

    def __init__(self, key: str, timeout: float, url: str = "") -> None:
        self._key = key
        self._url = url.rstrip("/") or BRAVE_URL
        self._timeout = timeout

    async def search(self, query: str, ask: SearchAsk, limit: int) -> list[SearchResult | None]:
        params = {"q": query, "count": str(min(20, limit * 2))}
        if ask.location is not None and ask.location.country:
            params["country"] = ask.location.country.lower()
        headers = {"X-Subscription-Token": self._key, "Accept": "application/json"}
        raw = await fetch_json("GET", self._url, self._timeout, params=params, headers=headers)
        return [
            result_of(
                item.get("title"),
                item.get("url"),
                item.get("description"),
                item.get("page_age") or item.get("age"),
            )
            for item in items(field(raw, "web", "results"))[: limit * 4]
        ]
