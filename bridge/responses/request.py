"""The `POST /v1/responses` body as typed models, and the checks that turn bad input into 400s.

Everything is permissive where clients differ (unknown fields on the request and on items are
ignored; messages may come without `type`) and strict where the bridge cannot help (state it
does not keep).
"""

from __future__ import annotations

import logging
from functools import cached_property
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
)

from bridge.core.errors import invalid_request
from bridge.core.validation_errors import json_object, validated
from bridge.responses.compaction_codec import CompactionDecodeError, decode_summary

log = logging.getLogger(__name__)


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ContentPart(_Lenient):
    """One part of a message or tool output: text, image or file (the kind is in `type`)."""

    type: str
    text: str | None = None
    refusal: str | None = None
    image_url: str | None = None
    file_id: str | None = None
    filename: str | None = None
    file_url: str | None = None
    file_data: str | None = None
    encrypted_content: str | None = None  # Codex's agent messages: plain text in practice


# Left to right, not pydantic's "smart" default: the two kinds cannot both fit, and smart mode
# validates a list twice (strict, then lax): a third of a long history's validation.
Content = Annotated[str | list[ContentPart], Field(union_mode="left_to_right")]


class MessageItem(_Lenient):
    type: Literal["message"] = "message"
    role: Literal["user", "assistant", "system", "developer"]
    content: Content


class FunctionCallItem(_Lenient):
    type: Literal["function_call"]
    call_id: str
    name: str
    arguments: str = ""
    namespace: str | None = None


class FunctionCallOutputItem(_Lenient):
    type: Literal["function_call_output"]
    call_id: str
    output: Content


class CustomToolCallItem(_Lenient):
    type: Literal["custom_tool_call"]
    call_id: str
    name: str
    input: str = ""
    namespace: str | None = None


class CustomToolCallOutputItem(_Lenient):
    type: Literal["custom_tool_call_output"]
    call_id: str
    output: Content


class CompactionItem(_Lenient):
    """A `/v1/responses/compact` result: its summary is read back into the context."""

    type: Literal["compaction"]
    encrypted_content: str
    id: str | None = None

    @field_validator("encrypted_content")
    @classmethod
    def _readable(cls, value: str) -> str:
        try:
            decode_summary(value)
        except CompactionDecodeError as exc:
            raise ValueError(str(exc)) from None
        return value

    @cached_property
    def summary(self) -> str:
        return decode_summary(self.encrypted_content)


class AgentMessageItem(_Lenient):
    """A message between Codex agents (multi-agent mode): a task for a child, or its answer."""

    type: Literal["agent_message"]
    # Absent from a notification that carries no text (it still says who wrote to whom).
    content: Content | None = None
    author: str | None = None
    recipient: str | None = None


class AdditionalToolsItem(_Lenient):
    """Tools offered from this point of the conversation on (Codex sends them in `input`)."""

    type: Literal["additional_tools"]
    tools: list[dict[str, Any]] = Field(default_factory=list)


class ToolSearchCallItem(_Lenient):
    """The model's call of a tool search: `execution: "client"` ones the client ran."""

    type: Literal["tool_search_call"]
    call_id: str | None = None
    arguments: Any = None
    execution: str | None = None


class ToolSearchOutputItem(_Lenient):
    """What a tool search found: the definitions of the tools it loaded."""

    type: Literal["tool_search_output"]
    call_id: str | None = None
    execution: str | None = None
    tools: list[dict[str, Any]] = Field(default_factory=list)


class SkippedItem(_Lenient):
    """Items that carry nothing the editor can use (reasoning) or that we do not know."""

    model_config = ConfigDict(extra="allow")
    type: str


_KNOWN = {
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "compaction",
    "agent_message",
    "additional_tools",
    "tool_search_call",
    "tool_search_output",
}


def _item_kind(raw: Any) -> str:
    if isinstance(raw, dict):
        kind = raw.get("type")
        if kind is None and "role" in raw:
            return "message"  # the SDKs send `{"role", "content"}` with no type
        if isinstance(kind, str) and kind in _KNOWN:  # a list or object is no item type
            return kind
    elif isinstance(raw, BaseModel):
        return str(getattr(raw, "type", "skipped"))
    return "skipped"


InputItem = Annotated[
    Annotated[MessageItem, Tag("message")]
    | Annotated[FunctionCallItem, Tag("function_call")]
    | Annotated[FunctionCallOutputItem, Tag("function_call_output")]
    | Annotated[CustomToolCallItem, Tag("custom_tool_call")]
    | Annotated[CustomToolCallOutputItem, Tag("custom_tool_call_output")]
    | Annotated[CompactionItem, Tag("compaction")]
    | Annotated[AgentMessageItem, Tag("agent_message")]
    | Annotated[AdditionalToolsItem, Tag("additional_tools")]
    | Annotated[ToolSearchCallItem, Tag("tool_search_call")]
    | Annotated[ToolSearchOutputItem, Tag("tool_search_output")]
    | Annotated[SkippedItem, Tag("skipped")],
    Discriminator(_item_kind),
]


class ReasoningParam(_Lenient):
    effort: str | None = None
    summary: str | None = None


class CreateResponseRequest(_Lenient):
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)  # NaN is not JSON
    model: str
    input: Annotated[str | list[InputItem], Field(union_mode="left_to_right")]
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


_STATELESS_HINT = (
    "Maestro Bridge is stateless: it keeps no responses or conversations. "
    "Send the full conversation history in the `input` array instead."
)
_WEBSOCKET_HINT = (
    " Or use WebSocket mode (`GET /v1/responses` with a WebSocket upgrade), where "
    "`previous_response_id` can name the last response of the same connection."
)


def _reject_state_and_odd_items(body: dict[str, Any]) -> None:
    """The checks pydantic cannot phrase well: state we do not keep, items that are not objects."""
    for param in ("previous_response_id", "conversation"):
        if body.get(param) is not None:
            over_http = param == "previous_response_id"
            raise invalid_request(
                f"`{param}` is not supported{' over HTTP' if over_http else ''}. "
                f"{_STATELESS_HINT}{_WEBSOCKET_HINT if over_http else ''}",
                param=param,
                code="unsupported_parameter",
            )
    if body.get("background") is True:
        raise invalid_request(
            "`background` responses are not supported: Maestro Bridge keeps no responses to "
            "poll or cancel. Use `stream: true` to receive a long answer as it is written.",
            param="background",
            code="unsupported_parameter",
        )
    items = body.get("input")
    if isinstance(items, list):
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                raise invalid_request(
                    f"`input[{index}]` must be an object (a message or another input item).",
                    param=f"input[{index}]",
                    code="invalid_value",
                )
            if item.get("type") == "item_reference":
                raise invalid_request(
                    f"`item_reference` input items are not supported. {_STATELESS_HINT}",
                    param=f"input[{index}]",
                    code="unsupported_parameter",
                )


def parse_create_request(body: Any) -> CreateResponseRequest:
    """Validate a decoded JSON body; raises ApiError (400) naming the offending param."""
    body = json_object(body)
    _reject_state_and_odd_items(body)
    if not body.get("model"):
        raise invalid_request(
            "Missing required parameter: `model`.", param="model", code="missing_required_parameter"
        )
    if body.get("input") is None:
        if not body.get("instructions"):
            raise invalid_request(
                "Missing required parameter: `input` (or `instructions`).",
                param="input",
                code="missing_required_parameter",
            )
        body = {**body, "input": []}  # instructions alone are a whole request
    return validated(body, CreateResponseRequest)
