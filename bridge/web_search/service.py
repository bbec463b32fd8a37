"""The configured search service: built from the `webSearch` settings, it runs one search
for the loop (loop.py) and turns any failure into an error code, never an exception."""

from __future__ import annotations

import logging
import os

from bridge.core.tool_host import ToolHost
from bridge.settings import WebSearchSettings
from bridge.web_search.backends.base import SearchBackend
from bridge.web_search.backends.brave import BraveSearch
from bridge.web_search.backends.editor_tool import EditorToolSearch
from bridge.web_search.backends.searxng import SearxngSearch
from bridge.web_search.backends.tavily import TavilySearch
from bridge.web_search.request import SearchAsk
from bridge.web_search.results import (
    INVALID_INPUT,
    MAX_QUERY_CHARS,
    QUERY_TOO_LONG,
    SearchFailed,
    SearchOutcome,
    filtered,
)

log = logging.getLogger(__name__)

KEY_ENV = "MAESTRO_WEB_SEARCH_API_KEY"


class SearchService:
    def __init__(self, backend: SearchBackend, max_results: int) -> None:
        self.backend = backend
        self.max_results = max_results

    async def run(self, call_id: str, query: object, ask: SearchAsk) -> SearchOutcome:
        text = query.strip() if isinstance(query, str) else ""
        outcome = SearchOutcome(call_id, text)
        if not text:
            outcome.error = INVALID_INPUT
            return outcome
        if len(text) > MAX_QUERY_CHARS:
            outcome.error = QUERY_TOO_LONG
            return outcome
        try:
            found = await self.backend.search(text, ask, self.max_results)
        except SearchFailed as exc:
            log.warning("Web search (%s) failed: %s", self.backend.name, exc.message)
            outcome.error = exc.code
            return outcome
        outcome.results = filtered(
            found, ask.allowed_domains, ask.blocked_domains, self.max_results
        )
        log.info("Web search (%s): %d results", self.backend.name, len(outcome.results))
        log.debug("Web search query: %s", text)
        return outcome


def search_service(settings: WebSearchSettings, tools: ToolHost | None) -> SearchService | None:
    """The service the settings name, or None (web search off) with a log line saying why."""
    kind = settings.backend
    if not kind:
        return None
    timeout = settings.timeoutSeconds
    backend: SearchBackend | None = None
    if kind == "searxng":
        if not settings.url:
            log.warning("Web search is off: the searxng backend needs webSearch.url")
            return None
        backend = SearxngSearch(settings.url, timeout)
    elif kind in ("brave", "tavily"):
        key = settings.apiKey or os.environ.get(KEY_ENV, "")
        if not key:
            log.warning("Web search is off: %s needs an API key (%s)", kind, KEY_ENV)
            return None
        cls = BraveSearch if kind == "brave" else TavilySearch
        backend = cls(key, timeout, settings.url)
    elif kind == "tool":
        if not settings.tool or tools is None:
            log.warning("Web search is off: the tool backend needs webSearch.tool and an editor")
            return None
        backend = EditorToolSearch(tools, settings.tool, timeout)
    if backend is None:
        return None
    log.info("Web search runs on %s", kind)
    return SearchService(backend, settings.maxResults)
