"""The small interface between the HTTP bridge and whatever provides the models.

The types mirror the editor's Language Model API (VS Code's `vscode.lm`), because that is
what runs on the other side: messages are user/assistant only, tool calls arrive whole,
binary data travels as base64. The same shapes go over the wire in `docs/protocol.md`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, TypeAdapter


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


# The parts and messages are plain dataclasses, not pydantic models: a long conversation is
# thousands of them, built on every request, and a pydantic model costs 1.5-3 us to create
# against ~0.3 us (docs/benchmarks.md, the history sweep). pydantic still validates them
# wherever they arrive as JSON (ChatRequest, RESPONSE_PARTS), ignoring unknown keys.
_PARTS_CONFIG = ConfigDict(extra="ignore")


@dataclass(kw_only=True)
class TextPart:
    __pydantic_config__ = _PARTS_CONFIG
    type: Literal["text"] = "text"
    value: str


@dataclass(kw_only=True)
class DataPart:
    """Binary data (an image, or JSON such as Copilot's `usage`), base64 encoded."""

    __pydantic_config__ = _PARTS_CONFIG
    type: Literal["data"] = "data"
    mimeType: str
    data: str


@dataclass(kw_only=True)
class ToolCallPart:
    __pydantic_config__ = _PARTS_CONFIG
    type: Literal["toolCall"] = "toolCall"
    callId: str
    name: str
    input: dict[str, Any] = field(default_factory=dict)


@dataclass(kw_only=True)
class ToolResultPart:
    __pydantic_config__ = _PARTS_CONFIG
    type: Literal["toolResult"] = "toolResult"
    callId: str
    content: list[TextPart | DataPart] = field(default_factory=list)


@dataclass(kw_only=True)
class ThinkingPart:
    __pydantic_config__ = _PARTS_CONFIG
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


@dataclass(kw_only=True)
class ChatMessage:
    __pydantic_config__ = _PARTS_CONFIG
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


EditorErrorCode = Literal["NotFound", "NoPermissions", "Blocked", "Unavailable", "Timeout", "Other"]


class EditorError(Exception):
    """A failure reported by the editor (or the loss of the editor itself)."""

    def __init__(self, code: EditorErrorCode, message: str, name: str = "") -> None:
        super().__init__(message)
        self.code: EditorErrorCode = code
        self.message = message
        # The provider's own error name (`Error.name`: Copilot's `ChatQuotaExceeded`,
        # `ChatRateLimited`...), which says more than the code; "" when it gave none.
        self.name = name


class Backend(Protocol):
    """What the bridge needs from an editor."""

    async def list_models(self) -> list[ModelInfo]: ...

    def chat(self, request: ChatRequest) -> AsyncGenerator[list[ResponsePart], None]:
        """Stream the model's parts in batches; raises EditorError on failure.

        Closing the iterator early (the HTTP client went away) cancels the request.
        """
        ...

    async def count_tokens(self, model: str, text: str) -> int: ...
