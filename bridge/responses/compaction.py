"""`POST /v1/responses/compact`: a long conversation -> its user messages plus one summary item.

The editor's model writes the summary through the normal response path (`response_events`,
folded), reading the conversation as a transcript in one user message: that way it summarizes
instead of continuing the conversation, and no provider objects to tool calls in a history
that declares no tools. The result follows OpenAI's shape: every user message kept as it was,
then a `compaction` item whose `encrypted_content` carries the summary (`compaction_codec`).
A later request that sends these items back gets the summary in context (`convert_input`).
"""

from __future__ import annotations

import json
import secrets
import string
import time
from typing import Any

from bridge.core import ids
from bridge.core.backend import (
    Backend,
    ChatMessage,
    DataPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.errors import ApiError, invalid_request
from bridge.core.models import ModelNames
from bridge.core.validation_errors import json_object
from bridge.responses.compaction_codec import encode_summary
from bridge.responses.convert_input import to_chat_messages
from bridge.responses.request import (
    ContentPart,
    CreateResponseRequest,
    MessageItem,
    parse_create_request,
)
from bridge.responses.responder import fold_response, prepare_response, response_events

INSTRUCTION = (
    "You are compacting a conversation between a user and an AI assistant so that it can "
    "continue later from your summary alone. Write a faithful, complete summary of the "
    "transcript below: the user's goals and requests, decisions and conclusions, facts, names, "
    "numbers, file paths and code that matter, the tools that were called with their important "
    "results, and what is still open or was about to happen next. Do not invent anything, do "
    "not answer or continue the conversation, and write only the summary."
)


def compaction_id() -> str:
    alphabet = string.ascii_lowercase + string.digits
    return "cmp_AM-" + "".join(secrets.choice(alphabet) for _ in range(12))


def parse_compact_request(body: Any) -> CreateResponseRequest:
    """The compact body (model, input, instructions) checked like a create body."""
    body = json_object(body)
    if body.get("previous_response_id") is not None:
        raise invalid_request(
            "`previous_response_id` is not supported by `/v1/responses/compact`: Maestro Bridge "
            "keeps no responses. Send the conversation to compact in `input`.",
            param="previous_response_id",
            code="unsupported_parameter",
        )
    fields = ("model", "input", "instructions", "prompt_cache_key")
    return parse_create_request({key: body.get(key) for key in fields if key in body})


def _part_text(part: Any) -> str:
    if isinstance(part, TextPart):
        return part.value
    if isinstance(part, DataPart):
        return f"[{part.mimeType} data]"
    if isinstance(part, ToolCallPart):
        arguments = json.dumps(part.input, ensure_ascii=False)
        return f"[called tool {part.name} (call {part.callId}) with {arguments}]"
    if isinstance(part, ToolResultPart):
        text = "".join(p.value if isinstance(p, TextPart) else "[image]" for p in part.content)
        return f"[result of call {part.callId}: {text}]"
    return ""


def transcript(instructions: str | None, messages: list[ChatMessage]) -> str:
    """The conversation as plain text, one labelled block per message."""
    blocks = [f"System instructions:\n{instructions}"] if instructions else []
    for message in messages:
        text = "\n".join(t for t in (_part_text(p) for p in message.content) if t)
        blocks.append(f"{message.role.capitalize()}:\n{text}")
    return "\n\n".join(blocks)


def summary_request(request: CreateResponseRequest) -> CreateResponseRequest:
    """The response request that asks the model for the summary."""
    conversation = to_chat_messages(request.model_copy(update={"instructions": None}))
    if not conversation:
        raise invalid_request(
            "The input holds no message to compact.", param="input", code="invalid_value"
        )
    text = transcript(request.instructions, conversation)
    prompt = f"{INSTRUCTION}\n\n<transcript>\n{text}\n</transcript>"
    return CreateResponseRequest(
        model=request.model, input=[MessageItem(role="user", content=prompt)]
    )


def _kept_part(part: ContentPart) -> dict[str, Any] | None:
    if part.text is not None and part.type in ("input_text", "text"):
        return {"type": "input_text", "text": part.text}
    if part.type == "input_image" and part.image_url:
        return {"type": "input_image", "image_url": part.image_url, "detail": "auto"}
    return None


def kept_user_messages(request: CreateResponseRequest) -> list[dict[str, Any]]:
    """The user's own messages, unchanged in content, as output message items."""
    items = (
        request.input
        if isinstance(request.input, list)
        else [MessageItem(role="user", content=request.input)]
    )
    kept: list[dict[str, Any]] = []
    for item in items:
        if not isinstance(item, MessageItem) or item.role != "user":
            continue
        if isinstance(item.content, str):
            content = [{"type": "input_text", "text": item.content}]
        else:
            content = [p for p in map(_kept_part, item.content) if p is not None]
        if content:
            kept.append(
                {
                    "type": "message",
                    "id": ids.message_id(),
                    "status": "completed",
                    "role": "user",
                    "content": content,
                }
            )
    return kept


def summary_text(response: dict[str, Any]) -> str:
    """The text the model wrote (reasoning items are not part of the summary)."""
    return "".join(
        part.get("text", "")
        for item in response.get("output", [])
        if item.get("type") == "message"
        for part in item.get("content", [])
        if part.get("type") == "output_text"
    )


def compaction_result(
    user_messages: list[dict[str, Any]], summary: str, usage: dict[str, Any]
) -> dict[str, Any]:
    item = {
        "type": "compaction",
        "id": compaction_id(),
        "encrypted_content": encode_summary(summary),
        "created_by": "maestro-bridge",
    }
    return {
        "id": ids.response_id(),
        "object": "response.compaction",
        "created_at": int(time.time()),
        "output": [*user_messages, item],
        "usage": usage,
    }


async def compact_conversation(backend: Backend, body: Any, names: ModelNames) -> dict[str, Any]:
    request = parse_compact_request(body)
    ask = summary_request(request)
    plan = await prepare_response(backend, ask, names)
    response = await fold_response(response_events(backend, plan))
    summary = summary_text(response).strip()
    if not summary:
        raise ApiError(
            502,
            "The editor's model returned no summary.",
            type="server_error",
            code="editor_error",
        )
    return compaction_result(kept_user_messages(request), summary, response["usage"])
