"""The parts and messages of a chat, and the editor's errors: the shapes both sides of the
editor protocol (docs/protocol.md) share.

Kept free of pydantic: the headless editor's process (`maestro-bridge serve`) decodes and
builds these and nothing else of the bridge's types, so it never imports pydantic (its idle
memory, docs/benchmarks.md). bridge/core/backend.py re-exports them with the bridge's own types.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import msgspec


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
    # The provider's own data about the thought (Copilot: `encrypted_content`, the Anthropic
    # signature or Responses item's, and `vscode_thinking_origin_api`), kept so that the
    # thought can go back to it in a later turn (bridge/core/thinking_tokens.py).
    metadata: dict[str, Any] | None = None


# A ThinkingPart in a message is an assistant's earlier thought going back to the provider.
MessagePart = TextPart | DataPart | ToolCallPart | ToolResultPart | ThinkingPart
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


class ModelCapabilities(msgspec.Struct, kw_only=True):
    """What the model accepts (`LanguageModelChatInformation.capabilities`); an editor that
    does not say is taken to accept both, as before."""

    imageInput: bool = True
    toolCalling: bool = True


class ModelPrices(msgspec.Struct, kw_only=True, omit_defaults=True):
    """What the provider charges (Copilot: AI credits per million tokens), each only where it
    says (VS Code 1.139's `inputCost`, `outputCost`, `cacheCost`, `cacheWriteCost`)."""

    input: float | None = None
    output: float | None = None
    cacheRead: float | None = None
    cacheWrite: float | None = None


class ModelInfo(msgspec.Struct, kw_only=True):
    """A model the editor offers (`maestro/models`); unknown keys from a newer editor are
    ignored."""

    id: str
    name: str = ""
    vendor: str = ""
    family: str = ""
    version: str = ""
    maxInputTokens: int = 0
    maxOutputTokens: int = 0  # 0: the editor did not say
    capabilities: ModelCapabilities = msgspec.field(default_factory=ModelCapabilities)
    prices: ModelPrices | None = None  # None: the editor did not say


def model_list(raw: Any) -> list[ModelInfo]:
    """The editor's models (decoded JSON); msgspec.ValidationError if one is malformed. Lax,
    as the editor's numbers may come as floats (`128000.0`)."""
    return msgspec.convert(raw, list[ModelInfo], strict=False)


class ChatTool(msgspec.Struct, kw_only=True):
    """A tool the model is offered: `inputSchema` is JSON Schema, passed on as it is."""

    name: str
    description: str = ""
    inputSchema: dict[str, Any] | None = None


def tool_json(tool: ChatTool) -> dict[str, Any]:
    """A tool as `maestro/chat` carries it: `inputSchema` only when it has one."""
    if tool.inputSchema is None:
        return {"name": tool.name, "description": tool.description}
    return {"name": tool.name, "description": tool.description, "inputSchema": tool.inputSchema}


class CountInput(msgspec.Struct, kw_only=True, gc=False):
    """Asks the editor to count the chat's input as it starts the chat (docs/protocol.md,
    "Counting the input"): it adds `imageTokens` (the bridge's estimate of the images, which
    the editor's counter does not see), tells the count, and refuses past `maxTokens` (0: it
    only tells)."""

    maxTokens: int
    imageTokens: int = 0


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
