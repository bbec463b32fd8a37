"""The Messages stream's SSE framing: `event: <type>\\ndata: <json>` per event, in one buffer.

Most events of a stream are one text delta; those are written by msgspec after a check of their
shape (byte-identical to the generic encoder, tests/test_dialect_frames.py), as the Responses
text deltas are (bridge/http/sse.py): the generic encoder was the largest item of the language
server's profile under a Messages stream that the Responses stream did not have. Anthropic's
streams end with `message_stop`: no `[DONE]`.
"""

from __future__ import annotations

import msgspec

from bridge.anthropic.events import Event
from bridge.http.sse import event_frame

_encode_fast = msgspec.json.Encoder().encode  # strings and integers only: see _text_delta

_DELTA = "content_block_delta"
_DELTA_HEAD = f"event: {_DELTA}\ndata: ".encode()
_EVENT_KEYS = ("type", "index", "delta")
_TEXT_KEYS = ("type", "text")


def _text_delta(event: Event) -> bytes | None:
    """A `text_delta` event written without the generic encoder; None when the event is not
    exactly the shape bridge.anthropic.events builds for one. Its values are strings and an
    integer, which msgspec writes byte for byte as the strict encoder does."""
    if event.get("type") != _DELTA or tuple(event) != _EVENT_KEYS:
        return None
    index, delta = event["index"], event["delta"]
    if type(index) is not int or type(delta) is not dict or tuple(delta) != _TEXT_KEYS:
        return None
    if delta["type"] != "text_delta" or type(delta["text"]) is not str:
        return None
    try:
        return _DELTA_HEAD + _encode_fast(event) + b"\n\n"
    except UnicodeEncodeError:
        return None  # the generic encoder says what is wrong


def _frame(event: Event) -> bytes:
    fast = _text_delta(event)
    return event_frame(event) if fast is None else fast


def frame(event: Event) -> str:
    return _frame(event).decode()


def sse_frames(batch: list[Event]) -> bytes:
    return b"".join(map(_frame, batch))
