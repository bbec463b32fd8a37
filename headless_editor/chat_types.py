"""The editor's side of the models and chat requests (docs/protocol.md), as msgspec Structs.

The bridge has pydantic twins of these in bridge/core/backend.py (its requests carry notes of
its own, never sent). The headless editor decodes what reaches it with these instead, so its
process never imports pydantic: `maestro-bridge serve` runs it next to the language server,
and their idle memory is counted together (docs/benchmarks.md, "RSS idle"). Field names,
defaults and order are the bridge's; tests/test_headless_chat_types.py holds them to it.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from bridge.core.parts import ChatMessage, CountInput


class ModelCapabilities(msgspec.Struct, kw_only=True):
    imageInput: bool = True
    toolCalling: bool = True


class ModelInfo(msgspec.Struct, kw_only=True):
    """A model the editor offers (`maestro/models`); unknown keys are ignored."""

    id: str
    name: str = ""
    vendor: str = ""
    family: str = ""
    version: str = ""
    maxInputTokens: int = 0
    maxOutputTokens: int = 0  # 0: the editor does not say
    capabilities: ModelCapabilities = msgspec.field(default_factory=ModelCapabilities)


class ChatTool(msgspec.Struct, kw_only=True):
    name: str
    description: str = ""
    inputSchema: dict[str, Any] | None = None


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
    for tool in body["tools"]:
        if tool["inputSchema"] is None:
            del tool["inputSchema"]
    return msgspec.json.encode(body).decode()
