"""The `POST /v1/chat/completions` body as the conversion reads it: msgspec Structs.

Same field names and meaning as the pydantic models of protocol.py, which stay the exact path
(they phrase every 400). msgspec decodes a body straight into these in one pass (the fast
path, body.py); the exact path's result is turned into them too, so one conversion reads both.

Unlike the pydantic models, these refuse unknown keys: msgspec skips an unknown key's value
without the checks the exact path makes (UTF-8, finite numbers, nesting depth), so a body
with one is left to the exact path, which ignores what it may and refuses what it must. The
keys the dialect accepts and ignores (options.IGNORED_KEYS) are declared, as free-form values.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

import msgspec
from msgspec import Meta

from bridge.core.typed_body import TypedBody


class _Wire(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, gc=False):
    # gc=False: the garbage collector does not track these (half the decode time of a long
    # history). Safe because a body's Structs never form a reference cycle: they hold only
    # strings, numbers, other Structs and JSON values, and nothing is put back into them.
    pass


class TextContent(_Wire, tag_field="type", tag="text"):
    text: str


class ImageUrl(_Wire):
    url: str
    detail: str | None = None


class ImageContent(_Wire, tag_field="type", tag="image_url"):
    image_url: ImageUrl


class FileData(_Wire):
    file_data: str | None = None
    file_id: str | None = None
    filename: str | None = None


class FileContent(_Wire, tag_field="type", tag="file"):
    file: FileData


class RefusalContent(_Wire, tag_field="type", tag="refusal"):
    """An assistant's earlier refusal, sent back in the history."""

    refusal: str


class OtherContent(_Wire):
    """A part the editor cannot take (`input_audio`, a newer kind...). Never decoded: only the
    exact path lets such a part through (body.py builds it), so it is in no decoded union."""

    type: str


ContentPart = TextContent | ImageContent | FileContent | RefusalContent
Content = str | list[ContentPart]


class FunctionCall(_Wire):
    name: str
    arguments: str = ""  # a JSON string, as the model wrote it


class CustomCall(_Wire):
    name: str
    input: str = ""  # free text, as a custom tool takes it


class ToolCall(_Wire):
    id: str
    type: str = "function"  # `custom` calls carry `custom` instead of `function`
    function: FunctionCall | None = None
    custom: CustomCall | None = None


class SystemMessage(_Wire, tag_field="role", tag="system"):
    role: ClassVar[str] = "system"
    content: Content
    name: str | None = None


class DeveloperMessage(SystemMessage, tag="developer"):
    """Read as a system message; only its label differs (convert.LABELS)."""

    role: ClassVar[str] = "developer"


class UserMessage(_Wire, tag_field="role", tag="user"):
    content: Content
    name: str | None = None


class AssistantMessage(_Wire, tag_field="role", tag="assistant"):
    content: Content | None = None
    refusal: str | None = None
    tool_calls: list[ToolCall] | None = None
    function_call: FunctionCall | None = None  # the legacy single call
    name: str | None = None
    # Ignored, as by the exact path: the keys of the bridge's own answer (chunks.py) that a
    # client sends back with the message. Typed so that their depth needs no check: other
    # values (annotations listed) are left to the exact path.
    annotations: Annotated[list[Any], Meta(max_length=0)] | None = None
    reasoning_content: str | None = None


class ToolMessage(_Wire, tag_field="role", tag="tool"):
    content: Content
    tool_call_id: str


class FunctionMessage(_Wire, tag_field="role", tag="function"):
    """The legacy result of a `function_call`, paired by name only."""

    name: str
    content: str | None = None


Message = (
    SystemMessage
    | DeveloperMessage
    | UserMessage
    | AssistantMessage
    | ToolMessage
    | FunctionMessage
)


class StreamOptions(_Wire):
    include_usage: bool | None = None


PositiveInt = Annotated[int, Meta(ge=1)]
# Keys the dialect accepts and ignores (options.py logs them at debug).
IGNORED_KEYS = (
    "seed",
    "user",
    "metadata",
    "store",
    "logit_bias",
    "service_tier",
    "prediction",
    "verbosity",
    "prompt_cache_key",
    "prompt_cache_retention",
    "safety_identifier",
    "web_search_options",
    "top_k",
)


class CompletionRequest(_Wire):
    model: Annotated[str, Meta(min_length=1)]
    messages: Annotated[list[Message], Meta(min_length=1)]
    stream: bool | None = None
    stream_options: StreamOptions | None = None
    max_tokens: PositiveInt | None = None
    max_completion_tokens: PositiveInt | None = None
    temperature: Annotated[float, Meta(ge=0, le=2)] | None = None
    top_p: Annotated[float, Meta(ge=0, le=1)] | None = None
    reasoning_effort: str | None = None
    frequency_penalty: Annotated[float, Meta(ge=-2, le=2)] | None = None
    presence_penalty: Annotated[float, Meta(ge=-2, le=2)] | None = None
    stop: str | list[str] | None = None
    tools: list[Any] | None = None
    tool_choice: str | dict[str, Any] | None = None
    parallel_tool_calls: bool | None = None
    response_format: dict[str, Any] | None = None
    # Asked for, but the bridge cannot give them: options.py answers a 400 naming each.
    n: int | None = None
    logprobs: bool | None = None
    top_logprobs: int | None = None
    audio: Any = None
    modalities: list[str] | None = None
    functions: Any = None
    function_call: Any = None
    # Accepted and ignored (IGNORED_KEYS): declared only so that the fast path reads them.
    seed: Any = None
    user: Any = None
    metadata: Any = None
    store: Any = None
    logit_bias: Any = None
    service_tier: Any = None
    prediction: Any = None
    verbosity: Any = None
    prompt_cache_key: Any = None
    prompt_cache_retention: Any = None
    safety_identifier: Any = None
    web_search_options: Any = None
    top_k: Any = None

    # The free-form values, one level below the body: their depth is checked on the fast path.
    FREE_FORM: ClassVar[tuple[str, ...]] = (
        "tools",
        "tool_choice",
        "response_format",
        "audio",
        "functions",
        "function_call",
        *IGNORED_KEYS,
    )


TYPED: TypedBody[CompletionRequest] = TypedBody(CompletionRequest)
# How deep the typed part of a body nests (body, messages, message, content, part, image_url,
# url): with a smaller `limits.maxJsonDepth` the fast path steps aside.
TYPED_DEPTH = 7
