"""The small interface between the HTTP bridge and whatever provides the models.

The types mirror the editor's Language Model API (VS Code's `vscode.lm`), because that is
what runs on the other side: messages are user/assistant only, tool calls arrive whole,
binary data travels as base64. The same shapes go over the wire in `docs/protocol.md`.
The parts, messages and errors live in bridge/core/parts.py (free of pydantic, for the
headless editor's process) and are re-exported here with the types only the bridge uses.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from typing import Annotated, Any, Literal, Protocol

import msgspec
from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, PrivateAttr

from bridge.core.parts import (
    ChatMessage,
    DataPart,
    EditorError,
    EditorErrorCode,
    MessagePart,
    ResponsePart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    message_list,
    response_parts,
)

__all__ = [
    "Backend",
    "ChatMessage",
    "ChatRequest",
    "ChatTool",
    "DataPart",
    "EditorError",
    "EditorErrorCode",
    "MessagePart",
    "ModelCapabilities",
    "ModelInfo",
    "ResponsePart",
    "TextPart",
    "ThinkingPart",
    "ToolCallPart",
    "ToolResultPart",
    "message_list",
    "response_parts",
]


class _Wire(BaseModel):
    # Unknown keys from a newer editor are ignored rather than rejected.
    model_config = ConfigDict(extra="ignore")


class ModelCapabilities(_Wire):
    """What the model accepts (`LanguageModelChatInformation.capabilities`); an editor that
    does not say is taken to accept both, as before."""

    imageInput: bool = True
    toolCalling: bool = True


class ModelInfo(_Wire):
    id: str
    name: str = ""
    vendor: str = ""
    family: str = ""
    version: str = ""
    maxInputTokens: int = 0
    maxOutputTokens: int = 0  # 0: the editor did not say
    capabilities: ModelCapabilities = Field(default_factory=ModelCapabilities)


class ChatTool(_Wire):
    name: str
    description: str = ""
    inputSchema: dict[str, Any] | None = None


class ChatRequest(_Wire):
    # The messages are Structs (above): checked as instances here, and written by msgspec.
    model_config = ConfigDict(extra="ignore", arbitrary_types_allowed=True)
    model: str
    messages: Annotated[list[ChatMessage], PlainSerializer(msgspec.to_builtins)]
    tools: list[ChatTool] = Field(default_factory=list)
    toolMode: Literal["auto", "required"] = "auto"
    modelOptions: dict[str, Any] = Field(default_factory=dict)
    # Per-model settings the provider reads besides modelOptions (Copilot reads its
    # `reasoningEffort` here); the editor passes it on where its API has it.
    modelConfiguration: dict[str, Any] = Field(default_factory=dict)
    justification: str | None = None
    # The bridge's own notes on the request, never sent (bridge/core/copilot/request.py): the
    # client's names of the tools whose editor names differ, and whether the answer must call
    # a tool that Copilot could only be asked for in an instruction.
    clientToolNames: dict[str, str] = Field(default_factory=dict, exclude=True)
    toolCallRequired: bool = Field(default=False, exclude=True)
    # How the request is built again for another model (a fallback, bridge/core/fallback.py):
    # set by bridge/core/copilot/request.py, never sent.
    _rebuild_for: Callable[[ModelInfo], ChatRequest] | None = PrivateAttr(default=None)

    @property
    def rebuild_for(self) -> Callable[[ModelInfo], ChatRequest] | None:
        return self._rebuild_for

    @rebuild_for.setter
    def rebuild_for(self, rebuild: Callable[[ModelInfo], ChatRequest] | None) -> None:
        self._rebuild_for = rebuild


class Backend(Protocol):
    """What the bridge needs from an editor."""

    async def list_models(self) -> list[ModelInfo]: ...

    def chat(self, request: ChatRequest) -> AsyncGenerator[list[ResponsePart], None]:
        """Stream the model's parts in batches; raises EditorError on failure.

        Closing the iterator early (the HTTP client went away) cancels the request.
        """
        ...

    async def count_tokens(self, model: str, text: str) -> int: ...
