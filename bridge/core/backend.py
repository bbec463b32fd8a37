"""The small interface between the HTTP bridge and whatever provides the models.

The types mirror the editor's Language Model API (VS Code's `vscode.lm`), because that is
what runs on the other side: messages are user/assistant only, tool calls arrive whole,
binary data travels as base64. The same shapes go over the wire in `docs/protocol.md`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from typing import Annotated, Any, ClassVar, Literal, Protocol

import msgspec
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    PrivateAttr,
)


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


# The parts and messages are msgspec Structs, not pydantic models or dataclasses: a long
# conversation is thousands of them, built on every request, and a Struct costs ~0.1 us to
# create against ~0.6 us for a dataclass and 1.5-3 us for a pydantic model (docs/benchmarks.md,
# the history sweep). Their encoding is their wire shape (docs/protocol.md): the tag `type`
# first, and `name`/`id` only when set. Unknown keys from the editor are ignored.
# `gc=False`: the collector does not track them (a long history's thousands of them made it
# run full passes mid-request); they hold only strings and JSON values, so no cycle.
class TextPart(msgspec.Struct, kw_only=True, gc=False, tag_field="type", tag="text"):
    type: ClassVar[Literal["text"]] = "text"  # the tag, as an attribute too
    value: str


class DataPart(msgspec.Struct, kw_only=True, gc=False, tag_field="type", tag="data"):
    """Binary data (an image, or JSON such as Copilot's `usage`), base64 encoded."""

    type: ClassVar[Literal["data"]] = "data"  # the tag, as an attribute too
    mimeType: str
    data: str


class ToolCallPart(msgspec.Struct, kw_only=True, gc=False, tag_field="type", tag="toolCall"):
    type: ClassVar[Literal["toolCall"]] = "toolCall"  # the tag, as an attribute too
    callId: str
    name: str
    input: dict[str, Any] = msgspec.field(default_factory=dict)


class ToolResultPart(msgspec.Struct, kw_only=True, gc=False, tag_field="type", tag="toolResult"):
    type: ClassVar[Literal["toolResult"]] = "toolResult"  # the tag, as an attribute too
    callId: str
    content: list[TextPart | DataPart] = msgspec.field(default_factory=list)


class ThinkingPart(
    msgspec.Struct, kw_only=True, tag_field="type", tag="thinking", omit_defaults=True
):
    type: ClassVar[Literal["thinking"]] = "thinking"  # the tag, as an attribute too
    value: str
    id: str | None = None


MessagePart = TextPart | DataPart | ToolCallPart | ToolResultPart
ResponsePart = TextPart | DataPart | ToolCallPart | ThinkingPart


class ChatMessage(msgspec.Struct, kw_only=True, gc=False, omit_defaults=True):
    role: Literal["user", "assistant"]
    content: list[MessagePart]
    name: str | None = None


def response_parts(raw: Any) -> list[ResponsePart]:
    """Parts from the editor (decoded JSON) as typed parts; msgspec.ValidationError if one is
    malformed."""
    return msgspec.convert(raw, list[ResponsePart])


def message_list(raw: Any) -> list[ChatMessage]:
    """Chat messages from decoded JSON (the editor's side of `maestro/chat`)."""
    return msgspec.convert(raw, list[ChatMessage])


class ChatTool(_Wire):
    name: str
    description: str = ""
    inputSchema: dict[str, Any] | None = None


class CountInput(msgspec.Struct, kw_only=True, gc=False):
    """Asks the editor to count the chat's input as it starts the chat (docs/protocol.md,
    "Counting the input"): it adds `imageTokens` (the bridge's estimate of the images, which
    the editor's counter does not see), tells the count, and refuses past `maxTokens` (0: it
    only tells)."""

    maxTokens: int
    imageTokens: int = 0


class InputCount:
    """The input's tokens as the editor counted them for a chat (None until it has): one
    holder shared by a request and its copies (a retry), set by the backend."""

    __slots__ = ("tokens",)

    def __init__(self) -> None:
        self.tokens: int | None = None


def _count_input(raw: Any) -> Any:
    """`countInput` from decoded JSON (the editor's side) as its Struct."""
    return raw if raw is None or isinstance(raw, CountInput) else msgspec.convert(raw, CountInput)


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


# The error name of a chat refused because its input cannot fit (`countInput.maxTokens`).
INPUT_TOO_LONG = "InputTooLong"

EditorErrorCode = Literal["NotFound", "NoPermissions", "Blocked", "Unavailable", "Timeout", "Other"]


class EditorError(Exception):
    """A failure reported by the editor (or the loss of the editor itself)."""

    def __init__(
        self, code: EditorErrorCode, message: str, name: str = "", input_tokens: int | None = None
    ) -> None:
        super().__init__(message)
        self.code: EditorErrorCode = code
        self.message = message
        # The provider's own error name (`Error.name`: Copilot's `ChatQuotaExceeded`,
        # `ChatRateLimited`...), which says more than the code; "" when it gave none.
        self.name = name
        self.input_tokens = input_tokens  # the editor's count, when it refused the input


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
