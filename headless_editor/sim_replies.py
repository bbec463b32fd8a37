"""What the simulated model answers when no script rule does: a dutiful model's reply.

Offered tools, it calls the first one with an input built from the tool's schema; given a
tool result, it reports on it; asked to "repeat your last answer", it repeats the text of
its previous turn as it received it (so a test sees what the provider dropped); asked for
JSON (by the bridge's instruction, or a `responseFormat` option where the provider passes
one), it answers with JSON; otherwise it echoes the user.
"""

from __future__ import annotations

import json
import re
from typing import Any

from bridge.core.parts import (
    ChatMessage,
    ResponsePart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.turn_notes import without_turn_note
from headless_editor.chat_types import ChatRequest
from headless_editor.placeholders import placeholder_input, placeholder_value
from headless_editor.reply_steps import Reply, last_part, part_text, tool_result_text

_ECHO_CHARS = 200
_SNIPPET_CHARS = 40  # the most prompt text that thinking repeats
_REPEAT = re.compile(r"repeat your last answer", re.IGNORECASE)
# The bridge's structured-output instruction (bridge/core/structured_output.py), which a
# model follows: a schema after "named '...':" on its own line, or any JSON object.
_JSON_SCHEMA_ASKED = re.compile(r"Answer with one JSON value and nothing else.*?:\n(\{.*)", re.S)
_JSON_OBJECT_ASKED = "Answer with one JSON object and nothing else"


def default_reply(request: ChatRequest) -> list[ResponsePart]:
    # The client's last word, not the bridge's closing note about this answer (which the
    # model follows: a JSON answer, below).
    messages = without_turn_note(request.messages)
    last = last_part(messages)
    user_asks = bool(messages) and messages[-1].role == "user" and isinstance(last, TextPart)
    if request.tools and (user_asks or request.toolMode == "required"):
        tool = request.tools[0]
        call = ToolCallPart(
            callId=f"call_sim_{len(messages)}",
            name=tool.name,
            input=placeholder_input(tool.inputSchema),
        )
        return [TextPart(value=f"Calling {tool.name}."), call]
    if isinstance(last, ToolResultPart):
        name = _tool_name(messages, last.callId) or last.callId
        size = len(tool_result_text(last))
        answer = f"The tool {name} returned {size} characters."
    elif _REPEAT.search(last_user_text(messages)):
        answer = f"My last answer: {_last_answer(messages)}"
    else:
        answer = f"You said: {_collapse(last_user_text(messages))[:_ECHO_CHARS]}"
    structured = _structured(request, answer)
    return [TextPart(value=answer if structured is None else structured)]


def _structured(request: ChatRequest, answer: str) -> str | None:
    """The JSON answer the request asks for (None for plain text).

    A schema's answer is its placeholder value (valid for it, like tool inputs); a JSON
    object answer wraps the plain answer.
    """
    fmt = request.modelOptions.get("responseFormat")
    if isinstance(fmt, dict):
        spec = fmt.get("json_schema")
        if fmt.get("type") == "json_schema" and isinstance(spec, dict):
            schema = spec.get("schema")
            return json.dumps(placeholder_value(schema if isinstance(schema, dict) else {}))
        if fmt.get("type") == "json_object":
            return json.dumps({"answer": answer}, ensure_ascii=False)
    for text in _texts(request.messages):
        found = _JSON_SCHEMA_ASKED.search(text)
        schema = _json_object(found.group(1)) if found else None
        if schema is not None:
            return json.dumps(placeholder_value(schema), ensure_ascii=False)
        if _JSON_OBJECT_ASKED in text:
            return json.dumps({"answer": answer}, ensure_ascii=False)
    return None


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value, _ = json.JSONDecoder().raw_decode(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _texts(messages: list[ChatMessage]) -> list[str]:
    return [
        part.value
        for message in reversed(messages)
        if message.role == "user"
        for part in message.content
        if isinstance(part, TextPart)
    ]


def thinking(messages: list[ChatMessage], reply: Reply) -> Reply:
    snippet = _collapse(part_text(last_part(messages)))
    if len(snippet) > _SNIPPET_CHARS:
        snippet = snippet[:_SNIPPET_CHARS] + "..."
    calls = [part.name for part in reply if isinstance(part, ToolCallPart)]
    plan = f"call {', '.join(calls)}" if calls else "answer in text"
    return [
        ThinkingPart(value=f'Considering the request: "{snippet}".'),
        ThinkingPart(value=f" The plan: {plan}."),
        ThinkingPart(value=" Writing the reply now."),
    ]


def _tool_name(messages: list[ChatMessage], call_id: str) -> str | None:
    for message in reversed(messages):
        for part in message.content:
            if isinstance(part, ToolCallPart) and part.callId == call_id:
                return part.name
    return None


def _last_answer(messages: list[ChatMessage]) -> str:
    """The text of the model's previous turn, every text part of it it received."""
    for message in reversed(messages):
        if message.role == "assistant":
            return "".join(p.value for p in message.content if isinstance(p, TextPart))
    return ""


def last_user_text(messages: list[ChatMessage]) -> str:
    for message in reversed(messages):
        if message.role != "user":
            continue
        for part in reversed(message.content):
            if isinstance(part, TextPart):
                return part.value
    return ""


def _collapse(text: str) -> str:
    return " ".join(text.split())
