"""The `POST /v1/messages` body as the conversion reads it: msgspec Structs, decoded in one pass.

The same fields, with the same names and meaning, as the pydantic models of protocol.py, which
stay the exact path (they phrase every 400). msgspec ignores keys it does not know, as those
models do. Content blocks are a tagged union on `type`; a block of a type not listed here
(`search_result`, `server_tool_use`, a newer kind...) cannot be decoded: such a body takes the
exact path, whose `OtherBlock` becomes the `OtherBlock` below (`exact.py`).

`gc=False`: decoded values cannot form cycles, and a long history is tens of thousands of
Structs the garbage collector need not track.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
from msgspec import Meta, Struct


class Source(Struct, kw_only=True, gc=False):
    """Where an image's or a document's bytes are: `base64`, `url`, `text`, `content`, `file`."""

    type: str
    media_type: str | None = None
    data: str | list[Any] | None = None  # base64 or text; a `content` source has `content`
    url: str | None = None
    file_id: str | None = None
    content: str | list[Any] | None = None


class _Block(Struct, kw_only=True, gc=False, tag_field="type"):
    pass


class TextBlock(_Block, tag="text"):
    text: str


class ImageBlock(_Block, tag="image"):
    source: Source


class DocumentBlock(_Block, tag="document"):
    source: Source
    title: str | None = None
    context: str | None = None


class ToolUseBlock(_Block, tag="tool_use"):
    id: str
    name: str
    input: dict[str, Any] = msgspec.field(default_factory=dict)


class ThinkingBlock(_Block, tag="thinking"):
    """An earlier thought: back to the provider when its signature is one (thinking_tokens)."""

    thinking: str | None = None
    signature: str | None = None


class RedactedThinkingBlock(_Block, tag="redacted_thinking"):
    """Dropped: Copilot 0.67 cannot send one back (docs/credits.md)."""

    data: str | None = None


class ToolReferenceBlock(_Block, tag="tool_reference"):
    """A tool search's answer: it loads the deferred tool it names (tools.py)."""

    tool_name: str


class ToolResultBlock(_Block, tag="tool_result"):
    tool_use_id: str
    content: str | list[ContentBlock] = ""
    is_error: bool | None = None


class OtherBlock(Struct, kw_only=True, gc=False):
    """A block the editor cannot take, as only the exact path reads it (`search_result`,
    `server_tool_use`, a newer kind...): its `type` and its other keys."""

    type: str
    extra: dict[str, Any] = msgspec.field(default_factory=dict)


_Decoded = (
    TextBlock
    | ImageBlock
    | DocumentBlock
    | ToolUseBlock
    | ToolResultBlock
    | ThinkingBlock
    | RedactedThinkingBlock
    | ToolReferenceBlock
)
if TYPE_CHECKING:
    ContentBlock = _Decoded | OtherBlock
else:
    # The decoder reads the tagged blocks only (an untagged Struct cannot join their union);
    # the exact path also puts OtherBlocks in these lists (Struct constructors check no types).
    ContentBlock = _Decoded
Content = str | list[ContentBlock]


class Message(Struct, kw_only=True, gc=False):
    # `system` is not Anthropic's, but Claude Code sends such messages with its newest models.
    role: Literal["user", "assistant", "system"]
    content: Content


class SystemBlock(Struct, kw_only=True, gc=False):
    type: Literal["text"] = "text"
    text: str


class ThinkingConfig(Struct, kw_only=True, gc=False):
    type: Literal["enabled", "disabled", "adaptive"]
    budget_tokens: Annotated[int, Meta(ge=1024)] | None = None
    display: str | None = None


class OutputConfig(Struct, kw_only=True, gc=False):
    effort: str | None = None
    format: Any = None  # structured outputs: read by output_format.py, which names the param


Probability = Annotated[float, Meta(ge=0, le=1)]


class MessagesBody(Struct, kw_only=True, gc=False):
    model: Annotated[str, Meta(min_length=1)]
    messages: Annotated[list[Message], Meta(min_length=1)]
    # Required by `POST /v1/messages`: a body without it takes the exact path, which says so.
    # `count_tokens` sets it (a count has no output).
    max_tokens: Annotated[int, Meta(ge=1)] | None = None
    system: str | list[SystemBlock] | None = None
    tools: list[Any] | None = None
    tool_choice: dict[str, Any] | None = None
    stop_sequences: list[Annotated[str, Meta(min_length=1)]] | None = None
    temperature: Probability | None = None
    top_p: Probability | None = None
    top_k: Annotated[int, Meta(ge=0)] | None = None
    thinking: ThinkingConfig | None = None
    output_config: OutputConfig | None = None
    output_format: Any = None  # the structured-outputs beta's place for `output_config.format`
    stream: bool | None = None
    # Accepted and ignored (options.log_ignored names them at debug).
    metadata: Any = None
    service_tier: Any = None
    context_management: Any = None
    container: Any = None
    mcp_servers: Any = None
    # Not Anthropic's: the request limits count `additional_tools` items of a Responses-style
    # `input` among the tools, so a body with one takes the exact path (body.py).
    foreign_input: Any = msgspec.field(default=None, name="input")
