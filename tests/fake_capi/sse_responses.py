"""`/responses` answers of a FAKE of GitHub Copilot's cloud (CAPI), in the OpenAI Responses
event shape (the real cloud cannot be reached here): `response.created`, `in_progress`, then per
output item `output_item.added` ... `output_item.done` (a reasoning item with summary text
deltas and `encrypted_content`; a message with `output_text` deltas; a `function_call` with
`function_call_arguments.delta/done`), and `response.completed` with `usage` and a `resp_`
id, or `response.incomplete` (`incomplete_details.reason`: `max_output_tokens`,
`content_filter`), or `response.failed` mid-stream. Every event has its `sequence_number`.
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any

from aiohttp import web

from fake_capi.reply import Call, Text, Thought, Turn, Wait
from fake_capi.sse import Usage, drop, new_id, open_stream, send, wait

_ARG_CHUNK = 16


def usage_json(usage: Usage) -> dict[str, Any]:
    return {
        "input_tokens": usage.prompt,
        "input_tokens_details": {"cached_tokens": usage.cached},
        "output_tokens": usage.output,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning},
        "total_tokens": usage.prompt + usage.output,
    }


class _Events:
    def __init__(self, response: web.StreamResponse) -> None:
        self.response = response
        self.number = 0

    async def __call__(self, kind: str, **fields: Any) -> None:
        await send(
            self.response, {"type": kind, "sequence_number": self.number, **fields}, event=kind
        )
        self.number += 1


def _response(
    rid: str, model: str, status: str, output: list[dict[str, Any]], **extra: Any
) -> dict[str, Any]:
    return {
        "id": rid,
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": model,
        "output": output,
        "error": None,
        "incomplete_details": None,
        "parallel_tool_calls": True,
        "store": False,
        **extra,
    }


def _groups(turn: Turn) -> list[list[Text | Thought] | Call | Wait]:
    """Consecutive thoughts, consecutive texts, each call, each pause: one output item each."""
    groups: list[list[Text | Thought] | Call | Wait] = []
    for piece in turn.pieces:
        last = groups[-1] if groups else None
        if isinstance(piece, Text | Thought):
            if isinstance(last, list) and type(last[0]) is type(piece):
                last.append(piece)
            else:
                groups.append([piece])
        else:
            groups.append(piece)
    return groups


async def stream(request: web.Request, model: str, turn: Turn, usage: Usage) -> web.StreamResponse:
    response = await open_stream(request)
    event = _Events(response)
    rid = new_id("resp_")
    await event("response.created", response=_response(rid, model, "in_progress", []))
    await event("response.in_progress", response=_response(rid, model, "in_progress", []))
    output: list[dict[str, Any]] = []
    for group in _groups(turn):
        if isinstance(group, Wait):
            await wait(group.seconds)
            continue
        index = len(output)
        if isinstance(group, Call):
            item = await _call(event, index, group)
        elif isinstance(group[0], Thought):
            item = await _reasoning(event, index, [p.value for p in group])
        else:
            item = await _message(event, index, [p.value for p in group])
        output.append(item)
    if turn.finish == "drop":
        drop(request)
        return response
    if turn.finish == "midstream":
        error = {"code": "server_error", "message": turn.error}
        await event(
            "response.failed", response=_response(rid, model, "failed", output, error=error)
        )
        return response
    if turn.finish in ("length", "filter"):
        reason = "max_output_tokens" if turn.finish == "length" else "content_filter"
        final = _response(rid, model, "incomplete", output, usage=usage_json(usage))
        final["incomplete_details"] = {"reason": reason}
        await event("response.incomplete", response=final)
    else:
        await event(
            "response.completed",
            response=_response(rid, model, "completed", output, usage=usage_json(usage)),
        )
    await send(response, "[DONE]")
    return response


async def _message(event: _Events, index: int, deltas: list[str]) -> dict[str, Any]:
    mid = new_id("msg_")
    item: dict[str, Any] = {
        "id": mid,
        "type": "message",
        "role": "assistant",
        "status": "in_progress",
        "content": [],
    }
    await event("response.output_item.added", output_index=index, item=item)
    empty = {"type": "output_text", "text": "", "annotations": []}
    await event(
        "response.content_part.added", item_id=mid, output_index=index, content_index=0, part=empty
    )
    for delta in deltas:
        await event(
            "response.output_text.delta",
            item_id=mid,
            output_index=index,
            content_index=0,
            delta=delta,
            logprobs=[],
        )
    text = "".join(deltas)
    part = {"type": "output_text", "text": text, "annotations": []}
    await event(
        "response.output_text.done",
        item_id=mid,
        output_index=index,
        content_index=0,
        text=text,
        logprobs=[],
    )
    await event(
        "response.content_part.done", item_id=mid, output_index=index, content_index=0, part=part
    )
    done = {**item, "status": "completed", "content": [part]}
    await event("response.output_item.done", output_index=index, item=done)
    return done


async def _reasoning(event: _Events, index: int, deltas: list[str]) -> dict[str, Any]:
    text = "".join(deltas)
    rid = new_id("rs_")
    secret = base64.b64encode(f"fake-capi-reasoning:{text}".encode()).decode()
    item: dict[str, Any] = {
        "id": rid,
        "type": "reasoning",
        "summary": [],
        "encrypted_content": secret,
    }
    await event("response.output_item.added", output_index=index, item=item)
    empty = {"type": "summary_text", "text": ""}
    await event(
        "response.reasoning_summary_part.added",
        item_id=rid,
        output_index=index,
        summary_index=0,
        part=empty,
    )
    for delta in deltas:
        await event(
            "response.reasoning_summary_text.delta",
            item_id=rid,
            output_index=index,
            summary_index=0,
            delta=delta,
        )
    await event(
        "response.reasoning_summary_text.done",
        item_id=rid,
        output_index=index,
        summary_index=0,
        text=text,
    )
    part = {"type": "summary_text", "text": text}
    await event(
        "response.reasoning_summary_part.done",
        item_id=rid,
        output_index=index,
        summary_index=0,
        part=part,
    )
    done = {**item, "summary": [part]}
    await event("response.output_item.done", output_index=index, item=done)
    return done


async def _call(event: _Events, index: int, piece: Call) -> dict[str, Any]:
    fid = new_id("fc_")
    call = piece.call
    item: dict[str, Any] = {
        "id": fid, "type": "function_call", "status": "in_progress",
        "call_id": call.callId, "name": call.name, "arguments": "",
    }  # fmt: skip
    await event("response.output_item.added", output_index=index, item=item)
    text = json.dumps(call.input)
    for i in range(0, len(text), _ARG_CHUNK):
        await event(
            "response.function_call_arguments.delta",
            item_id=fid,
            output_index=index,
            delta=text[i : i + _ARG_CHUNK],
        )
    await event(
        "response.function_call_arguments.done",
        item_id=fid,
        output_index=index,
        arguments=text,
        name=call.name,
    )
    done = {**item, "status": "completed", "arguments": text}
    await event("response.output_item.done", output_index=index, item=done)
    return done


def body(model: str, turn: Turn, usage: Usage) -> dict[str, Any]:
    """The non-streaming answer: the finished response object."""
    output: list[dict[str, Any]] = []
    if turn.text:
        part = {"type": "output_text", "text": turn.text, "annotations": []}
        output.append(
            {
                "id": new_id("msg_"),
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [part],
            }
        )
    for call in turn.calls:
        output.append({
            "id": new_id("fc_"), "type": "function_call", "status": "completed",
            "call_id": call.callId, "name": call.name, "arguments": json.dumps(call.input),
        })  # fmt: skip
    status = "incomplete" if turn.finish in ("length", "filter") else "completed"
    result = _response(new_id("resp_"), model, status, output, usage=usage_json(usage))
    if status == "incomplete":
        result["incomplete_details"] = {
            "reason": "max_output_tokens" if turn.finish == "length" else "content_filter"
        }
    return result
