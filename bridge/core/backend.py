"""The small interface between the HTTP bridge and whatever provides the models.

The types mirror the editor's Language Model API (VS Code's `vscode.lm`), because that is
what runs on the other side: messages are user/assistant only, tool calls arrive whole,
binary data travels as base64. The same shapes go over the wire in `docs/protocol.md`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class _Wire(BaseModel):
    # Unknown keys from a newer editor are ignored rather than rejected.
    model_config = ConfigDict(extra="ignore")


class ModelInfo(_Wire):
    id: str
    name: str = ""
    vendor: str = ""
    family: str = ""
    version: str = ""
    maxInputTokens: int = 0


class TextPart(_Wire):
    type: Literal["text"] = "text"
    value: str


class DataPart(_Wire):
    """Binary data (an image, or JSON such as Copilot's `usage`), base64 encoded."""

    type: Literal["data"] = "data"
    mimeType: str
    data: str


class ToolCallPart(_Wire):
    type: Literal["toolCall"] = "toolCall"
    callId: str
    name: str
    input: dict[str, Any] = Field(default_factory=dict)


class ToolResultPart(_Wire):
    type: Literal["toolResult"] = "toolResult"
    callId: str
    content: list[TextPart | DataPart] = Field(default_factory=list)


class ThinkingPart(_Wire):
    type: Literal["thinking"] = "thinking"
    value: str
    id: str | None = None


MessagePart = Annotated[
    TextPart | DataPart | ToolCallPart | ToolResultPart, Field(discriminator="type")
]
ResponsePart = Annotated[
    TextPart | DataPart | ToolCallPart | ThinkingPart, Field(discriminator="type")
]
RESPONSE_PARTS: TypeAdapter[list[ResponsePart]] = TypeAdapter(list[ResponsePart])


class ChatMessage(_Wire):
    role: Literal["user", "assistant"]
    content: list[MessagePart]
    name: str | None = None


class ChatTool(_Wire):
    name: str
    description: str = ""
    inputSchema: dict[str, Any] | None = None


class ChatRequest(_Wire):
    model: str
    messages: list[ChatMessage]
    tools: list[ChatTool] = Field(default_factory=list)
    toolMode: Literal["auto", "required"] = "auto"
    modelOptions: dict[str, Any] = Field(default_factory=dict)
    justification: str | None = None


EditorErrorCode = Literal["NotFound", "NoPermissions", "Blocked", "Unavailable", "Timeout", "Other"]


class EditorError(Exception):
    """A failure reported by the editor (or the loss of the editor itself)."""

    def __init__(self, code: EditorErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: EditorErrorCode = code
        self.message = message


class Backend(Protocol):
    """What the bridge needs from an editor."""

    async def list_models(self) -> list[ModelInfo]: ...

    def chat(self, request: ChatRequest) -> AsyncGenerator[list[ResponsePart], None]:
        """Stream the model's parts in batches; raises EditorError on failure.

        Closing the iterator early (the HTTP client went away) cancels the request.
        """
        ...

    async def count_tokens(self, model: str, text: str) -> int: ...
