"""A search tool the editor has (`vscode.lm.tools`: an extension's or an MCP server's), named
by the `webSearch.tool` setting and called as the MCP server calls the editor's tools
(bridge/core/tool_host.py). Its input is the query, under the first string property its schema
requires (`query` when the schema says nothing). Its result is text: JSON results
(a list, or an object with `results`, of objects with a title, a URL and a snippet) are read
as such; any other text gives one result per line holding a web URL."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from bridge.core.backend import EditorError, TextPart
from bridge.core.tool_host import ToolHost
from bridge.web_search.backends.base import items
from bridge.web_search.request import SearchAsk
from bridge.web_search.results import UNAVAILABLE, SearchFailed, SearchResult, result_of

MAX_TOOL_TEXT = 200_000
_URL = re.compile(r"https?://[^\s<>()\[\]\"']+")


class EditorToolSearch:
    name = "tool"

    def __init__(self, host: ToolHost, tool: str, timeout: float) -> None:
        self._host = host
        self._tool = tool
        self._timeout = timeout

    async def search(self, query: str, ask: SearchAsk, limit: int) -> list[SearchResult | None]:
        try:
            tools = await self._host.list_tools()
            info = next((tool for tool in tools if tool.name == self._tool), None)
            if info is None:
                raise SearchFailed(UNAVAILABLE, f"the editor has no tool named {self._tool!r}")
            key = query_key(info.inputSchema)
            content = await asyncio.wait_for(
                self._host.invoke_tool(self._tool, {key: query}), self._timeout
            )
        except asyncio.TimeoutError:
            raise SearchFailed(
                UNAVAILABLE, "the editor's search tool did not answer in time"
            ) from None
        except EditorError as exc:
            raise SearchFailed(
                UNAVAILABLE, f"the editor's search tool failed: {exc.message}"
            ) from None
        text = "\n".join(p.value for p in content if isinstance(p, TextPart))[:MAX_TOOL_TEXT]
        return tool_results(text)[: limit * 4]


def query_key(schema: dict[str, Any] | None) -> str:
    properties = (schema or {}).get("properties")
    required = (schema or {}).get("required")
    if isinstance(properties, dict) and isinstance(required, list):
        for name in required:
            if isinstance(properties.get(name), dict) and properties[name].get("type") == "string":
                return str(name)
    return "query"


def tool_results(text: str) -> list[SearchResult | None]:
    try:
        raw = json.loads(text)
    except ValueError:
        raw = None
    if isinstance(raw, dict):
        raw = raw.get("results")
    if isinstance(raw, list):
        return [
            result_of(
                item.get("title") or item.get("name"),
                item.get("url") or item.get("link"),
                item.get("snippet") or item.get("content") or item.get("description"),
                item.get("page_age") or item.get("date"),
            )
            for item in items(raw)
        ]
    found: list[SearchResult | None] = []
    for line in text.splitlines():
        match = _URL.search(line)
        if match is None:
            continue
        rest = (line[: match.start()] + line[match.end() :]).strip(" -*:|\t")
        found.append(result_of(rest or match.group(0), match.group(0).rstrip(".,;"), rest, None))
    return found
