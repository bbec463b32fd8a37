"""The `POST /v1/messages` body as typed models (pydantic), lenient on keys we do not use.

The exact path: a body the fast path (body.py, wire.py) does not take is validated here,
which phrases every 400; what it accepts becomes the wire Structs (from_model.py).

Content blocks are told apart by `type`; a block of a type the bridge does not know is kept as
`OtherBlock` (it becomes a short note, never an error). Tools and `tool_choice` stay plain
objects here: `tools.py` reads them and names the offending param when one is wrong.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, StrictBool, Tag


class _Lenient(BaseModel):
    # Newer clients send keys we do not know (`cache_control`, `citations`, ...): ignored.
    model_config = ConfigDict(extra="ignore")


class Source(_Lenient):
    """Where an image's or a document's bytes are: `base64`, `url`, `text`, `content`, `file`."""

    type: str
    media_type: str | None = None
    data: str | list[Any] | None = None  # base64 or text; a `content` source has `content`
    url: str | None = None
    file_id: str | None = None
    content: str | list[Any] | None = None


class TextBlock(_Lenient):
    type: Literal["text"]
    text: str


class ImageBlock(_Lenient):
    type: Literal["image"]
    source: Source


class DocumentBlock(_Lenient):
    type: Literal["document"]
    source: Source
    title: str | None = None
    context: str | None = None


class ToolUseBlock(_Lenient):
    type: Literal["tool_use"]
    id: str
    name: str
    input: dict[str, Any] = Field(default_factory=dict)


class ThinkingBlock(_Lenient):
    """`thinking` and `redacted_thinking`: the editor takes no thinking in the history."""

    type: Literal["thinking", "redacted_thinking"]
    thinking: str | None = None
    signature: str | None = None
    data: str | None = None


class OtherBlock(_Lenient):
    """A block the editor cannot take (`search_result`, `server_tool_use`, a newer kind...)."""

    model_config = ConfigDict(extra="allow")
    type: str


class ToolResultBlock(_Lenient):
    type: Literal["tool_result"]
    tool_use_id: str
    content: Annotated[str | list[ContentBlock], Field(union_mode="left_to_right")] = ""
    is_error: bool | None = None


_KNOWN_BLOCKS = {
    "text": "text",
    "image": "image",
    "document": "document",
    "tool_use": "tool_use",
    "tool_result": "tool_result",
    "thinking": "thinking",
    "redacted_thinking": "thinking",
}


def _block_kind(raw: Any) -> str:
    if isinstance(raw, dict):
        return _KNOWN_BLOCKS.get(str(raw.get("type")), "other")
    if isinstance(raw, BaseModel):
        return _KNOWN_BLOCKS.get(str(getattr(raw, "type", "")), "other")
    return "other"


ContentBlock = Annotated[
    Annotated[TextBlock, Tag("text")]
    | Annotated[ImageBlock, Tag("image")]
    | Annotated[DocumentBlock, Tag("document")]
    | Annotated[ToolUseBlock, Tag("tool_use")]
    | Annotated[ToolResultBlock, Tag("tool_result")]
    | Annotated[ThinkingBlock, Tag("thinking")]
    | Annotated[OtherBlock, Tag("other")],
    Discriminator(_block_kind),
]
ToolResultBlock.model_rebuild()

# Left to right, not pydantic's "smart" default: the two kinds cannot both fit, and smart mode
# validates a list twice (strict, then lax), a third of a long history's validation.
Content = Annotated[str | list[ContentBlock], Field(union_mode="left_to_right")]


class Message(_Lenient):
    # `system` is not Anthropic's, but Claude Code sends such messages with its newest models.
    role: Literal["user", "assistant", "system"]
    content: Content


class SystemBlock(_Lenient):
    type: Literal["text"] = "text"
    text: str


class ThinkingConfig(_Lenient):
    type: Literal["enabled", "disabled", "adaptive"]
    budget_tokens: Annotated[int, Field(strict=True, ge=1024)] | None = None
    display: str | None = None


class OutputConfig(_Lenient):
    effort: str | None = None
    format: Any = None  # structured outputs: read by output_format.py, which names the param


Probability = Annotated[float, Field(ge=0, le=1)]


class MessagesRequest(_Lenient):
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)  # NaN is not JSON
    model: Annotated[str, Field(min_length=1)]
    messages: Annotated[list[Message], Field(min_length=1)]
    max_tokens: Annotated[int, Field(strict=True, ge=1)]
    system: Annotated[str | list[SystemBlock] | None, Field(union_mode="left_to_right")] = None
    tools: list[Any] | None = None
    tool_choice: dict[str, Any] | None = None
    stop_sequences: list[Annotated[str, Field(min_length=1)]] | None = None
    temperature: Probability | None = None
    top_p: Probability | None = None
    top_k: Annotated[int, Field(strict=True, ge=0)] | None = None
    thinking: ThinkingConfig | None = None
    output_config: OutputConfig | None = None
    output_format: Any = None  # the structured-outputs beta's place for `output_config.format`
    stream: StrictBool | None = None
