"""`POST /chat/completions` bodies as a FAKE of GitHub Copilot's cloud (CAPI) reads them.

The real cloud cannot be reached here; this FAKE turns Copilot's OpenAI chat body (messages,
tools, tool_choice, max_tokens...) into the simulated model's ChatRequest (upstream.py).
"""

from __future__ import annotations

from typing import Any

from bridge.core.parts import MessagePart, TextPart, ToolCallPart
from fake_capi.upstream import (
    BadBody,
    Conversation,
    Upstream,
    arguments,
    image_part,
    int_or_none,
    result_part,
    tool,
)
from headless_editor.chat_types import ChatRequest


def from_chat(body: dict[str, Any]) -> Upstream:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadBody("messages must be a non-empty array")
    talk = Conversation()
    system: list[str] = []
    for message in messages:
        if not isinstance(message, dict):
            raise BadBody("a message is not an object")
        role = message.get("role")
        content = message.get("content")
        if role in ("system", "developer"):
            system.append(_text(content))
        elif role == "user":
            for part in _parts(content):
                talk.user(part)
        elif role == "assistant":
            parts: list[MessagePart] = []
            text = _text(content)
            if text:
                parts.append(TextPart(value=text))
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                parts.append(
                    ToolCallPart(
                        callId=str(call.get("id", "")),
                        name=str(function.get("name", "")),
                        input=arguments(function.get("arguments")),
                    )
                )
            talk.assistant(parts)
        elif role == "tool":
            talk.user(result_part(str(message.get("tool_call_id", "")), content))
        else:
            raise BadBody(f"unknown message role {role!r}")
    tools = [
        tool(f.get("name"), f.get("description"), f.get("parameters"))
        for f in (t.get("function") or {} for t in body.get("tools") or [])
    ]
    required = isinstance(body.get("tool_choice"), dict) or body.get("tool_choice") == "required"
    request = ChatRequest(
        model=str(body.get("model", "")),
        messages=talk.messages,
        tools=tools,
        toolMode="required" if required else "auto",
    )
    limit = int_or_none(body.get("max_tokens"))
    if limit is None:
        limit = int_or_none(body.get("max_completion_tokens"))
    thinking = isinstance(body.get("reasoning_effort"), str) or bool(body.get("thinking_budget"))
    return Upstream(request, limit, thinking, system)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(p.get("text", ""))
            for p in content
            if isinstance(p, dict) and p.get("type") == "text"
        )
    return ""


def _parts(content: Any) -> list[MessagePart]:
    if isinstance(content, str):
        return [TextPart(value=content)] if content else []
    parts: list[MessagePart] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            parts.append(TextPart(value=str(block.get("text", ""))))
        elif block.get("type") == "image_url":
            url = block.get("image_url")
            image = image_part(str(url.get("url", "")) if isinstance(url, dict) else "")
            if image is not None:
                parts.append(image)
    return parts
