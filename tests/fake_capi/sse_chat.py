"""`/chat/completions` answers of a FAKE of GitHub Copilot's cloud (CAPI), in OpenAI's chat
completion chunk shape (the real cloud cannot be reached here): text deltas, `tool_calls`
deltas (id, type and name first, the arguments in pieces), a last chunk with `finish_reason`
(`stop`, `tool_calls`, `length`, `content_filter`) and `usage`, then `data: [DONE]`.
Thinking goes out as `delta.reasoning_text` (what CAPI sends for Claude and Gemini thinking).
"""

from __future__ import annotations

import json
import time
from typing import Any

from aiohttp import web

from fake_capi.reply import Call, Text, Thought, Turn, Wait
from fake_capi.sse import Usage, drop, new_id, open_stream, send, wait

FINISH = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "length": "length",
    "filter": "content_filter",
}
_ARG_CHUNK = 16  # characters of arguments per delta


def usage_json(usage: Usage) -> dict[str, Any]:
    return {
        "prompt_tokens": usage.prompt,
        "completion_tokens": usage.output,
        "total_tokens": usage.prompt + usage.output,
        "prompt_tokens_details": {"cached_tokens": usage.cached},
        "completion_tokens_details": {"reasoning_tokens": usage.reasoning},
    }


async def stream(request: web.Request, model: str, turn: Turn, usage: Usage) -> web.StreamResponse:
    response = await open_stream(request)
    base = {
        "id": new_id("chatcmpl-"),
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
    }

    def chunk(delta: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, **extra}]}

    await send(response, chunk({"role": "assistant", "content": ""}))
    calls = 0
    for piece in turn.pieces:
        if isinstance(piece, Wait):
            await wait(piece.seconds)
        elif isinstance(piece, Text):
            await send(response, chunk({"content": piece.value}))
        elif isinstance(piece, Thought):
            await send(response, chunk({"content": None, "reasoning_text": piece.value}))
        elif isinstance(piece, Call):
            text = json.dumps(piece.call.input)
            head = {"index": calls, "id": piece.call.callId, "type": "function"}
            await send(
                response,
                chunk(
                    {
                        "tool_calls": [
                            {**head, "function": {"name": piece.call.name, "arguments": ""}}
                        ]
                    }
                ),
            )
            for i in range(0, len(text), _ARG_CHUNK):
                part = {"index": calls, "function": {"arguments": text[i : i + _ARG_CHUNK]}}
                await send(response, chunk({"tool_calls": [part]}))
            calls += 1
    if turn.finish == "drop":
        drop(request)
        return response
    if turn.finish == "midstream":
        await send(response, {"error": {"message": turn.error, "code": "server_error"}})
        return response
    await send(
        response,
        {
            **chunk({}, finish_reason=FINISH[turn.finish]),
            "usage": usage_json(usage),
            **usage.copilot_usage(),
        },
    )
    await send(response, "[DONE]")
    return response


def body(model: str, turn: Turn, usage: Usage) -> dict[str, Any]:
    """The non-streaming answer (a model without `supports.streaming`)."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.calls:
        message["tool_calls"] = [
            {
                "id": c.callId,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.input)},
            }
            for c in turn.calls
        ]
    return {
        "id": new_id("chatcmpl-"),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": FINISH.get(turn.finish, "stop")}
        ],
        "usage": usage_json(usage),
    }
