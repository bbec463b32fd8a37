"""Sample Anthropic Messages answers for the validator's tests: good ones, and `broken` to
spoil a copy of one."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from anthropic_replies import as_events, text_answer
from anthropic_replies import tool_use_answer as tool_answer

Events = list[tuple[str, dict[str, Any]]]
MODEL = "claude-sonnet-5-5"


def named(events: list[dict[str, Any]]) -> Events:
    return [(event["type"], event) for event in events]


def text_stream() -> Events:
    return named(as_events(text_answer("Hello there"), MODEL, 10))


def tool_stream() -> Events:
    return named(as_events(tool_answer("Bash", {"command": "ls -l"}), MODEL, 10))


def thinking_stream() -> Events:
    """A thinking block (with its signature), then text; pings between."""
    start = as_events(text_answer("x"), MODEL, 10)[0]
    return named(
        [
            start,
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""},
            },
            {"type": "ping"},
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "thinking_delta", "thinking": "Let me "},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "thinking_delta", "thinking": "see."},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "signature_delta", "signature": "c2ln"},
            },
            {"type": "content_block_stop", "index": 0},
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {"type": "redacted_thinking", "data": "b3BhcXVl"},
            },
            {"type": "content_block_stop", "index": 1},
            {
                "type": "content_block_start",
                "index": 2,
                "content_block": {"type": "text", "text": ""},
            },
            {
                "type": "content_block_delta",
                "index": 2,
                "delta": {"type": "text_delta", "text": "Answer."},
            },
            {"type": "content_block_stop", "index": 2},
            {"type": "ping"},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 9},
            },
            {"type": "message_stop"},
        ]
    )


MODEL_LIST: dict[str, Any] = {
    "data": [
        {
            "type": "model",
            "id": "sim-echo",
            "display_name": "Sim Echo",
            "created_at": "2026-01-01T00:00:00Z",
            "lifecycle": "active",
        },
        {
            "type": "model",
            "id": "claude-opus-5-5",
            "display_name": "Opus",
            "created_at": "2025-11-24T00:00:00+00:00",
            "lifecycle": "active",
            "max_input_tokens": 1000000,
        },
    ],
    "has_more": False,
    "first_id": "sim-echo",
    "last_id": "claude-opus-5-5",
}


def broken(message: dict[str, Any], change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    copied = copy.deepcopy(message)
    change(copied)
    return copied
