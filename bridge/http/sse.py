"""Server-sent events framing, as the Responses clients parse it."""

from __future__ import annotations

import json
from typing import Any

from bridge.core import strict_json

# The bridge's one strict encoder (no `default`: the C encoder), never a bare NaN.
_encode = strict_json.encode
_encode_string = json.encoder.encode_basestring

# After the terminal event (Open Responses: "The terminal event MUST be the literal string
# `[DONE]`"); the openai SDKs, the AI SDK and Codex skip it, as for chat completions.
DONE = b"data: [DONE]\n\n"

_DELTA = "response.output_text.delta"
_DELTA_KEYS = (
    "type",
    "sequence_number",
    "item_id",
    "output_index",
    "content_index",
    "delta",
    "logprobs",
)


def _text_delta(e: dict[str, Any]) -> str | None:
    """A text delta event written without the generic encoder (most events of a stream are
    these); None when the event is not exactly the shape bridge.responses.events builds."""
    if tuple(e) != _DELTA_KEYS or e["logprobs"] != []:
        return None
    seq, index, content = e["sequence_number"], e["output_index"], e["content_index"]
    item, delta = e["item_id"], e["delta"]
    if type(seq) is not int or type(index) is not int or type(content) is not int:
        return None
    if type(item) is not str or type(delta) is not str:
        return None
    return (
        f'event: {_DELTA}\ndata: {{"type":"{_DELTA}","sequence_number":{seq},'
        f'"item_id":{_encode_string(item)},"output_index":{index},"content_index":{content},'
        f'"delta":{_encode_string(delta)},"logprobs":[]}}\n\n'
    )


def encode_event(e: dict[str, Any]) -> str:
    if e["type"] == _DELTA:
        fast = _text_delta(e)
        if fast is not None:
            return fast
    return f"event: {e['type']}\ndata: {_encode(e)}\n\n"


def encode_events(events: list[dict[str, Any]]) -> bytes:
    """`event: <type>\\ndata: <json>\\n\\n` per event, `\\n` line ends, all in one buffer."""
    return "".join(map(encode_event, events)).encode()
