"""The `POST /v1/responses` body as msgspec Structs: what the conversion reads, decoded in one pass.

The same fields, with the same meaning, as the pydantic models of request.py (which stay the
exact path: they phrase every 400); items are told apart by their `type` tag. Items that carry
nothing for the editor (reasoning, hosted tool calls...) have a Struct each, so the histories
Codex sends decode here too; an item of a type not listed here goes to the exact path, which
keeps it as a `SkippedItem`.

Every Struct refuses a field it does not declare: a decode that succeeds has then read every
value of the body into a declared type, so the body's depth is bounded by those types
(`TYPED_DEPTH`) plus the free-form fields that body.py checks, with no pass over the bytes. The
fields clients are known to send and the bridge does not use (`UNREAD`: item ids, statuses,
annotations...) are declared for that reason alone. A body with any other key takes the
fallback of body.py: decoded to dicts, those keys dropped (known_keys.py), then converted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Union, cast

import msgspec
from msgspec import Struct

from bridge.responses import request as exact

# Every Struct here is `gc=False`: a long history is thousands of them, and the garbage
# collector, tracking each, ran during the decode (half its time). They hold only values the
# body decoded to (never themselves, nor anything that refers back), so they make no cycle.


class _Strict(Struct, kw_only=True, gc=False, forbid_unknown_fields=True):
    pass


class TopLogprob(_Strict):
    token: str
    logprob: float
    bytes: list[int] | None = None


class Logprob(TopLogprob):
    top_logprobs: list[TopLogprob] | None = None


# An output text's citation (url, file, container file, file path): scalars only.
Annotation = dict[str, str | int | float | bool | None]


class ContentPart(_Strict):
    """One part of a message or tool output: text, image or file (the kind is in `type`)."""

    type: str
    text: str | None = None
    refusal: str | None = None
    image_url: str | None = None
    file_id: str | None = None
    filename: str | None = None
    file_url: str | None = None
    file_data: str | None = None
    encrypted_content: str | None = None
    # Sent back by clients, unread: an image's `detail`, an output text's extras.
    detail: str | None = None
    annotations: list[Annotation] | None = None
    logprobs: list[Logprob] | None = None


Content = str | list[ContentPart]
Role = Literal["user", "assistant", "system", "developer"]


class _Item(_Strict, tag_field="type"):
    # Items that were once output come back with their id and status: unread here.
    id: str | None = None
    status: str | None = None


# `kw_only` on each item as well: the type checker reads it per class, and the fields above
# have defaults.
class MessageItem(_Item, tag="message", kw_only=True):
    role: Role
    content: Content


class FunctionCallItem(_Item, tag="function_call", kw_only=True):
    call_id: str
    name: str
    arguments: str = ""
    namespace: str | None = None


class FunctionCallOutputItem(_Item, tag="function_call_output", kw_only=True):
    call_id: str
    output: Content


class CustomToolCallItem(_Item, tag="custom_tool_call", kw_only=True):
    call_id: str
    name: str
    input: str = ""
    namespace: str | None = None


class CustomToolCallOutputItem(_Item, tag="custom_tool_call_output", kw_only=True):
    call_id: str
    output: Content


class CompactionItem(_Item, tag="compaction", kw_only=True):
    """Its `encrypted_content` must decode (`compaction_codec`); the fast path checks it."""

    encrypted_content: str


class AgentMessageItem(_Item, tag="agent_message", kw_only=True):
    content: Content | None = None
    author: str | None = None
    recipient: str | None = None


class AdditionalToolsItem(_Item, tag="additional_tools", kw_only=True):
    tools: list[dict[str, Any]] = msgspec.field(default_factory=list)


class ToolSearchCallItem(_Item, tag="tool_search_call", kw_only=True):
    call_id: str | None = None
    arguments: Any = None
    execution: str | None = None


class ToolSearchOutputItem(_Item, tag="tool_search_output", kw_only=True):
    call_id: str | None = None
    execution: str | None = None
    tools: list[dict[str, Any]] = msgspec.field(default_factory=list)


class SkippedItem(_Item):
    """An item the editor cannot use. Untagged: the exact path's items of a type no Struct
    names; the tagged subclasses below are the types clients are known to send."""

    item_type: str = ""  # for the log line only


class ReasoningText(_Strict):
    type: str
    text: str


class ReasoningItem(SkippedItem, tag="reasoning"):
    """Codex sends its reasoning back with every turn: its fields are declared (unread)."""

    summary: list[ReasoningText] | None = None
    content: list[ReasoningText] | None = None
    encrypted_content: str | None = None


# Output items clients send back in their history (Codex: reasoning; others: hosted tools').
SKIPPED_TYPES = (
    "web_search_call",
    "file_search_call",
    "computer_call",
    "computer_call_output",
    "code_interpreter_call",
    "image_generation_call",
    "local_shell_call",
    "local_shell_call_output",
    "shell_call",
    "shell_call_output",
    "apply_patch_call",
    "apply_patch_call_output",
    "mcp_call",
    "mcp_list_tools",
    "mcp_approval_request",
    "mcp_approval_response",
    "ghost_snapshot",
    "compaction_summary",
)
SKIPPED_CLASSES: dict[str, type[SkippedItem]] = {
    "reasoning": ReasoningItem,
    **{
        kind: cast(
            "type[SkippedItem]",
            msgspec.defstruct(f"Skipped_{kind}", [], bases=(SkippedItem,), tag=kind),
        )
        for kind in SKIPPED_TYPES
    },
}

_TYPED: tuple[type[_Item], ...] = (
    MessageItem,
    FunctionCallItem,
    FunctionCallOutputItem,
    CustomToolCallItem,
    CustomToolCallOutputItem,
    CompactionItem,
    AgentMessageItem,
    AdditionalToolsItem,
    ToolSearchCallItem,
    ToolSearchOutputItem,
)
BY_TAG: dict[str, type[_Item]] = {
    **{str(cls.__struct_config__.tag): cls for cls in _TYPED},
    **SKIPPED_CLASSES,
}

if TYPE_CHECKING:
    InputItem = (
        MessageItem
        | FunctionCallItem
        | FunctionCallOutputItem
        | CustomToolCallItem
        | CustomToolCallOutputItem
        | CompactionItem
        | AgentMessageItem
        | AdditionalToolsItem
        | ToolSearchCallItem
        | ToolSearchOutputItem
        | SkippedItem
    )
else:
    InputItem = Union[(*_TYPED, *SKIPPED_CLASSES.values())]


class ReasoningParam(_Strict):
    effort: str | None = None
    summary: str | None = None


class CreateBody(_Strict):
    """CreateResponseRequest's fields, plus the ones today's checks reject (state, background),
    so the fast path can see them and leave such a body to the exact path."""

    model: str
    input: str | list[InputItem] | None = None
    instructions: str | None = None
    tools: list[dict[str, Any]] | None = None
    tool_choice: str | dict[str, Any] | None = None
    stream: bool | None = False
    temperature: float | None = None
    top_p: float | None = None
    max_output_tokens: int | None = None
    max_tool_calls: int | None = None
    reasoning: ReasoningParam | None = None
    text: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    parallel_tool_calls: bool | None = None
    truncation: Literal["auto", "disabled"] | None = None
    store: bool | None = None
    prompt_cache_key: str | None = None
    safety_identifier: str | None = None
    user: str | None = None
    # Sent by Codex and the Agents SDK, unread here.
    include: list[str] | None = None
    client_metadata: dict[str, str] | None = None
    service_tier: str | None = None
    prompt_cache_retention: str | None = None
    # Never set on a body the conversion reads: a value here sends the body to the exact path.
    previous_response_id: Any = None
    conversation: Any = None
    background: bool | None = None


class TypelessMessage(_Strict):
    """A message sent without `type` (the SDKs' `{"role", "content"}`): read as a message."""

    role: Role
    content: Content
    type: msgspec.UnsetType = msgspec.UNSET  # any `type` at all: not this shape


# The fields above that are declared only so that a decode refuses what it does not know: the
# conversion never reads them, and the exact path's models do not keep them.
UNREAD = frozenset(
    (
        "id",
        "status",
        "detail",
        "annotations",
        "logprobs",
        "include",
        "client_metadata",
        "service_tier",
        "prompt_cache_retention",
    )
)
# How deep the declared types nest (body, input, item, content, part, logprobs, logprob,
# top_logprobs, its entry, bytes): with a smaller `limits.maxJsonDepth`, body.py checks the
# bytes. Free-form fields (tools, metadata...) are checked apart.
TYPED_DEPTH = 10

AnyRequest = CreateBody | exact.CreateResponseRequest


def _item_from_validated(item: Any) -> InputItem:
    cls = BY_TAG.get(item.type)
    if cls is None:
        return SkippedItem(item_type=str(item.type))
    try:
        return cast("InputItem", msgspec.convert(item, cls, from_attributes=True))
    except msgspec.ValidationError:
        # A skipped item keeps what the client sent as it came: fields of other shapes than
        # its Struct declares. It is skipped all the same.
        if not issubclass(cls, SkippedItem):
            raise
        return cls()


def from_validated(request: exact.CreateResponseRequest) -> CreateBody:
    """The exact path's result as the Structs the conversion reads (the same data).

    Read attribute by attribute in one pass (the models share the field names); an item of a
    type no Struct names fails that pass, and then the items are read one by one."""
    try:
        return msgspec.convert(request, CreateBody, from_attributes=True)
    except msgspec.ValidationError:
        pass
    body = msgspec.convert(
        request.model_copy(update={"input": []}), CreateBody, from_attributes=True
    )
    if isinstance(request.input, list):
        body.input = [_item_from_validated(item) for item in request.input]
    else:
        body.input = request.input
    return body


def as_body(request: AnyRequest) -> CreateBody:
    """Either path's request as Structs: the one shape every conversion reads."""
    if isinstance(request, CreateBody):
        return request
    return from_validated(request)
