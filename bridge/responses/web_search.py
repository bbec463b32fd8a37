"""OpenAI's hosted `web_search` tool (and its `web_search_preview` names) run by the bridge
(bridge/web_search/): offered to the model as a function, each search shown as a
`web_search_call` item (`action: {type: "search", query, sources}`, the sources when
`include` asks for `web_search_call.action.sources`), and the answer's `[n]` marks as
`url_citation` annotations on its text."""

from __future__ import annotations

from typing import Any

from bridge.core import ids
from bridge.web_search.citations import citations
from bridge.web_search.request import (
    DEFAULT_MAX_USES,
    SEARCH_TOOL,
    SearchAsk,
    location_of,
    max_uses_of,
    search_available,
    search_tool,
    string_list,
)
from bridge.web_search.results import SearchOutcome, SearchResult

Event = dict[str, Any]

WEB_SEARCH_TYPES = frozenset(
    {"web_search", "web_search_2025_08_26", "web_search_preview", "web_search_preview_2025_03_11"}
)
SOURCES_INCLUDE = "web_search_call.action.sources"


def runs_web_search(raw: Any) -> bool:
    """Whether the bridge runs this entry of `tools` (a search service is configured)."""
    return isinstance(raw, dict) and raw.get("type") in WEB_SEARCH_TYPES and search_available()


def web_search_ask(raw_tools: Any, max_tool_calls: int | None) -> SearchAsk | None:
    """The request's web search tool, when the bridge runs it; `max_tool_calls` bounds it."""
    for index, raw in enumerate(raw_tools or []):
        if runs_web_search(raw):
            filters = raw.get("filters")
            allowed = filters.get("allowed_domains") if isinstance(filters, dict) else None
            limit = max_uses_of(max_tool_calls) if max_tool_calls else DEFAULT_MAX_USES
            return SearchAsk(
                max_uses=limit,
                allowed_domains=string_list(allowed),
                location=location_of(raw.get("user_location")),
                param=f"tools[{index}]",
            )
    return None


def forces_search(choice: Any) -> bool:
    """`tool_choice: {"type": "web_search"}` (or a preview name): the model must search."""
    return isinstance(choice, dict) and choice.get("type") in WEB_SEARCH_TYPES


def offer_search(tools: list[Any], ask: SearchAsk | None, choice_echo: Any) -> SearchAsk | None:
    """Adds the search function to the editor's tools (`tools`, changed); the ask, or None
    when the model may call no tool or a client tool has the name already."""
    if ask is None or choice_echo == "none" or any(t.name == SEARCH_TOOL for t in tools):
        return None
    tools.append(search_tool(ask))
    return ask


def search_item(outcome: SearchOutcome, with_sources: bool) -> Event:
    action: Event = {"type": "search", "query": outcome.query}
    if with_sources:
        action["sources"] = [{"type": "url", "url": r.url} for r in outcome.results]
    return {
        "type": "web_search_call",
        "id": ids.web_search_call_id(),
        "status": "failed" if outcome.error else "completed",
        "action": action,
    }


def url_citations(text: str, results: list[SearchResult]) -> list[Event]:
    return [
        {
            "type": "url_citation",
            "start_index": cited.start,
            "end_index": cited.end,
            "url": cited.result.url,
            "title": cited.result.title,
        }
        for cited in citations(text, results)
    ]
