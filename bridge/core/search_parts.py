"""A web search in an answer's stream (bridge/web_search/): a data part of its own mime type,
which the core must tell apart from the model's parts, and which only the dialects that show
searches read."""

from __future__ import annotations

from bridge.core.backend import DataPart, ResponsePart

SEARCH_MIME = "application/vnd.maestro-bridge.web-search+json"


def is_search(part: ResponsePart) -> bool:
    return isinstance(part, DataPart) and part.mimeType == SEARCH_MIME
