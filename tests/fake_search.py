"""A FAKE search service for the web search tests (a test helper, not a test module): real
search services (SearXNG, Brave, Tavily) cannot be reached offline, so this aiohttp app answers
in their documented JSON shapes, with fixed results, on 127.0.0.1.

- SearXNG: `GET /search?q=...&format=json` -> `{"query", "results": [{"url", "title",
  "content", "publishedDate"}]}` (content with HTML, as SearXNG's highlighting gives it);
- Brave: `GET /res/v1/web/search?q=...` with `X-Subscription-Token` -> `{"web": {"results":
  [{"title", "url", "description", "page_age"}]}}`;
- Tavily: `POST /search` with `Authorization: Bearer KEY` -> `{"results": [{"title", "url",
  "content"}]}`.

Each request is recorded (`FakeSearch.requests`). `status` makes every answer that HTTP status
(a failing service)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from thread_server import serving

KEY = "fake-search-key"
PAGE_URL = "https://maestro-bridge.example/docs/web-search"
PAGE_TITLE = "Maestro Bridge web search guide"
SNIPPET = "The bridge runs hosted <b>web search</b> tools through SearXNG &amp; friends."
OTHER_URL = "https://other.example/news"
RESULTS = [
    {"url": PAGE_URL, "title": PAGE_TITLE, "content": SNIPPET, "publishedDate": "2026-11-01"},
    {"url": OTHER_URL, "title": "Other news", "content": "Unrelated."},
    {"url": "javascript:alert(1)", "title": "Not a web page", "content": "dropped"},
]


@dataclass
class FakeSearch:
    url: str = ""
    status: int = 200
    requests: list[dict[str, Any]] = field(default_factory=list)

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/search", self._searxng)
        app.router.add_post("/search", self._tavily)
        app.router.add_get("/res/v1/web/search", self._brave)
        return app

    def _record(self, request: web.Request, body: Any = None) -> web.Response | None:
        self.requests.append(
            {
                "path": request.path,
                "query": dict(request.query),
                "body": body,
                "headers": dict(request.headers),
            }
        )
        if self.status != 200:
            return web.json_response({"error": "failing on purpose"}, status=self.status)
        return None

    async def _searxng(self, request: web.Request) -> web.Response:
        failed = self._record(request)
        if failed is not None:
            return failed
        if request.query.get("format") != "json":
            return web.Response(status=403, text="format not allowed")
        return web.json_response({"query": request.query.get("q", ""), "results": RESULTS})

    async def _brave(self, request: web.Request) -> web.Response:
        failed = self._record(request)
        if failed is not None:
            return failed
        if request.headers.get("X-Subscription-Token") != KEY:
            return web.json_response({"error": "no key"}, status=401)
        results = [
            {
                "title": r["title"],
                "url": r["url"],
                "description": r["content"],
                "page_age": r.get("publishedDate"),
            }
            for r in RESULTS
        ]
        return web.json_response({"type": "search", "web": {"results": results}})

    async def _tavily(self, request: web.Request) -> web.Response:
        body = await request.json()
        failed = self._record(request, body)
        if failed is not None:
            return failed
        if request.headers.get("Authorization") != f"Bearer {KEY}":
            return web.json_response({"detail": {"error": "Unauthorized"}}, status=401)
        results = [
            {"title": r["title"], "url": r["url"], "content": r["content"], "score": 0.9}
            for r in RESULTS
        ]
        return web.json_response({"query": body.get("query"), "results": results})


@contextlib.contextmanager
def fake_search() -> Iterator[FakeSearch]:
    fake = FakeSearch()
    with serving(fake.app(), "fake-search") as url:
        fake.url = url
        yield fake
