"""Google's hosted `googleSearch` tool (and the older `googleSearchRetrieval`) run by the
bridge (bridge/web_search/): offered to the model as a function, the searches and the answer's
`[n]` marks reported as Google reports grounding, in the candidate's `groundingMetadata`:
`webSearchQueries` (what was searched), `groundingChunks` (each result, `web: {uri, title}`)
and `groundingSupports` (a cited span of the answer, its `segment` in UTF-8 byte offsets as
Google gives them, with the indexes of the chunks it cites)."""

from __future__ import annotations

from typing import Any

from bridge.gemini.fields import field_of, key_in
from bridge.web_search.citations import citations
from bridge.web_search.request import (
    SEARCH_TOOL,
    SearchAsk,
    search_available,
    search_tool,
)
from bridge.web_search.results import SearchOutcome, SearchResult

SEARCH_KEYS = ("googleSearch", "googleSearchRetrieval")


def google_search_ask(raw_tools: Any, tool_config: Any) -> SearchAsk | None:
    """The request's Google Search tool, when the bridge runs it and tools may be called."""
    if not search_available() or not isinstance(raw_tools, list):
        return None
    calling = (
        field_of(tool_config, "functionCallingConfig") if isinstance(tool_config, dict) else None
    )
    if isinstance(calling, dict) and field_of(calling, "mode") == "NONE":
        return None
    for index, raw in enumerate(raw_tools):
        if isinstance(raw, dict) and any(key_in(raw, key) for key in SEARCH_KEYS):
            return SearchAsk(param=f"tools[{index}]")
    return None


def offer_search(tools: list[Any], ask: SearchAsk | None) -> SearchAsk | None:
    if ask is None or any(tool.name == SEARCH_TOOL for tool in tools):
        return None
    tools.append(search_tool(ask))
    return ask


class Grounding:
    """The searches of one answer, for its `groundingMetadata`."""

    def __init__(self) -> None:
        self.queries: list[str] = []
        self.results: list[SearchResult] = []

    def add(self, outcome: SearchOutcome) -> None:
        if outcome.query:
            self.queries.append(outcome.query)
        self.results.extend(outcome.results)

    def metadata(self, answer: str) -> dict[str, Any] | None:
        if not self.queries:
            return None
        supports = []
        for cited in citations(answer, self.results):
            start = len(answer[: cited.start].encode())
            end = len(answer[: cited.end].encode())
            segment = {
                "startIndex": start,
                "endIndex": end,
                "text": answer[cited.start : cited.end],
            }
            supports.append({"segment": segment, "groundingChunkIndices": [cited.number - 1]})
        return {
            "webSearchQueries": list(self.queries),
            "groundingChunks": [{"web": {"uri": r.url, "title": r.title}} for r in self.results],
            "groundingSupports": supports,
        }
