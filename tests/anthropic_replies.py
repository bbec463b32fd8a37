"""Minimal valid Anthropic Messages answers, for the capture server (tests/anthropic_capture.py).

Each answer is a list of content blocks (text, thinking or tool_use) plus a stop reason.
`as_message` turns it into the non-streaming Message object; `as_events` into the stream
events the API sends for it (message_start, a ping, each block's start/deltas/stop, message_delta,
message_stop), and `sse_frame` writes one event as an SSE frame.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any

_ids = itertools.count(1)


def new_id(prefix: str) -> str:
    """Ids shaped like the API's (`msg_...`, `toolu_...`), unique within the test run."""
    return f"{prefix}_capture{next(_ids):016d}"


@dataclass(frozen=True)
class Answer:
    blocks: tuple[dict[str, Any], ...]
    stop_reason: str


def text_answer(text: str) -> Answer:
    return Answer(({"type": "text", "text": text},), "end_turn")


def tool_use_answer(name: str, tool_input: dict[str, Any]) -> Answer:
    block = {"type": "tool_use", "id": new_id("toolu"), "name": name, "input": tool_input}
    return Answer((block,), "tool_use")


def with_thinking(answer: Answer, thinking: str, signature: str) -> Answer:
    """The answer with a thinking block (and its opaque signature) before its blocks."""
    block = {"type": "thinking", "thinking": thinking, "signature": signature}
    return Answer((block, *answer.blocks), answer.stop_reason)


def usage(input_tokens: int, output_tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": output_tokens,
    }


def as_message(answer: Answer, model: str, input_tokens: int) -> dict[str, Any]:
    return {
        "id": new_id("msg"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [dict(block) for block in answer.blocks],
        "stop_reason": answer.stop_reason,
        "stop_sequence": None,
        "usage": usage(input_tokens, 5),
    }


def _block_events(index: int, block: dict[str, Any]) -> list[dict[str, Any]]:
    """A block as the API streams it: empty at the start, its content in deltas."""
    if block["type"] == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [
            {"type": "thinking_delta", "thinking": block["thinking"]},
            {"type": "signature_delta", "signature": block["signature"]},
        ]
    elif block["type"] == "text":
        start = {"type": "text", "text": ""}
        text = block["text"]
        half = len(text) // 2  # two deltas, so clients must concatenate
        deltas = [{"type": "text_delta", "text": part} for part in (text[:half], text[half:])]
    else:
        start = {key: block[key] for key in ("type", "id", "name")} | {"input": {}}
        raw = json.dumps(block["input"])
        half = len(raw) // 2
        deltas = [
            {"type": "input_json_delta", "partial_json": part} for part in (raw[:half], raw[half:])
        ]
    return [
        {"type": "content_block_start", "index": index, "content_block": start},
        *({"type": "content_block_delta", "index": index, "delta": delta} for delta in deltas),
        {"type": "content_block_stop", "index": index},
    ]


def as_events(answer: Answer, model: str, input_tokens: int) -> list[dict[str, Any]]:
    start = as_message(answer, model, input_tokens) | {
        "content": [],
        "stop_reason": None,
        "usage": usage(input_tokens, 1),
    }
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": start},
        {"type": "ping"},
    ]
    for index, block in enumerate(answer.blocks):
        events += _block_events(index, block)
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": answer.stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": 5},
        }
    )
    events.append({"type": "message_stop"})
    return events


def sse_frame(event: dict[str, Any]) -> bytes:
    """`event: TYPE` and `data: JSON`, as the API frames every event."""
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def error_body(error_type: str, message: str) -> dict[str, Any]:
    return {
        "type": "error",
        "error": {"type": error_type, "message": message},
        "request_id": new_id("req"),
    }
