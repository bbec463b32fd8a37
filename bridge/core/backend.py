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
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    PrivateAttr,
)

from bridge.core.parts import (
    INPUT_TOO_LONG,
    ChatMessage,
    ChatTool,
    CountInput,
    DataPart,
    EditorError,
    EditorErrorCode,
    MessagePart,
    ModelCapabilities,
    ModelInfo,
    ModelPrices,
    ResponsePart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    message_list,
    model_list,
    response_parts,
    tool_json,
)

__all__ = [
    "INPUT_TOO_LONG",
    "Backend",
    "ChatMessage",
    "ChatRequest",
    "ChatTool",
    "CountInput",
    "DataPart",
    "EditorError",
    "EditorErrorCode",
    "MessagePart",
    "ModelCapabilities",
    "ModelInfo",
    "ModelPrices",
    "ResponsePart",
    "TextPart",
    "ThinkingPart",
    "ToolCallPart",
    "ToolResultPart",
    "message_list",
    "model_list",
    "response_parts",
]


class InputCount:
    """The input's tokens as the editor counted them for a chat (None until it has): one
    holder shared by a request and its copies (a retry), set by the backend."""

    __slots__ = ("tokens",)

    def __init__(self) -> None:
        self.tokens: int | None = None


def _tools(raw: Any) -> Any:
    """`tools` from decoded JSON as their Structs (the bridge builds them as Structs)."""
    if isinstance(raw, list) and all(type(tool) is ChatTool for tool in raw):
        return raw
    return msgspec.convert(raw, list[ChatTool])


def _tools_json(tools: list[ChatTool]) -> list[dict[str, Any]]:
    return [tool_json(tool) for tool in tools]


def _count_input(raw: Any) -> Any:
    """`countInput` from decoded JSON (the editor's side) as its Struct."""
    return raw if raw is None or isinstance(raw, CountInput) else msgspec.convert(raw, CountInput)


class ChatRequest(BaseModel):
    # The messages are Structs (above): checked as instances here, and written by msgspec.
    model_config = ConfigDict(extra="ignore", arbitrary_types_allowed=True)
    model: str
    messages: Annotated[list[ChatMessage], PlainSerializer(msgspec.to_builtins)]
    tools: Annotated[list[ChatTool], BeforeValidator(_tools), PlainSerializer(_tools_json)] = Field(
        default_factory=list
    )
    toolMode: Literal["auto", "required"] = "auto"
    modelOptions: dict[str, Any] = Field(default_factory=dict)
    # Per-model settings the provider reads besides modelOptions (Copilot reads its
    # `reasoningEffort` here); the editor passes it on where its API has it.
    modelConfiguration: dict[str, Any] = Field(default_factory=dict)
    justification: str | None = None
    # Set when the input may not fit the window (bridge/core/token_limits.py): the editor
    # counts it and refuses a chat that cannot fit, before the model is asked.
    countInput: Annotated[
        CountInput | None, BeforeValidator(_count_input), PlainSerializer(msgspec.to_builtins)
    ] = None
    # The bridge's own notes on the request, never sent (bridge/core/copilot/request.py): the
    # client's names of the tools whose editor names differ, and whether the answer must call
    # a tool that Copilot could only be asked for in an instruction.
    clientToolNames: dict[str, str] = Field(default_factory=dict, exclude=True)
    toolCallRequired: bool = Field(default=False, exclude=True)
    # The dialect's input field, which a 400 for an input too long names.
    inputParam: str = Field(default="input", exclude=True)
    # A hosted search tool the bridge runs (bridge/web_search/request.py `SearchAsk`; typed
    # loosely here, the core knowing no search): the model's calls of it never reach the
    # client, bridge/web_search/loop.py answers them and continues the answer. Never sent.
    webSearch: Any = Field(default=None, exclude=True)
    # How the request is built again for another model (a fallback, bridge/core/fallback.py):
    # set by bridge/core/copilot/request.py, never sent.
    _rebuild_for: Callable[[ModelInfo], ChatRequest] | None = PrivateAttr(default=None)
    _input_count: InputCount = PrivateAttr(default_factory=InputCount)

    @property
    def counted_input(self) -> int | None:
        """The input's tokens (images' estimate included) as the editor counted them for
        `countInput`; None when it has not (yet)."""
        return self._input_count.tokens

    @counted_input.setter
    def counted_input(self, tokens: int | None) -> None:
        self._input_count.tokens = tokens

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

        A request with `countInput` is counted before the model is asked (its count set as
        `request.counted_input`); past `maxTokens` the chat fails with EditorError named
        INPUT_TOO_LONG (bridge/core/token_limits.py `enforce_count_input` does both for a
        backend that can only count text).

        Closing the iterator early (the HTTP client went away) cancels the request.
        """
        ...

    async def count_tokens(self, model: str, text: str) -> int: ...
