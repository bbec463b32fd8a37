"""The `POST /v1/chat/completions` body as typed models (pydantic), lenient on keys we do not use.

Messages are told apart by `role`, content parts by `type`; a part of a type the bridge does
not know is kept as `OtherContent` (convert.py makes it a note, or a 400 for audio). Tools,
`tool_choice` and `response_format` stay plain objects here: tools.py and response_format.py
read them and name the offending param when one is wrong.

These models are the exact path (exact.py): they read any body the fast path (body.py, the
msgspec Structs of wire.py) leaves to them, and phrase its 400; what they accept is handed on
as the Structs, which the conversion reads.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, StrictBool, Tag


class _Lenient(BaseModel):
    # Newer clients send keys we do not know (`cache_control`, `reasoning_content`, ...): ignored.
    model_config = ConfigDict(extra="ignore")


class TextContent(_Lenient):
    type: Literal["text"]
    text: str


class ImageUrl(_Lenient):
    url: str
    detail: str | None = None


class ImageContent(_Lenient):
    type: Literal["image_url"]
    image_url: ImageUrl


class FileData(_Lenient):
    file_data: str | None = None
    file_id: str | None = None
    filename: str | None = None


class FileContent(_Lenient):
    type: Literal["file"]
    file: FileData


class RefusalContent(_Lenient):
    """An assistant's earlier refusal, sent back in the history."""

    type: Literal["refusal"]
    refusal: str


class OtherContent(_Lenient):
    """A part the editor cannot take (`input_audio`, a newer kind...)."""

    model_config = ConfigDict(extra="allow")
    type: str


_KNOWN_PARTS = {"text", "image_url", "file", "refusal"}


def _part_kind(raw: Any) -> str:
    kind = raw.get("type") if isinstance(raw, dict) else getattr(raw, "type", None)
    return kind if isinstance(kind, str) and kind in _KNOWN_PARTS else "other"


ContentItem = Annotated[
    Annotated[TextContent, Tag("text")]
    | Annotated[ImageContent, Tag("image_url")]
    | Annotated[FileContent, Tag("file")]
    | Annotated[RefusalContent, Tag("refusal")]
    | Annotated[OtherContent, Tag("other")],
    Discriminator(_part_kind),
]
# Left to right, not pydantic's "smart" default: the two kinds cannot both fit, and smart mode
# validates a list twice (strict, then lax), a third of a long history's validation.
Content = Annotated[str | list[ContentItem], Field(union_mode="left_to_right")]


class FunctionCall(_Lenient):
    name: str
    arguments: str = ""  # a JSON string, as the model wrote it


class CustomCall(_Lenient):
    name: str
    input: str = ""  # free text, as a custom tool takes it


class ToolCall(_Lenient):
    id: str
    type: str = "function"  # `custom` calls carry `custom` instead of `function`
    function: FunctionCall | None = None
    custom: CustomCall | None = None


class SystemMessage(_Lenient):
    role: Literal["system", "developer"]
    content: Content
    name: str | None = None


class UserMessage(_Lenient):
    role: Literal["user"]
    content: Content
    name: str | None = None


class AssistantMessage(_Lenient):
    role: Literal["assistant"]
    content: Content | None = None
    refusal: str | None = None
    tool_calls: list[ToolCall] | None = None
    function_call: FunctionCall | None = None  # the legacy single call
    name: str | None = None


class ToolMessage(_Lenient):
    role: Literal["tool"]
    content: Content
    tool_call_id: str


class FunctionMessage(_Lenient):
    """The legacy result of a `function_call`, paired by name only."""

    role: Literal["function"]
    name: str
    content: str | None = None


ROLES = ("system", "developer", "user", "assistant", "tool", "function")


def _role(raw: Any) -> str | None:
    role = raw.get("role") if isinstance(raw, dict) else getattr(raw, "role", None)
    if role == "developer":
        return "system"
    return role if isinstance(role, str) and role in ROLES else None


Message = Annotated[
    Annotated[SystemMessage, Tag("system")]
    | Annotated[UserMessage, Tag("user")]
    | Annotated[AssistantMessage, Tag("assistant")]
    | Annotated[ToolMessage, Tag("tool")]
    | Annotated[FunctionMessage, Tag("function")],
    Discriminator(_role),
]


class StreamOptions(_Lenient):
    include_usage: StrictBool | None = None


PositiveInt = Annotated[int, Field(strict=True, ge=1)]


class CompletionRequest(_Lenient):
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)  # NaN is not JSON
    model: Annotated[str, Field(min_length=1)]
    messages: Annotated[list[Message], Field(min_length=1)]
    stream: StrictBool | None = None
    stream_options: StreamOptions | None = None
    max_tokens: PositiveInt | None = None
    max_completion_tokens: PositiveInt | None = None
    temperature: Annotated[float, Field(ge=0, le=2)] | None = None
    top_p: Annotated[float, Field(ge=0, le=1)] | None = None
    reasoning_effort: str | None = None
    frequency_penalty: Annotated[float, Field(ge=-2, le=2)] | None = None
    presence_penalty: Annotated[float, Field(ge=-2, le=2)] | None = None
    stop: str | list[str] | None = None
    tools: list[Any] | None = None
    tool_choice: str | dict[str, Any] | None = None
    parallel_tool_calls: StrictBool | None = None
    response_format: dict[str, Any] | None = None
    # Asked for, but the bridge cannot give them: options.py answers a 400 naming each.
    n: Annotated[int, Field(strict=True)] | None = None
    logprobs: StrictBool | None = None
    top_logprobs: Annotated[int, Field(strict=True)] | None = None
    audio: Any = None
    modalities: list[str] | None = None
    functions: Any = None
    function_call: Any = None
