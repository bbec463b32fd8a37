"""The Chat Completions stream's SSE framing: `data: <chunk>` per chunk, in one buffer.

Most chunks of a stream are one text delta; those are written with an f-string and the C string
encoder (byte-identical to the generic encoder, tests/test_dialect_frames.py), as the Responses
text deltas are (bridge/http/sse.py): the generic encoder was the largest item of the language
server's profile under a Chat Completions stream that the Responses stream did not have.
"""

from __future__ import annotations

import json

from bridge.chat.chunks import DONE, KEEPALIVE, Chunk
from bridge.core import strict_json
from bridge.http.sse import DONE as DONE_FRAME

KEEPALIVE_TEXT = ": keepalive\n\n"
_DONE_TEXT = DONE_FRAME.decode()
_encode_string = json.encoder.encode_basestring

_CHUNK_KEYS = ("id", "object", "created", "model", "choices")
_WITH_USAGE = (*_CHUNK_KEYS, "usage")  # `stream_options.include_usage`: null until the last
_CHOICE_KEYS = ("index", "delta", "logprobs", "finish_reason")


class _Heads:
    """The frame's opening up to the choice's index, the same for every chunk of a stream:
    encoded once per stream rather than once per chunk (the last stream's is kept)."""

    def __init__(self) -> None:
        self.key: tuple[str, str, int, str] | None = None
        self.head = ""

    def head_of(self, id_: str, object_: str, created: int, model: str) -> str:
        key = (id_, object_, created, model)
        if key != self.key:
            self.head = (
                f'data: {{"id":{_encode_string(id_)},"object":{_encode_string(object_)},'
                f'"created":{created},"model":{_encode_string(model)},"choices":[{{"index":'
            )
            self.key = key
        return self.head


_heads = _Heads()


def _text_delta(chunk: Chunk) -> str | None:
    """A one-choice content delta written without the generic encoder; None when the chunk is
    not exactly the shape bridge.chat.chunks builds for one."""
    keys = tuple(chunk)
    if keys == _CHUNK_KEYS:
        usage = ""
    elif keys == _WITH_USAGE and chunk["usage"] is None:
        usage = ',"usage":null'
    else:
        return None
    choices = chunk["choices"]
    if type(choices) is not list or len(choices) != 1:
        return None
    choice = choices[0]
    if type(choice) is not dict or tuple(choice) != _CHOICE_KEYS:
        return None
    delta, index = choice["delta"], choice["index"]
    if type(delta) is not dict or len(delta) != 1 or type(delta.get("content")) is not str:
        return None
    if type(index) is not int or choice["logprobs"] is not None:
        return None
    if choice["finish_reason"] is not None:
        return None
    id_, object_, created, model = chunk["id"], chunk["object"], chunk["created"], chunk["model"]
    if type(id_) is not str or type(object_) is not str or type(model) is not str:
        return None
    if type(created) is not int:
        return None
    return (
        f"{_heads.head_of(id_, object_, created, model)}{index},"
        f'"delta":{{"content":{_encode_string(delta["content"])}}},"logprobs":null,'
        f'"finish_reason":null}}]{usage}}}\n\n'
    )


def frame(chunk: Chunk) -> str:
    if chunk == KEEPALIVE:
        return KEEPALIVE_TEXT
    if chunk == DONE:
        return _DONE_TEXT
    fast = _text_delta(chunk)
    if fast is not None:
        return fast
    return f"data: {strict_json.encode(chunk)}\n\n"


def sse_frames(batch: list[Chunk]) -> bytes:
    """`data: <json>` per chunk (no `event:` line, as OpenAI's chat streams), in one buffer."""
    return "".join(map(frame, batch)).encode()
