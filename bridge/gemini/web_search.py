"""Google's hosted `googleSearch` tool (and the older `googleSearchRetrieval`) run by the
bridge (bridge/web_search/): offered to the model as a function, the searches and the answer's
`[n]` marks reported as Google reports grounding, in the candidate's `groundingMetadata`:
`webSearchQueries` (what was searched), `groundingChunks` (each result, `web: {uri, title}`)
and `groundingSupports` (a cited span of the answer, its `segment` in UTF-8 byte offsets as
Google gives them, with the indexes of the chunks it cites)."""

from __future__ import annotations

import re
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


_MARK = re.compile(r" ?\[(\d{1,3})\]")
_PARTIAL = re.compile(r" ?(\[\d{0,3})?$")  # what could be the start of a mark


class Grounding:
    """The searches of one answer, for its `groundingMetadata`. Google's text carries no
    citation marks (clients such as Gemini CLI insert their own from the supports), so the
    model's `[n]` marks are taken out of the text once a search ran; `marked` keeps the text
    as the model wrote it, in which the cited sentences are found."""

    def __init__(self) -> None:
        self.queries: list[str] = []
        self.results: list[SearchResult] = []
        self.marked: list[str] = []
        self._pending = ""  # the end of a text part that may begin a mark

    def add(self, outcome: SearchOutcome) -> None:
        if outcome.query:
            self.queries.append(outcome.query)
        self.results.extend(outcome.results)

    def text(self, value: str) -> str:
        """A text part as the client gets it: without the marks naming a result. A mark may
        come in pieces (` [`, `1]`): the end of a part that could begin one waits for the next
        part (`flush` gives it at the end)."""
        self.marked.append(value)
        if not self.results:
            return value
        value, self._pending = self._pending + value, ""
        partial = _PARTIAL.search(value)
        if partial is not None and partial.group(0):
            value, self._pending = value[: partial.start()], value[partial.start() :]
        return _MARK.sub(lambda m: "" if self._names_result(m) else m.group(0), value)

    def flush(self) -> str:
        """The text held back as a possible mark, when none followed."""
        pending, self._pending = self._pending, ""
        return pending

    def _names_result(self, match: re.Match[str]) -> bool:
        return 1 <= int(match.group(1)) <= len(self.results)

    def metadata(self) -> dict[str, Any] | None:
        if not self.queries:
            return None
        marked = "".join(self.marked)
        marks = [m for m in _MARK.finditer(marked) if self._names_result(m)]
        supports = []
        for cited in citations(marked, self.results):
            mark = next((m for m in marks if m.end() == cited.end), None)
            if mark is None:
                continue  # a mark before the results came: shown as written
            start = _unmarked(marked, cited.start, marks)
            end = _unmarked(marked, mark.start(), marks)
            segment = {
                "startIndex": len(start.encode()),
                "endIndex": len(end.encode()),
                "text": end[len(start) :],
            }
            supports.append({"segment": segment, "groundingChunkIndices": [cited.number - 1]})
        return {
            "webSearchQueries": list(self.queries),
            "groundingChunks": [{"web": {"uri": r.url, "title": r.title}} for r in self.results],
            "groundingSupports": supports,
        }


def _unmarked(marked: str, position: int, marks: list[re.Match[str]]) -> str:
    """The client's text (the marks taken out) up to `position` of the model's."""
    kept: list[str] = []
    at = 0
    for mark in marks:
        if mark.start() >= position:
            break
        kept.append(marked[at : mark.start()])
        at = mark.end()
    kept.append(marked[at:position])
    return "".join(kept)
