"""The editor's side of the chat requests (docs/protocol.md), as a msgspec Struct.

The bridge's ChatRequest (bridge/core/backend.py) is a pydantic model carrying notes of its
own, never sent. The headless editor decodes what reaches it with this one instead, so its
process never imports pydantic: `maestro-bridge serve` runs it next to the language server,
and their idle memory is counted together (docs/benchmarks.md, "RSS idle"). Field names,
defaults and order are the bridge's; tests/test_headless_chat_types.py holds them to it. The
models and tools are the bridge's own Structs (bridge/core/parts.py).
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from bridge.core.parts import (
    ChatMessage,
    ChatTool,
    CountInput,
    ModelCapabilities,
    ModelInfo,
    tool_json,
)

__all__ = [
    "ChatRequest",
    "ChatTool",
    "ModelCapabilities",
    "ModelInfo",
    "chat_request",
    "models_json",
    "request_json",
]


class ChatRequest(msgspec.Struct, kw_only=True):
    """A `maestro/chat` request as the editor reads it (its chatId and window aside)."""

    model: str
    messages: list[ChatMessage]
    tools: list[ChatTool] = msgspec.field(default_factory=list)
    toolMode: Literal["auto", "required"] = "auto"
    modelOptions: dict[str, Any] = msgspec.field(default_factory=dict)
    modelConfiguration: dict[str, Any] = msgspec.field(default_factory=dict)
    justification: str | None = None
    countInput: CountInput | None = None  # count the input as the chat starts


def chat_request(params: dict[str, Any]) -> ChatRequest:
    """The request in `maestro/chat` params (its messages read as bridge.core.parts.message_list
    reads them); msgspec.ValidationError if it is malformed."""
    return msgspec.convert(params, ChatRequest)


def models_json(models: list[ModelInfo]) -> list[dict[str, Any]]:
    """The `maestro/models` answer's entries: every field, as the bridge's ModelInfo has them."""
    return [msgspec.to_builtins(model) for model in models]


def request_json(request: ChatRequest) -> str:
    """The request as JSON text, as it reached the editor: the fields that are None left out
    (a tool without an input schema, a request without a justification)."""
    body = msgspec.to_builtins(request)
    for optional in ("justification", "countInput"):
        if body[optional] is None:
            del body[optional]
    body["tools"] = [tool_json(tool) for tool in request.tools]
    return msgspec.json.encode(body).decode()
