"""SearXNG's JSON API: `GET <url>/search?q=...&format=json` (the instance must allow the
`json` format, `search.formats` in its settings.yml). The URL is the user's: a SearXNG on
this machine or the local network is the common setup, so any address is allowed."""

from __future__ import annotations

from bridge.web_search.backends.base import fetch_json, items
from bridge.web_search.request import SearchAsk
from bridge.web_search.results import SearchResult, result_of


class SearxngSearch:
    name = "searxng"

    def __init__(self, url: str, timeout: float) -> None:
        self._url = url.rstrip("/") + "/search"
        self._timeout = timeout

    async def search(self, query: str, ask: SearchAsk, limit: int) -> list[SearchResult | None]:
        params = {"q": query, "format": "json"}
        if ask.location is not None and ask.location.country:
            params["language"] = f"all-{ask.location.country.upper()}"
        raw = await fetch_json("GET", self._url, self._timeout, params=params)
        found = items(raw.get("results") if isinstance(raw, dict) else None)
        return [
            result_of(
                item.get("title"),
                item.get("url"),
                item.get("content"),
                item.get("publishedDate"),
            )
            for item in found[: limit * 4]
        ]
