"""Local schemas for the hosted web search the bridge runs (issue 44) in Responses answers,
as the openai SDK types it (ResponseFunctionWebSearch with its `search` action, and the
ResponseWebSearchCall*Event events): Open Responses has neither (tests/spec_validation.py)."""

from __future__ import annotations

from typing import Any

_STRING = {"type": "string"}
_INTEGER = {"type": "integer"}
WEB_SEARCH_EVENTS = (
    "response.web_search_call.in_progress",
    "response.web_search_call.searching",
    "response.web_search_call.completed",
)
WEB_SEARCH_DEFS: dict[str, Any] = {
    "WebSearchCall": {
        "type": "object",
        "required": ["type", "id", "status", "action"],
        "properties": {
            "type": {"const": "web_search_call"},
            "id": _STRING,
            "status": {"enum": ["in_progress", "searching", "completed", "failed", "incomplete"]},
            "action": {
                "type": "object",
                "required": ["type"],
                "properties": {
                    "type": {"const": "search"},
                    "query": _STRING,
                    "queries": {"type": "array", "items": _STRING},
                    "sources": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["type", "url"],
                            "properties": {"type": {"const": "url"}, "url": _STRING},
                            "additionalProperties": False,
                        },
                    },
                },
                "additionalProperties": False,
            },
        },
        "additionalProperties": False,
    },
    "WebSearchCallEvent": {
        "type": "object",
        "required": ["type", "sequence_number", "item_id", "output_index"],
        "properties": {
            "type": {
                "enum": [
                    "response.web_search_call.in_progress",
                    "response.web_search_call.searching",
                    "response.web_search_call.completed",
                ]
            },
            "sequence_number": _INTEGER,
            "item_id": _STRING,
            "output_index": _INTEGER,
        },
        "additionalProperties": False,
    },
}
