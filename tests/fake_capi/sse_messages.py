"""`/v1/messages` answers of a FAKE of GitHub Copilot's cloud (CAPI), in Anthropic's Messages
stream shape (the real cloud cannot be reached here): `message_start` (with the input usage),
per block `content_block_start` / `content_block_delta` / `content_block_stop` (thinking with
`thinking_delta` and a `signature_delta`; text with `text_delta`; tool_use with
`input_json_delta`), then `message_delta` (`stop_reason`: end_turn, tool_use, max_tokens,
refusal; the usage) and `message_stop`; mid-stream, an `error` event.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from aiohttp import web

from fake_capi.reply import Call, Text, Thought, Turn, Wait
from fake_capi.sse import Usage, drop, new_id, open_stream, send, wait

STOP = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens", "filter": "refusal"}
_ARG_CHUNK = 16


def usage_json(usage: Usage, output: int) -> dict[str, Any]:
    return {
        "input_tokens": usage.prompt - usage.cached - usage.written,
        "cache_creation_input_tokens": usage.written,
        "cache_read_input_tokens": usage.cached,
        "output_tokens": output,
    }


def _signature(text: str) -> str:
    return base64.b64encode(f"fake-capi-signature:{len(text)}".encode()).decode()


async def stream(request: web.Request, model: str, turn: Turn, usage: Usage) -> web.StreamResponse:
    response = await open_stream(request)

    async def event(kind: str, **fields: Any) -> None:
        await send(response, {"type": kind, **fields}, event=kind)

    message: dict[str, Any] = {
        "id": new_id("msg_"), "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage_json(usage, 1),
    }  # fmt: skip
    await event("message_start", message=message)
    index = -1
    open_kind = ""
    thought = ""

    async def close() -> None:
        nonlocal open_kind, thought
        if open_kind == "thinking":
            delta = {"type": "signature_delta", "signature": _signature(thought)}
            await event("content_block_delta", index=index, delta=delta)
        if open_kind:
            await event("content_block_stop", index=index)
        open_kind, thought = "", ""

    for piece in turn.pieces:
        if isinstance(piece, Wait):
            await wait(piece.seconds)
            continue
        kind = (
            "thinking"
            if isinstance(piece, Thought)
            else "text"
            if isinstance(piece, Text)
            else "tool_use"
        )
        if kind != open_kind or kind == "tool_use":
            await close()
            index += 1
            open_kind = kind
            await event("content_block_start", index=index, content_block=_start(piece))
        if isinstance(piece, Thought):
            thought += piece.value
            await event(
                "content_block_delta",
                index=index,
                delta={"type": "thinking_delta", "thinking": piece.value},
            )
        elif isinstance(piece, Text):
            await event(
                "content_block_delta",
                index=index,
                delta={"type": "text_delta", "text": piece.value},
            )
        elif isinstance(piece, Call):
            text = json.dumps(piece.call.input)
            for i in range(0, len(text), _ARG_CHUNK):
                delta = {"type": "input_json_delta", "partial_json": text[i : i + _ARG_CHUNK]}
                await event("content_block_delta", index=index, delta=delta)
    if turn.finish == "drop":
        drop(request)
        return response
    if turn.finish == "midstream":
        await event("error", error={"type": "api_error", "message": turn.error})
        return response
    await close()
    stop = {"stop_reason": STOP[turn.finish], "stop_sequence": None}
    await event(
        "message_delta",
        delta=stop,
        usage=usage_json(usage, turn.output_tokens),
        **usage.copilot_usage(),
    )
    await event("message_stop")
    return response


def _start(piece: Text | Thought | Call) -> dict[str, Any]:
    if isinstance(piece, Thought):
        return {"type": "thinking", "thinking": "", "signature": ""}
    if isinstance(piece, Text):
        return {"type": "text", "text": ""}
    return {"type": "tool_use", "id": piece.call.callId, "name": piece.call.name, "input": {}}


def body(model: str, turn: Turn, usage: Usage) -> dict[str, Any]:
    """The non-streaming answer: the whole message."""
    content: list[dict[str, Any]] = []
    thoughts = "".join(p.value for p in turn.pieces if isinstance(p, Thought))
    if thoughts:
        content.append(
            {"type": "thinking", "thinking": thoughts, "signature": _signature(thoughts)}
        )
    if turn.text:
        content.append({"type": "text", "text": turn.text})
    for call in turn.calls:
        content.append(
            {"type": "tool_use", "id": call.callId, "name": call.name, "input": call.input}
        )
    return {
        "id": new_id("msg_"), "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": STOP.get(turn.finish, "end_turn"), "stop_sequence": None,
        "usage": usage_json(usage, turn.output_tokens),
    }  # fmt: skip
