"""Tavily's Search API: `POST https://api.tavily.com/search` with the key as a bearer token;
the domain filters go to Tavily too (`include_domains`, `exclude_domains`)."""

from __future__ import annotations

from typing import Any

from bridge.web_search.backends.base import fetch_json, items
from bridge.web_search.request import SearchAsk
from bridge.web_search.results import SearchResult, result_of

TAVILY_URL = "https://api.tavily.com/search"


class TavilySearch:
    name = "tavily"

    def __init__(self, key: str, timeout: float, url: str = "") -> None:
        self._key = key
        self._url = url.rstrip("/") or TAVILY_URL
        self._timeout = timeout

    async def search(self, query: str, ask: SearchAsk, limit: int) -> list[SearchResult | None]:
        body: dict[str, Any] = {"query": query, "max_results": min(20, limit * 2)}
        if ask.allowed_domains:
            body["include_domains"] = ask.allowed_domains
        if ask.blocked_domains:
            body["exclude_domains"] = ask.blocked_domains
        headers = {"Authorization": f"Bearer {self._key}"}
        raw = await fetch_json("POST", self._url, self._timeout, headers=headers, body=body)
        found = items(raw.get("results") if isinstance(raw, dict) else None)
        return [
            result_of(
                item.get("title"),
                item.get("url"),
                item.get("content"),
                item.get("published_date"),
            )
            for item in found[: limit * 4]
        ]
