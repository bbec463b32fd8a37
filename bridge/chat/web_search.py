"""Chat Completions' `web_search_options` run by the bridge (bridge/web_search/): the model is
offered the search as a function, and the answer's `[n]` marks become the message's
`url_citation` annotations (streamed as one `annotations` delta before the finish chunk, as
OpenAI's search models send them)."""

from __future__ import annotations

from typing import Any

from bridge.web_search.citations import citations
from bridge.web_search.request import (
    SEARCH_TOOL,
    SearchAsk,
    location_of,
    search_available,
    search_tool,
)
from bridge.web_search.results import SearchResult


def offer_search(tools: list[Any], options: Any, tool_choice: Any) -> SearchAsk | None:
    """Adds the search function to the editor's tools (`tools`, changed) when the request
    asks for web search and the bridge runs it; the ask, else None."""
    if not isinstance(options, dict) or not search_available() or tool_choice == "none":
        return None
    if any(tool.name == SEARCH_TOOL for tool in tools):
        return None
    location = options.get("user_location")
    approximate = location.get("approximate") if isinstance(location, dict) else None
    ask = SearchAsk(location=location_of(approximate), param="web_search_options")
    tools.append(search_tool(ask))
    return ask


def url_annotations(text: str, results: list[SearchResult]) -> list[dict[str, Any]]:
    return [
        {
            "type": "url_citation",
            "url_citation": {
                "start_index": cited.start,
                "end_index": cited.end,
                "url": cited.result.url,
                "title": cited.result.title,
            },
        }
        for cited in citations(text, results)
    ]
