"""The Messages stream's SSE framing: `event: <type>\\ndata: <json>` per event, in one buffer.

Most events of a stream are one text delta; those are written with an f-string and the C string
encoder (byte-identical to the generic encoder, tests/test_dialect_frames.py), as the Responses
text deltas are (bridge/http/sse.py): the generic encoder was the largest item of the language
server's profile under a Messages stream that the Responses stream did not have. Anthropic's
streams end with `message_stop`: no `[DONE]`.
"""

from __future__ import annotations

import json

from bridge.anthropic.events import Event
from bridge.http.sse import encode_event

_encode_string = json.encoder.encode_basestring

_DELTA = "content_block_delta"
_EVENT_KEYS = ("type", "index", "delta")
_TEXT_KEYS = ("type", "text")


def _text_delta(event: Event) -> str | None:
    """A `text_delta` event written without the generic encoder; None when the event is not
    exactly the shape bridge.anthropic.events builds for one."""
    if event.get("type") != _DELTA or tuple(event) != _EVENT_KEYS:
        return None
    index, delta = event["index"], event["delta"]
    if type(index) is not int or type(delta) is not dict or tuple(delta) != _TEXT_KEYS:
        return None
    text = delta["text"]
    if delta["type"] != "text_delta" or type(text) is not str:
        return None
    return (
        f'event: {_DELTA}\ndata: {{"type":"{_DELTA}","index":{index},'
        f'"delta":{{"type":"text_delta","text":{_encode_string(text)}}}}}\n\n'
    )


def frame(event: Event) -> str:
    fast = _text_delta(event)
    return encode_event(event) if fast is None else fast


def sse_frames(batch: list[Event]) -> bytes:
    return "".join(map(frame, batch)).encode()
