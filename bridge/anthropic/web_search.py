"""A search the bridge ran (bridge/web_search/) as Anthropic's web search shows it: a
`server_tool_use` block with the query, a `web_search_tool_result` block with the results
(or a `web_search_tool_result_error`), and `web_search_result_location` citations on the
text that cites them.

Anthropic's `encrypted_content` and `encrypted_index` are opaque to clients, which send them
back in the history: here they carry the result itself (base64 JSON), so that a later turn
can give the model the same text (bridge/anthropic/blocks.py reads them back)."""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from bridge.core import ids
from bridge.web_search.citations import Citation
from bridge.web_search.results import SearchOutcome, SearchResult

Event = dict[str, Any]
_USABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")


def opaque(value: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode()


def from_opaque(text: object) -> dict[str, Any] | None:
    """What `opaque` wrapped, else None (the client's own, or Anthropic's, content)."""
    if not isinstance(text, str) or len(text) > 100_000:
        return None
    try:
        value = json.loads(base64.urlsafe_b64decode(text.encode()))
    except (ValueError, UnicodeError):
        return None
    return value if isinstance(value, dict) else None


def server_tool_id(call_id: str) -> str:
    if call_id.startswith("srvtoolu_") and _USABLE_ID.fullmatch(call_id):
        return call_id
    return "srvtoolu_" + ids.tool_use_id().removeprefix("toolu_")


def result_block(tool_use_id: str, outcome: SearchOutcome) -> Event:
    content: Any
    if outcome.error is not None:
        content = {"type": "web_search_tool_result_error", "error_code": outcome.error}
    else:
        content = [_result(result) for result in outcome.results]
    return {"type": "web_search_tool_result", "tool_use_id": tool_use_id, "content": content}


def _result(result: SearchResult) -> Event:
    return {
        "type": "web_search_result",
        "title": result.title,
        "url": result.url,
        "encrypted_content": opaque({"snippet": result.snippet}),
        "page_age": result.page_age,
    }


def citation(cited: Citation) -> Event:
    return {
        "type": "web_search_result_location",
        "url": cited.result.url,
        "title": cited.result.title,
        "cited_text": cited.cited_text,
        "encrypted_index": opaque({"n": cited.number}),
    }


def history_text(kind: str, block: dict[str, Any]) -> str:
    """A web search of an earlier turn, as the model reads it: the query, or the results
    (their snippets from `encrypted_content`, when the bridge made it)."""
    if kind == "server_tool_use":
        query = (
            block.get("input", {}).get("query") if isinstance(block.get("input"), dict) else None
        )
        return (
            f"[searched the web for: {query}]" if isinstance(query, str) else "[a server tool ran]"
        )
    content = block.get("content")
    if not isinstance(content, list):
        code = content.get("error_code") if isinstance(content, dict) else None
        return f"[the web search failed: {code}]"
    lines = ["[web results:]"]
    for result in content:
        if not isinstance(result, dict):
            continue
        lines.append(f"- {result.get('title', '')} ({result.get('url', '')})")
        inner = from_opaque(result.get("encrypted_content"))
        if inner is not None and isinstance(inner.get("snippet"), str) and inner["snippet"]:
            lines.append(f"  {inner['snippet'][:1500]}")
    return "\n".join(lines)
