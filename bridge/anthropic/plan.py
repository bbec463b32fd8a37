"""What a Messages request becomes before the editor is asked: the plan both sides share.

The request side (wire models and conversion) builds it with `parse_messages_request` and
`plan_messages`; the answer side (events, stream, routes) reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from bridge.anthropic.convert import editor_messages
from bridge.anthropic.options import (
    log_ignored,
    model_options,
    thinking_omitted,
    thinking_shown,
)
from bridge.anthropic.output_format import requested_format
from bridge.anthropic.protocol import MessagesRequest
from bridge.anthropic.tools import plan_tools
from bridge.core.backend import ChatMessage, ChatRequest, ModelInfo, TextPart
from bridge.core.errors import ApiError, invalid_request
from bridge.core.structured_output import OutputFormat

JUSTIFICATION = "A Messages API client (such as Claude Code) asked Maestro Bridge for this answer."


@dataclass
class MessagesPlan:
    chat: ChatRequest  # what the editor is asked
    model: str  # the name the client asked for, echoed in the answer's `model`
    stream: bool
    stop_sequences: list[str] = field(default_factory=list)  # cut by the bridge
    thinking: bool = False  # thinking parts become `thinking` blocks (else they are dropped)
    # `thinking.display: "omitted"` (Claude Code): the blocks come with empty `thinking` text.
    thinking_omitted: bool = False
    input_tokens: int | None = None  # counted by the editor before sending, when it was
    # JSON the client asked for (`output_config.format`); `checked_format` adds its checker.
    output_format: OutputFormat | None = None


def parse_messages_request(body: Any) -> MessagesRequest:
    """Validate a decoded JSON body; raises ApiError (400) naming the offending param."""
    if not isinstance(body, dict):
        raise invalid_request("The request body must be a JSON object.", code="invalid_json")
    for required in ("model", "messages", "max_tokens"):
        if body.get(required) is None:
            raise invalid_request(
                f"Missing required parameter: `{required}`.",
                param=required,
                code="missing_required_parameter",
            )
    try:
        request = MessagesRequest.model_validate(body)
    except ValidationError as exc:
        raise _validation_error(body, exc) from None
    log_ignored(body)
    return request


def plan_messages(request: MessagesRequest, model: ModelInfo) -> MessagesPlan:
    """Everything decided before the editor is asked (pure; raises ApiError 400 on bad input)."""
    tools = plan_tools(request.tools, request.tool_choice)
    fmt = requested_format(request)
    messages = editor_messages(request)
    if not messages:
        raise invalid_request(
            "The messages hold nothing the model can read.",
            param="messages",
            code="invalid_value",
        )
    options = model_options(request)
    if fmt is not None:
        options["responseFormat"] = fmt.model_option()
        # First, with the other system text: the last message stays the client's.
        messages.insert(0, ChatMessage(role="user", content=[TextPart(value=fmt.instruction())]))
    chat = ChatRequest(
        model=model.id,
        messages=messages,
        tools=tools.tools,
        toolMode=tools.mode,
        modelOptions=options,
        justification=JUSTIFICATION,
    )
    return MessagesPlan(
        chat=chat,
        model=request.model,
        stream=bool(request.stream),
        stop_sequences=list(request.stop_sequences or []),
        thinking=thinking_shown(request),
        thinking_omitted=thinking_omitted(request),
        output_format=fmt,
    )


def _param_path(body: Any, loc: tuple[int | str, ...], missing: bool) -> str:
    """The JSON path of an error, e.g. `messages[3].content[0].id`.

    Pydantic's locations also name union branches and block tags; walking the body keeps
    only the steps that exist in it, plus the missing field itself.
    """
    path, current = "", body
    for position, step in enumerate(loc):
        if isinstance(current, list) and isinstance(step, int) and 0 <= step < len(current):
            path, current = f"{path}[{step}]", current[step]
        elif isinstance(current, dict) and isinstance(step, str) and step in current:
            path, current = f"{path}.{step}" if path else step, current[step]
        elif missing and position == len(loc) - 1 and isinstance(step, str):
            path = f"{path}.{step}" if path else step
    return path


def _validation_error(body: Any, exc: ValidationError) -> ApiError:
    # Unions report one error per branch; the most specific (longest) location explains best.
    first = max(exc.errors(), key=lambda err: len(err["loc"]))
    param = _param_path(body, tuple(first["loc"]), first["type"] == "missing")
    return invalid_request(
        f"Invalid value for `{param}`: {first['msg'].removeprefix('Value error, ')}.",
        param=param or None,
        code="invalid_value",
    )
