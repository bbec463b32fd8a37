"""A search on its way from the loop (loop.py) to the dialects: a data part in the answer's
stream, which a dialect that knows it turns into its own shape (and any other ignores, as it
ignores every data part but `usage`)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from bridge.core.backend import DataPart, ResponsePart
from bridge.core.search_parts import SEARCH_MIME, is_search
from bridge.web_search.results import SearchOutcome, SearchResult

__all__ = ["SEARCH_MIME", "is_search", "result_text", "search_of", "search_part"]


def search_part(outcome: SearchOutcome) -> DataPart:
    return DataPart(mimeType=SEARCH_MIME, data=json.dumps(asdict(outcome)))


def search_of(part: ResponsePart) -> SearchOutcome | None:
    """The search a part carries, else None."""
    if not isinstance(part, DataPart) or part.mimeType != SEARCH_MIME:
        return None
    raw: dict[str, Any] = json.loads(part.data)
    results = [SearchResult(**item) for item in raw.get("results", [])]
    return SearchOutcome(raw["call_id"], raw["query"], results, raw.get("error"))


def result_text(outcome: SearchOutcome, first_number: int) -> str:
    """What the model reads: the results numbered from `first_number` (numbers run on across
    the searches of one answer, so that a `[n]` names one result), or the error."""
    if outcome.error is not None:
        return f"The web search failed ({outcome.error}). Answer without it, or try again."
    if not outcome.results:
        return f"No web results for {outcome.query!r}."
    lines = [f"Web results for {outcome.query!r} (cite them as [number]):"]
    for number, result in enumerate(outcome.results, first_number):
        lines.append(f"[{number}] {result.title}\nURL: {result.url}")
        if result.page_age:
            lines.append(f"Date: {result.page_age}")
        if result.snippet:
            lines.append(result.snippet)
        lines.append("")
    return "\n".join(lines).strip()
