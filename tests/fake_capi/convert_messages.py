"""`POST /v1/messages` bodies as a FAKE of GitHub Copilot's cloud (CAPI) reads them.

The real cloud cannot be reached here; this FAKE turns Copilot's Anthropic Messages body
(system, messages with cache_control, tools, max_tokens, thinking) into the simulated
model's ChatRequest (upstream.py). Thinking blocks sent back are not read.
"""

from __future__ import annotations

from typing import Any

from bridge.core.parts import MessagePart, TextPart, ToolCallPart
from fake_capi.upstream import (
    BadBody,
    Conversation,
    Upstream,
    arguments,
    b64_image,
    int_or_none,
    result_part,
    tool,
)
from headless_editor.chat_types import ChatRequest


def from_messages(body: dict[str, Any]) -> Upstream:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadBody("messages: field required")
    talk = Conversation()
    for message in messages:
        if not isinstance(message, dict):
            raise BadBody("a message is not an object")
        blocks = _blocks(message.get("content"))
        if message.get("role") == "assistant":
            parts: list[MessagePart] = []
            for block in blocks:
                if block.get("type") == "text" and block.get("text"):
                    parts.append(TextPart(value=str(block["text"])))
                elif block.get("type") == "tool_use":
                    parts.append(
                        ToolCallPart(
                            callId=str(block.get("id", "")),
                            name=str(block.get("name", "")),
                            input=arguments(block.get("input")),
                        )
                    )
            talk.assistant(parts)
        elif message.get("role") == "user":
            for block in blocks:
                _user_block(talk, block)
        else:
            raise BadBody(f"messages: unexpected role {message.get('role')!r}")
    tools = [
        tool(t.get("name"), t.get("description"), t.get("input_schema"))
        for t in body.get("tools") or []
        if isinstance(t, dict) and "input_schema" in t
    ]
    choice = body.get("tool_choice")
    required = isinstance(choice, dict) and choice.get("type") in ("tool", "any")
    request = ChatRequest(
        model=str(body.get("model", "")),
        messages=talk.messages,
        tools=tools,
        toolMode="required" if required else "auto",
    )
    thinking = body.get("thinking")
    asked = isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")
    return Upstream(request, int_or_none(body.get("max_tokens")), asked, _system(body))


def _user_block(talk: Conversation, block: dict[str, Any]) -> None:
    kind = block.get("type")
    if kind == "text":
        talk.user(TextPart(value=str(block.get("text", ""))))
    elif kind == "image":
        source = block.get("source") or {}
        if source.get("type") == "base64":
            talk.user(b64_image(str(source.get("media_type", "")), str(source.get("data", ""))))
    elif kind == "tool_result":
        talk.user(result_part(str(block.get("tool_use_id", "")), block.get("content")))


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    raise BadBody("messages: content must be a string or an array")


def _system(body: dict[str, Any]) -> list[str]:
    system = body.get("system")
    if isinstance(system, str):
        return [system]
    if isinstance(system, list):
        return [str(b.get("text", "")) for b in system if isinstance(b, dict)]
    return []
