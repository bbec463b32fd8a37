"""What a client's hosted search tool asked for, in every dialect's terms, and whether the
bridge can run it.

The HTTP layer sets the configured search service for the request being handled (a context
variable, as bridge/core/request_tags.py does for the usage meter); a dialect's planner asks
`search_available()` and, when it is, offers the model the function `SEARCH_TOOL` and notes
a `SearchAsk` on the editor request. Without a service the hosted tool is dropped as before.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from bridge.core.backend import ChatTool

# The function the model calls: the name models are trained on for web search.
SEARCH_TOOL = "web_search"
DEFAULT_MAX_USES = 5  # a request that sets no limit (Responses, Gemini, Chat Completions)
MAX_USES_CAP = 20  # whatever the client asks, rounds with the model are bounded

_AVAILABLE: ContextVar[bool] = ContextVar("maestro_web_search_available", default=False)


def set_available(available: bool) -> None:
    """The HTTP layer: whether a search service is configured, for this request."""
    _AVAILABLE.set(available)


def search_available() -> bool:
    return _AVAILABLE.get()


@dataclass
class UserLocation:
    city: str = ""
    region: str = ""
    country: str = ""  # ISO 3166-1 alpha-2
    timezone: str = ""


@dataclass
class SearchAsk:
    """A hosted search tool of the request: the bridge runs the model's calls of it."""

    max_uses: int = DEFAULT_MAX_USES
    allowed_domains: list[str] = field(default_factory=list)
    blocked_domains: list[str] = field(default_factory=list)
    location: UserLocation | None = None
    # Where the dialect's planner put the tool: a 400 or a log line names it.
    param: str = "tools"


def search_tool(ask: SearchAsk) -> ChatTool:
    """The hosted tool as the model sees it: a function taking a query."""
    description = (
        "Search the web for current information. Returns numbered results (title, URL, "
        "snippet); cite a result you use by its number in brackets, like [1]."
    )
    if ask.allowed_domains:
        description += " Only these sites are searched: " + ", ".join(ask.allowed_domains) + "."
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"query": {"type": "string", "description": "The search query."}},
        "required": ["query"],
    }
    return ChatTool(name=SEARCH_TOOL, description=description, inputSchema=schema)


def string_list(value: Any) -> list[str]:
    """A list of non-empty strings from a client's filter (anything else: none)."""
    if not isinstance(value, list):
        return []
    return [item.strip() for item in value if isinstance(item, str) and item.strip()][:100]


def location_of(raw: Any) -> UserLocation | None:
    """A client's approximate location object (Anthropic's and OpenAI's share the keys)."""
    if not isinstance(raw, dict):
        return None
    fields = {
        key: value[:100]
        for key in ("city", "region", "country", "timezone")
        if isinstance(value := raw.get(key), str)
    }
    return UserLocation(**fields) if fields else None


def max_uses_of(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return min(value, MAX_USES_CAP)
    return DEFAULT_MAX_USES
