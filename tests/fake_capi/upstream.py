"""What a FAKE of GitHub Copilot's cloud API (CAPI) reads from a request, whatever its shape.

The real cloud cannot be reached here, so the FAKE answers with the project's simulated model
(headless_editor/sim_replies.py), which reads the headless editor's ChatRequest. Each request
shape (convert_chat.py, convert_responses.py, convert_messages.py) becomes an `Upstream`: that
ChatRequest (system prompts left out: Copilot's own system prompt must not decide the reply),
the output limit the request set, and whether it asked for thinking.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from typing import Any

from bridge.core.parts import ChatMessage, DataPart, MessagePart, TextPart, ToolResultPart
from headless_editor.chat_types import ChatRequest, ChatTool


class BadBody(ValueError):
    """The body is not what the endpoint takes (a 400 from the fake)."""


@dataclass
class Upstream:
    request: ChatRequest
    max_output: int | None = None
    thinking: bool = False
    system: list[str] = field(default_factory=list)  # kept for tests, never answered


class Conversation:
    """Messages built in order; consecutive user parts (texts, tool results) share a message."""

    def __init__(self) -> None:
        self.messages: list[ChatMessage] = []

    def user(self, part: MessagePart) -> None:
        if self.messages and self.messages[-1].role == "user":
            self.messages[-1].content.append(part)
        else:
            self.messages.append(ChatMessage(role="user", content=[part]))

    def assistant(self, parts: list[MessagePart]) -> None:
        if parts:
            self.messages.append(ChatMessage(role="assistant", content=parts))


def image_part(url: str) -> DataPart | None:
    """A `data:` URL's image as a DataPart (an http URL: None, the fake does not fetch)."""
    if not url.startswith("data:") or "," not in url:
        return None
    head, data = url[5:].split(",", 1)
    mime = head.split(";", 1)[0] or "application/octet-stream"
    return DataPart(mimeType=mime, data=data)


def b64_image(mime: str, data: str) -> DataPart:
    return DataPart(mimeType=mime, data=data)


def result_part(call_id: str, content: Any) -> ToolResultPart:
    """A tool result from a string or a list of text/image blocks (any of the three shapes)."""
    parts: list[TextPart | DataPart] = []
    if isinstance(content, str):
        parts.append(TextPart(value=content))
    elif isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            text = block.get("text")
            if isinstance(text, str):
                parts.append(TextPart(value=text))
            image = _block_image(block)
            if image is not None:
                parts.append(image)
    return ToolResultPart(callId=call_id, content=parts)


def _block_image(block: dict[str, Any]) -> DataPart | None:
    url = block.get("image_url")
    if isinstance(url, dict):
        url = url.get("url")
    if isinstance(url, str):
        return image_part(url)
    source = block.get("source")
    if isinstance(source, dict) and source.get("type") == "base64":
        return b64_image(str(source.get("media_type", "")), str(source.get("data", "")))
    return None


def arguments(text: Any) -> dict[str, Any]:
    """A tool call's arguments (JSON text) as an object; anything else as `{"input": text}`."""
    if isinstance(text, dict):
        return text
    if not isinstance(text, str) or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {"input": text}
    return value if isinstance(value, dict) else {"input": value}


def tool(name: Any, description: Any, schema: Any) -> ChatTool:
    if not isinstance(name, str) or not name:
        raise BadBody("a tool has no name")
    return ChatTool(
        name=name,
        description=description if isinstance(description, str) else "",
        inputSchema=schema if isinstance(schema, dict) else None,
    )


def int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def decoded(data: str) -> bytes:
    try:
        return base64.b64decode(data)
    except (binascii.Error, ValueError):
        return b""
